//! Panics while the workbench runs. One on the interface's thread ends
//! the app: the loop catches it, keeps the edits, restores the terminal
//! and exits. One on any other thread or task (the worker, the I/O
//! thread, a send, the watcher, the tick) must leave the app running on
//! its own terminal: the hook prints nothing over the screen and restores
//! nothing; the panic goes to the log and, as `Event::Crashed`, to the
//! status line, and where a job ran (`worker::run_job`, the I/O thread's
//! `execute_caught`, [`guarded_send`]) it becomes that job's error.

use super::super::msg::{Event, Outbox};
use super::Log;
use crate::caught::{panic_message, test_panic};
use std::panic::PanicHookInfo;
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

/// The hook Rust started with (it prints the panic).
type DefaultHook = Arc<dyn Fn(&PanicHookInfo<'_>) + Send + Sync>;

/// Where panics go; shared by every copy of the hook.
#[derive(Clone)]
pub(super) struct PanicRoute(Arc<Route>);

struct Route {
    /// The interface's thread (the loop's).
    ui: ThreadId,
    default: DefaultHook,
    log: Log,
    to_app: Mutex<ToApp>,
}

/// The app's inbox once it has one, and what panicked before.
#[derive(Default)]
struct ToApp {
    tx: Option<Outbox>,
    pending: Vec<String>,
}

impl PanicRoute {
    /// Installs the hook; on the interface's thread, before others start.
    pub(super) fn install(log: Log) -> PanicRoute {
        let route = PanicRoute(Arc::new(Route {
            ui: std::thread::current().id(),
            default: Arc::from(std::panic::take_hook()),
            log,
            to_app: Mutex::default(),
        }));
        route.set();
        route
    }

    fn set(&self) {
        let route = Arc::clone(&self.0);
        std::panic::set_hook(Box::new(move |info| route.hook(info)));
    }

    /// Panics reach the app from now on (and those before, at once).
    pub(super) fn connect(&self, tx: Outbox) {
        let mut to_app = self.0.to_app.lock().unwrap_or_else(|e| e.into_inner());
        for what in to_app.pending.drain(..) {
            let _ = tx.send(Event::Crashed(what));
        }
        to_app.tx = Some(tx);
    }
}

impl Route {
    fn hook(&self, info: &PanicHookInfo<'_>) {
        if std::thread::current().id() == self.ui {
            super::restore_terminal();
            (self.default)(info);
            return;
        }
        let thread = std::thread::current()
            .name()
            .unwrap_or("a background thread")
            .to_string();
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let what = format!(
            "internal error on {thread} (a bug in formatscope; please report it): {}{place}",
            panic_message(info.payload())
        );
        self.log.line(&what);
        let mut to_app = self.to_app.lock().unwrap_or_else(|e| e.into_inner());
        match &to_app.tx {
            Some(tx) => {
                let _ = tx.send(Event::Crashed(what));
            }
            None => to_app.pending.push(what),
        }
    }
}

/// A send task that cannot end without a word to its reply pane: a panic
/// in it (a bug) is the send's failure, not a pane left "sending…".
pub(super) async fn guarded_send(id: u64, send: impl std::future::Future<Output = ()>, tx: Outbox) {
    let run = async {
        test_panic("send");
        send.await
    };
    if let Err(why) = caught(run).await {
        let _ = tx.send(Event::Reply {
            id,
            update: super::super::msg::ReplyUpdate::Failed(why),
        });
    }
}

/// Runs `f` to its end; a panic in it becomes its message.
pub(super) async fn caught<T>(f: impl std::future::Future<Output = T>) -> Result<T, String> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(f)
        .catch_unwind()
        .await
        .map_err(|payload| {
            format!(
                "internal error (a bug in formatscope; please report it): {}",
                panic_message(payload.as_ref())
            )
        })
}
