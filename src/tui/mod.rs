//! The workbench: a live, highlighted provider view of a session, with an
//! editor, a budget meter, a truncation preview and hot reload.
//!
//! `app` holds the state and `update` (messages in, commands out, no I/O);
//! `view` draws it; `worker` formats, counts and highlights off the UI
//! thread (latest wins); `watch` reports file changes; this module runs the
//! loop: it draws only when something changed, and restores the terminal on
//! every exit, panic included.

pub mod app;
pub mod highlight;
pub mod keymap;
pub mod theme;
pub mod view;
pub mod watch;
pub mod worker;

use app::{App, Command, Msg};
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use ratatui::crossterm::execute;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::Duration;

pub struct Options {
    /// A session file or a folder of them (default `sessions/`).
    pub target: Option<PathBuf>,
    pub theme: String,
    pub log: Option<PathBuf>,
    /// Never download remote media (formatters that need them then fail
    /// as AgentScope fails offline).
    pub offline: bool,
}

/// Appends lines to `--log FILE` (nothing is printed while the app runs).
struct Log(Option<std::fs::File>);

impl Log {
    fn line(&mut self, text: impl AsRef<str>) {
        if let Some(f) = &mut self.0 {
            let _ = writeln!(f, "{} {}", app::wall_clock(), text.as_ref());
        }
    }
}

/// Opens the workbench; returns the process exit code.
pub fn run(options: Options) -> i32 {
    let target = options.target.unwrap_or_else(|| PathBuf::from("sessions"));
    // Watch events name absolute paths; so do we.
    let target = std::path::absolute(&target).unwrap_or(target);
    if !target.exists() {
        eprintln!("error: {}: no such file or folder", target.display());
        return 2;
    }
    let theme = match theme::Theme::load(&options.theme) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut log = Log(match &options.log {
        Some(p) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
        {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("error: {}: {e}", p.display());
                return 2;
            }
        },
        None => None,
    });
    let (files, folder, watch_dir) = if target.is_dir() {
        (
            watch::list_sessions(&target),
            Some(target.clone()),
            target.clone(),
        )
    } else {
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        (vec![target.clone()], None, dir)
    };
    let mut app = App::new(files, folder, theme);

    let (tx, rx) = channel::<Msg>();
    let slot = worker::Slot::default();
    let worker_tx = tx.clone();
    let computer = match web_fetcher(options.offline) {
        Some(web) => worker::Computer::with_web(web),
        None => worker::Computer::default(),
    };
    let worker = worker::spawn(slot.clone(), computer, move |p| {
        let _ = worker_tx.send(Msg::PreviewReady(Box::new(p)));
    });
    let watch_tx = tx.clone();
    let _watch = match watch::watch_folder(&watch_dir, move |paths| {
        let _ = watch_tx.send(Msg::FilesChanged(paths));
    }) {
        Ok(w) => Some(w),
        Err(e) => {
            app.status = format!("{e}; reload by hand ([ and ])");
            None
        }
    };

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
    let input = spawn_input(tx.clone(), Arc::clone(&stop));

    if let Ok(size) = terminal.size() {
        app.size = (size.width, size.height);
    }
    let first = app.start();
    execute_all(first, &mut app, &slot, &tx, &mut log);
    let mut result = 0;
    loop {
        if app.dirty {
            if let Ok(size) = terminal.size() {
                app.size = (size.width, size.height);
                app.areas =
                    view::layout(ratatui::layout::Rect::new(0, 0, size.width, size.height)).1;
            }
            if let Err(e) = terminal.draw(|f| view::draw(f, &app)) {
                log.line(format!("draw failed: {e}"));
                result = 1;
                break;
            }
            app.dirty = false;
        }
        let Ok(msg) = rx.recv() else { break };
        let mut cmds = app.update(msg);
        // Handle everything queued before drawing again.
        while let Ok(msg) = rx.try_recv() {
            cmds.extend(app.update(msg));
        }
        execute_all(cmds, &mut app, &slot, &tx, &mut log);
        if app.quit {
            break;
        }
    }
    stop.store(true, Ordering::SeqCst);
    slot.close();
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        DisableBracketedPaste
    );
    ratatui::restore();
    let _ = input.join();
    let _ = worker.join();
    log.line("quit");
    result
}

/// Remote media are fetched over HTTP (20 s timeout, cached per URL) on the
/// worker thread, unless offline or built without the `http` feature.
fn web_fetcher(offline: bool) -> Option<Arc<dyn crate::media::WebFetcher>> {
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

fn execute_all(
    cmds: Vec<Command>,
    app: &mut App,
    slot: &worker::Slot,
    tx: &Sender<Msg>,
    log: &mut Log,
) {
    for cmd in cmds {
        match cmd {
            Command::Reformat(job) => slot.submit(*job),
            Command::Read(path) => {
                log.line(format!("read {}", path.display()));
                let text =
                    std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()));
                let _ = tx.send(Msg::FileRead { path, text });
            }
            Command::ListFolder(dir) => {
                let _ = tx.send(Msg::FolderListed(watch::list_sessions(&dir)));
            }
            Command::Write {
                path,
                text,
                then_quit,
            } => {
                let result = crate::session::write_atomic(&path, &text).map_err(|e| e.to_string());
                log.line(format!("write {}: {result:?}", path.display()));
                let _ = tx.send(Msg::Written {
                    path,
                    text,
                    result,
                    then_quit,
                });
            }
            Command::Quit => app.quit = true,
        }
    }
}

/// Terminal input on its own thread, polled so it can stop.
fn spawn_input(tx: Sender<Msg>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
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
    })
}
