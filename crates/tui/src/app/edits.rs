//! Edits to the session and moving through it: each edit is one undoable
//! step of the document, and the list, the editor and the request view
//! follow the selection.

use super::*;

impl App {
    pub(super) fn navigate(&mut self, action: Action) -> Vec<Command> {
        let cx = self.list_context();
        let outcome = self.list.handle(Key::action(action), cx);
        self.carry_out(outcome, Focus::List)
    }

    /// What the list reads to take a key.
    pub(super) fn list_context(&self) -> ListContext {
        ListContext {
            messages: self.messages().len(),
            page: self.size.1.saturating_sub(12).max(1) as usize,
        }
    }

    /// Moves the selection to `i` (unless a draft in the editor would be
    /// left behind: then the user is asked first).
    pub(super) fn select(&mut self, i: usize) -> bool {
        if i == self.list.selected {
            return true;
        }
        if self.leave_draft() {
            return false;
        }
        if let Some(doc) = self.doc.as_mut() {
            doc.close_group();
        }
        self.list.selected = i;
        self.load_editor();
        self.reveal_selection();
        if self.compare.open {
            let compared = self.preview.as_ref().and_then(|p| p.compare.as_deref());
            self.compare.reveal(i, compared);
        }
        true
    }

    /// Whether a draft stops the editor from leaving its message (and the
    /// question was put).
    pub(super) fn leave_draft(&mut self) -> bool {
        if self.editor.has_draft() {
            self.popup = Some(Popup::Draft);
            return true;
        }
        false
    }

    /// The request lines that came from the selected message.
    pub fn selected_lines(&self) -> Option<std::ops::Range<usize>> {
        let p = self.preview.as_ref()?;
        p.spans
            .iter()
            .find(|(msgs, _)| msgs.contains(&self.list.selected))
            .map(|(_, lines)| lines.clone())
    }

    /// Brings the selected message's lines into the request pane, the
    /// pane kept full: its last line never rises above the pane's bottom.
    pub(super) fn reveal_selection(&mut self) {
        if !self.request.show_tools {
            if let Some(lines) = self.selected_lines() {
                let height = self.request_area().height.saturating_sub(2).max(1) as usize;
                self.request.reveal(lines, height);
            }
        }
        self.keep_request_full();
    }

    /// The request pane's frame on screen (as `view::draw` lays it out:
    /// the lint or explain panel, and live replies, take part of the
    /// column).
    pub(super) fn request_area(&self) -> Rect {
        use ratatui::layout::{Constraint, Direction, Layout};
        let split = |area: Rect, top: u16| {
            Layout::default()
                .direction(Direction::Vertical)
                .constraints([
                    Constraint::Percentage(top),
                    Constraint::Percentage(100 - top),
                ])
                .split(area)[0]
        };
        let mut area = self.areas.output;
        if self.lint.open || self.request.explain {
            area = split(area, 60);
        }
        if self.replies.iter().any(|r| r.visible()) {
            area = split(area, 55);
        }
        area
    }

    /// The first line of the request's last page, in its frame on screen.
    pub(super) fn last_page(&self) -> usize {
        self.request
            .last_page(self.preview.as_ref(), self.request_area())
    }

    /// The request pane never scrolled past its last page (an edit that
    /// shortened the request, a `G`): no screen of a few lines and blank.
    /// The token view scrolls its own rows.
    pub(super) fn keep_request_full(&mut self) {
        let tokens = self.request.shown == crate::worker::Shown::Tokens;
        if tokens && !self.request.show_tools {
            return;
        }
        let last = self.last_page();
        if self.request.scroll > last {
            self.request.scroll = last;
        }
    }

    /// Loads the selected message into the editor.
    pub fn load_editor(&mut self) {
        let i = self.list.selected;
        let message = self.messages().get(i).map(PackedMessage::value);
        if let Some(note) = self.editor.load(message.as_ref(), i) {
            self.status = note;
        }
    }

