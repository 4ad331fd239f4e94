//! Helpers for the workbench tests: an app with a session loaded and its
//! preview computed synchronously (what the worker thread would send).

#![allow(dead_code)] // each test file uses part of these helpers

use formatscope::tui::app::{App, Command, Msg};
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use std::path::{Path, PathBuf};

pub fn session_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sessions")
        .join(name)
}

pub fn fixed_clock() -> String {
    "12:00:00".into()
}

/// Runs commands the way the runtime does, synchronously: reads files,
/// computes previews; returns what the commands asked to write.
pub fn run_commands(
    app: &mut App,
    computer: &mut Computer,
    cmds: Vec<Command>,
) -> Vec<(PathBuf, String)> {
    let mut writes = Vec::new();
    let mut queue = cmds;
    while !queue.is_empty() {
        let mut next = Vec::new();
        for cmd in queue {
            match cmd {
                Command::Reformat(job) => {
                    let preview = computer.compute(&job);
                    next.extend(app.update(Msg::PreviewReady(Box::new(preview))));
                }
                Command::Read(path) => {
                    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string());
                    next.extend(app.update(Msg::FileRead { path, text }));
                }
                Command::ListFolder(dir) => {
                    let files = formatscope::tui::watch::list_sessions(&dir);
                    next.extend(app.update(Msg::FolderListed(files)));
                }
                Command::Write {
                    path,
                    text,
                    then_quit,
                } => {
                    writes.push((path.clone(), text.clone()));
                    next.extend(app.update(Msg::Written {
                        path,
                        text,
                        result: Ok(()),
                        then_quit,
                    }));
                }
                Command::Quit => {}
            }
        }
        queue = next;
    }
    writes
}

/// An app on `path` with everything loaded and computed.
pub fn loaded_app(path: &Path, size: (u16, u16)) -> (App, Computer) {
    let mut app = App::new(
        vec![path.to_path_buf()],
        None,
        Theme::load("dark").expect("dark theme"),
    );
    app.clock = fixed_clock;
    app.size = size;
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, size.0, size.1)).1;
    let mut computer = Computer::default();
    let start = app.start();
    run_commands(&mut app, &mut computer, start);
    (app, computer)
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
