//! The loop: one `tokio::select!` over the terminal's events (crossterm's
//! `EventStream`) and the channel that the watcher, the worker, the I/O
//! thread, a one-second tick, signals and the network sends (tasks on the
//! same runtime) feed; each goes into `App::update`, and the commands it
//! returns go to the worker, the I/O thread, the watcher or a new send
//! task. CPU-bound work (formatting, counting, highlighting) stays on the
//! worker thread. It draws only when something changed. Quitting never
//! waits for the worker or a download. On a signal or a panic, unsaved
//! edits go to a recovery file and the terminal is restored.

use super::app::{App, Event};
use super::consent::{load_trusted, Consent};
use super::io::{self, Log};
use super::msg::Command;
use super::msg::Outbox;
use super::theme::Theme;
use super::watch::Watcher;
use super::{view, worker, Options};
use formatscope_core::media::WebFetcher;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event as TermEvent,
};
use ratatui::crossterm::execute;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

mod panics;
use panics::{caught, guarded_send, PanicRoute};

/// What the loop should do after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Quit,
    /// A signal arrived: keep the edits, restore the terminal, exit.
    Signal(i32),
}

/// The app and the threads that serve it.
pub struct Runtime {
    pub app: App,
    rx: UnboundedReceiver<Event>,
    tx: Outbox,
    /// The loop's async runtime: the select loop and the send tasks.
    tokio: Arc<tokio::runtime::Runtime>,
    client: Option<reqwest::Client>,
    sends: HashMap<u64, tokio::task::AbortHandle>,
    slot: worker::Slot,
    io: Sender<Command>,
    watcher: Option<Watcher>,
    pub log: Log,
    /// A message to open in the user's editor before the next frame
    /// (`Command::ExternalEdit`; the loop owns the terminal it suspends).
    pub external: Option<super::msg::ExternalEdit>,
}

impl Runtime {
    /// Starts the worker, the I/O thread, the watcher and the tick for
    /// `app`, and runs its first commands.
    pub fn start(app: App, web: Option<Arc<dyn WebFetcher>>, log: Log) -> Runtime {
        let (tx, rx) = unbounded_channel::<Event>();
        // Two workers: sends parse their streams there; 8 MiB stacks for the
        // deepest tool arguments json_repair takes.
        let tokio = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("formatscope-async")
            .thread_stack_size(8 << 20)
            .enable_all()
            .build()
            .expect("the async runtime starts");
        let slot = worker::Slot::default();
        let worker_tx = tx.clone();
        let computer = match web {
            Some(web) => worker::Computer::with_web(web),
            None => worker::Computer::default(),
        };
        // The worker is never joined: quitting must not wait for it.
        let _ = worker::spawn(slot.clone(), computer, move |p| {
            let _ = worker_tx.send(Event::PreviewReady(Box::new(p)));
        });
        let io = io::spawn(tx.clone(), log.clone());
        let watch_tx = tx.clone();
        let watcher = match Watcher::new(move |paths| {
            let _ = watch_tx.send(Event::FilesChanged(paths));
        }) {
            Ok(w) => Some(w),
            Err(e) => {
                log.line(&e);
                None
            }
        };
        let tick_tx = tx.clone();
        let _ = std::thread::Builder::new()
            .name("formatscope-tick".into())
            .spawn(move || loop {
                std::thread::sleep(Duration::from_secs(1));
                if tick_tx.send(Event::Tick).is_err() {
                    break;
                }
            });
        let mut rt = Runtime {
            app,
            tx,
            rx,
            slot,
            io,
            watcher,
            tokio: Arc::new(tokio),
            client: None,
            sends: HashMap::new(),
            log,
            external: None,
        };
        if rt.watcher.as_ref().is_some_and(|w| w.polling) {
            rt.app.status = "watching by polling (the system's file watcher is unavailable)".into();
        }
        let first = rt.app.start();
        rt.execute(first);
        rt
    }

    /// Where messages for the app go (keys, in tests).
    pub fn sender(&self) -> Outbox {
        self.tx.clone()
    }

