//! What the panes pass up: the app carries out an [`Effect`] (the status
//! line, the focus, the clipboard, a new request, a popup closing) and the
//! [`Then`] a pane cannot do itself, which touches the document, the files,
//! the sends or other panes.

use super::*;
use crate::panes::Then;

impl App {
    /// A pane's outcome carried out (`pane`: where the focus goes when the
    /// pane asks for it); nothing for a key it passed.
    pub(super) fn carry_out(&mut self, outcome: Outcome, pane: Focus) -> Vec<Command> {
        match outcome {
            Outcome::Taken(effect) => self.apply(effect, pane),
            Outcome::Pass => Vec::new(),
        }
    }

    /// Does what a pane's effect asks: the status line, the focus (to
    /// `pane`), the clipboard, a new request, the popup closing, then what
    /// only the workbench can do.
    pub(super) fn apply(&mut self, effect: Effect, pane: Focus) -> Vec<Command> {
        if let Some(status) = effect.status {
            self.status = status;
        }
        if effect.focus {
            self.focus = pane;
        }
        // Closed before `then`, which may open another (a question).
        let closed = if effect.close {
            self.popup.take()
        } else {
            None
        };
        let mut commands: Vec<Command> = effect
            .clipboard
            .into_iter()
            .map(Command::Clipboard)
            .collect();
        if effect.reformat {
            commands.extend(self.reformat());
        }
        if let Some(then) = effect.then {
            commands.extend(self.then(then, closed));
        }
        commands
    }

    /// What a pane asked of the workbench; `closed`: the popup that asked,
    /// when it closed.
    fn then(&mut self, then: Then, closed: Option<Popup>) -> Vec<Command> {
        match then {
            Then::Select(i) => {
                self.select(i);
                Vec::new()
            }
            Then::Edited => self.editor_changed(),
            Then::LeaveEditor => {
                self.focus = Focus::List;
                if let Some(doc) = self.doc.as_mut() {
                    doc.close_group();
                }
                if self.editor.has_draft() {
                    self.status =
                        "left the editor: the draft stays there, unsaved (it does not parse yet)"
                            .into();
                }
                Vec::new()
            }
            Then::EditorText => {
                if self.editor.has_draft() {
                    self.popup = Some(Popup::Draft);
                    return Vec::new();
                }
                self.editor.text_mode = !self.editor.text_mode;
                self.load_editor();
                Vec::new()
            }
            Then::Save => self.save(AfterSave::Stay),
            Then::Quit => self.act(Action::Quit),
            Then::Open(path) => self.open_picked(path),
            Then::ReadSend { index, compare } => self.read_whole(index, compare),
            Then::CompareSend(i) => self.compare_send(i),
            Then::ApplySettings(settings) => match closed {
                Some(Popup::Settings(form)) => self.apply_settings_form(&form, settings),
                _ => Vec::new(),
            },
            Then::PickFormatter(family, mode) => self.pick_family(family, mode),
            Then::SendTo(families) => self.send_picked(families),
            Then::Cancel(ids) => ids.into_iter().map(Command::CancelSend).collect(),
        }
    }
}
