//! Keystroke to frame in the request pane's token view against the
//! messages view, in the same run, on the standard 1,000-message session
//! (benches/gen_session.py), drawn into ratatui's TestBackend at 120×40.
//!
//!     cargo bench --bench token_view
//!
//! Both views are scrolled with the request pane focused (`j`/`k`); in the
//! token view `j`/`k` move the cursor a line and `l`/`h` a token, and the
//! pane draws only the rows on screen (the worker tokenised the request
//! once when the view was opened; that one-off cost is printed, not timed
//! per key).

#[path = "../tests/support/workbench.rs"]
mod workbench;

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::tui::app::{App, Event};
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::{Computer, Shown};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sessions::standard_session;
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn benches(c: &mut Criterion) {
    let path = standard_session(1_000);
    let mut app = App::new(vec![path], None, Theme::load("dark").expect("theme"));
    app.size = (120, 40);
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
    let mut computer = Computer::default();
    let start = app.start();
    workbench::run_commands(&mut app, &mut computer, start);
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    let mut draw = |app: &App| {
        terminal
            .draw(|f| formatscope::tui::view::draw(f, app))
            .expect("draw");
    };
    // The request pane takes j/k (from the list, Shift-Tab).
    app.update(Event::Key(KeyEvent::new(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
    )));
    draw(&app);
    let mut group = c.benchmark_group("token_view_1000");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(4));

    let mut down = true;
    group.bench_function("messages_view_key_to_frame", |b| {
        b.iter(|| {
            app.update(key(if down { 'j' } else { 'k' }));
            down = !down;
            draw(&app);
        })
    });

    // Open the token view: the worker's one tokenising run.
    while app.request.shown != Shown::Tokens {
        let cmds = app.update(key('v'));
        let began = Instant::now();
        workbench::run_commands(&mut app, &mut computer, cmds);
        if app.request.shown == Shown::Tokens {
            let tokens = app
                .preview
                .as_ref()
                .and_then(|p| p.tokens.as_ref())
                .map_or(0, |t| t.total_tokens);
            eprintln!(
                "token view opened: {tokens} tokens laid out in {:?} (worker, once per job)",
                began.elapsed()
            );
        }
    }
    draw(&app);
    group.bench_function("token_view_line_key_to_frame", |b| {
        b.iter(|| {
            app.update(key(if down { 'j' } else { 'k' }));
            down = !down;
            draw(&app);
        })
    });
    let mut right = true;
    group.bench_function("token_view_token_key_to_frame", |b| {
        b.iter(|| {
            app.update(key(if right { 'l' } else { 'h' }));
            right = !right;
            draw(&app);
        })
    });
    // Far into the request: the cursor's row is found by binary search,
    // not by walking the rows before it.
    for _ in 0..2_000 {
        app.update(key('j'));
    }
    draw(&app);
    group.bench_function("token_view_deep_line_key_to_frame", |b| {
        b.iter(|| {
            app.update(key(if down { 'j' } else { 'k' }));
            down = !down;
            draw(&app);
        })
    });
    group.finish();
}

criterion_group!(token_view, benches);
criterion_main!(token_view);
