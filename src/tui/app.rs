//! The workbench's state and `update`: messages in, commands out, no I/O.
//! The panes own their state, keys and drawing; the open file and its
//! edits live in a `Document`; this module routes between them and keeps
//! the promises about edits: nothing typed is lost to a reload, a file
//! switch or a quit without asking, and a save goes only to the file the
//! edits came from.

use super::consent::Consent;
use super::document::{Disk, Document};
use super::keymap::{self, Action, Scope};
use super::msg::{AfterSave, Allow, Command, FileResult, SaveOutcome};
use super::panes::compare::{ComparePane, Pair};
use super::panes::editor::{EditorEvent, EditorPane};
use super::panes::lint::LintPane;
use super::panes::list::ListPane;
use super::panes::popup::{Pending, Popup};
use super::panes::reply::ReplyUpdate;
use super::panes::request::RequestPane;
use super::panes::settings::{FormOutcome, SettingsForm};
use super::recovery::{self, Recovery};
use super::theme::Theme;
use super::worker::{Job, Preview, ReleaseJob};
use crate::formatter::{FormatterId, Mode, Provider};
use crate::session::{locate_pointer, parse_session, InputShape, Message, Session};
use crate::tokens::CounterSpec;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "send_confirm.rs"]
mod send_confirm;
#[path = "send_hosts.rs"]
mod send_hosts;

pub use super::msg::Msg;

mod ask;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    List,
    Editor,
    Output,
}

/// The screen areas of the panes, for mouse hits (computed by `view::layout`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Areas {
    pub list: Rect,
    pub editor: Rect,
    pub output: Rect,
}

pub struct App {
    /// The folder shown (folder mode), and its session files.
    pub folder: Option<PathBuf>,
    pub files: Vec<PathBuf>,
    /// The folder has been listed at least once (`files` is its content).
    pub folder_listed: bool,
    /// The open file and its edits.
    pub doc: Option<Document>,
    /// A file asked for and not shown yet (it is being read, or it does
    /// not exist or parse yet: `open_error` says why).
    pub opening: Option<PathBuf>,
    pub open_error: Option<String>,
    pub formatter: FormatterId,
    pub focus: Focus,
    pub list: ListPane,
    pub editor: EditorPane,
    pub request: RequestPane,
    pub compare: ComparePane,
    pub lint: LintPane,
    /// The reference switch (`V`): `None` is AgentScope 1.0.21, else
    /// 0.1.6 with the method the mode key picks (chat, multi-agent, auto).
    /// The AgentScope release on screen (`V`): its index in
    /// `reference::ALL`, and the mode it formats in when it is not the
    /// default (which follows the formatter's).
    pub release: usize,
    pub release_mode: crate::reference::Mode,
    /// The last live send's replies: one for `S`, one per provider picked
    /// with `P`, side by side.
    pub replies: Vec<super::panes::reply::ReplyPane>,
    sends: u64,
    /// The provider's own count (`R`): for which preview generation and
    /// provider, and the count or why not.
    pub remote_count: Option<(u64, Provider, Result<u64, String>)>,
    pub popup: Option<Popup>,
    pub preview: Option<Preview>,
    pub generation: u64,
    pub status: String,
    pub last_reload: Option<String>,
    pub consent: Consent,
    pub theme: Theme,
    pub(crate) syntax: Arc<syntect::highlighting::Theme>,
    pub size: (u16, u16),
    pub areas: Areas,
    pub quit: bool,
    /// Something on screen changed since the last draw.
    pub dirty: bool,
    /// A clock for the status line (injected so tests are stable).
    pub clock: fn() -> String,
    /// The open file's path with symlinks resolved (its events count too).
    real_path: Option<PathBuf>,
    /// The folders being watched.
    watched: Vec<PathBuf>,
    /// Edits since the last recovery copy; a recovery file exists, with
    /// the edits of this state (`recovery_key`; `None` when not known).
    recovery_due: bool,
    recovery_written: Option<Option<u64>>,
    /// A "save mine beside it" is under way for this conflict.
    beside_for: Option<FileResult>,
    /// `S` and `P` ask first from this many tokens on (the settings' "ask
    /// to send at"; the workbench's, for every file).
    pub confirm_send_at: u64,
}

impl App {
    pub fn new(files: Vec<PathBuf>, folder: Option<PathBuf>, theme: Theme) -> App {
        let syntax = Arc::new(theme.syntax.clone());
        App {
            folder,
            files,
            folder_listed: false,
            doc: None,
            opening: None,
            open_error: None,
            formatter: FormatterId::new(Provider::OpenAi, Mode::Chat),
            focus: Focus::List,
            list: ListPane::default(),
            editor: EditorPane::default(),
            request: RequestPane::default(),
            compare: ComparePane::default(),
            lint: LintPane::default(),
            release: 0,
            release_mode: crate::reference::Mode::Chat,
            replies: Vec::new(),
            sends: 0,
            remote_count: None,
            popup: None,
            preview: None,
            generation: 0,
            status: "loading…".into(),
            last_reload: None,
            consent: Consent::default(),
            theme,
            syntax,
            size: (120, 40),
            areas: Areas::default(),
            quit: false,
            dirty: true,
            clock: recovery::wall_clock,
            real_path: None,
            watched: Vec::new(),
            recovery_due: false,
            recovery_written: None,
            beside_for: None,
            confirm_send_at: super::panes::settings::CONFIRM_SEND_AT,
        }
    }

