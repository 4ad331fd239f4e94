//! A save of a large session after one edit (issue "Safe against hostile
//! files and servers", item 9): the text written, with what was not
//! edited kept byte for byte.
//!
//!     cargo bench --bench save            # 100,000 messages
//!     SAVE_BENCH_N=1000000 cargo bench --bench save
//!
//! Besides criterion's times it prints the peak resident memory of one
//! save (VmHWM, reset through /proc/self/clear_refs first).

#[path = "support/sessions.rs"]
mod sessions;

use criterion::{criterion_group, criterion_main, Criterion};
use formatscope::session::{parse_session, render_saved, render_saved_over, Session};
use std::time::{Duration, Instant};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn vm_hwm_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The session file of `n` messages, and it loaded with one message edited.
fn edited(n: usize) -> (String, Session, Session) {
    let path = sessions::standard_session(n);
    let text = std::fs::read_to_string(&path).expect("read");
    let base = parse_session(&text, "bench").expect("parse");
    let mut session = base.clone();
    let i = session.messages.len() / 2;
    let mut m = session.messages[i].value();
    m["content"] = "an edited message".into();
    session.messages_mut()[i] = (&m).into();
    (text, base, session)
}

fn once(label: &str, f: impl FnOnce() -> String) {
    reset_peak();
    let before = vm_hwm_mb();
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    println!(
        "{label}: {took:.2?}, peak RSS {:.0} MB (before {before:.0} MB), {} bytes",
        vm_hwm_mb(),
        out.len()
    );
}

fn benches(c: &mut Criterion) {
    let n = std::env::var("SAVE_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let (text, base, session) = edited(n);
    once(&format!("splice, {n} messages"), || {
        render_saved_over(&text, &base, &session).expect("render")
    });
    once(&format!("whole-document splice, {n} messages"), || {
        render_saved(&text, &session).expect("render")
    });
    let mut group = c.benchmark_group("save");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function(format!("splice_{n}"), |b| {
        b.iter(|| render_saved_over(&text, &base, &session).expect("render"))
    });
    group.bench_function(format!("whole_document_{n}"), |b| {
        b.iter(|| render_saved(&text, &session).expect("render"))
    });
    group.finish();
}

criterion_group!(save, benches);
criterion_main!(save);
