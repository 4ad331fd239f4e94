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
use super::panes::budget::BudgetPane;
use super::panes::compare::{CompareContext, ComparePane, Pair};
use super::panes::editor::EditorPane;
use super::panes::lint::LintPane;
use super::panes::list::{ListContext, ListPane};
use super::panes::popup::{Pending, Popup};
use super::panes::reply::{Replies, ReplyUpdate};
use super::panes::request::{RequestContext, RequestPane};
use super::panes::settings::SettingsForm;
use super::panes::{Component, Effect, Key, Outcome};
use super::recovery::{self, Recovery};
use super::theme::Theme;
use super::worker::{Job, Preview, ReleaseJob};
use formatscope_core::formatter::{FormatterId, Mode, Provider};
use formatscope_core::session::{
    locate_pointer, parse_session, InputShape, PackedMessage, Session,
};
use formatscope_core::tokens::CounterSpec;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use super::msg::Event;

mod ask;
mod edits;
mod external;
mod files;
mod history;
mod keys;
mod outcome;
mod panels;
mod picker;
mod popups;
mod release;
mod release_send;
mod send_confirm;
mod send_hosts;
mod sends;

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
    /// not exist or parse yet: `unshown` says why).
    pub opening: Option<PathBuf>,
    /// Why the file asked for is not shown: it is missing, unreadable, or
    /// has not parsed yet (there is no good version of it to show).
    pub unshown: Option<Unshown>,
    pub formatter: FormatterId,
    pub focus: Focus,
    pub list: ListPane,
    pub editor: EditorPane,
    pub request: RequestPane,
    pub compare: ComparePane,
    pub lint: LintPane,
    /// The AgentScope release on screen (`V`): its index in
    /// `reference::ALL`, and the mode it formats in when it is not the
    /// default (which follows the formatter's).
    pub release: usize,
    pub release_mode: formatscope_core::reference::Mode,
    /// A provider of that release which 1.0.21 does not have (2.x's
    /// "minimax", Java's "glm"), when one is picked; otherwise the
    /// release's provider is the formatter's (see `App::family`).
    pub family: Option<&'static str>,
    /// The last live send's replies, side by side.
    pub replies: Replies,
    /// The budget meter (it keeps the provider's own count, `R`).
    pub meter: BudgetPane,
    pub popup: Option<Popup>,
    pub preview: Option<Preview>,
    pub generation: u64,
    pub status: String,
    pub last_reload: Option<String>,
    pub consent: Consent,
    /// The price table the meter reads: the snapshot built in until the
    /// runtime reads the user's file at start (`tokens::cost::load`).
    pub prices: Arc<Result<formatscope_core::tokens::cost::PriceTable, String>>,
    /// The user's profiles (`net::profile`), read by the runtime at start,
    /// and the one sends go through (picked in the settings; never saved
    /// in a session).
    pub profiles: Arc<Result<formatscope_net::profile::Profiles, String>>,
    pub profile: Option<String>,
    /// The user's profiles file, read again each time profiles are used
    /// (a send, an export, the settings): edits made while the workbench
    /// runs count. `None`: the profiles set at start stay (as in tests).
    pub profiles_file: Option<PathBuf>,
    /// `O` on a file that does not parse: its text is in the external
    /// editor, and what comes back is written as the file.
    fixing: Option<PathBuf>,
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
    /// Ticks the due copy has waited for the worker to finish recounting.
    recovery_waited: u32,
    /// A "save mine beside it" is under way for this conflict.
    beside_for: Option<FileResult>,
    /// `S` and `P` ask first from this many tokens on (the settings' "ask
    /// to send at"; the workbench's, for every file).
    pub confirm_send_at: u64,
    /// The history file sends are recorded in and `H` reads (the runtime
    /// sets it; `None`: no history, as in tests that do not ask for one).
    pub history_path: Option<PathBuf>,
    /// The recent list the picker reads and opens write (the runtime sets
    /// it; `None`: none, as in tests that do not ask for one).
    pub recent_path: Option<PathBuf>,
    /// Show the session picker from the start (`App::start`) over a
    /// folder (the runtime sets it when it opens one).
    pub pick_on_folder: bool,
    /// Follow the folder's newest session as it arrives (`--listen`): while
    /// the newest is on screen, a newer one opens in its place.
    pub follow: bool,
    /// Where the trace receiver listens (`--listen`), for the status line.
    pub listening: Option<String>,
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
            unshown: None,
            formatter: FormatterId::new(Provider::OpenAi, Mode::Chat),
            focus: Focus::List,
            list: ListPane::default(),
            editor: EditorPane::default(),
            request: RequestPane::default(),
            compare: ComparePane::default(),
            lint: LintPane::default(),
            release: 0,
            release_mode: formatscope_core::reference::Mode::Chat,
            family: None,
            replies: Replies::default(),
            meter: BudgetPane::default(),
            popup: None,
            preview: None,
            generation: 0,
            status: "loading…".into(),
            last_reload: None,
            consent: Consent::default(),
            prices: Arc::new(Ok(
                formatscope_core::tokens::cost::PriceTable::embedded().clone()
            )),
            profiles: Arc::new(Ok(formatscope_net::profile::Profiles::default())),
            profile: None,
            profiles_file: None,
            fixing: None,
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
            recovery_waited: 0,
            beside_for: None,
            confirm_send_at: super::panes::settings::CONFIRM_SEND_AT,
            history_path: None,
            recent_path: None,
            pick_on_folder: false,
            follow: false,
            listening: None,
        }
    }

    /// The commands to run first: list the folder, or open the file.
    pub fn start(&mut self) -> Vec<Command> {
        match (self.folder.clone(), self.files.first().cloned()) {
            (Some(dir), _) => {
                // The picker's listing first: the I/O thread hands it to a
                // thread of its own before it lists the folder.
                let mut cmds = self.pick_on_start();
                cmds.push(Command::ListFolder(dir));
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

    pub fn messages(&self) -> &[PackedMessage] {
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
        if let Some(u) = &self.unshown {
            return Some(u.describe());
        }
        if self.folder.is_some()
            && self.folder_listed
            && self.files.is_empty()
            && self.opening.is_none()
        {
            return Some(format!(
                "No session to format: this folder has no files that are sessions (a messages list, whatever the name). Save one here and it opens, or start one: {START_HINT}."
            ));
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
            .map(|n| formatscope_core::text::escape_control(&n.to_string_lossy()).into_owned())
            .unwrap_or_else(|| "(no file)".into())
    }

    /// The open file's place in the folder's list.
    pub fn position(&self) -> Option<usize> {
        let path = self.path()?;
        self.files.iter().position(|f| f == path)
    }

    /// The open session and the model settings the request view uses for
    /// the provider on screen (its own model when it is the session's).
    fn wire_settings(&self) -> Result<(Session, formatscope_core::wire::Settings), String> {
        self.wire_settings_for(self.formatter.provider)
    }

    fn wire_settings_for(
        &self,
        provider: Provider,
    ) -> Result<(Session, formatscope_core::wire::Settings), String> {
        let Some(doc) = self.doc.as_ref() else {
            return Err("no session".into());
        };
        let session = &doc.session;
        let mut settings =
            formatscope_core::model_choice::request_settings(session, provider, None)?;
        // The profile's base URL over the session's; its model when the
        // session names none.
        if let Some(p) = self.profile_for(provider) {
            let assumed =
                formatscope_core::model_choice::choose_model(session, provider, None).assumed();
            p.apply(&mut settings, assumed);
        }
        Ok((session.clone(), settings))
    }

    /// Reads the profiles file again (a send, an export or the settings
    /// use it): a guarded read of a small file (`files::read_config`).
    pub(super) fn reread_profiles(&mut self) {
        if let Some(path) = &self.profiles_file {
            self.profiles = Arc::new(formatscope_net::profile::load_from(Some(path)));
        }
    }

    /// Why the profile in use cannot be used (the file does not read or
    /// parse, or no longer has it), naming the file.
    pub(super) fn profile_problem(&self) -> Option<String> {
        let name = self.profile.as_deref()?;
        match self.profiles.as_ref() {
            Err(e) => Some(format!("profile {name}: {e}")),
            Ok(all) => all.get(name).err().map(|e| match &self.profiles_file {
                // An empty `Profiles` has no origin: the file did not exist.
                Some(path) if all.origin.is_empty() => {
                    format!("no profile {name}: {} does not exist", path.display())
                }
                _ => e,
            }),
        }
    }

    /// The profiles file's name for messages: the file read, else where
    /// it would be.
    pub(super) fn profiles_origin(&self) -> String {
        match (&self.profiles_file, self.profiles.as_ref()) {
            (Some(path), _) => path.display().to_string(),
            (None, Ok(p)) if !p.origin.is_empty() => p.origin.clone(),
            _ => formatscope_net::profile::path_hint(),
        }
    }

    /// The profile in use, when it is for `provider`.
    pub(super) fn profile_for(
        &self,
        provider: Provider,
    ) -> Option<&formatscope_net::profile::Profile> {
        let name = self.profile.as_deref()?;
        let all = self.profiles.as_ref().as_ref().ok()?;
        all.get(name).ok().filter(|p| p.provider == provider)
    }

    /// Whether a live send is in flight.
    pub fn sending(&self) -> bool {
        self.replies.sending()
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
            let id = self.replies.next_id();
            // The meter counts the request on screen: beside its reply only.
            let our_count = (provider == self.formatter.provider)
                .then(|| self.preview.as_ref().and_then(|p| p.report.as_ref()))
                .flatten()
                .map(|r| (r.total, r.exact));
            // The price of the model sent to: the reply's cost beside it.
            let model = settings
                .model
                .clone()
                .unwrap_or_else(|| provider.default_model().to_string());
            let price = self
                .prices
                .as_ref()
                .as_ref()
                .ok()
                .and_then(|t| t.price_for(provider, &model));
            let mut pane = super::panes::reply::ReplyPane::default();
            pane.start(id, provider, our_count, price);
            replies.push(pane);
            cmds.push(Command::Send(Box::new(super::msg::SendJob {
                id,
                session: Box::new(session),
                formatter: FormatterId::new(provider, self.formatter.mode),
                settings: Box::new(settings),
                allowed_hosts: self.consent.send_hosts(),
                profile: self.profile_for(provider).cloned(),
                history: self.history_for(),
                release: None,
            })));
        }
        self.replies
            .retain(|r| !r.provider.is_some_and(|p| providers.contains(&p)));
        self.replies.extend(replies);
        let names: Vec<String> = providers.iter().map(|p| p.to_string()).collect();
        self.status = format!("sending to {}… Esc cancels", names.join(", "));
        cmds
    }

    pub fn update(&mut self, msg: Event) -> Vec<Command> {
        // A frame owed for an earlier event stays owed: the runtime handles
        // the events queued behind one before it draws, and a tick among
        // them (it draws nothing) cancelled the picker's listing's frame.
        let owed = self.dirty;
        self.dirty = true;
        let mut cmds = self.handle(msg);
        self.dirty |= owed;
        let focused = self.focus == Focus::Editor;
        self.editor.style(&self.theme.ui, focused);
        if self.popup.is_none() {
            cmds.extend(self.ask_consent());
        }
        cmds
    }

    fn handle(&mut self, msg: Event) -> Vec<Command> {
        match msg {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                // The user has started: no picker opens over their keys.
                self.pick_on_folder = false;
                self.on_key(key)
            }
            Event::Key(_) => {
                self.dirty = false;
                Vec::new()
            }
            Event::Mouse(mouse) => self.on_mouse(mouse),
            Event::Paste(text) => {
                if self.focus == Focus::Editor {
                    self.editor.paste(&text);
                    return self.editor_changed();
                }
                Vec::new()
            }
            Event::Resized(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Event::FilesChanged(paths) => self.on_files_changed(paths),
            Event::FolderListed(files) => self.on_folder_listed(files),
            Event::Listened(why) | Event::Crashed(why) => {
                self.status = why;
                Vec::new()
            }
            Event::FileRead { path, result } => self.on_file_read(path, result),
            Event::Saved {
                path,
                state,
                outcome,
                then,
            } => self.on_saved(path, state, outcome, then),
            Event::SavedBeside(result) => self.on_saved_beside(result),
            Event::SavedAsSession { path, result, then } => {
                self.on_saved_as_session(path, result, then)
            }
            Event::RemoteCounted {
                generation,
                provider,
                result,
            } => {
                self.status = match &result {
                    Ok(n) => format!("{provider} counts {n} input tokens (exact)"),
                    Err(e) => format!("no remote count: {e}"),
                };
                self.meter.remote = Some((generation, provider, result));
                Vec::new()
            }
            Event::Reply {
                id,
                update: ReplyUpdate::HostNotChosen(host),
            } => self.on_host_not_chosen(id, host),
            Event::Reply { id, update } => {
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
            Event::HistoryListed { session, result } => self.on_history_listed(session, result),
            Event::HistorySendRead { session, result } => {
                self.on_history_send_read(session, result)
            }
            Event::PickerListed { dir, files, recent } => self.on_picker_listed(dir, files, recent),
            Event::PickerFound {
                listing,
                files,
                recent,
                done,
            } => self.on_picker_found(listing, files, recent, done),
            Event::ExternalEdited {
                index,
                text_mode,
                original,
                result,
            } => match self.fixing.take() {
                Some(path) => self.on_file_fixed(path, original, result),
                None => self.on_external_edited(index, text_mode, original, result),
            },
            Event::TextWritten { path, result } => self.on_text_written(path, result),
            Event::HistoryNotWritten(why) => {
                self.status = format!("warning: {why}");
                Vec::new()
            }
            Event::Exported(result) => {
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
            Event::RecoveryFound(path, found) => self.on_recovery_found(path, found),
            Event::PreviewReady(preview) => {
                if preview.generation < self.generation {
                    self.dirty = false;
                    return Vec::new(); // a newer request is on its way
                }
                if let Some((index, why)) = &preview.rejected {
                    self.status = self.rejection_status(*index, why);
                }
                let mut preview = *preview;
                if let Some(last) = self.preview.take() {
                    preview.keep_pending_from(last);
                }
                self.preview = Some(preview);
                self.reveal_selection();
                Vec::new()
            }
            Event::Tick => self.on_tick(),
            // The runtime acts on signals before they reach the app.
            Event::Signal(_) => Vec::new(),
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
        let model = formatscope_core::model_choice::choose_model(s, self.formatter.provider, None);
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
            let (line, col) = locate_pointer(&doc.base, &pointer)?;
            Some(format!("{}:{line}:{col}", self.file_name()))
        });
        match at {
            Some(at) => format!("{at}: message {index} rejected: {why}"),
            None => format!("message {index} rejected: {why}"),
        }
    }

    /// Asks the worker for a new preview of the current state.
    pub fn reformat(&mut self) -> Vec<Command> {
        let Some(doc) = &self.doc else {
            return Vec::new();
        };
        let session = &doc.session;
        self.generation += 1;
        // The header's model: the wire view sends the same one.
        let choice =
            formatscope_core::model_choice::choose_model(session, self.formatter.provider, None);
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
                .map(|p| {
                    formatscope_core::model_choice::request_settings(session, p, None)
                        .map(|s| (p, s))
                })
                .collect(),
            compare: self
                .compare
                .open
                .then(|| self.compare.sides(self.formatter)),
            // The last save / now pair shows the saved version even
            // without edits (then the two are the same).
            earlier: doc.earlier().or_else(|| {
                (self.compare.open && self.compare.pair == Pair::LastSave)
                    .then(|| (Arc::clone(&doc.base), "last save"))
            }),
            // Small sessions are linted on every edit (the list marks
            // them); large ones while the panel is open.
            lint: (self.lint.open || session.messages.len() <= super::panes::lint::ALWAYS_UP_TO)
                .then(|| {
                    let base = Arc::clone(&doc.base);
                    let text: Arc<String> = if doc.unsaved() {
                        doc.render().map(Arc::from).unwrap_or(base)
                    } else {
                        base
                    };
                    (Box::new(session.clone()), text)
                }),
            explain: self.request.explain,
            release: self.release_job(),
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
}

/// How to start when there is no session: the two commands.
pub const START_HINT: &str =
    "formatscope FILE.json opens a session, formatscope --new FILE.json starts a new one";

/// Why the file asked for is not shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Unshown {
    /// `FILE:LINE:COL: what is wrong`, or `FILE: no such file`, ...
    pub error: String,
    /// The file's text, when it was read but does not parse, and the line
    /// of the error (1-based).
    pub text: Option<(Arc<String>, usize)>,
}

/// The lines of a broken file shown around its error.
const BROKEN_LINES: usize = 200;

impl Unshown {
    /// What the request pane says: the error, and the file's text from a
    /// little before the error line, numbered, the error line marked.
    pub fn describe(&self) -> String {
        let Some((text, line)) = &self.text else {
            let hint = if self.error.ends_with("no such file") {
                format!(" ({START_HINT})")
            } else {
                String::new()
            };
            return format!("No session to format: {}{hint}", self.error);
        };
        let mut out = format!(
            "No good version yet: {}\nO opens the file in your editor to fix it (it shows here once it parses).\n\n",
            self.error
        );
        let from = line.saturating_sub(5).max(1);
        let text = text.strip_suffix('\n').unwrap_or(text);
        for (n, l) in text
            .split('\n')
            .enumerate()
            .skip(from - 1)
            .take(BROKEN_LINES)
        {
            let n = n + 1;
            let mark = if n == *line { '▶' } else { '│' };
            let l = formatscope_core::text::escape_control(l.trim_end_matches('\r'));
            out.push_str(&format!("{n:>5} {mark} {l}\n"));
        }
        out
    }
}

/// `Bob, user` for a message.
fn describe(m: &Value) -> String {
    let name = m
        .get("name")
        .map(formatscope_core::py::py_str)
        .unwrap_or_default();
    let role = m
        .get("role")
        .map(formatscope_core::py::py_str)
        .unwrap_or_default();
    formatscope_core::text::escape_control(&format!("{name}, {role}")).into_owned()
}