    /// The commands to run first: list the folder, or open the file.
    pub fn start(&mut self) -> Vec<Command> {
        match (self.folder.clone(), self.files.first().cloned()) {
            (Some(dir), _) => {
                let mut cmds = vec![Command::ListFolder(dir)];
                cmds.extend(self.watch_commands());
                cmds
            }
            (None, Some(path)) => self.open(path),
            (None, None) => Vec::new(),
        }
    }

    /// The path of the file shown (or being opened).
    pub fn path(&self) -> Option<&PathBuf> {
        self.doc.as_ref().map(|d| &d.path).or(self.opening.as_ref())
    }

    pub fn messages(&self) -> &[Message] {
        self.doc.as_ref().map_or(&[], |d| d.messages())
    }

    pub fn session(&self) -> Option<&Session> {
        self.doc.as_ref().map(|d| &d.session)
    }

    /// Why nothing is being formatted, when nothing is: no file could be
    /// shown, or the folder holds none. The panes say it instead of
    /// waiting for a preview that will not come.
    pub fn idle_reason(&self) -> Option<String> {
        if self.doc.is_some() {
            return None;
        }
        if let Some(e) = &self.open_error {
            return Some(format!("No session to format: {e}"));
        }
        if self.folder.is_some()
            && self.folder_listed
            && self.files.is_empty()
            && self.opening.is_none()
        {
            return Some(
                "No session to format: this folder has no .json session files. Save one here and it opens."
                    .into(),
            );
        }
        None
    }

    /// The session's budget: its `max_tokens`.
    pub fn budget(&self) -> Option<i64> {
        self.session().and_then(|s| s.max_tokens())
    }

    /// Edits that are not on disk: the session's, or a draft in the editor.
    pub fn unsaved(&self) -> bool {
        self.doc.as_ref().is_some_and(Document::unsaved) || self.editor.has_draft()
    }

    pub fn file_name(&self) -> String {
        self.path()
            .and_then(|p| p.file_name())
            .map(|n| crate::text::escape_control(&n.to_string_lossy()).into_owned())
            .unwrap_or_else(|| "(no file)".into())
    }

    /// The open file's place in the folder's list.
    pub fn position(&self) -> Option<usize> {
        let path = self.path()?;
        self.files.iter().position(|f| f == path)
    }

    /// The open session and the model settings the request view uses for
    /// the provider on screen (its own model when it is the session's).
    fn wire_settings(&self) -> Result<(Session, crate::wire::Settings), String> {
        self.wire_settings_for(self.formatter.provider)
    }

    fn wire_settings_for(
        &self,
        provider: Provider,
    ) -> Result<(Session, crate::wire::Settings), String> {
        let Some(doc) = self.doc.as_ref() else {
            return Err("no session".into());
        };
        let session = &doc.session;
        let settings = crate::model_choice::request_settings(session, provider, None)?;
        Ok((session.clone(), settings))
    }

