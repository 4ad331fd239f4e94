//! Key to frame through the workbench's real loop (since the move to
//! tokio): a key goes into the loop's channel, the loop wakes and runs
//! `App::update`, and the frame is drawn into ratatui's TestBackend at
//! 120×40, on the standard sessions of 1,000 and 100,000 messages (issue
//! 30: keys under 16 ms at 100,000): moving the selection, and switching
//! the provider (the key's own frame; the reformat runs on the worker,
//! which this loop does not wait for). Unlike
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
    for n in [1_000, 100_000] {
        let path = standard_session(n);
        let mut app = App::new(vec![path], None, Theme::load("dark").expect("theme"));
        app.size = (120, 40);
        app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
        let mut rt = Runtime::start(app, None, Log::default());
        rt.settle(Duration::from_millis(500), Duration::from_secs(60));
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
        let tx = rt.sender();
        // The 1,000-message figure keeps its old name (README's baseline).
        let name = |what: &str| match n {
            1_000 => format!("loop_{what}_key_to_frame"),
            _ => format!("loop_{what}_key_to_frame_{n}"),
        };
        // Two keys in turn (down and up; Anthropic and OpenAI), each into
        // the loop and on to its frame.
        for (what, keys) in [("move", ['j', 'k']), ("switch", ['2', '1'])] {
            let mut turn = 0;
            c.bench_function(&name(what), |b| {
                b.iter(|| {
                    let _ = tx.send(key(keys[turn % 2]));
                    turn += 1;
                    let _ = rt.step(Duration::from_secs(5));
                    terminal
                        .draw(|f| formatscope::tui::view::draw(f, &rt.app))
                        .expect("draw");
                })
            });
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
