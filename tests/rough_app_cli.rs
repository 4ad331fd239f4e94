//! Issue 42, item 4: starting without a session. `formatscope` with no
//! argument outside a folder holding `sessions/` gave a bare error;
//! `formatscope --new FILE.json` starts a session file.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("XDG_DATA_HOME", dir.join(".data"))
        .output()
        .expect("runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Item 7: no `sessions/` here: the workbench offers this folder's
/// sessions (its picker) and says how to start, before anything else.
#[test]
fn no_argument_outside_the_repo_says_how_to_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run_in(dir.path(), &[]);
    let err = stderr(&out);
    assert!(
        err.contains("no sessions/ folder here")
            && err.contains("formatscope FILE.json")
            && err.contains("formatscope --new FILE.json"),
        "{err}"
    );
    // With a sessions/ folder, it is the default as before: no note.
    std::fs::create_dir(dir.path().join("sessions")).expect("mkdir");
    let err = stderr(&run_in(dir.path(), &[]));
    assert!(!err.contains("no sessions/ folder"), "{err}");
}

/// Item 8: `--new FILE` writes a minimal valid session (a system and a
/// user message), never over an existing file, and leaves no temporary
/// file behind; the session it writes formats.
#[test]
fn new_writes_a_minimal_session_and_never_overwrites() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run_in(dir.path(), &["--new", "start.json"]);
    let err = stderr(&out);
    assert!(err.contains("wrote start.json"), "{err}");
    let path = dir.path().join("start.json");
    let text = std::fs::read_to_string(&path).expect("written");
    let session = formatscope::session::read_session(&path).expect("a session");
    let roles: Vec<String> = session
        .messages
        .iter()
        .map(|m| m.value()["role"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(roles, ["system", "user"]);
    let count = run_in(dir.path(), &["count", "start.json"]);
    assert!(count.status.success(), "{}", stderr(&count));
    // Again: refused, the file as it was.
    std::fs::write(&path, format!("{text} ")).expect("touch");
    let out = run_in(dir.path(), &["--new", "start.json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("start.json already exists"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        format!("{text} ")
    );
    // A folder that does not exist: the error names the file.
    let out = run_in(dir.path(), &["--new", "no/such/dir/x.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no/such/dir/x.json"),
        "{}",
        stderr(&out)
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            !n.starts_with(".state") && !n.starts_with(".config") && !n.starts_with(".data")
        })
        .collect();
    assert_eq!(left, ["start.json"], "no temporary file left");
}
