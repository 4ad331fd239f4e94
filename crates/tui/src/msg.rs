//! What flows through the workbench: `Event`s (what happened, past tense) into
//! `App::update`, `Command`s (imperatives) out of it for the runtime.

use super::recovery::Recovery;
use super::worker::{Job, Preview};
use formatscope_core::formatter::FormatterId;
use formatscope_core::session::Session;
use formatscope_core::wire::Settings;
use formatscope_net::hosts::Host;
use ratatui::crossterm::event::{KeyEvent, MouseEvent};
use std::path::PathBuf;
use std::sync::Arc;

/// A send to make.
#[derive(Debug)]
pub struct SendJob {
    pub id: u64,
    pub session: Box<Session>,
    pub formatter: FormatterId,
    pub settings: Box<Settings>,
    /// Hosts only the session names that the user let the key go to.
    pub allowed_hosts: Vec<Host>,
    /// The profile it goes through: its key variable, headers and (chosen)
    /// base URL, already in `settings`.
    pub profile: Option<formatscope_net::profile::Profile>,
    /// Where the finished send is recorded (the history file, and the
    /// session it is recorded under); `None`: not recorded.
    pub history: Option<(PathBuf, PathBuf)>,
    /// Another release's request (`V`): built, sent and parsed by that
    /// release (`Reference::request`, `Reference::replies`); `None`: the
    /// default release's, for `formatter`.
    pub release: Option<super::worker::ReleaseJob>,
}

/// Where messages for the loop go: from any thread (the worker, the I/O
/// thread, the watcher, signals) or task (sends).
pub type Outbox = tokio::sync::mpsc::UnboundedSender<Event>;

#[derive(Debug)]
pub enum Event {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resized(u16, u16),
    /// Files in a watched folder were created, changed, renamed or removed
    /// (every path the watcher saw; the app decides what matters).
    FilesChanged(Vec<PathBuf>),
    /// A session file was read (to open it or because it changed).
    FileRead {
        path: PathBuf,
        result: FileResult,
    },
    /// The folder's session files, listed.
    FolderListed(Vec<PathBuf>),
    /// The trace receiver (`--listen`) refused an export: why.
    Listened(String),
    /// A save of the open file ended.
    Saved {
        path: PathBuf,
        /// The edit state that was saved.
        state: u64,
        outcome: SaveOutcome,
        then: AfterSave,
    },
    /// "Save mine beside it" ended: the file it made, or why not.
    SavedBeside(Result<PathBuf, String>),
    /// The edits of a converted file (`path`) were saved as a new session
    /// file beside it: its name, or why not.
    SavedAsSession {
        path: PathBuf,
        result: Result<PathBuf, String>,
        then: AfterSave,
    },
    /// An export was written (or why not).
    Exported(Result<PathBuf, String>),
    /// A recovery file from an earlier run was found for `path`.
    RecoveryFound(PathBuf, Result<Recovery, String>),
    PreviewReady(Box<Preview>),
    /// A second passed (recovery copies of unsaved edits are written on it).
    Tick,
    /// The provider's own count of the request of preview `generation`.
    RemoteCounted {
        generation: u64,
        provider: formatscope_core::formatter::Provider,
        result: Result<u64, String>,
    },
    /// Progress of a live send (`S`).
    Reply {
        id: u64,
        update: ReplyUpdate,
    },
    /// The history's sends of `session`, newest first (or why not).
    HistoryListed {
        session: PathBuf,
        result: Result<Vec<formatscope_history::Send>, String>,
    },
    /// One send of `session` read whole (its request body, a large
    /// reply), for the history popup (or why not).
    HistorySendRead {
        session: PathBuf,
        result: Result<Box<formatscope_history::Send>, String>,
    },
    /// A finished send could not be recorded: why.
    HistoryNotWritten(String),
    /// The session picker's folder was listed (session-shaped files only)
    /// and the recent list read (those that still look like sessions).
    PickerListed {
        dir: Option<PathBuf>,
        files: Vec<PathBuf>,
        recent: Vec<PathBuf>,
    },
    /// Part of the session picker's listing `listing`, as it goes (the
    /// runtime lists on a thread of its own and sends what it found every
    /// few hundred files or 50 ms): the recent files (first batch only)
    /// and the folder's next session-shaped files, in name order; `done`
    /// on the last.
    PickerFound {
        listing: u64,
        files: Vec<PathBuf>,
        recent: Vec<PathBuf>,
        done: bool,
    },
    /// The external editor (`O`) ended: the file's text, or why there is
    /// no change (it could not start, or exited non-zero).
    ExternalEdited {
        index: usize,
        text_mode: bool,
        /// The text it was given (to tell an editor's added final
        /// newline from an edit).
        original: String,
        result: Result<String, String>,
    },
    /// `Command::WriteText` ended.
    TextWritten {
        path: PathBuf,
        result: Result<(), String>,
    },
    /// SIGTERM, SIGHUP, SIGINT or SIGQUIT arrived (the runtime keeps the
    /// unsaved edits, restores the terminal and exits).
    Signal(i32),
    /// A thread or task other than the interface's panicked (a bug in
    /// formatscope): what and where, for the status line. The work it was
    /// doing ends in an error of its own; the workbench carries on.
    Crashed(String),
}

