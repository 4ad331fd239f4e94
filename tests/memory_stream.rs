//! `response --stream` holds one chunk at a time: a 0.3 MB stream of
//! 4,000 deltas (AgentScope yields 4,000 cumulative chunks, 67 MB of
//! output) peaked at 294 MB when every chunk, then the whole output object,
//! was held. Its own test binary, so the peak measured is this one child's.

use std::process::{Command, Stdio};

/// The peak resident memory of the children waited for so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_stream_of_many_chunks_is_printed_without_holding_them() {
    let mut events: Vec<serde_json::Value> = (0..4000)
        .map(|i| {
            serde_json::json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": format!("word{i} ")}}]})
        })
        .collect();
    events.push("[DONE]".into());
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("stream.json");
    std::fs::write(&path, serde_json::to_string(&events).expect("json")).expect("write");
    let status = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["response", "--provider", "openai", "--stream"])
        .arg(&path)
        .stdout(Stdio::null())
        .status()
        .expect("the binary runs");
    assert!(status.success());
    let peak = children_peak_rss();
    assert!(
        peak < 64 * 1024 * 1024,
        "peak RSS {} MB for a 0.3 MB stream",
        peak / (1024 * 1024)
    );
}
