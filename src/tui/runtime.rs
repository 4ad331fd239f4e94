//! The loop: messages from the terminal, the watcher, the worker, the I/O
//! thread, a one-second tick and signals go through one channel into
//! `App::update`; the commands it returns go to the worker, the I/O thread
//! or the watcher. It draws only when something changed. Quitting never
//! waits for the worker or a download. On a signal or a panic, unsaved
//! edits go to a recovery file and the terminal is restored.

use super::app::{App, Msg};
use super::consent::{load_trusted, Consent};
use super::io::{self, Log};
use super::msg::Command;
use super::theme::Theme;
use super::watch::{self, Watcher};
use super::{view, worker, Options};
use crate::media::WebFetcher;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use ratatui::crossterm::execute;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    slot: worker::Slot,
    io: Sender<Command>,
    watcher: Option<Watcher>,
    /// Live sends, started on the first `S`.
    sender: Option<super::sender::Sender>,
    pub log: Log,
}

impl Runtime {
    /// Starts the worker, the I/O thread, the watcher and the tick for
    /// `app`, and runs its first commands.
    pub fn start(app: App, web: Option<Arc<dyn WebFetcher>>, log: Log) -> Runtime {
        let (tx, rx) = channel::<Msg>();
        let slot = worker::Slot::default();
        let worker_tx = tx.clone();
        let computer = match web {
            Some(web) => worker::Computer::with_web(web),
            None => worker::Computer::default(),
        };
        // The worker is never joined: quitting must not wait for it.
        let _ = worker::spawn(slot.clone(), computer, move |p| {
            let _ = worker_tx.send(Msg::PreviewReady(Box::new(p)));
        });
        let io = io::spawn(tx.clone(), log.clone());
        let watch_tx = tx.clone();
        let watcher = match Watcher::new(move |paths| {
            let _ = watch_tx.send(Msg::FilesChanged(paths));
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
                if tick_tx.send(Msg::Tick).is_err() {
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
            sender: None,
            log,
        };
        if rt.watcher.as_ref().is_some_and(|w| w.polling) {
            rt.app.status = "watching by polling (the system's file watcher is unavailable)".into();
        }
        let first = rt.app.start();
        rt.execute(first);
        rt
    }

    /// Where messages for the app go (keys, in tests).
    pub fn sender(&self) -> Sender<Msg> {
        self.tx.clone()
    }

    /// Handles `first` and everything queued behind it.
    pub fn handle(&mut self, first: Msg) -> Flow {
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            if let Msg::Signal(sig) = msg {
                return Flow::Signal(sig);
            }
            let cmds = self.app.update(msg);
            self.execute(cmds);
            if self.app.quit {
                return Flow::Quit;
            }
            next = self.rx.try_recv().ok();
        }
        Flow::Continue
    }

    /// Waits up to `timeout` for a message and handles it.
    pub fn step(&mut self, timeout: Duration) -> Option<Flow> {
        match self.rx.recv_timeout(timeout) {
            Ok(msg) => Some(self.handle(msg)),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Flow::Quit),
        }
    }

