//! Running the real binary from the safety tests: with a time limit (a
//! command that hangs is killed and fails the test), and sessions whose
//! media the tests serve.

#![allow(dead_code)] // each test file uses part of these helpers

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Output};
use std::time::{Duration, Instant};

pub fn bin() -> Process {
    Process::new(env!("CARGO_BIN_EXE_formatscope"))
}

/// Runs `formatscope ARGS` in `dir`; fails if it takes `limit` or more.
pub fn run_within(args: &[&str], dir: &Path, limit: Duration) -> std::process::Output {
    let started = Instant::now();
    let child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    let id = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(limit);
        let _ = Process::new("kill").arg("-9").arg(id.to_string()).status();
    });
    let out = child.wait_with_output().expect("wait");
    assert!(
        started.elapsed() < limit,
        "`formatscope {}` hung (killed after {limit:?})",
        args.join(" ")
    );
    drop(watchdog);
    out
}

/// A session with `copies` image blocks of `url`.
pub fn image_session(dir: &Path, url: &str, copies: usize) -> PathBuf {
    let block = serde_json::json!({"type": "image", "source": {"type": "url", "url": url}});
    let session = serde_json::json!({"messages": [
        {"name": "u", "role": "user", "content": vec![block; copies]}
    ]});
    let path = dir.join("s.json");
    std::fs::write(&path, session.to_string()).expect("write");
    path
}

/// `formatscope ARGS` from the repository root with `envs`, and no SDK key
/// or base-URL variable from the tester's environment, and no history (a chosen host there
/// would let a key go where a test expects a refusal).
pub fn formatscope(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut cmd = bin();
    cmd.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    for var in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DASHSCOPE_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "OLLAMA_HOST",
        "DEEPSEEK_BASE_URL",
        "DASHSCOPE_HTTP_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
    ] {
        cmd.env_remove(var);
    }
    // Sends are not kept in the tester's own history (tests/history.rs
    // sets its own).
    cmd.env("FORMATSCOPE_HISTORY", "off");
    // Nor does the tester's own config (prices, profiles, trusted
    // folders) change what a test sees; a test names its own.
    cmd.env(
        "XDG_CONFIG_HOME",
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/no-config"),
    );
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs")
}
