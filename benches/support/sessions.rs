//! The standard benchmark sessions, shared by the benches.

use std::path::PathBuf;
use std::process::Command;

/// target/bench-sessions/bench_N.json, generated once with the repo's copy
/// of the standard generator (benches/gen_session.py).
pub fn standard_session(n: usize) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-sessions");
    let path = dir.join(format!("bench_{n}.json"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("create target/bench-sessions");
        let out = Command::new("python3")
            .arg(root.join("benches/gen_session.py"))
            .arg(n.to_string())
            .output()
            .expect("python3 runs benches/gen_session.py");
        assert!(out.status.success(), "gen_session.py failed");
        std::fs::write(&path, out.stdout).expect("write the session");
    }
    path
}
