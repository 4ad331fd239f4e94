//! Helpers for the workbench tests: an app with a session loaded and its
//! preview computed synchronously (what the worker thread would send),
//! with file commands run by the real I/O executor.

#![allow(dead_code)] // each test file uses part of these helpers

use formatscope::tui::app::{App, Event};
use formatscope::tui::io::{self, Log};
use formatscope::tui::msg::{Command, FileResult};
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::{Path, PathBuf};

pub fn session_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sessions/cases")
        .join(name)
}

pub fn fixed_clock() -> String {
    "12:00:00".into()
}

/// Runs commands the way the runtime does, synchronously: files are read
/// and written for real, previews computed; returns the paths of the files
/// the commands wrote (saves, and saves beside).
pub fn run_commands(app: &mut App, computer: &mut Computer, cmds: Vec<Command>) -> Vec<PathBuf> {
    let mut writes = Vec::new();
    let mut queue = cmds;
    while !queue.is_empty() {
        let mut next = Vec::new();
        for cmd in queue {
            match cmd {
                Command::Reformat(job) => {
                    let preview = computer.compute(&job);
                    next.extend(app.update(Event::PreviewReady(Box::new(preview))));
                }
                Command::Watch(_) | Command::Quit => {}
                other => {
                    if let Command::Save { path, .. }
                    | Command::SaveBeside { path, .. }
                    | Command::SaveAsSession { path, .. } = &other
                    {
                        writes.push(path.clone());
                    }
                    if let Some(msg) = io::execute(other, &Log::default()) {
                        next.extend(app.update(msg));
                    }
                }
            }
        }
        queue = next;
    }
    writes
}

/// Sends `msg` and runs what it asks for.
pub fn send(app: &mut App, computer: &mut Computer, msg: Event) -> Vec<PathBuf> {
    let cmds = app.update(msg);
    run_commands(app, computer, cmds)
}

fn sized(mut app: App, size: (u16, u16)) -> App {
    app.clock = fixed_clock;
    app.size = size;
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, size.0, size.1)).1;
    app
}

/// An app on `path` with everything loaded and computed.
pub fn loaded_app(path: &Path, size: (u16, u16)) -> (App, Computer) {
    let app = App::new(
        vec![path.to_path_buf()],
        None,
        Theme::load("dark").expect("dark theme"),
    );
    let mut app = sized(app, size);
    let mut computer = Computer::default();
    let start = app.start();
    run_commands(&mut app, &mut computer, start);
    (app, computer)
}

/// An app on the folder `dir`, with its first session shown.
pub fn folder_app(dir: &Path, size: (u16, u16)) -> (App, Computer) {
    let app = App::new(
        Vec::new(),
        Some(dir.to_path_buf()),
        Theme::load("dark").expect("dark theme"),
    );
    let mut app = sized(app, size);
    let mut computer = Computer::default();
    let start = app.start();
    run_commands(&mut app, &mut computer, start);
    (app, computer)
}

/// A copy of a bundled session in a fresh folder.
pub fn temp_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::copy(session_path(name), &path).expect("copy");
    (dir, path)
}

pub fn render(
    app: &App,
    width: u16,
    height: u16,
) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height))
        .expect("terminal");
    terminal
        .draw(|f| formatscope::tui::view::draw(f, app))
        .expect("draw");
    terminal
}

pub fn screen_text(app: &App, width: u16, height: u16) -> String {
    let terminal = render(app, width, height);
    let buffer = terminal.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// Each group heading of the compare view, and whether any of its lines
/// is marked.
pub fn marked_groups(c: &formatscope::compare::Compared) -> Vec<(String, bool)> {
    use formatscope::compare::Row;
    let mut out: Vec<(String, bool)> = Vec::new();
    for row in &c.rows {
        match row {
            Row::Heading(h) => out.push((h.clone(), false)),
            Row::Lines(l, r) => {
                if let Some(last) = out.last_mut() {
                    last.1 |= [l, r]
                        .iter()
                        .any(|x| x.as_ref().is_some_and(|x| x.mark.is_some()));
                }
            }
        }
    }
    out
}

/// The golden long history (13 messages) as a chat, in a temporary file.
pub fn long_chat(max_tokens: Option<i64>) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("chat.json");
    let golden = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/cases/long_history.json");
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(golden).expect("read")).expect("json");
    doc["mode"] = serde_json::json!("chat");
    if let Some(m) = max_tokens {
        doc["max_tokens"] = m.into();
    }
    std::fs::write(&path, doc.to_string()).expect("write");
    (dir, path)
}

/// Key events as the terminal sends them.
pub fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}
pub fn code(c: KeyCode) -> Event {
    Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
}
pub fn ctrl(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// The file at `path` read with `text`.
pub fn read(path: &std::path::Path, text: &str) -> Event {
    Event::FileRead {
        path: path.to_path_buf(),
        result: FileResult::Text {
            text: std::sync::Arc::new(text.to_owned()),
            mode: None,
            real: path.to_path_buf(),
        },
    }
}
