//! Large sessions are held once: `format` on a 20,000-message session peaks
//! under ten times the file's size (it held the session three times before:
//! thirteen times the size). Its own test binary, so the peak measured is
//! this one child's.

use std::path::Path;
use std::process::Command;

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
fn format_holds_a_large_session_once() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let session = dir.path().join("large.json");
    let out = Command::new("python3")
        .arg(root.join("benches/gen_session.py"))
        .arg("20000")
        .output()
        .expect("python3 runs the session generator");
    assert!(out.status.success());
    std::fs::write(&session, &out.stdout).expect("write the session");
    let size = out.stdout.len() as u64;

    let run = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("format")
        .arg(&session)
        .output()
        .expect("the binary runs");
    assert_eq!(run.status.code(), Some(0));
    assert!(run.stdout.len() as u64 > size / 2, "the request is printed");
    let peak = children_peak_rss();
    // Plus the binary itself (code, allocator arenas, a debug build's
    // slack): before, 104 MB for this 6 MB session; now about 70.
    let limit = 10 * size + 24 * 1024 * 1024;
    assert!(
        peak < limit,
        "peak {} MB for a {} MB session (limit {} MB)",
        peak >> 20,
        size >> 20,
        limit >> 20
    );
}