    /// Handles `first` and everything queued behind it.
    pub fn handle(&mut self, first: Event) -> Flow {
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            if let Some(flow) = self.handle_alone(msg) {
                return flow;
            }
            next = self.rx.try_recv().ok();
        }
        Flow::Continue
    }

    /// One message, the rest of the queue left as it is: `None` to go on.
    fn handle_alone(&mut self, msg: Event) -> Option<Flow> {
        if let Event::Signal(sig) = msg {
            return Some(Flow::Signal(sig));
        }
        let cmds = self.app.update(msg);
        self.execute(cmds);
        self.app.quit.then_some(Flow::Quit)
    }

    /// Waits up to `timeout` for a message and handles it (and every one
    /// queued behind it, as the loop does before a frame).
    pub fn step(&mut self, timeout: Duration) -> Option<Flow> {
        let msg = self.next_message(timeout)?;
        Some(msg.map_or(Flow::Quit, |msg| self.handle(msg)))
    }

    /// [`Self::step`] for one message alone: each state the app goes
    /// through, for tests (a loaded machine can queue a whole listing's
    /// batches before the loop wakes, which `step` handles in one go).
    pub fn step_alone(&mut self, timeout: Duration) -> Option<Flow> {
        let msg = self.next_message(timeout)?;
        Some(match msg {
            Some(msg) => self.handle_alone(msg).unwrap_or(Flow::Continue),
            None => Flow::Quit,
        })
    }

    /// The next message within `timeout`: `None` when none came,
    /// `Some(None)` when every sender is gone.
    fn next_message(&mut self, timeout: Duration) -> Option<Option<Event>> {
        // A message already queued needs no wait (and no timer).
        if let Ok(msg) = self.rx.try_recv() {
            return Some(Some(msg));
        }
        let tokio = Arc::clone(&self.tokio);
        let rx = &mut self.rx;
        tokio
            .block_on(async { tokio::time::timeout(timeout, rx.recv()).await })
            .ok()
    }

    /// Handles messages until none but ticks came for `quiet` (or `max`
    /// passed): the state the screen would settle in. For tests.
    pub fn settle(&mut self, quiet: Duration, max: Duration) -> Flow {
        let end = Instant::now() + max;
        let mut last = Instant::now();
        while Instant::now() < end && last.elapsed() < quiet {
            let tokio = Arc::clone(&self.tokio);
            // The timer is made inside the runtime (it needs its clock).
            let rx = &mut self.rx;
            let next = tokio.block_on(async {
                tokio::time::timeout(Duration::from_millis(20), rx.recv()).await
            });
            match next.map_err(|_| ()).and_then(|m| m.ok_or(())) {
                Ok(Event::Tick) => {
                    let flow = self.handle(Event::Tick);
                    if flow != Flow::Continue {
                        return flow;
                    }
                }
                Ok(msg) => {
                    last = Instant::now();
                    let flow = self.handle(msg);
                    if flow != Flow::Continue {
                        return flow;
                    }
                }
                // A timeout; the senders never all go (the runtime holds one).
                Err(()) => {}
            }
        }
        Flow::Continue
    }

    fn execute(&mut self, cmds: Vec<Command>) {
        for cmd in cmds {
            match cmd {
                Command::Reformat(job) => self.slot.submit(*job),
                Command::Watch(dirs) => {
                    if let Some(w) = self.watcher.as_mut() {
                        for e in w.set_dirs(&dirs) {
                            self.log.line(&e);
                            self.app.status = e;
                        }
                    }
                }
                Command::Quit => self.app.quit = true,
                Command::ExternalEdit(job) => self.external = Some(*job),
                Command::Send(job) => {
                    self.sends.retain(|_, h| !h.is_finished());
                    if self.client.is_none() {
                        self.client =
                            formatscope_net::client(formatscope_net::Timeouts::default()).ok();
                    }
                    let id = job.id;
                    match self.client.clone() {
                        Some(client) => {
                            self.log
                                .line(format!("send {id} to {}", job.formatter.provider));
                            // Another release's request is that release's to
                            // build and its reply its to parse.
                            let tx = self.tx.clone();
                            let task = match job.release {
                                Some(target) => self.tokio.spawn(guarded_send(
                                    id,
                                    super::sender_release::run(client, *job, target, tx.clone()),
                                    tx,
                                )),
                                None => self.tokio.spawn(guarded_send(
                                    id,
                                    super::sender::run(client, *job, tx.clone()),
                                    tx,
                                )),
                            };
                            self.sends.insert(id, task.abort_handle());
                        }
                        None => {
                            let _ = self.tx.send(Event::Reply {
                                id,
                                update: super::msg::ReplyUpdate::Failed(
                                    "no HTTP client could be made".into(),
                                ),
                            });
                        }
                    }
                }
                Command::RemoteCount(job) => {
                    if self.client.is_none() {
                        self.client =
                            formatscope_net::client(formatscope_net::Timeouts::default()).ok();
                    }
                    if let Some(client) = self.client.clone() {
                        let (generation, provider) = (job.id, job.formatter.provider);
                        let tx = self.tx.clone();
                        let count = super::sender::count(client, *job, tx.clone());
                        self.tokio.spawn(async move {
                            // A panic would leave the meter waiting: its error.
                            if let Err(why) = caught(count).await {
                                let _ = tx.send(Event::RemoteCounted {
                                    generation,
                                    provider,
                                    result: Err(why),
                                });
                            }
                        });
                    }
                }
                Command::CancelSend(id) => {
                    // Dropping the task closes its connection.
                    if let Some(h) = self.sends.remove(&id) {
                        h.abort();
                        let _ = self.tx.send(Event::Reply {
                            id,
                            update: super::msg::ReplyUpdate::Cancelled,
                        });
                    }
                }
                Command::Clipboard(text) => {
                    use base64::Engine;
                    use std::io::Write;
                    let code = base64::engine::general_purpose::STANDARD.encode(text);
                    let mut out = std::io::stdout();
                    let _ = write!(out, "\x1b]52;c;{code}\x07");
                    let _ = out.flush();
                }
                other => {
                    if self.io.send(other).is_err() {
                        self.app.status = "the I/O thread stopped: save is not possible".into();
                    }
                }
            }
        }
    }

    /// Keeps unsaved edits in the recovery file; where they went.
    pub fn keep_edits(&self, reason: &str) -> Option<PathBuf> {
        let recovery = self.app.recovery(reason)?;
        match recovery.write() {
            Ok(path) => Some(path),
            Err(e) => {
                self.log.line(format!("recovery: {e}"));
                None
            }
        }
    }
}

