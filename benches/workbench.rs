//! Keystroke to frame in the workbench on the standard 1,000-message
//! session (benches/gen_session.py), drawn into ratatui's TestBackend at
//! 120×40. Target: under 16 ms from key to frame.
//!
//!     cargo bench --bench workbench
//!
//! `*_key_to_frame` is what the user waits for: `update` plus a draw (the
//! reformat runs on the worker thread meanwhile). `*_with_reformat` adds the
//! worker's job run inline: format, incremental count, plan and highlight.

#[path = "../tests/support/workbench.rs"]
mod workbench;

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::tui::app::{App, Event};
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sessions::standard_session;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn benches(c: &mut Criterion) {
    let path = standard_session(1_000);
    let mut app = App::new(vec![path], None, Theme::load("dark").expect("theme"));
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
    let mut computer = Computer::default();
    let start = app.start();
    workbench::run_commands(&mut app, &mut computer, start);
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    let mut group = c.benchmark_group("workbench_1000");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));

    let mut down = true;
    group.bench_function("move_key_to_frame", |b| {
        b.iter(|| {
            app.update(key(if down { 'j' } else { 'k' }));
            down = !down;
            terminal
                .draw(|f| formatscope::tui::view::draw(f, &app))
                .expect("draw");
        })
    });
    let mut flip = false;
    group.bench_function("provider_key_to_frame", |b| {
        b.iter(|| {
            flip = !flip;
            let cmds = app.update(key(if flip { '1' } else { '3' }));
            terminal
                .draw(|f| formatscope::tui::view::draw(f, &app))
                .expect("draw");
            cmds
        })
    });
    group.bench_function("provider_key_with_reformat", |b| {
        b.iter(|| {
            flip = !flip;
            let cmds = app.update(key(if flip { '1' } else { '3' }));
            workbench::run_commands(&mut app, &mut computer, cmds);
            terminal
                .draw(|f| formatscope::tui::view::draw(f, &app))
                .expect("draw");
        })
    });
    // Typing in the editor (inside message #1's name, so every key leaves
    // valid JSON): the message changes, the budget recounts one unit.
    app.update(key('j'));
    app.update(key('e'));
    app.update(Event::Key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE)));
    app.update(Event::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)));
    for _ in 0..2 {
        app.update(Event::Key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE)));
    }
    let mut typed = 0u32;
    group.bench_function("edit_key_with_reformat", |b| {
        b.iter(|| {
            typed += 1;
            let c = char::from(b'a' + (typed % 26) as u8);
            let cmds = app.update(key(c));
            assert!(!cmds.is_empty(), "the edit is valid JSON and reformats");
            workbench::run_commands(&mut app, &mut computer, cmds);
            terminal
                .draw(|f| formatscope::tui::view::draw(f, &app))
                .expect("draw");
        })
    });
    group.finish();
}

criterion_group!(workbench, benches);
criterion_main!(workbench);