/// What reading a session file gave.
#[derive(Debug, Clone, PartialEq)]
pub enum FileResult {
    Text {
        text: Arc<String>,
        /// The file's mode (kept when a deleted file is made again).
        mode: Option<u32>,
        /// The file the path names once symlinks are followed.
        real: PathBuf,
    },
    Missing,
    /// Unreadable, not a regular file, or too large: why.
    Failed(String),
}

/// What the disk held when a save looked before writing.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveOutcome {
    /// Written; the text is what the file now holds.
    Written {
        text: Arc<String>,
        note: Option<String>,
    },
    /// The file was not what the save expected: nothing was written.
    Conflict(FileResult),
    /// The write failed: nothing changed on disk.
    Failed(String),
    /// Nothing was written: the save needs the user's word first (`allow`:
    /// what they already agreed to for this save).
    Ask {
        question: SaveQuestion,
        allow: Allow,
    },
}

/// What a save asks before it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveQuestion {
    /// The link the session was opened through now names another file
    /// than the one the edits came from.
    Repointed {
        link: PathBuf,
        was: PathBuf,
        now: PathBuf,
    },
    /// The file has no write permission (its mode, as `ls` shows it).
    ReadOnly { file: PathBuf, mode: String },
}

/// What the user agreed to for one save.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Allow {
    /// Write to the file the edits came from although the link the
    /// session was opened through now names another.
    pub to_original: bool,
    /// Replace a file without write permission.
    pub read_only: bool,
}

/// What to do once a save succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterSave {
    Stay,
    Quit,
    /// Open the file at this index of the folder's list.
    Open(usize),
}

/// What a save may find on disk and still write.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// Exactly this text.
    Text(Arc<String>),
    /// No file (the user agreed to make it again).
    Missing,
}

/// A message to edit in the user's editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalEdit {
    pub index: usize,
    /// The message's text alone (else its JSON).
    pub text_mode: bool,
    pub text: String,
}

