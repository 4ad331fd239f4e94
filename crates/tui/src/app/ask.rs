//! Saving, and the questions a save asks before it writes: a link that now
//! names another file than the edits came from, and a read-only file.
//! (One of the files of `App`, beside files.rs, which reads and watches.)

use super::super::document::Disk;
use super::super::msg::{AfterSave, Allow, Command, Expect, FileResult, SaveQuestion};
use super::super::panes::popup::Popup;
use super::super::recovery;
use super::App;
use formatscope_core::session::InputShape;
use ratatui::crossterm::event::KeyCode;
use std::path::PathBuf;
use std::sync::Arc;

impl App {
    /// Saves the open file with what the user already agreed to.
    pub(super) fn save_with(&mut self, then: AfterSave, allow: Allow) -> Vec<Command> {
        if let Some(e) = &self.editor.error {
            self.status = format!("not saved: the editor's text does not parse ({e}); fix it, or leave the message and drop it");
            return Vec::new();
        }
        let Some(doc) = self.doc.as_ref() else {
            self.status = match &self.unshown {
                Some(u) if u.text.is_some() => format!(
                    "nothing to save: {} has no good version yet; O opens its text in your editor to fix it",
                    self.file_name()
                ),
                _ => "nothing to save: no session is open".into(),
            };
            return Vec::new();
        };
        if doc.session.shape == InputShape::OpenAiRequest {
            // Its file cannot take the messages back: a new session file
            // beside it takes them (never over an existing file).
            self.status = format!("saving {} as a session file…", self.file_name());
            return vec![Command::SaveAsSession {
                path: doc.path.clone(),
                text: doc.session.to_session_text(),
                then,
            }];
        }
        if let Err(e) = doc.session.can_save() {
            self.status = format!("not saved: {e}");
            return Vec::new();
        }
        // Read back once: what the save splices into and, unchanged on
        // disk, what it expects to find there.
        let base = Arc::clone(&doc.base);
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
            base_session: doc.base_session.clone().map(Box::new),
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
            formatscope_core::text::escape_control(&format!(
                "the link {} now points to {} (the edits came from {})",
                doc.path.display(),
                now.display(),
                was.display()
            ))
            .into_owned()
        })
    }

    /// What the status line says when a converted file is opened, before
    /// the first edit: what a save will do with it.
    pub(super) fn shape_note(&self) -> Option<String> {
        let name = self.file_name();
        match self.doc.as_ref()?.session.shape {
            InputShape::OpenAiRequest => Some(format!(
                "{name} is an OpenAI request body, converted on load: C-s saves edits as a new session file beside it (NAME.session.json); the body stays as it is"
            )),
            InputShape::MemoryState => Some(format!(
                "{name} is an AgentScope memory state: C-s writes the edited messages back into it, in its own shape"
            )),
            InputShape::Session | InputShape::BareArray => None,
        }
    }

    /// The edits of a converted file were written as a new session file:
    /// it is opened (edits from now on go there), or `then` runs.
    pub(super) fn on_saved_as_session(
        &mut self,
        path: PathBuf,
        result: Result<PathBuf, String>,
        then: AfterSave,
    ) -> Vec<Command> {
        if self.path() != Some(&path) {
            return Vec::new();
        }
        match result {
            Ok(new) => {
                let shown =
                    formatscope_core::text::escape_control(&new.display().to_string()).into_owned();
                let mut cmds = vec![Command::RemoveRecovery(path)];
                if then == AfterSave::Stay {
                    if let Some(dir) = &self.folder {
                        cmds.push(Command::ListFolder(dir.clone()));
                    }
                    cmds.extend(self.open(new));
                } else {
                    cmds.extend(self.after(then));
                }
                self.status = format!(
                    "saved your edits as {shown}, a session file (the request body stays as it was)"
                );
                cmds
            }
            Err(e) => {
                self.status = format!(
                    "save failed: could not write a session file beside {}: {e}; your edits are kept",
                    path.display()
                );
                Vec::new()
            }
        }
    }

    /// What a recovery copy holds, as a number: the edit state and the
    /// editor's draft.
    pub(super) fn recovery_key(&self) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let doc = self.doc.as_ref()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        doc.state().hash(&mut h);
        self.editor.draft().hash(&mut h);
        Some(h.finish())
    }

    /// The unsaved edits, to be rendered as a recovery file (cheap: the
    /// session's messages and texts are shared, not copied).
    pub(crate) fn pending_recovery(&self, reason: &str) -> Option<recovery::Pending> {
        if !self.unsaved() {
            return None;
        }
        let doc = self.doc.as_ref()?;
        let base = Arc::clone(&doc.base);
        Some(recovery::Pending {
            session_path: doc.path.clone(),
            reason: reason.to_string(),
            disk: match &doc.disk {
                Disk::Changed { text, .. } => Arc::clone(text),
                _ => Arc::clone(&base),
            },
            base,
            base_session: doc.base_session.clone(),
            edited: doc.session.clone(),
            draft: self.editor.draft(),
        })
    }
}