    /// The editor's text changed: a valid message replaces the selected one;
    /// text that does not parse stays as a draft.
    pub(super) fn editor_changed(&mut self) -> Vec<Command> {
        let Some(i) = self.editor.for_index else {
            return Vec::new();
        };
        let Some(current) = self.messages().get(i).map(PackedMessage::value) else {
            return Vec::new();
        };
        self.recovery_due = true;
        match self.editor.parse(&current) {
            Ok(value) if value == current => Vec::new(),
            Ok(value) => {
                let Some(doc) = self.doc.as_mut() else {
                    return Vec::new();
                };
                doc.splice(i, 1, vec![value], Some(i));
                self.reformat()
            }
            Err(_) => Vec::new(),
        }
    }

    /// Replaces messages `at..at + remove` with `insert` (one undo step)
    /// and selects `select`.
    pub(super) fn edit(
        &mut self,
        at: usize,
        remove: usize,
        insert: Vec<Value>,
        select: usize,
        group: Option<usize>,
    ) -> Vec<Command> {
        if self.leave_draft() {
            return Vec::new();
        }
        let Some(doc) = self.doc.as_mut() else {
            return Vec::new();
        };
        doc.close_group();
        doc.splice(at, remove, insert, group);
        self.recovery_due = true;
        self.list.selected = select.min(self.messages().len().saturating_sub(1));
        self.load_editor();
        self.reformat()
    }

    pub(super) fn undo_redo(&mut self, undo: bool) -> Vec<Command> {
        if self.leave_draft() {
            return Vec::new();
        }
        let Some(doc) = self.doc.as_mut() else {
            return Vec::new();
        };
        doc.close_group();
        match doc.undo_redo(undo) {
            None => {
                self.status = if undo {
                    "nothing to undo"
                } else {
                    "nothing to redo"
                }
                .into();
                Vec::new()
            }
            Some(at) => {
                self.recovery_due = true;
                self.list.selected = at.min(self.messages().len().saturating_sub(1));
                self.load_editor();
                self.status = if self.unsaved() {
                    if undo { "undone" } else { "redone" }.into()
                } else {
                    "undone: the session is as on disk".into()
                };
                self.reformat()
            }
        }
    }

    /// A new empty user message after the selection (`a`).
    pub(super) fn add_message(&mut self) -> Vec<Command> {
        if self.doc.is_none() {
            self.status = self.nothing_to_edit();
            return Vec::new();
        }
        let m = serde_json::json!({"name": "user", "role": "user", "content": [{"type": "text", "text": ""}]});
        let at = (self.list.selected + 1).min(self.messages().len());
        let before = self.messages().len();
        let cmds = self.edit(at, 0, vec![m], at, None);
        if self.messages().len() > before {
            self.status =
                format!("added message #{at} (user, empty: e edits it) · u undoes it · C-s saves");
        }
        cmds
    }

    /// A copy of the selected message after it.
    pub(super) fn duplicate(&mut self) -> Vec<Command> {
        let i = self.list.selected;
        let Some(m) = self.messages().get(i).map(PackedMessage::value) else {
            self.status = self.nothing_to_edit();
            return Vec::new();
        };
        let who = describe(&m);
        let before = self.messages().len();
        let cmds = self.edit(i + 1, 0, vec![m], i + 1, None);
        if self.messages().len() > before {
            self.status = format!(
                "duplicated message #{i} ({who}) as #{} · u undoes it · C-s saves",
                i + 1
            );
        }
        cmds
    }

    /// Deletes the selected message (undo brings it back).
    pub(super) fn delete_selected(&mut self) -> Vec<Command> {
        let i = self.list.selected;
        let Some(m) = self.messages().get(i).map(PackedMessage::value) else {
            return Vec::new();
        };
        let who = describe(&m);
        let next = i.min(self.messages().len().saturating_sub(2));
        let cmds = self.edit(i, 1, Vec::new(), next, None);
        if !cmds.is_empty() {
            self.status = format!("deleted message #{i} ({who}) · u undoes it");
        }
        cmds
    }

    /// Moves the selected message up or down one place.
    pub(super) fn move_selected(&mut self, action: Action) -> Vec<Command> {
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
        self.edit(lo, 2, pair, j, None)
    }
}