#[derive(Debug)]
pub enum Command {
    Reformat(Box<Job>),
    /// Read a session file (off the UI thread; never blocks on a FIFO).
    Read(PathBuf),
    ListFolder(PathBuf),
    /// Write the session over its own file: only if the disk still holds
    /// what `expect` says, keeping the bytes of `base` that were not
    /// edited.
    Save {
        path: PathBuf,
        base: Arc<String>,
        /// The session parsed from `base`, when known: only the messages
        /// that differ from it are parsed again and spliced.
        base_session: Option<Box<Session>>,
        expect: Expect,
        session: Box<Session>,
        state: u64,
        mode: Option<u32>,
        then: AfterSave,
        /// The file the edits came from (symlinks resolved when it was
        /// read): a save never writes another.
        target: Option<PathBuf>,
        allow: Allow,
    },
    /// Write `text` to a new file beside `path` (`NAME.mine.json`, or the
    /// next free name).
    SaveBeside {
        path: PathBuf,
        text: String,
    },
    /// Write the edits of a converted file (an OpenAI body) as a new
    /// session file beside it, `NAME.session.json` (or the next free name).
    SaveAsSession {
        path: PathBuf,
        text: String,
        then: AfterSave,
    },
    /// Put `text` on the terminal's clipboard (OSC 52: works in tmux and
    /// over ssh).
    Clipboard(String),
    /// Build the request `formatter`'s provider would receive for
    /// `session` and write it as a `curl` command beside `path`.
    Export {
        path: PathBuf,
        session: Box<Session>,
        formatter: formatscope_core::formatter::FormatterId,
        settings: Box<formatscope_core::wire::Settings>,
        /// Another release's request (`V`), exported as it builds it.
        release: Option<super::worker::ReleaseJob>,
        /// The key variable of the host a profile sends to (its
        /// `key_env`), when a profile takes the request; else the
        /// provider's is read.
        key_variable: Option<String>,
    },
    /// Send the request for real (the sender thread, on tokio).
    Send(Box<SendJob>),
    /// Ask the provider to count the request (`job.id`: the generation).
    RemoteCount(Box<SendJob>),
    /// Read the sends of `session` from the history file `db` (off the UI
    /// thread: another formatscope may hold the file for a while).
    ListHistory {
        db: PathBuf,
        session: PathBuf,
    },
    /// Read send `id` of `session` whole from the history file `db` (a
    /// list holds no request bodies).
    ReadHistorySend {
        db: PathBuf,
        session: PathBuf,
        id: i64,
    },
    /// Cancel send `id` (its connection closes).
    CancelSend(u64),
    /// Keep a copy of unsaved edits in the recovery file.
    WriteRecovery(Box<super::recovery::Pending>),
    RemoveRecovery(PathBuf),
    /// Look for a recovery file of this session.
    FindRecovery(PathBuf),
    /// Watch these folders (and only these) for changes.
    Watch(Vec<PathBuf>),
    /// Remember this folder as trusted.
    TrustFolder(PathBuf),
    /// List the session-shaped files of `dir` and read the recent list
    /// `recent` for the session picker (every file is opened): the
    /// runtime streams it from a thread of its own (`Event::PickerFound`);
    /// `io::execute` answers it whole (`Event::PickerListed`).
    ListPicker {
        dir: Option<PathBuf>,
        recent: Option<PathBuf>,
        /// The picker that asked (`PickerPane::listing`): the runtime's
        /// streamed answer names it, and a newer listing stops an older.
        listing: u64,
    },
    /// Put `session` first in the recent list `list`.
    RememberRecent {
        list: PathBuf,
        session: PathBuf,
    },
    /// Write `text` as the file at `path` (atomically), only if the file
    /// still holds `expect`: a file that did not parse, fixed by hand.
    WriteText {
        path: PathBuf,
        expect: Arc<String>,
        text: String,
    },
    /// Open `text` in the user's `$VISUAL`/`$EDITOR` with the terminal
    /// suspended (the runtime does it between two frames; the app gets
    /// `Event::ExternalEdited`).
    ExternalEdit(Box<ExternalEdit>),
    Quit,
}

/// What the sender thread reports about one send.
#[derive(Debug, Clone)]
pub enum ReplyUpdate {
    /// The request left (or is about to): where to.
    Started {
        url: String,
        /// The host it went to, as the status line names it.
        host: String,
        stream: bool,
    },
    /// Not sent: the key would go to a host only the session names.
    HostNotChosen(formatscope_net::hosts::Host),
    /// A response AgentScope yields (a cumulative snapshot).
    Chunk(Box<formatscope_core::response::ChatResponse>),
    /// The reply as another release's agent holds it (what `A` appends),
    /// before `Done`.
    Held(serde_json::Value),
    Done(Box<formatscope_net::Outcome>),
    Failed(String),
    Cancelled,
}

/// How much of each text and thinking block the reply pane gets while a
/// reply streams: its end, which the pane shows. A stream may grow to the
/// body limit (64 MB); a copy of all of it every `sender::PACE`, queued
/// behind a slow frame, once held gigabytes.
pub const PANE_TAIL: usize = 256 * 1024;