/// Remote media are fetched over HTTP (20 s timeout, cached per URL) on the
/// worker thread, unless offline or built without the `http` feature.
fn web_fetcher(offline: bool) -> Option<Arc<dyn WebFetcher>> {
    if offline {
        return None;
    }
    {
        Some(Arc::new(formatscope_net::fetch::HttpFetcher::new(
            Duration::from_secs(20),
        )))
    }
}

/// The user's editor is running (`O`): SIGINT and SIGQUIT are its.
static EDITOR_RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs `f` with the terminal as the shell left it (cooked, the main
/// screen, the cursor shown, no mouse reports), then takes it back as
/// `run` set it up.
fn suspended<T>(log: &Log, f: impl FnOnce() -> T) -> T {
    use std::sync::atomic::Ordering;
    restore_terminal();
    let _ = execute!(std::io::stdout(), ratatui::crossterm::cursor::Show);
    EDITOR_RUNNING.store(true, Ordering::SeqCst);
    let out = f();
    EDITOR_RUNNING.store(false, Ordering::SeqCst);
    if let Err(e) = ratatui::crossterm::terminal::enable_raw_mode() {
        log.line(format!("raw mode after the editor: {e}"));
    }
    let _ = execute!(
        std::io::stdout(),
        ratatui::crossterm::terminal::EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    );
    out
}

/// Raw mode and the alternate screen, as `ratatui::init` sets them up, but
/// without its panic hook (see `run`).
fn open_terminal() -> std::io::Result<ratatui::DefaultTerminal> {
    ratatui::crossterm::terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        ratatui::crossterm::terminal::EnterAlternateScreen
    )?;
    ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))
}

fn restore_terminal() {
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        DisableBracketedPaste
    );
    ratatui::restore();
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        signal_hook::consts::SIGTERM => "SIGTERM",
        signal_hook::consts::SIGHUP => "SIGHUP",
        signal_hook::consts::SIGINT => "SIGINT",
        signal_hook::consts::SIGQUIT => "SIGQUIT",
        _ => "a signal",
    }
}

