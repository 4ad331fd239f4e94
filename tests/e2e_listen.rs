//! End to end: `formatscope --listen` in tmux. Exports recorded from a real
//! AgentScope 1.0.21 agent (tests/listen/captures/v1_tools) are posted to
//! the workbench's receiver; each call comes on screen as it arrives,
//! with its number and agent in the header, while the newest is followed;
//! `[` goes back and stops following; the compare view puts what
//! AgentScope recorded beside formatscope's formatting.

#[path = "support/tmux.rs"]
mod tmux;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};
use tmux::Tmux;

/// Posts one recorded export; the status code.
fn post(port: u16, export: &str) -> u16 {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/listen/captures/v1_tools")
        .join(export);
    let body = std::fs::read(&path).expect("a capture");
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    write!(
        s,
        "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .expect("head");
    s.write_all(&body).expect("body");
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("{answer:?}"))
}

#[test]
fn the_workbench_follows_a_running_agent_s_calls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tmux = Tmux::start(dir.path(), "--listen 0 calls");
    let screen = tmux.wait_for("the receiver's address", |s| {
        s.contains("listening on http://127.0.0.1:")
    });
    let port: u16 = screen
        .split("listening on http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{screen}"));
    // The first export is the first reply's format span; the second its
    // model call: then the call is written and comes on screen.
    assert_eq!(post(port, "001.bin"), 200);
    assert_eq!(post(port, "002.bin"), 200);
    let arrived = Instant::now();
    tmux.wait_for("call #1", |s| {
        s.contains("call #1") && s.contains("= AgentScope")
    });
    let delay = arrived.elapsed();
    eprintln!(
        "call #1 on screen {} ms after its export",
        delay.as_millis()
    );
    // A generous bound for a shared machine; the measured delay is in the
    // test's output and docs/src/listen.md.
    assert!(delay < Duration::from_secs(5), "{delay:?}");
    // The next exports: the newest is followed; the reply's end names the
    // agent and its turn.
    assert_eq!(post(port, "003.bin"), 200);
    tmux.wait_for("call #2, Friday's first turn", |s| {
        s.contains("call #2 · Friday, turn 1")
    });
    // Back one: no longer following; a new call does not take the screen.
    tmux.keys(&["["]);
    tmux.wait_for("call #1 again", |s| s.contains("call #1"));
    for export in ["004.bin", "005.bin"] {
        assert_eq!(post(port, export), 200);
    }
    std::thread::sleep(Duration::from_millis(800));
    assert!(tmux.screen().contains("call #1"), "{}", tmux.screen());
    // What AgentScope recorded beside formatscope's formatting.
    // C opens the compare view, then six more reach the last pair.
    for _ in 0..7 {
        tmux.keys(&["C"]);
        std::thread::sleep(Duration::from_millis(150));
    }
    tmux.wait_for("the recorded pair", |s| s.contains("AgentScope recorded"));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
    let calls = std::fs::read_dir(dir.path().join("calls"))
        .expect("the folder")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .count();
    assert!(calls >= 3, "{calls} calls written");
}
