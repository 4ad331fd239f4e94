//! The workbench's peak resident memory on the standard 10,000-message
//! session (benches/gen_session.py), as a multiple of the session file's
//! size. Target: at most 15× (the earlier 10× target is retired; this bound
//! was a test, tests/memory.rs, before).
//!
//!     cargo bench --bench memory
//!
//! The workbench path: the app opens the session, the worker's job (format,
//! count, plan, highlight) runs to the first budget figure, and one frame is
//! drawn at 120×40, as benches/workbench.rs drives it. Each measurement is a
//! fresh process (this binary re-run with `MEMORY_BENCH_CHILD` set) that
//! reads its own high-water mark (VmHWM) at the end, so nothing else this
//! bench did is counted; the median of `RUNS` is printed, and checked
//! against the target. Criterion then times the same path.

#[path = "../tests/support/workbench.rs"]
mod workbench;

#[path = "support/sessions.rs"]
mod sessions;

use criterion::Criterion;
use formatscope::tui::app::App;
use formatscope::tui::theme::Theme;
use formatscope::tui::worker::Computer;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Set in a child: the session to open.
const CHILD_VAR: &str = "MEMORY_BENCH_CHILD";
const MESSAGES: usize = 10_000;
const RUNS: usize = 3;
/// The target: peak RSS at most this many times the session file's size.
const TARGET: f64 = 15.0;

/// Opens `path` in the workbench, runs its jobs and draws one frame.
fn open(path: &Path) -> App {
    let mut app = App::new(
        vec![path.to_path_buf()],
        None,
        Theme::load("dark").expect("theme"),
    );
    app.areas = formatscope::tui::view::layout(ratatui::layout::Rect::new(0, 0, 120, 40)).1;
    let mut computer = Computer::default();
    let start = app.start();
    workbench::run_commands(&mut app, &mut computer, start);
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    terminal
        .draw(|f| formatscope::tui::view::draw(f, &app))
        .expect("draw");
    app
}

/// This process's peak resident memory, in bytes.
fn vm_hwm() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

/// The median peak RSS of `RUNS` fresh processes opening `path`.
fn peak_rss(path: &Path, runs: usize) -> u64 {
    let exe = std::env::current_exe().expect("this binary");
    let mut peaks: Vec<u64> = (0..runs)
        .map(|_| {
            let out = Command::new(&exe)
                .env(CHILD_VAR, path)
                // As the binary runs (src/main.rs): freed pages go back at once.
                .env("MIMALLOC_PURGE_DELAY", "0")
                .output()
                .expect("the bench re-runs itself");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("bytes")
        })
        .collect();
    peaks.sort_unstable();
    peaks[peaks.len() / 2]
}

fn main() {
    if let Some(path) = std::env::var_os(CHILD_VAR) {
        let app = open(Path::new(&path));
        let peak = vm_hwm();
        drop(app);
        println!("{peak}");
        return;
    }
    let path = sessions::standard_session(MESSAGES);
    let size = std::fs::metadata(&path).expect("the session").len();
    // `cargo test --benches` runs a debug build once: no figure to judge.
    let testing = std::env::args().any(|a| a == "--test");
    let peak = peak_rss(&path, if testing { 1 } else { RUNS });
    let multiple = peak as f64 / size as f64;
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    println!(
        "workbench, {MESSAGES} messages: peak RSS {:.1} MiB = {multiple:.1}× the {:.2} MiB session (target ≤ {TARGET}×; median of {RUNS} fresh processes)",
        mib(peak),
        mib(size),
    );
    assert!(
        testing || multiple <= TARGET,
        "peak RSS is {multiple:.1}× the session, over the {TARGET}× target"
    );

    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("memory");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function(format!("open_to_first_frame_{MESSAGES}"), |b| {
        b.iter(|| open(&path))
    });
    g.finish();
    c.final_summary();
}
