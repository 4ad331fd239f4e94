//! Saving, and the questions a save asks before it writes: a link that now
//! names another file than the edits came from, and a read-only file.
//! (Apart from app.rs, which is large; the same `App`.)

use super::super::document::Disk;
use super::super::msg::{AfterSave, Allow, Command, Expect, FileResult, SaveQuestion};
use super::super::panes::popup::Popup;
use super::App;
use ratatui::crossterm::event::KeyCode;
use std::sync::Arc;

impl App {
    /// Saves the open file with what the user already agreed to.
    pub(super) fn save_with(&mut self, then: AfterSave, allow: Allow) -> Vec<Command> {
        if let Some(e) = &self.editor.error {
            self.status = format!("not saved: the editor's text does not parse ({e}); fix it, or leave the message and drop it");
            return Vec::new();
        }
        let Some(doc) = self.doc.as_ref() else {
            return Vec::new();
        };
        if let Err(e) = doc.session.can_save() {
            self.status = format!("not saved: {e}");
            return Vec::new();
        }
        // Read back once: what the save splices into and, unchanged on
        // disk, what it expects to find there.
        let base = doc.base.text();
        let expect = match &doc.disk {
            // Written to the file the edits came from, which still holds
            // what they were made over (what the link names now differs).
            _ if allow.to_original => Expect::Text(Arc::clone(&base)),
            Disk::Same => Expect::Text(Arc::clone(&base)),
            Disk::Changed {
                text,
                overwrite_ok: true,
            } => Expect::Text(Arc::clone(text)),
            Disk::Changed { text, .. } => {
                self.popup = Some(Popup::Conflict {
                    disk: FileResult::Text {
                        text: Arc::clone(text),
                        mode: doc.mode,
                        real: self.real_path.clone().unwrap_or_default(),
                    },
                    error: self.repoint_note(),
                });
                return Vec::new();
            }
            Disk::Missing { recreate_ok: true } => Expect::Missing,
            Disk::Missing { .. } => {
                self.popup = Some(Popup::Recreate);
                return Vec::new();
            }
        };
        self.status = format!("saving {}…", self.file_name());
        vec![Command::Save {
            path: doc.path.clone(),
            base,
            expect,
            session: Box::new(doc.session.clone()),
            state: doc.state(),
            mode: doc.mode,
            then,
            target: doc.target.clone(),
            allow,
        }]
    }

    pub(super) fn on_save_ask_key(
        &mut self,
        code: KeyCode,
        question: SaveQuestion,
        allow: Allow,
        then: AfterSave,
    ) -> Vec<Command> {
        let agreed = match (&question, code) {
            (SaveQuestion::Repointed { .. }, KeyCode::Char('o')) => Allow {
                to_original: true,
                ..allow
            },
            (SaveQuestion::ReadOnly { .. }, KeyCode::Char('y')) => Allow {
                read_only: true,
                ..allow
            },
            (_, KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('q')) => {
                self.status = "not saved; your edits are kept".into();
                return Vec::new();
            }
            _ => {
                self.popup = Some(Popup::SaveAsk {
                    question,
                    allow,
                    then,
                });
                return Vec::new();
            }
        };
        self.save_with(then, agreed)
    }

    /// After a read: the file the edits belong to is now the one read
    /// (`real_path`). Says so when a link was re-pointed.
    pub(super) fn remember_target(&mut self) -> Option<String> {
        let note = self.repoint_note();
        let real = self.real_path.clone();
        if let Some(doc) = self.doc.as_mut() {
            doc.target = real;
        }
        note.map(|n| format!("{n}; showing it"))
    }

    /// `the link X now points to Y` when the open file's link names
    /// another file than the one the session was read from.
    pub(super) fn repoint_note(&self) -> Option<String> {
        let doc = self.doc.as_ref()?;
        let was = doc.target.as_ref()?;
        let now = self.real_path.as_ref()?;
        (was != now).then(|| {
            crate::text::escape_control(&format!(
                "the link {} now points to {} (the edits came from {})",
                doc.path.display(),
                now.display(),
                was.display()
            ))
            .into_owned()
        })
    }
}
