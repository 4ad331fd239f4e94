//! The workbench: a live, highlighted provider view of a session, with an
//! editor, a budget meter, a truncation preview and hot reload.
//!
//! `app` holds the state and `update` (messages in, commands out, no I/O);
//! `panes/` draw it, one module a pane; `document` is the open file and its
//! edits; `worker` formats, counts and highlights off the UI thread (latest
//! wins); `io` reads and writes files on its own thread; `watch` reports
//! file changes; `runtime` runs the loop and keeps the promises about the
//! terminal and unsaved edits on every exit: quit, panic or signal.

pub mod app;
mod caught;
pub mod consent;
pub mod document;
pub mod external;
pub mod highlight;
pub mod io;
pub mod keymap;
pub mod lines;
pub mod listening;
pub mod msg;
pub mod panes;
pub mod recent;
pub mod recovery;
pub mod runtime;
pub mod sender;
mod sender_release;
pub mod theme;
pub mod view;
pub mod watch;
pub mod worker;

use std::path::PathBuf;

pub struct Options {
    /// A session file or a folder of them (default `sessions/`).
    pub target: Option<PathBuf>,
    pub theme: String,
    pub log: Option<PathBuf>,
    /// Never download remote media (formatters that need them then fail
    /// as AgentScope fails offline).
    pub offline: bool,
    /// Run `listen`'s receiver and follow the calls it writes.
    pub listen: Option<listening::Listening>,
}

/// Opens the workbench; returns the process exit code.
pub fn run(options: Options) -> i32 {
    runtime::run(options)
}
