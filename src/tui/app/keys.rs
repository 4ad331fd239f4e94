//! Keys and the mouse: the editor and the focused pane take their keys
//! first; what they pass up is an [`Action`] the app carries out.

use super::*;

impl App {
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if let Some(popup) = self.popup.take() {
            return self.on_popup_key(popup, key);
        }
        if let Outcome::Taken(effect) = self.request.on_search_key(key.code, self.preview.as_ref())
        {
            return self.apply(effect, Focus::Output);
        }
        if self.focus == Focus::Editor {
            return match self.editor.handle_key(key) {
                EditorEvent::Changed => self.editor_changed(),
                EditorEvent::Leave => {
                    self.focus = Focus::List;
                    if let Some(doc) = self.doc.as_mut() {
                        doc.close_group();
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

    /// Offers an action to the panes that may own it, the compare view
    /// first while it is open; what they pass up the app carries out.
    fn route(&mut self, action: Action) -> Vec<Command> {
        use Action::*;
        let compare_keys = matches!(action, Compare | ComparePair | CompareOther)
            || (self.compare.open
                && (self.focus == Focus::Output
                    || (matches!(action, NextMatch | PrevMatch) && self.request.search.is_none())));
        if compare_keys {
            let compared = self.preview.as_ref().and_then(|p| p.compare.clone());
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
            Action::Settings => {
                let Some(session) = self.session() else {
                    self.status = "no session: nothing to set".into();
                    return Vec::new();
                };
                // The model field shows the session's model when it is for
                // the provider on screen.
                let own =
                    session.formatter().ok().map(|f| f.provider) == Some(self.formatter.provider);
                let mut form = SettingsForm::new(
                    self.formatter.provider,
                    session.model().filter(|_| own),
                    session.max_tokens(),
                    session.token_counter(),
                    session.settings.get("request"),
                    &session.settings,
                );
                if let Some(last) = form.values.last_mut() {
                    *last = self.confirm_send_at.to_string();
                }
                self.popup = Some(Popup::Settings(Box::new(form)));
            }
            Action::NextPane | Action::PrevPane => {
                let order = [Focus::List, Focus::Editor, Focus::Output];
                let i = order.iter().position(|f| *f == self.focus).unwrap_or(0);
                let step = if action == Action::NextPane { 1 } else { 2 };
                self.focus = order[(i + step) % 3];
                if self.focus == Focus::Editor && self.editor.for_index.is_none() {
                    self.load_editor();
                }
            }
            Action::Provider(i) => {
                let mode = self.formatter.mode;
                return self.set_formatter(FormatterId::new(Provider::ALL[i], mode));
            }
            Action::ToggleMode if self.release != 0 => {
                let modes = self.reference().modes();
                let at = modes.iter().position(|m| *m == self.release_mode);
                self.release_mode = modes[at.map_or(0, |i| (i + 1) % modes.len())];
                if let Some(mode) = self.release_mode.formatter_mode() {
                    self.formatter.mode = mode;
                }
                self.status = self.release_call().unwrap_or_default();
                return self.reformat();
            }
            // In the compare view, V compares the two versions instead.
            Action::ToggleReference if self.compare.open => {
                self.compare.pair = Pair::Versions;
                self.compare.release = self.release;
                self.compare.scroll = 0;
                let other =
                    crate::reference::ALL[self.release.max(1) % crate::reference::ALL.len()];
                self.status = format!(
                    "compare: {} / {}",
                    crate::reference::default().title(),
                    other.version()
                );
                return self.reformat();
            }
            Action::ToggleReference => {
                let next = crate::reference::next(self.reference());
                self.release = crate::reference::ALL
                    .iter()
                    .position(|r| r.version() == next.version())
                    .unwrap_or(0);
                self.release_mode = self.formatter.mode.into();
                let modes: Vec<&str> = next.modes().iter().map(|m| m.name()).collect();
                self.status = match self.release_call() {
                    Some(call) => format!("{call} (m: {}; V: next release)", modes.join(", ")),
                    None => next.title(),
                };
                return self.reformat();
            }
            Action::ToggleMode => {
                let mode = match self.formatter.mode {
                    Mode::Chat => Mode::MultiAgent,
                    Mode::MultiAgent => Mode::Chat,
                };
                return self.set_formatter(FormatterId::new(self.formatter.provider, mode));
            }
            Action::PickFormatter => {
                let i = FormatterId::all()
                    .position(|f| f == self.formatter)
                    .unwrap_or(0);
                self.popup = Some(Popup::Formatter(i));
            }
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => self.navigate(action),
            Action::Edit | Action::EditText => {
                // A draft of this message is picked up where it was left.
                let draft_here =
                    self.editor.has_draft() && self.editor.for_index == Some(self.list.selected);
                if !draft_here {
                    self.editor.text_mode = action == Action::EditText;
                    self.load_editor();
                }
                self.focus = Focus::Editor;
            }
            Action::Save => return self.save(AfterSave::Stay),
            Action::AddMessage => {
                let m = serde_json::json!({"name": "user", "role": "user", "content": [{"type": "text", "text": ""}]});
                let at = (self.list.selected + 1).min(self.messages().len());
                return self.edit(at, 0, vec![m], at, None);
            }
            Action::Duplicate => {
                let i = self.list.selected;
                let Some(m) = self.messages().get(i).map(Message::value) else {
                    return Vec::new();
                };
                return self.edit(i + 1, 0, vec![m], i + 1, None);
            }
            Action::Delete => {
                let i = self.list.selected;
                let Some(m) = self.messages().get(i).map(Message::value) else {
                    return Vec::new();
                };
                let who = describe(&m);
                let next = i.min(self.messages().len().saturating_sub(2));
                let cmds = self.edit(i, 1, Vec::new(), next, None);
                if !cmds.is_empty() {
                    self.status = format!("deleted message #{i} ({who}) · u undoes it");
                }
                return cmds;
            }
            Action::MoveUp | Action::MoveDown => {
                let i = self.list.selected;
                let j = if action == Action::MoveUp {
                    i.checked_sub(1)
                } else {
                    Some(i + 1)
                };
                let Some(j) = j.filter(|j| *j < self.messages().len()) else {
                    return Vec::new();
                };
                let (lo, hi) = (i.min(j), i.max(j));
                let pair = vec![self.messages()[hi].value(), self.messages()[lo].value()];
                return self.edit(lo, 2, pair, j, None);
            }
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
            Action::Export => {
                let (session, settings) = match self.wire_settings() {
                    Ok(x) => x,
                    Err(e) => {
                        self.status = format!("not exported: {e}");
                        return Vec::new();
                    }
                };
                let Some(path) = self.path().cloned() else {
                    self.status = "no session to export".into();
                    return Vec::new();
                };
                self.status = "exporting…".into();
                return vec![Command::Export {
                    path,
                    session: Box::new(session),
                    formatter: self.formatter,
                    settings: Box::new(settings),
                }];
            }
            Action::Send => {
                return self.send_or_ask(vec![self.formatter.provider]);
            }
            Action::SendMany => {
                if self.sending() {
                    self.status = "a send is in flight: Esc cancels it".into();
                    return Vec::new();
                }
                let mut chosen = [false; 6];
                if let Some(i) = Provider::ALL
                    .iter()
                    .position(|p| *p == self.formatter.provider)
                {
                    chosen[i] = true;
                }
                self.popup = Some(Popup::SendTo { cursor: 0, chosen });
            }
            Action::RemoteCount => {
                let provider = self.formatter.provider;
                if !crate::net::has_token_counter(provider) {
                    self.status = format!(
                        "{provider} has no token-counting endpoint (Anthropic and Gemini have)"
                    );
                    return Vec::new();
                }
                let (session, settings) = match self.wire_settings() {
                    Ok(x) => x,
                    Err(e) => {
                        self.status = format!("no remote count: {e}");
                        return Vec::new();
                    }
                };
                let generation = self
                    .preview
                    .as_ref()
                    .map_or(self.generation, |p| p.generation);
                self.status = format!("asking {provider} to count the request…");
                return vec![Command::RemoteCount(Box::new(crate::tui::msg::SendJob {
                    id: generation,
                    session: Box::new(session),
                    formatter: self.formatter,
                    settings: Box::new(settings),
                    allowed_hosts: self.consent.send_hosts(),
                }))];
            }
            Action::CancelSend => {
                let ids: Vec<u64> = self
                    .replies
                    .iter()
                    .filter(|r| r.in_flight())
                    .map(|r| r.id)
                    .collect();
                if !ids.is_empty() {
                    self.status = "cancelling…".into();
                    return ids.into_iter().map(Command::CancelSend).collect();
                }
            }
            Action::AppendReply => {
                // The reply of the provider on screen, else the first done.
                let on_screen = self
                    .replies
                    .iter()
                    .find(|r| r.provider == Some(self.formatter.provider))
                    .and_then(|r| r.final_reply());
                let Some(reply) = on_screen
                    .or_else(|| self.replies.iter().find_map(|r| r.final_reply()))
                    .cloned()
                else {
                    self.status = "no finished reply to append (S sends)".into();
                    return Vec::new();
                };
                let name =
                    crate::response::reply_speaker(self.messages().iter().map(Message::value));
                let message = reply.to_message(&name);
                let at = self.messages().len();
                let cmds = self.edit(at, 0, vec![message], at, None);
                if !cmds.is_empty() || self.messages().len() > at {
                    self.status = format!(
                        "appended the reply as message #{at} ({name}) · u undoes it · C-s saves"
                    );
                }
                return cmds;
            }
            Action::Explain => {
                self.request.explain = !self.request.explain;
                // The explain panel and the lint panel share a place.
                if self.request.explain {
                    self.lint.open = false;
                }
                self.status = if self.request.explain {
                    "explain: the rule behind each line at the right, the rules that fired below (w closes)".into()
                } else {
                    "explain closed".into()
                };
                return self.reformat();
            }
            Action::ToggleLint => {
                if !self.lint.open {
                    self.request.explain = false;
                }
                self.lint.open = !self.lint.open;
                self.status = if self.lint.open {
                    "lint: findings for the request on screen (L closes)".into()
                } else {
                    "lint panel closed".into()
                };
                return self.reformat();
            }
            Action::NextFile | Action::PrevFile => {
                let n = self.files.len();
                if n == 0 || (n == 1 && self.position() == Some(0)) {
                    return Vec::new();
                }
                let target = match self.position() {
                    Some(i) if action == Action::NextFile => (i + 1) % n,
                    Some(i) => (i + n - 1) % n,
                    // The open file is gone from the folder: its neighbours.
                    None => {
                        let here = self.path().cloned().unwrap_or_default();
                        let after = self.files.iter().position(|f| *f > here).unwrap_or(0);
                        if action == Action::NextFile {
                            after
                        } else {
                            (after + n - 1) % n
                        }
                    }
                };
                if self.unsaved() {
                    self.popup = Some(Popup::Unsaved(Pending::Open(target)));
                    return Vec::new();
                }
                if let Some(p) = self.files.get(target).cloned() {
                    return self.open(p);
                }
            }
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
