//! One edit at 50,000 and 100,000 messages, through the workbench's real
//! loop (issue 43's first target: the UI thread's work within a frame, the
//! new number on screen within 100 ms). The standard session gets a budget
//! of a quarter of its tokens, so the truncation preview has a plan to
//! move. Each edit is made and then undone, in turn, on the last message:
//!
//! - `edit_KIND_key_to_frame_N`: the key into the loop's channel, `update`
//!   and the key's own frame (what the UI thread does before it is free);
//! - `edit_KIND_to_number_N`: the key until the frame shows the new budget
//!   number (the worker's recount included);
//! - `edit_KIND_to_plan_N`: the key until the truncation preview is the new
//!   one too (it comes with the number once the model has planned before);
//! - `edit_KIND_to_lines_N`: the key until the request pane's lines are the
//!   new ones too (everything on screen is the edit's).
//!
//! KIND is `delete` (x, then u), `duplicate` (d, then u) and `move` (K,
//! then J). The figures named `..._one_group_100000` are the same edits on
//! a session of 100,000 messages without tool calls, which multi-agent
//! formatting makes one `<history>` group (`gen_session.py --one-group`).
//!
//!     cargo bench --bench edits

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::tui::app::{App, Event};
use formatscope::tui::io::Log;
use formatscope::tui::runtime::Runtime;
use formatscope::tui::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use sessions::standard_session;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn key(c: char) -> Event {
    let modifiers = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Event::Key(KeyEvent::new(KeyCode::Char(c), modifiers))
}

/// target/bench-sessions/bench_one_group_N.json: N messages without tool
/// calls (benches/gen_session.py --one-group), generated once.
fn one_group_session(n: usize) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(format!("target/bench-sessions/bench_one_group_{n}.json"));
    if !path.exists() {
        std::fs::create_dir_all(root.join("target/bench-sessions")).expect("the folder");
        let out = std::process::Command::new("python3")
            .arg(root.join("benches/gen_session.py"))
            .args([n.to_string().as_str(), "--one-group"])
            .output()
            .expect("python3 runs benches/gen_session.py");
        assert!(out.status.success(), "gen_session.py failed");
        std::fs::write(&path, out.stdout).expect("write the session");
    }
    path
}

/// The session at `source` with `"max_tokens"` set to `budget`, written
/// into `folder` as `name`.
fn budgeted_session(folder: &Path, source: &Path, name: &str, budget: u64) -> PathBuf {
    let path = folder.join(format!("{name}_budget_{budget}.json"));
    let text = std::fs::read_to_string(source).expect("the session");
    let mut session: serde_json::Value = serde_json::from_str(&text).expect("its JSON");
    session
        .as_object_mut()
        .expect("a session object")
        .insert("max_tokens".into(), budget.into());
    std::fs::write(&path, session.to_string()).expect("write the budgeted session");
    path
}

/// How much of the app's latest generation is on screen.
#[derive(Clone, Copy)]
enum Shown {
    /// The budget's count.
    Number,
    /// The truncation plan too.
    Plan,
    /// The request's lines too (everything).
    Lines,
}

fn shown(rt: &Runtime, what: Shown) -> bool {
    rt.app.preview.as_ref().is_some_and(|p| {
        p.generation == rt.app.generation
            && p.report.is_some()
            && match what {
                Shown::Number => true,
                Shown::Plan => p.plan.is_some(),
                Shown::Lines => p.plan.is_some() && !p.lines_pending,
            }
    })
}

/// Steps the loop until `done`, then draws: the time from the key to that
/// frame.
fn until(rt: &mut Runtime, terminal: &mut Terminal<TestBackend>, done: impl Fn(&Runtime) -> bool) {
    let end = Instant::now() + Duration::from_secs(60);
    while !done(rt) && Instant::now() < end {
        let _ = rt.step(Duration::from_millis(50));
    }
    terminal
        .draw(|f| formatscope::tui::view::draw(f, &rt.app))
        .expect("draw");
}

fn bench(c: &mut Criterion) {
    // The session is written into a folder of this run's own: the edits
    // leave recovery copies beside it, and the next run must not open on
    // a recovery question.
    let folder = tempfile::tempdir().expect("a folder");
    // The standard sessions hold about 46 tokens a message in OpenAI's
    // multi-agent request (50,000 messages: 2,292,364 tokens): ten a
    // message is about a quarter, the 250,000 for 25,000.
    let sessions = [
        (standard_session(50_000), 50_000, "50000"),
        (standard_session(100_000), 100_000, "100000"),
        (one_group_session(100_000), 100_000, "one_group_100000"),
    ];
    for (source, n, name) in sessions {
        let path = budgeted_session(folder.path(), &source, name, (n as u64) * 10);
        let mut app = App::new(vec![path], None, Theme::load("dark").expect("theme"));
        app.size = (120, 40);
        app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
        let mut rt = Runtime::start(app, None, Log::default());
        rt.settle(Duration::from_millis(500), Duration::from_secs(120));
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
        let tx = rt.sender();
        // The last message is selected; the edits are made there.
        let _ = tx.send(key('G'));
        rt.settle(Duration::from_millis(300), Duration::from_secs(60));
        for (kind, keys) in [
            ("delete", ['x', 'u']),
            ("duplicate", ['d', 'u']),
            ("move", ['K', 'J']),
        ] {
            let mut turn = 0usize;
            let mut next = || {
                let k = keys[turn % 2];
                turn += 1;
                (k, turn)
            };
            c.bench_function(&format!("edit_{kind}_key_to_frame_{name}"), |b| {
                b.iter(|| {
                    let _ = tx.send(key(next().0));
                    let _ = rt.step(Duration::from_secs(5));
                    terminal
                        .draw(|f| formatscope::tui::view::draw(f, &rt.app))
                        .expect("draw");
                })
            });
            // The worker finishes what the frames above asked before the
            // next figure starts.
            rt.settle(Duration::from_millis(300), Duration::from_secs(60));
            for (what, plan) in [
                ("to_number", Shown::Number),
                ("to_plan", Shown::Plan),
                ("to_lines", Shown::Lines),
            ] {
                c.bench_function(&format!("edit_{kind}_{what}_{name}"), |b| {
                    b.iter(|| {
                        let _ = tx.send(key(next().0));
                        let _ = rt.step(Duration::from_secs(5));
                        until(&mut rt, &mut terminal, |rt| shown(rt, plan));
                    })
                });
            }
            // Made and undone an even number of times or not, the session
            // goes back to where it was before the next kind.
            let (undo, made) = next();
            if made % 2 == 0 {
                let _ = tx.send(key(undo));
            }
            rt.settle(Duration::from_millis(300), Duration::from_secs(60));
        }
    }
}

criterion_group! {
    name = benches;
    // A figure a user feels is tens of milliseconds: ten samples say it.
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
