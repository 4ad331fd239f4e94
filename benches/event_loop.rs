//! Key to frame through the workbench's real loop (since the move to
//! tokio): a key goes into the loop's channel, the loop wakes and runs
//! `App::update`, and the frame is drawn into ratatui's TestBackend at
//! 120×40, on the standard 1,000-message session. Unlike
//! `benches/workbench.rs`, the channel and the wake-up are included, so the
//! loop before and after the move can be compared on the same machine.
//!
//!     cargo bench --bench event_loop

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::tui::app::{App, Event};
use formatscope::tui::io::Log;
use formatscope::tui::runtime::Runtime;
use formatscope::tui::theme::Theme;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use sessions::standard_session;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn bench(c: &mut Criterion) {
    let path = standard_session(1000);
    let mut app = App::new(vec![path], None, Theme::load("dark").expect("theme"));
    app.size = (120, 40);
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
    let mut rt = Runtime::start(app, None, Log::default());
    rt.settle(Duration::from_millis(500), Duration::from_secs(20));
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    let tx = rt.sender();
    let mut down = true;
    c.bench_function("loop_move_key_to_frame", |b| {
        b.iter(|| {
            let _ = tx.send(key(if down { 'j' } else { 'k' }));
            down = !down;
            let _ = rt.step(Duration::from_secs(5));
            terminal
                .draw(|f| formatscope::tui::view::draw(f, &rt.app))
                .expect("draw");
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
