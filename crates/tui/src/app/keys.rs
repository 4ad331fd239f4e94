//! Keys and the mouse: the editor and the focused pane take their keys
//! first; what they pass up is an [`Action`] the app carries out.

use super::*;

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if let Some(popup) = self.popup.take() {
            return self.on_popup_key(popup, key);
        }
        // The picker opens from anywhere, the editor included.
        if keymap::action_for(&key, Scope::Anywhere) == Some(Action::FindSession) {
            return self.open_picker();
        }
        if let Outcome::Taken(effect) = self.request.on_search_key(key.code, self.preview.as_ref())
        {
            return self.apply(effect, Focus::Output);
        }
        if self.focus == Focus::Editor && self.editor.for_index.is_none() {
            return self.on_empty_editor_key(key);
        }
        if self.focus == Focus::Editor {
            return match self.editor.handle_key(key) {
                EditorEvent::Changed => self.editor_changed(),
                EditorEvent::Leave => {
                    self.focus = Focus::List;
                    if let Some(doc) = self.doc.as_mut() {
                        doc.close_group();
                    }
                    if self.editor.has_draft() {
                        self.status = "left the editor: the draft stays there, unsaved (it does not parse yet)".into();
                    }
                    Vec::new()
                }
                EditorEvent::ToggleText => {
                    if self.editor.has_draft() {
                        self.popup = Some(Popup::Draft);
                        return Vec::new();
                    }
                    self.editor.text_mode = !self.editor.text_mode;
                    self.load_editor();
                    Vec::new()
                }
                EditorEvent::Wrapped => {
                    self.status = if self.editor.wraps() {
                        "soft wrap on: long lines wrap (the text is unchanged)"
                    } else {
                        "soft wrap off"
                    }
                    .into();
                    Vec::new()
                }
                EditorEvent::Save => self.save(AfterSave::Stay),
                EditorEvent::Quit => self.act(Action::Quit),
                EditorEvent::None => {
                    self.dirty = false;
                    Vec::new()
                }
            };
        }
        match keymap::action_for(&key, self.scope()) {
            Some(action) => self.route(action),
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

    /// Offers an action to the panes that may own it, the compare view
    /// first while it is open; what they pass up the app carries out.
    fn route(&mut self, action: Action) -> Vec<Command> {
        use Action::*;
        let compare_keys = matches!(action, Compare | ComparePair | CompareOther)
            || (self.compare.open
                && (self.focus == Focus::Output
                    || (matches!(action, NextMatch | PrevMatch) && self.request.search.is_none())));
        if compare_keys {
            let compared = self
                .compare
                .shown(self.preview.as_ref().and_then(|p| p.compare.clone()));
            let outcome = self
                .compare
                .handle(action, self.formatter.provider, compared.as_deref());
            if let Outcome::Taken(effect) = outcome {
                return self.apply(effect, Focus::Output);
            }
        }
        let scrolls = matches!(action, Up | Down | PageUp | PageDown | Top | Bottom);
        if !scrolls || self.focus == Focus::Output {
            let page = self.size.1.saturating_sub(12).max(1) as usize;
            if let Outcome::Taken(effect) = self.request.handle(action, self.preview.as_ref(), page)
            {
                // `G`: the last line at the bottom of the pane, not alone
                // at its top.
                if action == Bottom
                    && (self.request.shown != crate::worker::Shown::Tokens
                        || self.request.show_tools)
                {
                    self.request.scroll = self.last_page();
                }
                return self.apply(effect, Focus::Output);
            }
        }
        self.act(action)
    }

    /// Does what a pane's outcome asks: the status line, the focus (to
    /// `pane`), the clipboard, a new request.
    pub(super) fn apply(&mut self, effect: Effect, pane: Focus) -> Vec<Command> {
        if let Some(status) = effect.status {
            self.status = status;
        }
        if effect.focus {
            self.focus = pane;
        }
        let mut commands: Vec<Command> = effect
            .clipboard
            .into_iter()
            .map(Command::Clipboard)
            .collect();
        if effect.reformat {
            commands.extend(self.reformat());
        }
        commands
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
            | Action::Bottom => self.navigate(action),
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
            Action::CancelSend => return self.cancel_sends(),
            Action::AppendReply => return self.append_reply(),
            Action::Explain => return self.toggle_explain(),
            Action::ToggleLint => return self.toggle_lint(),
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
                        self.navigate(if down { Action::Down } else { Action::Up });
                        self.focus = saved;
                    }
                    _ => self.dirty = false,
                }
            }
            _ => self.dirty = false,
        }
        Vec::new()
    }
}