    /// Whether a live send is in flight.
    /// The AgentScope release on screen.
    pub fn reference(&self) -> &'static dyn crate::reference::Reference {
        crate::reference::ALL[self.release % crate::reference::ALL.len()]
    }

    /// "AgentScope 0.1.6 OpenAIFormatter.format_auto" when a release other
    /// than the default formats the request.
    pub fn release_call(&self) -> Option<String> {
        (self.release != 0).then(|| {
            let r = self.reference();
            format!(
                "{} {}",
                r.title(),
                r.call(self.formatter.provider, self.release_mode)
            )
        })
    }

    pub fn sending(&self) -> bool {
        self.replies.iter().any(|r| r.in_flight())
    }

    /// Sends the request to each provider (in the mode on screen), one
    /// reply pane each.
    fn send_to(&mut self, providers: &[Provider]) -> Vec<Command> {
        if self.sending() {
            self.status = "a send is in flight: Esc cancels it".into();
            return Vec::new();
        }
        self.replies.clear();
        self.launch(providers)
    }

    /// Starts a send to each of `providers`, beside the sends already on
    /// screen: a provider's earlier pane (one that stopped to ask about its
    /// host) is replaced, the others keep streaming.
    fn launch(&mut self, providers: &[Provider]) -> Vec<Command> {
        let mut cmds = Vec::new();
        let mut replies = Vec::new();
        for &provider in providers {
            let (session, settings) = match self.wire_settings_for(provider) {
                Ok(x) => x,
                Err(e) => {
                    self.status = format!("not sent: {e}");
                    return Vec::new();
                }
            };
            self.sends += 1;
            // The meter counts the request on screen: beside its reply only.
            let our_count = (provider == self.formatter.provider)
                .then(|| self.preview.as_ref().and_then(|p| p.report.as_ref()))
                .flatten()
                .map(|r| (r.total, r.exact));
            let mut pane = super::panes::reply::ReplyPane::default();
            pane.start(self.sends, provider, our_count);
            replies.push(pane);
            cmds.push(Command::Send(Box::new(super::msg::SendJob {
                id: self.sends,
                session: Box::new(session),
                formatter: FormatterId::new(provider, self.formatter.mode),
                settings: Box::new(settings),
                allowed_hosts: self.consent.send_hosts(),
            })));
        }
        self.replies
            .retain(|r| !r.provider.is_some_and(|p| providers.contains(&p)));
        self.replies.extend(replies);
        let names: Vec<String> = providers.iter().map(|p| p.to_string()).collect();
        self.status = format!("sending to {}… Esc cancels", names.join(", "));
        cmds
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Command> {
        self.dirty = true;
        let mut cmds = self.handle(msg);
        let focused = self.focus == Focus::Editor;
        self.editor.style(&self.theme.ui, focused);
        if self.popup.is_none() {
            cmds.extend(self.ask_consent());
        }
        cmds
    }

    fn handle(&mut self, msg: Msg) -> Vec<Command> {
        match msg {
            Msg::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
            Msg::Key(_) => {
                self.dirty = false;
                Vec::new()
            }
            Msg::Mouse(mouse) => self.on_mouse(mouse),
            Msg::Paste(text) => {
                if self.focus == Focus::Editor {
                    self.editor.paste(&text);
                    return self.editor_changed();
                }
                Vec::new()
            }
            Msg::Resized(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Msg::FilesChanged(paths) => self.on_files_changed(paths),
            Msg::FolderListed(files) => self.on_folder_listed(files),
            Msg::FileRead { path, result } => self.on_file_read(path, result),
            Msg::Saved {
                path,
                state,
                outcome,
                then,
            } => self.on_saved(path, state, outcome, then),
            Msg::SavedBeside(result) => self.on_saved_beside(result),
            Msg::SavedAsSession { path, result, then } => {
                self.on_saved_as_session(path, result, then)
            }
            Msg::RemoteCounted {
                generation,
                provider,
                result,
            } => {
                self.status = match &result {
                    Ok(n) => format!("{provider} counts {n} input tokens (exact)"),
                    Err(e) => format!("no remote count: {e}"),
                };
                self.remote_count = Some((generation, provider, result));
                Vec::new()
            }
            Msg::Reply {
                id,
                update: ReplyUpdate::HostNotChosen(host),
            } => self.on_host_not_chosen(id, host),
            Msg::Reply { id, update } => {
                let line = self
                    .replies
                    .iter_mut()
                    .find(|r| r.id == id)
                    .and_then(|r| r.apply(id, update));
                if let Some(line) = line {
                    self.status = line;
                }
                Vec::new()
            }
            Msg::Exported(result) => {
                self.status = match result {
                    Ok(path) => format!(
                        "wrote {} (the key is read from the environment)",
                        path.file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    ),
                    Err(e) => format!("not exported: {e}"),
                };
                Vec::new()
            }
            Msg::RecoveryFound(path, found) => self.on_recovery_found(path, found),
            Msg::PreviewReady(preview) => {
                if preview.generation < self.generation {
                    self.dirty = false;
                    return Vec::new(); // a newer request is on its way
                }
                if let Some((index, why)) = &preview.rejected {
                    self.status = self.rejection_status(*index, why);
                }
                self.preview = Some(*preview);
                self.reveal_selection();
                Vec::new()
            }
            Msg::Tick => self.on_tick(),
            // The runtime acts on signals before they reach the app.
            Msg::Signal(_) => Vec::new(),
        }
    }

    /// Writes the settings form's values into the session (one undo step)
    /// and formats again with them.
    fn apply_settings(&mut self, settings: Vec<(String, Option<Value>)>) -> Vec<Command> {
        let Some(doc) = self.doc.as_mut() else {
            return Vec::new();
        };
        let before = doc.state();
        doc.close_group();
        doc.set_settings(settings);
        if doc.state() == before {
            self.status = "settings unchanged".into();
            return Vec::new();
        }
        self.recovery_due = true;
        // The model belongs to the provider on screen, which the session
        // now names: the header follows it.
        if let Ok(id) = doc.session.formatter() {
            self.formatter = FormatterId::new(id.provider, self.formatter.mode);
        }
        let s = &doc.session;
        // The model the request is now for, as every pane names it.
        let model = crate::model_choice::choose_model(s, self.formatter.provider, None);
        self.status = format!(
            "model {} · budget {} · token counter {} · C-s saves them in the session, u undoes",
            model.info().label(),
            s.max_tokens().map_or("none".to_string(), |b| b.to_string()),
            s.token_counter().unwrap_or("(default openai:gpt-4o)")
        );
        self.reformat()
    }

    /// `file:line:col: message N rejected: why` for the status line.
    fn rejection_status(&self, index: usize, why: &str) -> String {
        let at = self.doc.as_ref().and_then(|doc| {
            let pointer = match doc.session.shape {
                InputShape::Session => format!("/messages/{index}"),
                InputShape::BareArray => format!("/{index}"),
                _ => return None,
            };
            let (line, col) = locate_pointer(&doc.base.text(), &pointer)?;
            Some(format!("{}:{line}:{col}", self.file_name()))
        });
        match at {
            Some(at) => format!("{at}: message {index} rejected: {why}"),
            None => format!("message {index} rejected: {why}"),
        }
    }

    // ---- files ------------------------------------------------------------

    /// Starts showing `path`: read it, look for its recovery file, watch it.
    fn open(&mut self, path: PathBuf) -> Vec<Command> {
        self.doc = None;
        self.preview = None;
        self.editor = self.editor.cleared();
        self.list.selected = 0;
        self.request.scroll = 0;
        self.real_path = None;
        self.open_error = None;
        self.opening = Some(path.clone());
        self.status = format!("opening {}", self.file_name());
        let mut cmds = vec![Command::Read(path.clone()), Command::FindRecovery(path)];
        cmds.extend(self.watch_commands());
        cmds
    }

    /// The folders to watch: the folder shown, the open file's, and its
    /// symlink target's.
    fn watch_commands(&mut self) -> Vec<Command> {
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

    fn on_folder_listed(&mut self, files: Vec<PathBuf>) -> Vec<Command> {
        self.files = files;
        self.folder_listed = true;
        if self.doc.is_none() && self.opening.is_none() {
            return match self.files.first().cloned() {
                Some(first) => self.open(first),
                None => {
                    self.status = "no .json session files in this folder".into();
                    Vec::new()
                }
            };
        }
        // The open file stays open whatever the folder holds now.
        self.dirty = true;
        Vec::new()
    }

    /// Whether `path` is the open file (by its name or its resolved target).
    fn is_open_file(&self, path: &Path) -> bool {
        self.path().is_some_and(|p| p == path) || self.real_path.as_deref() == Some(path)
    }

    fn on_files_changed(&mut self, paths: Vec<PathBuf>) -> Vec<Command> {
        let mut cmds = Vec::new();
        if let Some(dir) = &self.folder {
            let listed = paths.iter().any(|p| {
                p.parent() == Some(dir.as_path())
                    && (super::watch::is_session_file(p) || self.files.contains(p))
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

    fn on_file_read(&mut self, path: PathBuf, result: FileResult) -> Vec<Command> {
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
                if doc.base.is(&text) {
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
                match super::io::parse_read(&text, &path.display().to_string()) {
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
    fn on_opened(&mut self, path: PathBuf, result: FileResult) -> Vec<Command> {
        match result {
            FileResult::Text { text, mode, real } => {
                match super::io::parse_read(&text, &path.display().to_string()) {
                    Err(e) => {
                        // Shown once it parses (the watcher reads it again).
                        self.open_error = Some(e.to_string());
                        self.real_path = Some(real);
                        self.watch_commands()
                    }
                    Ok(mut session) => {
                        session.path = Some(path.clone());
                        self.opening = None;
                        self.open_error = None;
                        self.real_path = Some(real);
                        self.doc = Some(Document::new(path, session, &text, mode));
                        let mut cmds = self.installed(true);
                        cmds.extend(self.watch_commands());
                        cmds
                    }
                }
            }
            FileResult::Missing => {
                self.open_error = Some(format!("{}: no such file", path.display()));
                Vec::new()
            }
            FileResult::Failed(e) => {
                self.open_error = Some(format!("{}: {e}", path.display()));
                Vec::new()
            }
        }
    }

    /// The document's session was (re)loaded from disk.
    fn installed(&mut self, first: bool) -> Vec<Command> {
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
            (None, Some(w)) => crate::text::escape_control(w).into_owned(),
            (None, None) => format!("loaded {}", self.file_name()),
        };
        self.load_editor();
        self.recovery_due = false;
        self.reformat()
    }

    fn on_saved(
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

    fn after(&mut self, then: AfterSave) -> Vec<Command> {
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

    fn on_saved_beside(&mut self, result: Result<PathBuf, String>) -> Vec<Command> {
        let disk = self.beside_for.take();
        match result {
            Ok(mine) => {
                let shown = crate::text::escape_control(&mine.display().to_string()).into_owned();
                let Some(doc) = self.doc.as_mut() else {
                    return Vec::new();
                };
                let path = doc.path.clone();
                match disk {
                    Some(FileResult::Text { text, .. }) => {
                        if let Ok(mut session) =
                            super::io::parse_read(&text, &path.display().to_string())
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

    fn on_recovery_found(
        &mut self,
        path: PathBuf,
        found: Result<Recovery, String>,
    ) -> Vec<Command> {
        if self.path() != Some(&path) {
            return Vec::new();
        }
        match found {
            Ok(recovery) => {
                let disk_changed = self
                    .doc
                    .as_ref()
                    .is_some_and(|d| !d.base.is(&recovery.base));
                self.popup = Some(Popup::Recovery {
                    recovery: Box::new(recovery),
                    disk_changed,
                });
            }
            Err(e) => self.status = crate::text::escape_control(&e).into_owned(),
        }
        Vec::new()
    }

    /// Every second: keep a recovery copy of unsaved edits (a crash, a
    /// signal or a closed terminal then loses nothing).
    fn on_tick(&mut self) -> Vec<Command> {
        self.dirty = false;
        if self.unsaved() && self.recovery_due {
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
    fn ask_consent(&mut self) -> Vec<Command> {
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

    // ---- formatting -------------------------------------------------------

    /// Asks the worker for a new preview of the current state.
    pub fn reformat(&mut self) -> Vec<Command> {
        let Some(doc) = &self.doc else {
            return Vec::new();
        };
        let session = &doc.session;
        self.generation += 1;
        // The header's model: the wire view sends the same one.
        let choice = crate::model_choice::choose_model(session, self.formatter.provider, None);
        let model = choice.info();
        let job = Job {
            generation: self.generation,
            formatter: self.formatter,
            model: model.clone(),
            messages: session.messages.clone(),
            tools: session.tools.clone(),
            base_dir: session.base_dir(),
            budget: session.max_tokens(),
            raw_media: self.request.raw_media,
            syntax: Arc::clone(&self.syntax),
            access: self.consent.grant(&doc.path),
            token_counter: session
                .token_counter()
                .map(|spec| CounterSpec::parse(spec).map_err(|e| format!("token_counter: {e}")))
                .unwrap_or_else(|| Ok(CounterSpec::default())),
            shown: self.request.shown,
            request: Provider::ALL
                .into_iter()
                .map(|p| crate::model_choice::request_settings(session, p, None).map(|s| (p, s)))
                .collect(),
            compare: self
                .compare
                .open
                .then(|| self.compare.sides(self.formatter)),
            // The last save / now pair shows the saved version even
            // without edits (then the two are the same).
            earlier: doc.earlier().or_else(|| {
                (self.compare.open && self.compare.pair == Pair::LastSave)
                    .then(|| (doc.base.text(), "last save"))
            }),
            // Small sessions are linted on every edit (the list marks
            // them); large ones while the panel is open.
            lint: (self.lint.open || session.messages.len() <= super::panes::lint::ALWAYS_UP_TO)
                .then(|| {
                    let base = doc.base.text();
                    let text: Arc<str> = if doc.unsaved() {
                        doc.render().map(Arc::from).unwrap_or(base)
                    } else {
                        base
                    };
                    (Box::new(session.clone()), text)
                }),
            why: self.request.why,
            release: (self.release != 0).then(|| ReleaseJob {
                release: self.reference(),
                mode: self.release_mode,
            }),
            session_settings: Arc::new(session.settings.clone()),
        };
        vec![Command::Reformat(Box::new(job))]
    }

    fn set_formatter(&mut self, id: FormatterId) -> Vec<Command> {
        if id == self.formatter {
            return Vec::new();
        }
        self.formatter = id;
        self.status = match self.release_call() {
            Some(call) => call,
            None => format!("{id}"),
        };
        self.reformat()
    }

    // ---- keys ---------------------------------------------------------------

    fn scope(&self) -> Scope {
        match self.focus {
            Focus::List => Scope::List,
            Focus::Editor => Scope::Editor,
            Focus::Output => Scope::Output,
        }
    }

    /// The footer's scope (what the status line hints at).
    pub fn footer_scope(&self) -> Scope {
        self.scope()
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        if let Some(popup) = self.popup.take() {
            return self.on_popup_key(popup, key);
        }
        if let Some(input) = self.request.search_input.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let query = std::mem::take(input);
                    self.request.search_input = None;
                    self.request.search = (!query.is_empty()).then_some(query);
                    self.jump(true, true);
                }
                KeyCode::Esc => self.request.search_input = None,
                KeyCode::Backspace => {
                    input.pop();
                }
                KeyCode::Char(c) => input.push(c),
                _ => {}
            }
            return Vec::new();
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
            // The open compare view takes the request pane's keys.
            Some(action @ (Action::NextMatch | Action::PrevMatch))
                if self.compare.open && self.request.search.is_none() =>
            {
                let compared = self.preview.as_ref().and_then(|p| p.compare.clone());
                let forward = action == Action::NextMatch;
                self.status = if self.compare.jump_to_change(forward, compared.as_deref()) {
                    format!("compare: the difference at row {}", self.compare.scroll + 1)
                } else {
                    "compare: no more differences that way".into()
                };
                Vec::new()
            }
            Some(action) if self.compare.open && self.focus == Focus::Output => {
                match self.compare.handle(action, self.formatter.provider) {
                    Some(true) => self.reformat(),
                    Some(false) => Vec::new(),
                    None => self.act(action),
                }
            }
            Some(action) => self.act(action),
            None => {
                self.dirty = false;
                Vec::new()
            }
        }
    }

    fn act(&mut self, action: Action) -> Vec<Command> {
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
            Action::Search => self.request.search_input = Some(String::new()),
            Action::NextMatch => self.jump(true, false),
            Action::PrevMatch => self.jump(false, false),
            Action::ToggleTools => {
                self.request.show_tools = !self.request.show_tools;
                self.request.scroll = 0;
            }
            Action::Left | Action::Right => {
                let lines = self.request.lines(self.preview.as_ref());
                self.request.sideways(action == Action::Right, lines);
            }
            Action::ToggleWrap => {
                self.request.toggle_wrap();
                self.status = if self.request.wrap {
                    "long request lines wrap (W: scroll sideways instead)".into()
                } else {
                    "long request lines scroll sideways with h/l or ←/→ (W: wrap)".into()
                };
            }
            Action::Copy => {
                let lines = self.request.lines(self.preview.as_ref());
                if lines.is_empty() {
                    self.status = "nothing to copy yet".into();
                    return Vec::new();
                }
                let text = lines.join("\n");
                self.status = super::panes::status::copied_note(
                    self.request.shown.label(),
                    lines.len(),
                    std::env::var_os("TMUX").is_some(),
                );
                return vec![Command::Clipboard(text)];
            }
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
                return vec![Command::RemoteCount(Box::new(super::msg::SendJob {
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
            Action::Compare => {
                self.compare.open = !self.compare.open;
                self.compare.scroll = 0;
                self.status = if self.compare.open {
                    format!(
                        "compare: {} (C: another pair, o: another provider, c: close)",
                        self.compare.pair.label()
                    )
                } else {
                    "compare closed".into()
                };
                return self.reformat();
            }
            Action::ComparePair | Action::CompareOther => {
                let was_open = self.compare.open;
                self.compare.open = true;
                if was_open || action == Action::CompareOther {
                    self.compare.handle(action, self.formatter.provider);
                }
                self.status = format!("compare: {}", self.compare.pair.label());
                return self.reformat();
            }
            Action::Why => {
                self.request.why = !self.request.why;
                // The rules panel and the lint panel share a place.
                if self.request.why {
                    self.lint.open = false;
                }
                self.status = if self.request.why {
                    "why: the rule behind each line at the right, the rules that fired below (w closes)".into()
                } else {
                    "rules hidden".into()
                };
                return self.reformat();
            }
            Action::ToggleLint => {
                if !self.lint.open {
                    self.request.why = false;
                }
                self.lint.open = !self.lint.open;
                self.status = if self.lint.open {
                    "lint: findings for the request on screen (L closes)".into()
                } else {
                    "lint panel closed".into()
                };
                return self.reformat();
            }
            Action::CycleView => {
                self.request.shown = self.request.shown.next();
                self.request.scroll = 0;
                self.request.hscroll = 0;
                self.status = format!("request view: {}", self.request.shown.label());
                return self.reformat();
            }
            Action::ToggleRaw => {
                self.request.raw_media = !self.request.raw_media;
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

    fn on_popup_key(&mut self, popup: Popup, key: KeyEvent) -> Vec<Command> {
        let code = key.code;
        match popup {
            Popup::Settings(mut form) => match form.on_key(key) {
                FormOutcome::Editing => {
                    self.popup = Some(Popup::Settings(form));
                    Vec::new()
                }
                FormOutcome::Cancelled => {
                    self.status = "settings unchanged".into();
                    Vec::new()
                }
                FormOutcome::Apply(settings) => self.apply_settings_form(&form, settings),
            },
            Popup::Help(scroll) => {
                let n = keymap::help().len();
                match code {
                    KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Enter => {}
                    KeyCode::Down | KeyCode::Char('j') => {
                        self.popup = Some(Popup::Help((scroll + 1).min(n)))
                    }
                    KeyCode::Up | KeyCode::Char('k') => {
                        self.popup = Some(Popup::Help(scroll.saturating_sub(1)))
                    }
                    KeyCode::PageDown | KeyCode::Char(' ') => {
                        self.popup = Some(Popup::Help((scroll + 10).min(n)))
                    }
                    KeyCode::PageUp => self.popup = Some(Popup::Help(scroll.saturating_sub(10))),
                    KeyCode::Home | KeyCode::Char('g') => self.popup = Some(Popup::Help(0)),
                    // The drawing stops at the last screenful.
                    KeyCode::End | KeyCode::Char('G') => self.popup = Some(Popup::Help(n)),
                    _ => self.popup = Some(Popup::Help(scroll)),
                }
                Vec::new()
            }
            Popup::Formatter(i) => {
                let n = FormatterId::all().count();
                match code {
                    KeyCode::Up | KeyCode::Char('k') => {
                        self.popup = Some(Popup::Formatter((i + n - 1) % n))
                    }
                    KeyCode::Down | KeyCode::Char('j') => {
                        self.popup = Some(Popup::Formatter((i + 1) % n))
                    }
                    KeyCode::Enter => {
                        if let Some(id) = FormatterId::all().nth(i) {
                            return self.set_formatter(id);
                        }
                    }
                    KeyCode::Esc | KeyCode::Char('q') => {}
                    _ => self.popup = Some(Popup::Formatter(i)),
                }
                Vec::new()
            }
            Popup::SendTo { cursor, mut chosen } => {
                let n = chosen.len();
                match code {
                    KeyCode::Up | KeyCode::Char('k') => {
                        self.popup = Some(Popup::SendTo {
                            cursor: (cursor + n - 1) % n,
                            chosen,
                        })
                    }
                    KeyCode::Down | KeyCode::Char('j') => {
                        self.popup = Some(Popup::SendTo {
                            cursor: (cursor + 1) % n,
                            chosen,
                        })
                    }
                    KeyCode::Char(' ') | KeyCode::Char('x') => {
                        chosen[cursor] = !chosen[cursor];
                        self.popup = Some(Popup::SendTo { cursor, chosen });
                    }
                    KeyCode::Char(c @ '1'..='6') => {
                        let i = c as usize - '1' as usize;
                        chosen[i] = !chosen[i];
                        self.popup = Some(Popup::SendTo { cursor: i, chosen });
                    }
                    KeyCode::Enter => {
                        let providers: Vec<Provider> = Provider::ALL
                            .iter()
                            .zip(chosen)
                            .filter(|(_, on)| *on)
                            .map(|(p, _)| *p)
                            .collect();
                        if providers.is_empty() {
                            self.status = "no provider picked: Space picks one".into();
                            self.popup = Some(Popup::SendTo { cursor, chosen });
                            return Vec::new();
                        }
                        return self.send_or_ask(providers);
                    }
                    KeyCode::Esc | KeyCode::Char('q') => self.status = "nothing sent".into(),
                    _ => self.popup = Some(Popup::SendTo { cursor, chosen }),
                }
                Vec::new()
            }
            Popup::Conflict { disk, error } => self.on_conflict_key(code, disk, error),
            Popup::SaveAsk {
                question,
                allow,
                then,
            } => self.on_save_ask_key(code, question, allow, then),
            Popup::Recreate => match code {
                KeyCode::Char('y') => {
                    if let Some(doc) = self.doc.as_mut() {
                        doc.disk = Disk::Missing { recreate_ok: true };
                    }
                    self.save(AfterSave::Stay)
                }
                KeyCode::Esc | KeyCode::Char('n') => {
                    self.status = "not saved: the file stays deleted; your edits are kept".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Recreate);
                    Vec::new()
                }
            },
            Popup::Unsaved(pending) => {
                let then = match pending {
                    Pending::Quit => AfterSave::Quit,
                    Pending::Open(i) => AfterSave::Open(i),
                };
                match code {
                    KeyCode::Char('s') => self.save(then),
                    KeyCode::Char('d') => {
                        let mut cmds = self.drop_edits();
                        cmds.extend(self.after(then));
                        cmds
                    }
                    KeyCode::Esc => Vec::new(),
                    _ => {
                        self.popup = Some(Popup::Unsaved(pending));
                        Vec::new()
                    }
                }
            }
            Popup::Draft => match code {
                KeyCode::Char('e') | KeyCode::Esc => {
                    self.focus = Focus::Editor;
                    Vec::new()
                }
                KeyCode::Char('d') => {
                    self.load_editor();
                    self.status = "dropped the editor's text; the message is as it was".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Draft);
                    Vec::new()
                }
            },
            Popup::Recovery {
                recovery,
                disk_changed,
            } => match code {
                KeyCode::Char('r') => self.restore(*recovery),
                KeyCode::Char('d') => {
                    self.status = "dropped the recovered edits".into();
                    vec![Command::RemoveRecovery(recovery.session)]
                }
                KeyCode::Esc => {
                    self.status = "the recovery file stays: it is offered again next time".into();
                    Vec::new()
                }
                _ => {
                    self.popup = Some(Popup::Recovery {
                        recovery,
                        disk_changed,
                    });
                    Vec::new()
                }
            },
            Popup::SendHost { host, providers } => self.on_send_host_key(code, host, providers),
            Popup::ConfirmSend(ask) => self.on_confirm_send_key(code, ask),
            Popup::Consent { session, wanted } => match code {
                KeyCode::Char('a') => {
                    self.consent.answer_redirects(&wanted, true);
                    self.consent.answer(&session, true);
                    self.status = "allowed for this file until you quit".into();
                    self.reformat()
                }
                KeyCode::Char('d') | KeyCode::Esc => {
                    self.consent.answer_redirects(&wanted, false);
                    // Only redirect hosts asked: the session's answer stands.
                    if wanted.iter().any(|a| a.redirect_host().is_none()) {
                        self.consent.answer(&session, false);
                    }
                    self.status =
                        "denied: nothing outside the session's folder is read or fetched".into();
                    self.reformat()
                }
                KeyCode::Char('A') => {
                    self.consent.answer_redirects(&wanted, true);
                    let dir = session.parent().map(Path::to_path_buf).unwrap_or_default();
                    let real = self.consent.trust(&dir);
                    self.status =
                        format!("sessions in {} may always read and fetch", real.display());
                    let mut cmds = vec![Command::TrustFolder(real)];
                    cmds.extend(self.reformat());
                    cmds
                }
                _ => {
                    self.popup = Some(Popup::Consent { session, wanted });
                    Vec::new()
                }
            },
        }
    }

    fn on_conflict_key(
        &mut self,
        code: KeyCode,
        disk: FileResult,
        error: Option<String>,
    ) -> Vec<Command> {
        match code {
            KeyCode::Char('r') => {
                let FileResult::Text { text, .. } = &disk else {
                    self.popup = Some(Popup::Conflict { disk, error });
                    return Vec::new();
                };
                let Some(doc) = self.doc.as_mut() else {
                    return Vec::new();
                };
                let path = doc.path.clone();
                match super::io::parse_read(text, &path.display().to_string()) {
                    Ok(mut session) => {
                        session.path = Some(path.clone());
                        doc.reload(session, text);
                        self.editor.error = None;
                        let mut cmds = self.installed(false);
                        cmds.push(Command::RemoveRecovery(path));
                        self.recovery_written = None;
                        cmds
                    }
                    Err(e) => {
                        self.popup = Some(Popup::Conflict {
                            disk: disk.clone(),
                            error: Some(format!("the file on disk does not parse: {e}")),
                        });
                        Vec::new()
                    }
                }
            }
            KeyCode::Char('k') | KeyCode::Esc => {
                if let Some(doc) = self.doc.as_mut() {
                    doc.disk = match &disk {
                        FileResult::Text { text, .. } => Disk::Changed {
                            text: Arc::clone(text),
                            overwrite_ok: true,
                        },
                        _ => Disk::Missing { recreate_ok: true },
                    };
                }
                self.status = "kept your edits; the file on disk differs (C-s replaces it)".into();
                Vec::new()
            }
            KeyCode::Char('s') => {
                if self.editor.has_draft() {
                    self.popup = Some(Popup::Conflict {
                        disk,
                        error: Some("the editor holds text that does not parse: keep yours (k), fix or drop it, then save".into()),
                    });
                    return Vec::new();
                }
                let Some(doc) = self.doc.as_ref() else {
                    return Vec::new();
                };
                let text = doc
                    .render()
                    .unwrap_or_else(|_| doc.session.to_session_text());
                let path = doc.path.clone();
                self.beside_for = Some(disk);
                vec![Command::SaveBeside { path, text }]
            }
            _ => {
                self.popup = Some(Popup::Conflict { disk, error });
                Vec::new()
            }
        }
    }

    /// Restores edits from a recovery file over the file as it is now.
    fn restore(&mut self, recovery: Recovery) -> Vec<Command> {
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
        let disk_text = doc.base.text();
        doc.session = session;
        doc.base = recovery.text.as_str().into();
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
                if let Some(m) = self.messages().get(self.list.selected).map(Message::value) {
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
    fn drop_edits(&mut self) -> Vec<Command> {
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

    fn navigate(&mut self, action: Action) {
        let page = self.size.1.saturating_sub(12).max(1) as usize;
        if self.focus == Focus::Output {
            let n = self.request.lines(self.preview.as_ref()).len();
            self.request.scroll_by(action, n, page);
            return;
        }
        let mut probe = ListPane::at(self.list.selected);
        if probe.navigate(action, self.messages().len(), page) {
            self.select(probe.selected);
        }
    }

    /// Moves the selection to `i` (unless a draft in the editor would be
    /// left behind: then the user is asked first).
    fn select(&mut self, i: usize) -> bool {
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
    fn leave_draft(&mut self) -> bool {
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

    fn reveal_selection(&mut self) {
        if self.request.show_tools {
            return;
        }
        if let Some(lines) = self.selected_lines() {
            let height = self.areas.output.height.saturating_sub(2).max(1) as usize;
            self.request.reveal(lines, height);
        }
    }

    fn jump(&mut self, forward: bool, from_current: bool) {
        let lines = RequestPane::lines_of(self.preview.as_ref(), self.request.show_tools);
        if let Some(status) = self.request.jump(lines, forward, from_current) {
            if !status.ends_with("not found") {
                self.focus = Focus::Output;
            }
            self.status = status;
        }
    }

    // ---- editing ----------------------------------------------------------

    /// Loads the selected message into the editor.
    pub fn load_editor(&mut self) {
        let i = self.list.selected;
        let message = self.messages().get(i).map(Message::value);
        if let Some(note) = self.editor.load(message.as_ref(), i) {
            self.status = note;
        }
    }

    /// The editor's text changed: a valid message replaces the selected one;
    /// text that does not parse stays as a draft.
    fn editor_changed(&mut self) -> Vec<Command> {
        let Some(i) = self.editor.for_index else {
            return Vec::new();
        };
        let Some(current) = self.messages().get(i).map(Message::value) else {
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
    fn edit(
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

    fn undo_redo(&mut self, undo: bool) -> Vec<Command> {
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

    /// Saves the open file (asking first when the disk changed, the file
    /// was deleted, the link was re-pointed or the file is read-only);
    /// `then` runs once it is written.
    fn save(&mut self, then: AfterSave) -> Vec<Command> {
        self.save_with(then, Allow::default())
    }

    // ---- mouse ------------------------------------------------------------

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
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

/// `Bob, user` for a message.
fn describe(m: &Value) -> String {
    let name = m.get("name").map(crate::py::py_str).unwrap_or_default();
    let role = m.get("role").map(crate::py::py_str).unwrap_or_default();
    crate::text::escape_control(&format!("{name}, {role}")).into_owned()
}
