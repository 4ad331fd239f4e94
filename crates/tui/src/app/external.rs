//! `O`: the selected message in the user's own editor. The app only says
//! what to edit (`Command::ExternalEdit`: the runtime suspends the
//! terminal and runs the editor) and takes the text back exactly as an
//! edit typed in the built-in editor: the same parse, the same error
//! (`editor:line:col: what`), and text that does not parse stays in the
//! editor pane as a draft, never lost.

use super::*;
use crate::msg::ExternalEdit;

impl App {
    pub(super) fn external_edit(&mut self) -> Vec<Command> {
        // A file that does not parse has no message: its text is edited.
        if self.doc.is_none() && self.unshown.as_ref().is_some_and(|u| u.text.is_some()) {
            return self.fix_in_editor();
        }
        let i = self.list.selected;
        if self.messages().get(i).is_none() {
            self.status = self.nothing_to_edit();
            return Vec::new();
        }
        // What the built-in editor holds for this message: its draft, or
        // the message as JSON or as text (the mode e, T and C-t chose).
        if self.editor.for_index != Some(i) {
            self.load_editor();
        }
        vec![Command::ExternalEdit(Box::new(ExternalEdit {
            index: i,
            text_mode: self.editor.text_mode,
            text: self.editor.text(),
        }))]
    }

    pub(super) fn on_external_edited(
        &mut self,
        index: usize,
        text_mode: bool,
        original: String,
        result: Result<String, String>,
    ) -> Vec<Command> {
        let mut text = match result {
            Ok(text) => text,
            Err(why) => {
                self.status = format!("{why}: nothing changed");
                return Vec::new();
            }
        };
        if self.messages().get(index).is_none() {
            self.status = format!("message #{index} is gone: the edit was not applied");
            return Vec::new();
        }
        // Editors end a file with a newline; the message did not have it.
        if !original.ends_with('\n') && text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
        if text == original {
            self.status = "no change from the editor".into();
            return Vec::new();
        }
        if index != self.list.selected && !self.select(index) {
            return Vec::new();
        }
        if let Some(doc) = self.doc.as_mut() {
            doc.close_group();
        }
        self.editor.set_text(index, &text, text_mode);
        let cmds = self.editor_changed();
        // One undo step of its own.
        if let Some(doc) = self.doc.as_mut() {
            doc.close_group();
        }
        self.status = match &self.editor.error {
            Some(e) => {
                self.focus = Focus::Editor;
                format!("{e} (kept in the editor pane as an unsaved draft: fix it there or with O)")
            }
            None => format!("message #{index} edited in the external editor · u undoes it"),
        };
        cmds
    }
}