    /// Handles messages until none but ticks came for `quiet` (or `max`
    /// passed): the state the screen would settle in. For tests.
    pub fn settle(&mut self, quiet: Duration, max: Duration) -> Flow {
        let end = Instant::now() + max;
        let mut last = Instant::now();
        while Instant::now() < end && last.elapsed() < quiet {
            match self.rx.recv_timeout(Duration::from_millis(20)) {
                Ok(Msg::Tick) => {
                    let flow = self.handle(Msg::Tick);
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
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Flow::Quit,
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
                Command::Send(job) => {
                    if self.sender.is_none() {
                        self.sender = super::sender::Sender::start(self.tx.clone());
                    }
                    match &self.sender {
                        Some(s) => {
                            self.log
                                .line(format!("send {} to {}", job.id, job.formatter.provider));
                            s.send(*job);
                        }
                        None => {
                            let id = job.id;
                            let _ = self.tx.send(Msg::Reply {
                                id,
                                update: super::panes::reply::ReplyUpdate::Failed(
                                    "the async runtime could not start".into(),
                                ),
                            });
                        }
                    }
                }
                Command::CancelSend(id) => {
                    if let Some(s) = &self.sender {
                        s.cancel(id);
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
    #[cfg(feature = "http")]
    {
        Some(Arc::new(crate::media::HttpFetcher::new(
            Duration::from_secs(20),
        )))
    }
    #[cfg(not(feature = "http"))]
    {
        None
    }
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

/// SIGTERM, SIGHUP, SIGINT and SIGQUIT become `Msg::Signal`. Should the
/// loop not act on one within three seconds, this thread restores the
/// terminal and exits itself.
fn spawn_signals(tx: Sender<Msg>) -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])
        .map_err(|e| format!("cannot handle signals: {e}"))?;
    std::thread::Builder::new()
        .name("formatscope-signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                let _ = tx.send(Msg::Signal(sig));
                std::thread::sleep(Duration::from_secs(3));
                restore_terminal();
                std::process::exit(128 + sig);
            }
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Terminal input on its own thread, polled so it can stop.
fn spawn_input(tx: Sender<Msg>, stop: Arc<AtomicBool>) {
    let _ = std::thread::Builder::new()
        .name("formatscope-input".into())
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match event::poll(Duration::from_millis(100)) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(_) => break,
                }
                let msg = match event::read() {
                    Ok(Event::Key(k)) => Msg::Key(k),
                    Ok(Event::Mouse(m)) => Msg::Mouse(m),
                    Ok(Event::Resize(w, h)) => Msg::Resized(w, h),
                    Ok(Event::Paste(s)) => Msg::Paste(s),
                    Ok(_) => continue,
                    Err(_) => break,
                };
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
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
    let target = options.target.unwrap_or_else(|| PathBuf::from("sessions"));
    // Watch events name absolute paths; so do we.
    let target = std::path::absolute(&target).unwrap_or(target);
    if !target.exists() {
        eprintln!(
            "error: {}: no such file or folder",
            crate::text::escape_control(&target.display().to_string())
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
        (watch::list_sessions(&target), Some(target.clone()))
    } else {
        (vec![target.clone()], None)
    };
    let mut app = App::new(files, folder, theme);
    app.consent = Consent::new(load_trusted());
    let mut rt = Runtime::start(app, web_fetcher(options.offline), log);
    if let Err(e) = spawn_signals(rt.sender()) {
        rt.log.line(&e);
    }

    let mut terminal = ratatui::init();
    // ratatui's hook restores raw mode and the screen; add the mouse.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(
            std::io::stdout(),
            DisableMouseCapture,
            DisableBracketedPaste
        );
        previous(info);
    }));
    let _ = execute!(std::io::stdout(), EnableMouseCapture, EnableBracketedPaste);
    let stop = Arc::new(AtomicBool::new(false));
    spawn_input(rt.sender(), Arc::clone(&stop));
    if let Ok(size) = terminal.size() {
        rt.app.size = (size.width, size.height);
    }
    let mut code = 0;
    loop {
        if rt.app.dirty {
            if let Ok(size) = terminal.size() {
                rt.app.size = (size.width, size.height);
                rt.app.areas =
                    view::layout(ratatui::layout::Rect::new(0, 0, size.width, size.height)).1;
            }
            if let Err(e) = terminal.draw(|f| view::draw(f, &rt.app)) {
                rt.log.line(format!("draw failed: {e}"));
                code = 1;
                break;
            }
            rt.app.dirty = false;
        }
        let flow = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.step(Duration::from_secs(3600))
        }));
        match flow {
            Ok(None | Some(Flow::Continue)) => {}
            Ok(Some(Flow::Quit)) => break,
            Ok(Some(Flow::Signal(sig))) => {
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
    stop.store(true, Ordering::SeqCst);
    rt.slot.close();
    restore_terminal();
    rt.log.line("quit");
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
