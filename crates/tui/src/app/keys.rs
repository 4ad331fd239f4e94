//! Keys and the mouse: the editor and the focused pane take their keys
//! first; what they pass up is an [`Action`] the app carries out.

use super::*;

/// What the request pane reads to take a key, borrowing the preview alone
/// (the pane itself is borrowed mutably beside it).
macro_rules! request_context {
    ($app:expr) => {{
        let (page, area) = ($app.request_page(), $app.request_area());
        RequestContext {
            preview: $app.preview.as_ref(),
            page,
            area,
        }
    }};
}

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        // A popup takes every key; the questions pass theirs up.
        if let Some(popup) = self.popup.as_mut() {
            return match popup.handle(Key::new(key, None), ()) {
                Outcome::Taken(effect) => self.apply(effect, self.focus),
                Outcome::Pass => match self.popup.take() {
                    Some(popup) => self.on_popup_key(popup, key),
                    None => Vec::new(),
                },
            };
        }
        // The picker opens from anywhere, the editor included.
        if keymap::action_for(&key, Scope::Anywhere) == Some(Action::FindSession) {
            return self.open_picker();
        }
        // A search being typed takes every key.
        if self.request.search_input.is_some() {
            let cx = request_context!(self);
            let outcome = self.request.handle(Key::new(key, None), cx);
            return self.carry_out(outcome, Focus::Output);
        }
        if self.focus == Focus::Editor && self.editor.for_index.is_none() {
            return self.on_empty_editor_key(key);
        }
        if self.focus == Focus::Editor {
            return match self.editor.handle(Key::new(key, None), ()) {
                Outcome::Pass => {
                    self.dirty = false;
                    Vec::new()
                }
                outcome => self.carry_out(outcome, Focus::Editor),
            };
        }
        match keymap::action_for(&key, self.scope()) {
            Some(action) => self.route(Key::new(key, Some(action)), action),
            None => {
                self.dirty = false;
                Vec::new()
            }
        }
    }

    /// A key in the editor while it holds no message (no session, a file
    /// that does not parse, no messages): nothing typed could be kept, so
    /// nothing is typed; the keys that leave, save and quit still do.
    fn on_empty_editor_key(&mut self, key: KeyEvent) -> Vec<Command> {
        match keymap::action_for(&key, Scope::Editor) {
            Some(Action::LeaveEditor) => self.focus = Focus::List,
            Some(Action::Save) => return self.save(AfterSave::Stay),
            Some(Action::Quit) => return self.act(Action::Quit),
            _ if key.code == KeyCode::BackTab => self.focus = Focus::List,
            // Nothing to indent: Tab goes on to the next pane.
            _ if key.code == KeyCode::Tab => self.focus = Focus::Output,
            _ => self.status = self.nothing_to_edit(),
        }
        Vec::new()
    }

    /// Why the editor has nothing to edit, and what to do instead.
    pub(super) fn nothing_to_edit(&self) -> String {
        match (&self.unshown, &self.doc) {
            (Some(u), _) if u.text.is_some() => format!(
                "nothing to edit: {} has no good version yet ({}); O opens its text in your editor to fix it",
                self.file_name(),
                u.error
            ),
            (Some(u), _) => format!("nothing to edit: {}", u.error),
            (None, None) => "nothing to edit: no session is open".into(),
            (None, Some(_)) => "no message to edit: a adds one".into(),
        }
    }

    /// Offers a key to the panes that may own its action, through
    /// `Component::handle`: the compare view first while it is open, the
    /// request pane, the list when it has the focus, the lint panel and the
    /// replies; what none takes is the workbench's (`act`).
    fn route(&mut self, key: Key, action: Action) -> Vec<Command> {
        use Action::*;
        let compare_keys = matches!(action, Compare | ComparePair | CompareOther)
            || (self.compare.open
                && (self.focus == Focus::Output
                    || (matches!(action, NextMatch | PrevMatch) && self.request.search.is_none())));
        if compare_keys {
            let compared = self
                .compare
                .shown(self.preview.as_ref().and_then(|p| p.compare.clone()));
            let cx = CompareContext {
                provider: self.formatter.provider,
                compared: compared.as_deref(),
            };
            if let Outcome::Taken(effect) = self.compare.handle(key, cx) {
                return self.apply(effect, Focus::Output);
            }
        }
        let scrolls = matches!(action, Up | Down | PageUp | PageDown | Top | Bottom);
        if !scrolls || self.focus == Focus::Output {
            let cx = request_context!(self);
            if let Outcome::Taken(effect) = self.request.handle(key, cx) {
                // The explain and lint panels share a place.
                if action == Explain && self.request.explain {
                    self.lint.open = false;
                }
                return self.apply(effect, Focus::Output);
            }
        }
        if self.focus == Focus::List {
            let cx = self.list_context();
            let outcome = self.list.handle(key, cx);
            if outcome != Outcome::Pass {
                return self.carry_out(outcome, Focus::List);
            }
        }
        if let Outcome::Taken(effect) = self.lint.handle(key, ()) {
            if self.lint.open {
                self.request.explain = false;
            }
            return self.apply(effect, self.focus);
        }
        if let Outcome::Taken(effect) = self.replies.handle(key, ()) {
            return self.apply(effect, self.focus);
        }
        self.act(action)
    }

    /// The lines a page of the request pane scrolls.
    pub(super) fn request_page(&self) -> usize {
        self.size.1.saturating_sub(12).max(1) as usize
    }

    pub(super) fn act(&mut self, action: Action) -> Vec<Command> {
        match action {
            Action::Quit => {
                if self.unsaved() {
                    self.popup = Some(Popup::Unsaved(Pending::Quit));
                    return Vec::new();
                }
                self.quit = true;
                return vec![Command::Quit];
            }
            Action::Help => self.popup = Some(Popup::Help(0)),
            Action::Settings => return self.open_settings(),
            Action::NextPane | Action::PrevPane => {
                let order = [Focus::List, Focus::Editor, Focus::Output];
                let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
                let step = if action == Action::NextPane { 1 } else { 2 };
                self.focus = order[(i + step) % 3];
                if self.focus == Focus::Editor && self.editor.for_index.is_none() {
                    self.load_editor();
                }
            }
            Action::Provider(i) => return self.pick_provider(i),
            Action::ToggleMode if self.release != 0 => return self.next_release_mode(),
            // In the compare view, V compares the two versions instead.
            Action::ToggleReference if self.compare.open => return self.compare_releases(),
            Action::ToggleReference => return self.next_release(),
            Action::ToggleMode => {
                let mode = match self.formatter.mode {
                    Mode::Chat => Mode::MultiAgent,
                    Mode::MultiAgent => Mode::Chat,
                };
                return self.set_formatter(FormatterId::new(self.formatter.provider, mode));
            }
            Action::PickFormatter => {
                let (family, mode) = (self.family(), self.release_mode);
                let mode = if self.release == 0 {
                    self.formatter.mode.into()
                } else {
                    mode
                };
                let row = super::super::panes::popup::classes(self.release)
                    .iter()
                    .position(|(f, m)| *f == family && *m == mode)
                    .unwrap_or(0);
                self.popup = Some(Popup::Formatter {
                    release: self.release,
                    row,
                });
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => return self.navigate(action),
            Action::Edit | Action::EditText => {
                let i = self.list.selected;
                if self.messages().get(i).is_none() {
                    self.status = self.nothing_to_edit();
                    return Vec::new();
                }
                // A draft of this message is picked up where it was left.
                let draft_here = self.editor.has_draft() && self.editor.for_index == Some(i);
                let before = self.status.clone();
                if !draft_here {
                    self.editor.text_mode = action == Action::EditText;
                    self.load_editor();
                }
                self.focus = Focus::Editor;
                // How to get out again (Tab indents here), after the
                // editor's own note when it had one.
                let what = if self.editor.text_mode {
                    "text"
                } else {
                    "JSON"
                };
                let hint = format!(
                    "editing message #{i} ({what}): Esc or S-Tab leaves (Tab indents) · C-s saves"
                );
                self.status = if self.status != before {
                    format!("{} · {hint}", self.status)
                } else {
                    hint
                };
            }
            Action::Save => return self.save(AfterSave::Stay),
            Action::AddMessage => return self.add_message(),
            Action::Duplicate => return self.duplicate(),
            Action::Delete => return self.delete_selected(),
            Action::MoveUp | Action::MoveDown => return self.move_selected(action),
            // Only bound inside the editor, which handles them itself.
            Action::LeaveEditor | Action::ToggleEditorText => {}
            Action::Undo | Action::Redo => return self.undo_redo(action == Action::Undo),
            // The request pane's and the compare view's own (`route`).
            Action::Search
            | Action::NextMatch
            | Action::PrevMatch
            | Action::ToggleTools
            | Action::Left
            | Action::Right
            | Action::ToggleWrap
            | Action::Copy
            | Action::CycleView
            | Action::ToggleRaw
            | Action::Compare
            | Action::ComparePair
            | Action::CompareOther => {}
            Action::Export => return self.export(),
            Action::Send => {
                return self.send_or_ask(vec![self.formatter.provider]);
            }
            Action::SendMany => return self.pick_providers(),
            Action::RemoteCount => return self.remote_count(),
            Action::AppendReply => return self.append_reply(),
            // The replies', the request pane's and the lint panel's own
            // (`route`).
            Action::CancelSend | Action::Explain | Action::ToggleLint => {}
            Action::History => return self.open_history(),
            Action::NextFile | Action::PrevFile => return self.next_file(action),
            Action::FindSession => return self.open_picker(),
            Action::ExternalEdit => return self.external_edit(),
            // Only bound inside the editor, which handles it itself.
            Action::ToggleEditorWrap => {}
        }
        Vec::new()
    }

    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
        let at = Position::new(mouse.column, mouse.row);
        let pane = if self.areas.list.contains(at) {
            Some(Focus::List)
        } else if self.areas.editor.contains(at) {
            Some(Focus::Editor)
        } else if self.areas.output.contains(at) {
            Some(Focus::Output)
        } else {
            None
        };
        if self.popup.is_some() {
            self.dirty = false;
            return Vec::new();
        }
        match mouse.kind {
            MouseEventKind::Down(_) => {
                if let Some(p) = pane {
                    if p == Focus::List {
                        if let Some(i) =
                            self.list
                                .row_at(self.areas.list, mouse.row, self.messages().len())
                        {
                            if !self.select(i) {
                                return Vec::new();
                            }
                        }
                    }
                    self.focus = p;
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                match pane {
                    Some(Focus::Output) => {
                        let n = self.request.lines(self.preview.as_ref()).len();
                        self.request.wheel(down, n);
                    }
                    Some(Focus::List) => {
                        let saved = self.focus;
                        self.focus = Focus::List;
                        let cmds = self.navigate(if down { Action::Down } else { Action::Up });
                        self.focus = saved;
                        return cmds;
                    }
                    _ => self.dirty = false,
                }
            }
            _ => self.dirty = false,
        }
        Vec::new()
    }
}
