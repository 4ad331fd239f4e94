//! The open file's life: opening and listing, what the watcher reports,
//! reading and installing a new version, saves and their outcomes, the
//! recovery copy, and consent to reads and downloads.

use super::*;

/// How many ticks (seconds) a recovery copy waits at most for the worker
/// to finish recounting an edit.
const RECOVERY_WAIT_TICKS: u32 = 3;

impl App {
    /// Starts showing `path`: read it, look for its recovery file, watch it.
    pub(super) fn open(&mut self, path: PathBuf) -> Vec<Command> {
        self.doc = None;
        self.preview = None;
        self.editor = self.editor.cleared();
        self.list.selected = 0;
        self.request.scroll = 0;
        self.real_path = None;
        self.unshown = None;
        self.fixing = None;
        self.opening = Some(path.clone());
        self.status = format!("opening {}", self.file_name());
        let mut cmds = vec![Command::Read(path.clone()), Command::FindRecovery(path)];
        cmds.extend(self.watch_commands());
        cmds
    }

    /// The folders to watch: the folder shown, the open file's, and its
    /// symlink target's.
    pub(super) fn watch_commands(&mut self) -> Vec<Command> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let paths = [
            self.folder.clone(),
            self.path().cloned(),
            self.real_path.clone(),
        ];
        for p in paths.into_iter().flatten() {
            let dir = if Some(&p) == self.folder.as_ref() {
                p
            } else {
                match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                    _ => PathBuf::from("."),
                }
            };
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        if dirs == self.watched {
            return Vec::new();
        }
        self.watched = dirs.clone();
        vec![Command::Watch(dirs)]
    }

    pub(super) fn on_folder_listed(&mut self, files: Vec<PathBuf>) -> Vec<Command> {
        // Following, the newest was on screen (or nothing yet): the newer
        // one arrived takes its place, unless edits stand in the way.
        let was_newest = self.opening.is_none()
            && (self.doc.is_none() || self.position().is_some_and(|i| i + 1 == self.files.len()));
        self.files = files;
        self.folder_listed = true;
        if self.follow && was_newest && !self.unsaved() {
            if let Some(newest) = self.files.last().cloned() {
                if self.path() != Some(&newest) {
                    self.status = format!(
                        "following the agent: {} arrived ([ goes back)",
                        newest
                            .file_name()
                            .map(|n| n.to_string_lossy())
                            .unwrap_or_default()
                    );
                    return self.open(newest);
                }
            }
        }
        if self.doc.is_none() && self.opening.is_none() {
            return match self.files.first().cloned() {
                Some(first) => self.open(first),
                None => {
                    self.status = match &self.listening {
                        Some(url) => format!(
                            "listening on {url}: waiting for the agent's first call (docs/src/listen.md)"
                        ),
                        None => format!(
                            "nothing in this folder looks like a session: {START_HINT}"
                        ),
                    };
                    Vec::new()
                }
            };
        }
        // The open file stays open whatever the folder holds now.
        self.dirty = true;
        Vec::new()
    }

    /// Whether `path` is the open file (by its name or its resolved target).
    pub(super) fn is_open_file(&self, path: &Path) -> bool {
        self.path().is_some_and(|p| p == path) || self.real_path.as_deref() == Some(path)
    }

    pub(super) fn on_files_changed(&mut self, paths: Vec<PathBuf>) -> Vec<Command> {
        let mut cmds = Vec::new();
        if let Some(dir) = &self.folder {
            let listed = paths.iter().any(|p| {
                // Sessions are known by their content, not their name:
                // any visible file that changes may have become one.
                p.parent() == Some(dir.as_path())
                    && (!p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                        || self.files.contains(p))
            });
            if listed {
                cmds.push(Command::ListFolder(dir.clone()));
            }
        }
        if paths.iter().any(|p| self.is_open_file(p)) {
            if let Some(path) = self.path().cloned() {
                cmds.push(Command::Read(path));
            }
        }
        if cmds.is_empty() {
            self.dirty = false;
        }
        cmds
    }

    pub(super) fn on_file_read(&mut self, path: PathBuf, result: FileResult) -> Vec<Command> {
        if self.opening.as_ref() == Some(&path) {
            return self.on_opened(path, result);
        }
        if self.doc.as_ref().is_none_or(|d| d.path != path) {
            self.dirty = false;
            return Vec::new();
        }
        let unsaved = self.unsaved();
        let name = self.file_name();
        let Some(doc) = self.doc.as_mut() else {
            return Vec::new();
        };
        match result {
            FileResult::Text { text, mode, real } => {
                self.real_path = Some(real);
                if *doc.base == *text {
                    // Our own save, a touch, or the file came back as it was.
                    let was = std::mem::replace(&mut doc.disk, Disk::Same);
                    doc.load_error = None;
                    if was == Disk::Same {
                        self.dirty = false;
                    } else {
                        self.status = format!("{name} is back on disk as you last saw it");
                    }
                    return self.watch_commands();
                }
                if let Disk::Changed { text: seen, .. } = &doc.disk {
                    if *seen == text {
                        self.dirty = false;
                        return Vec::new();
                    }
                }
                doc.mode = mode.or(doc.mode);
                match crate::io::parse_read(&text, &path.display().to_string()) {
                    Err(e) => {
                        // Keep the last good session on screen, marked stale.
                        doc.load_error = Some(e.to_string());
                        doc.disk = Disk::Changed {
                            text,
                            overwrite_ok: false,
                        };
                        Vec::new()
                    }
                    Ok(mut session) => {
                        session.path = Some(path);
                        doc.load_error = None;
                        if unsaved {
                            doc.disk = Disk::Changed {
                                text: Arc::clone(&text),
                                overwrite_ok: false,
                            };
                            let error = self.repoint_note();
                            self.popup = Some(Popup::Conflict {
                                disk: FileResult::Text {
                                    text,
                                    mode,
                                    real: self.real_path.clone().unwrap_or_default(),
                                },
                                error,
                            });
                            return Vec::new();
                        }
                        doc.reload(session, &text);
                        self.installed(false)
                    }
                }
            }
            FileResult::Missing => {
                doc.disk = Disk::Missing { recreate_ok: false };
                self.status = if unsaved {
                    format!("{name} was deleted on disk; your edits are kept here (C-s asks before making it again)")
                } else {
                    format!("{name} was deleted on disk; it shows again when the file comes back")
                };
                Vec::new()
            }
            FileResult::Failed(e) => {
                self.status = format!("{name}: {e}");
                Vec::new()
            }
        }
    }

    /// The first read of a file being opened.
    pub(super) fn on_opened(&mut self, path: PathBuf, result: FileResult) -> Vec<Command> {
        match result {
            FileResult::Text { text, mode, real } => {
                match crate::io::parse_read(&text, &path.display().to_string()) {
                    Err(e) => {
                        // Shown once it parses (the watcher reads it
                        // again): till then its text and what is wrong.
                        let line = match &e {
                            formatscope_core::session::SessionError::Invalid { line, .. } => *line,
                            _ => 1,
                        };
                        self.status = format!(
                            "no good version yet: {e} · O opens the file in your editor to fix it"
                        );
                        self.unshown = Some(Unshown {
                            error: e.to_string(),
                            text: Some((text, line)),
                        });
                        self.real_path = Some(real);
                        self.watch_commands()
                    }
                    Ok(mut session) => {
                        session.path = Some(path.clone());
                        self.opening = None;
                        self.unshown = None;
                        self.real_path = Some(real);
                        let mut cmds = self.remember_recent(&path);
                        self.doc = Some(Document::new(path, session, text, mode));
                        cmds.extend(self.installed(true));
                        cmds.extend(self.watch_commands());
                        cmds
                    }
                }
            }
            FileResult::Missing => {
                let error = format!("{}: no such file", path.display());
                self.status = format!("{error} ({START_HINT})");
                self.unshown = Some(Unshown { error, text: None });
                Vec::new()
            }
            FileResult::Failed(e) => {
                let error = format!("{}: {e}", path.display());
                self.status.clone_from(&error);
                self.unshown = Some(Unshown { error, text: None });
                Vec::new()
            }
        }
    }

    /// `O` on a file that does not parse: its whole text in the external
    /// editor (what comes back is written as the file).
    pub(super) fn fix_in_editor(&mut self) -> Vec<Command> {
        let (Some(path), Some((text, _))) = (
            self.opening.clone(),
            self.unshown.as_ref().and_then(|u| u.text.clone()),
        ) else {
            return Vec::new();
        };
        self.fixing = Some(path);
        vec![Command::ExternalEdit(Box::new(crate::msg::ExternalEdit {
            index: 0,
            text_mode: false,
            text: text.to_string(),
        }))]
    }

    /// The file's text back from the external editor (`fix_in_editor`):
    /// written over the file if the disk still holds what was edited,
    /// then read again (it shows if it parses now).
    pub(super) fn on_file_fixed(
        &mut self,
        path: PathBuf,
        original: String,
        result: Result<String, String>,
    ) -> Vec<Command> {
        let text = match result {
            Ok(text) => text,
            Err(why) => {
                self.status = format!("{why}: nothing changed");
                return Vec::new();
            }
        };
        if text == original {
            self.status = "no change from the editor: the file stays as it is".into();
            return Vec::new();
        }
        if self.opening.as_ref() != Some(&path) {
            self.status = format!(
                "{} is no longer the file asked for: the fix was not written",
                path.display()
            );
            return Vec::new();
        }
        self.status = format!("writing {}…", self.file_name());
        vec![Command::WriteText {
            path,
            expect: Arc::from(original),
            text,
        }]
    }

    /// A fixed text was written (or not): read the file again.
    pub(super) fn on_text_written(
        &mut self,
        path: PathBuf,
        result: Result<(), String>,
    ) -> Vec<Command> {
        match result {
            Ok(()) => {
                self.status = format!("wrote {}; reading it again", self.file_name());
                if self.opening.as_ref() == Some(&path) {
                    return vec![Command::Read(path)];
                }
                Vec::new()
            }
            Err(e) => {
                self.status = format!("not written: {e}");
                Vec::new()
            }
        }
    }

    /// The document's session was (re)loaded from disk.
    pub(super) fn installed(&mut self, first: bool) -> Vec<Command> {
        let Some(doc) = &self.doc else {
            return Vec::new();
        };
        if first {
            if let Ok(id) = doc.session.formatter() {
                self.formatter = id;
            }
        }
        let warnings = doc.session.warnings.clone();
        let repointed = self.remember_target();
        self.list.clamp(self.messages().len());
        self.last_reload = Some((self.clock)());
        let shape = first.then(|| self.shape_note()).flatten();
        self.status = match (repointed.or(shape), warnings.first()) {
            (Some(note), _) => note,
            (None, Some(w)) => formatscope_core::text::escape_control(w).into_owned(),
            (None, None) => format!("loaded {}", self.file_name()),
        };
        self.load_editor();
        self.recovery_due = false;
        self.reformat()
    }

    pub(super) fn on_saved(
        &mut self,
        path: PathBuf,
        state: u64,
        outcome: SaveOutcome,
        then: AfterSave,
    ) -> Vec<Command> {
        let name = self.file_name();
        let Some(doc) = self.doc.as_mut().filter(|d| d.path == path) else {
            return Vec::new();
        };
        match outcome {
            SaveOutcome::Written { text, note } => {
                doc.saved(state, &text);
                self.status = match note {
                    Some(n) => format!("saved {name} ({n})"),
                    None => format!("saved {name}"),
                };
                let mut cmds = Vec::new();
                if !self.unsaved() {
                    cmds.push(Command::RemoveRecovery(path));
                    self.recovery_written = None;
                    self.recovery_due = false;
                }
                cmds.extend(self.after(then));
                cmds
            }
            SaveOutcome::Conflict(disk) => {
                match &disk {
                    FileResult::Missing => {
                        doc.disk = Disk::Missing { recreate_ok: false };
                        self.popup = Some(Popup::Recreate);
                    }
                    FileResult::Text { text, .. } => {
                        doc.disk = Disk::Changed {
                            text: Arc::clone(text),
                            overwrite_ok: false,
                        };
                        self.popup = Some(Popup::Conflict { disk, error: None });
                    }
                    FileResult::Failed(e) => {
                        self.status = format!("not saved: {e}; your edits are kept");
                    }
                }
                Vec::new()
            }
            SaveOutcome::Failed(e) => {
                self.status = format!("save failed: {e}; your edits are kept");
                Vec::new()
            }
            SaveOutcome::Ask { question, allow } => {
                self.popup = Some(Popup::SaveAsk {
                    question,
                    allow,
                    then,
                });
                Vec::new()
            }
        }
    }

    pub(super) fn after(&mut self, then: AfterSave) -> Vec<Command> {
        match then {
            AfterSave::Stay => Vec::new(),
            AfterSave::Quit => {
                self.quit = true;
                vec![Command::Quit]
            }
            AfterSave::Open(i) => match self.files.get(i).cloned() {
                Some(p) => self.open(p),
                None => Vec::new(),
            },
        }
    }

    pub(super) fn on_saved_beside(&mut self, result: Result<PathBuf, String>) -> Vec<Command> {
        let disk = self.beside_for.take();
        match result {
            Ok(mine) => {
                let shown = formatscope_core::text::escape_control(&mine.display().to_string())
                    .into_owned();
                let Some(doc) = self.doc.as_mut() else {
                    return Vec::new();
                };
                let path = doc.path.clone();
                match disk {
                    Some(FileResult::Text { text, .. }) => {
                        if let Ok(mut session) =
                            crate::io::parse_read(&text, &path.display().to_string())
                        {
                            session.path = Some(path.clone());
                            doc.reload(session, &text);
                            self.editor.error = None;
                            let mut cmds = self.installed(false);
                            self.status = format!(
                                "your edits were saved as {shown}; showing the file on disk"
                            );
                            cmds.push(Command::RemoveRecovery(path));
                            return cmds;
                        }
                        self.status = format!("your edits were saved as {shown}");
                    }
                    _ => {
                        self.status =
                            format!("your edits were saved as {shown} (they stay here too)")
                    }
                }
                Vec::new()
            }
            Err(e) => {
                // Nothing is dropped: ask again, with the reason.
                self.popup = Some(Popup::Conflict {
                    disk: disk.unwrap_or(FileResult::Missing),
                    error: Some(format!("could not save yours beside it: {e}")),
                });
                Vec::new()
            }
        }
    }

    pub(super) fn on_recovery_found(
        &mut self,
        path: PathBuf,
        found: Result<Recovery, String>,
    ) -> Vec<Command> {
        if self.path() != Some(&path) {
            return Vec::new();
        }
        match found {
            Ok(recovery) => {
                let disk_changed = self.doc.as_ref().is_some_and(|d| *d.base != *recovery.base);
                self.popup = Some(Popup::Recovery {
                    recovery: Box::new(recovery),
                    disk_changed,
                });
            }
            Err(e) => self.status = formatscope_core::text::escape_control(&e).into_owned(),
        }
        Vec::new()
    }

    /// Every second: keep a recovery copy of unsaved edits (a crash, a
    /// signal or a closed terminal then loses nothing).
    pub(super) fn on_tick(&mut self) -> Vec<Command> {
        self.dirty = false;
        // While the worker recounts an edit the copy waits, a few ticks at
        // most: rendering a large session's text took a core from the
        // count (a one-group session of 100,000 messages: 18 MB, escaped
        // twice, every second of editing).
        let recounting = !self
            .preview
            .as_ref()
            .is_some_and(|p| p.generation == self.generation && !p.lines_pending);
        let due = self.unsaved() && self.recovery_due;
        if due && recounting && self.recovery_waited < RECOVERY_WAIT_TICKS {
            self.recovery_waited += 1;
        } else if due {
            self.recovery_waited = 0;
            self.recovery_due = false;
            // Only edits the last copy does not hold yet are written.
            let key = self.recovery_key();
            if self.recovery_written != Some(key) {
                // Rendered on the I/O thread: a large session's text is
                // not built while the screen waits.
                if let Some(rec) = self.pending_recovery("edits") {
                    self.recovery_written = Some(key);
                    return vec![Command::WriteRecovery(Box::new(rec))];
                }
            }
        }
        if !self.unsaved() && self.recovery_written.is_some() {
            self.recovery_written = None;
            if let Some(path) = self.path().cloned() {
                return vec![Command::RemoveRecovery(path)];
            }
        }
        Vec::new()
    }

    /// The unsaved edits as a recovery file, if there are any (rendered
    /// here: a signal or a panic writes it at once).
    pub fn recovery(&self, reason: &str) -> Option<Recovery> {
        self.pending_recovery(reason).map(recovery::Pending::render)
    }

    /// Asks about what the session wanted to read or fetch, once per file.
    pub(super) fn ask_consent(&mut self) -> Vec<Command> {
        let Some(path) = self.doc.as_ref().map(|d| d.path.clone()) else {
            return Vec::new();
        };
        let wanted = match &self.preview {
            Some(p) if !p.wanted.is_empty() => p.wanted.clone(),
            _ => return Vec::new(),
        };
        let wanted = self.consent.to_ask(&path, &wanted);
        if wanted.is_empty() {
            return Vec::new();
        }
        self.popup = Some(Popup::Consent {
            session: path,
            wanted,
        });
        Vec::new()
    }

    /// Restores edits from a recovery file over the file as it is now.
    pub(super) fn restore(&mut self, recovery: Recovery) -> Vec<Command> {
        let Some(doc) = self.doc.as_mut() else {
            return Vec::new();
        };
        let path = doc.path.clone();
        let mut session = match parse_session(&recovery.text, &path.display().to_string()) {
            Ok(s) => s,
            Err(e) => {
                self.status =
                    format!("the recovered edits do not parse ({e}); the recovery file stays");
                return Vec::new();
            }
        };
        session.path = Some(path);
        let disk_text = Arc::clone(&doc.base);
        doc.session = session;
        doc.base = Arc::new(recovery.text.clone());
        doc.base_session = None;
        doc.disk = if *disk_text == *recovery.text {
            Disk::Same
        } else {
            Disk::Changed {
                text: disk_text,
                overwrite_ok: true,
            }
        };
        doc.mark_unsaved();
        self.recovery_written = Some(None);
        self.list.clamp(self.messages().len());
        match &recovery.draft {
            Some((i, text)) => {
                self.list.selected = (*i).min(self.messages().len().saturating_sub(1));
                self.editor.restore_draft(self.list.selected, text, true);
                if let Some(m) = self
                    .messages()
                    .get(self.list.selected)
                    .map(PackedMessage::value)
                {
                    let _ = self.editor.parse(&m);
                }
                self.focus = Focus::Editor;
            }
            None => self.load_editor(),
        }
        self.status = format!(
            "restored unsaved edits from {} UTC; C-s saves them",
            recovery.written
        );
        self.reformat()
    }

    /// Drops every unsaved edit (the user chose to).
    pub(super) fn drop_edits(&mut self) -> Vec<Command> {
        let mut cmds = Vec::new();
        if let Some(path) = self.path().cloned() {
            cmds.push(Command::RemoveRecovery(path));
        }
        self.recovery_written = None;
        self.editor.error = None;
        if let Some(doc) = self.doc.as_mut() {
            while doc.unsaved() && doc.undo_redo(true).is_some() {}
        }
        // Undoing may have taken away the selected message.
        let n = self.messages().len();
        self.list.selected = self.list.selected.min(n.saturating_sub(1));
        cmds
    }

    /// Saves the open file (asking first when the disk changed, the file
    /// was deleted, the link was re-pointed or the file is read-only);
    /// `then` runs once it is written.
    pub(super) fn save(&mut self, then: AfterSave) -> Vec<Command> {
        self.save_with(then, Allow::default())
    }

    /// The next (or previous) session file of the folder.
    pub(super) fn next_file(&mut self, action: Action) -> Vec<Command> {
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
        Vec::new()
    }
}