/// SIGTERM, SIGHUP, SIGINT and SIGQUIT become `Event::Signal`. Should the
/// loop not act on one within three seconds, this thread restores the
/// terminal and exits itself.
fn spawn_signals(tx: Outbox) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])
        .map_err(|e| format!("cannot handle signals: {e}"))?;
    std::thread::Builder::new()
        .name("formatscope-signals".into())
        .spawn(move || {
            // C-c or C-\ typed while the user's editor runs (in the same
            // process group: `code -w` waiting in the terminal) are the
            // editor's; they must not end the workbench under it.
            let first = signals.forever().find(|sig| {
                !(EDITOR_RUNNING.load(std::sync::atomic::Ordering::SeqCst)
                    && (*sig == SIGINT || *sig == SIGQUIT))
            });
            if let Some(sig) = first {
                let _ = tx.send(Event::Signal(sig));
                std::thread::sleep(Duration::from_secs(3));
                restore_terminal();
                std::process::exit(128 + sig);
            }
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Opens the workbench; returns the process exit code.
pub fn run(options: Options) -> i32 {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "error: the workbench needs a terminal (its input and output are not one here).\n\
             For scripts and pipes, use a subcommand: formatscope format | count | tokenize | truncate SESSION\n\
             (formatscope --help lists them)."
        );
        return 2;
    }
    let listen_dir = options.listen.as_ref().map(|l| l.dir.clone());
    let following = listen_dir.is_some();
    if let Some(dir) = &listen_dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: {}: {e}", dir.display());
            return 2;
        }
    }
    let target = listen_dir
        .or(options.target)
        .unwrap_or_else(|| PathBuf::from("sessions"));
    // Watch events name absolute paths; so do we.
    let target = std::path::absolute(&target).unwrap_or(target);
    if !target.exists() {
        eprintln!(
            "error: {}: no such file or folder",
            formatscope_core::text::escape_control(&target.display().to_string())
        );
        return 2;
    }
    let theme = match Theme::load(&options.theme) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let log = match &options.log {
        Some(p) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
        {
            Ok(f) => Log::to_file(f),
            Err(e) => {
                eprintln!("error: {}: {e}", p.display());
                return 2;
            }
        },
        None => Log::default(),
    };
    let (files, folder) = if target.is_dir() {
        // Listed by the I/O thread (`App::start`): every file is opened.
        (Vec::new(), Some(target.clone()))
    } else {
        (vec![target.clone()], None)
    };
    let mut app = App::new(files, folder, theme);
    app.consent = Consent::new(load_trusted());
    // The user's price file over the snapshot, read once at start.
    // The panes show the error as text (App::prices holds a String).
    app.prices =
        std::sync::Arc::new(formatscope_core::tokens::cost::load().map_err(|e| e.to_string()));
    app.profiles = std::sync::Arc::new(formatscope_net::profile::load());
    app.profiles_file = formatscope_net::profile::file();
    // The history file's place only: it is opened by each read and write,
    // off this thread (a missing data folder leaves the history off).
    app.history_path = formatscope_history::default_path().ok().flatten();
    app.recent_path = super::recent::default_path();
    app.pick_on_folder = app.folder.is_some() && !following;
    app.follow = following;
    // Before any thread starts: a panic on one must not print over the
    // screen nor restore the terminal under the running app.
    let panics = PanicRoute::install(log.clone());
    let mut rt = Runtime::start(app, web_fetcher(options.offline), log);
    panics.connect(rt.sender());
    if let Err(e) = spawn_signals(rt.sender()) {
        rt.log.line(&e);
    }
    let receiver = match &options.listen {
        Some(l) => match super::listening::start(&rt.tokio, l, rt.sender()) {
            Ok(r) => {
                let url = format!("http://{}/v1/traces", r.addr);
                rt.app.status = format!(
                    "listening on {url}: waiting for the agent's first call (docs/src/listen.md)"
                );
                rt.app.listening = Some(url);
                Some(r)
            }
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
        None => None,
    };

    // Not `ratatui::init`: its panic hook restores the terminal on any
    // thread's panic, and the threads started above may panic before a
    // hook of ours could be put back (the app then ran on a cooked main
    // screen). The route installed above restores it on this thread only.
    let mut terminal = match open_terminal() {
        Ok(t) => t,
        Err(e) => {
            restore_terminal();
            eprintln!("error: the terminal could not be set up: {e}");
            return 2;
        }
    };
    let _ = execute!(std::io::stdout(), EnableMouseCapture, EnableBracketedPaste);
    if let Ok(size) = terminal.size() {
        rt.app.size = (size.width, size.height);
    }
    let tokio = Arc::clone(&rt.tokio);
    let code = tokio.block_on(async {
        use futures_util::StreamExt;
        let mut events = crossterm::event::EventStream::new();
        let mut terminal_open = true;
        // The second of two keys that came in one read (`unfold_escape`).
        let mut unfolded = None;
        loop {
            if let Some(job) = rt.external.take() {
                // The stream's reader thread would take the editor's keys:
                // it goes first, and a new one reads once the editor ends.
                drop(events);
                let editor = super::external::editor_command();
                let result = suspended(&rt.log, || {
                    super::external::edit(&editor, &job.text, job.text_mode)
                });
                rt.log.line(format!(
                    "editor {editor} on message {}: {}",
                    job.index,
                    match &result {
                        Ok(t) => format!("{} bytes back", t.len()),
                        Err(e) => e.clone(),
                    }
                ));
                events = crossterm::event::EventStream::new();
                // Everything is drawn again: the screen was the editor's.
                // (`resize` clears and forgets the last frame; `clear` first
                // asks the terminal where its cursor is, and a failed
                // answer would skip the full redraw.)
                if let Ok(size) = terminal.size() {
                    let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
                    if let Err(e) = terminal.resize(area) {
                        rt.log.line(format!("redraw after the editor: {e}"));
                    }
                }
                rt.app.dirty = true;
                let _ = rt.tx.send(Event::ExternalEdited {
                    index: job.index,
                    text_mode: job.text_mode,
                    original: job.text,
                    result,
                });
            }
            if rt.app.dirty {
                if let Ok(size) = terminal.size() {
                    rt.app.size = (size.width, size.height);
                    rt.app.areas =
                        view::layout(ratatui::layout::Rect::new(0, 0, size.width, size.height)).1;
                }
                if let Err(e) = terminal.draw(|f| view::draw(f, &rt.app)) {
                    rt.log.line(format!("draw failed: {e}"));
                    return 1;
                }
                rt.app.dirty = false;
            }
            // Keys, and everything the threads and the send tasks report.
            let msg = if let Some(key) = unfolded.take() {
                Event::Key(key)
            } else {
                tokio::select! {
                    event = events.next(), if terminal_open => match event {
                        Some(Ok(TermEvent::Key(k))) => {
                            let (first, then) = super::keymap::unfold_escape(k);
                            unfolded = then;
                            Event::Key(first)
                        }
                        Some(Ok(TermEvent::Mouse(m))) => Event::Mouse(m),
                        Some(Ok(TermEvent::Resize(w, h))) => Event::Resized(w, h),
                        Some(Ok(TermEvent::Paste(s))) => Event::Paste(s),
                        Some(Ok(_)) => continue,
                        // The terminal is gone: signals and files still count.
                        Some(Err(_)) | None => {
                            terminal_open = false;
                            continue;
                        }
                    },
                    msg = rt.rx.recv() => match msg {
                        Some(msg) => msg,
                        None => return 0,
                    },
                }
            };
            let flow = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.handle(msg)));
            match flow {
                Ok(Flow::Continue) => {}
                Ok(Flow::Quit) => return 0,
                Ok(Flow::Signal(sig)) => {
                    let kept = rt.keep_edits(signal_name(sig));
                    restore_terminal();
                    report_kept(signal_name(sig), kept.as_deref(), rt.app.path());
                    return 128 + sig;
                }
                Err(_) => {
                    // The panic hook has restored the terminal and said why.
                    let kept = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        rt.keep_edits("panic")
                    }))
                    .ok()
                    .flatten();
                    restore_terminal();
                    report_kept("a panic", kept.as_deref(), rt.app.path());
                    return 101;
                }
            }
        }
    });
    if code == 0 || code == 1 {
        rt.slot.close();
        restore_terminal();
        rt.log.line("quit");
    }
    // The receiver writes the format calls still waiting (3 s at most).
    if let Some(r) = receiver {
        r.stop(&tokio);
    }
    // Quitting never waits for a send in flight.
    drop(tokio);
    if let Ok(tokio) = Arc::try_unwrap(rt.tokio) {
        tokio.shutdown_background();
    }
    code
}

fn report_kept(why: &str, kept: Option<&Path>, session: Option<&PathBuf>) {
    match (kept, session) {
        (Some(path), Some(session)) => eprintln!(
            "formatscope stopped ({why}). Your unsaved edits are kept in {}; opening {} again offers to restore them.",
            path.display(),
            session.display()
        ),
        _ => eprintln!("formatscope stopped ({why})."),
    }
}
