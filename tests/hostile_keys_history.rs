//! Issue 41, items 3, 12 and 13, against a real SQLite file in a temporary
//! folder and fake providers on 127.0.0.1: a key a provider echoes is in
//! nothing stored or printed, the history is the owner's alone, many sends
//! at once all land, listing creates nothing and holds no bodies, a history
//! in a read-only folder is listed, and every JSON we print escapes the
//! controls a terminal would obey.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;

use formatscope::history::{History, NewSend};
use provider::{FakeProvider, Plan};
use run::formatscope;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

const KEY: &str = "sk-test-ECHOED-KEY-5c1d9e";

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn write_session(dir: &Path, base: &str) -> PathBuf {
    let session = json!({
        "provider": "openai",
        "request": {"stream": false, "model": "gpt-4o",
                    "model_kwargs": {"client_kwargs": {"base_url": format!("{base}/v1")}}},
        "messages": [{"name": "Bob", "role": "user", "content": "hi"}]
    });
    let path = dir.join("s.json");
    std::fs::write(&path, session.to_string()).expect("write");
    path
}

fn with_history(args: &[&str], db: &Path) -> Output {
    formatscope(
        args,
        &[
            ("FORMATSCOPE_HISTORY", db.to_str().expect("utf-8")),
            ("OPENAI_API_KEY", KEY),
        ],
    )
}

fn send(session: &Path, server: &FakeProvider, db: &Path, extra: &[&str]) -> Output {
    let host = format!("127.0.0.1:{}", server.port);
    let mut args = vec![
        "send",
        session.to_str().expect("utf-8"),
        "--allow-host",
        &host,
    ];
    args.extend(extra);
    with_history(&args, db)
}

/// Every file in `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_key_the_provider_echoes_is_in_nothing_stored_or_printed() {
    let server = FakeProvider::start(Plan::json(
        401,
        &format!(
            r#"{{"error": {{"message": "Incorrect API key provided: Bearer {KEY}. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "code": "invalid_api_key"}}}}"#
        ),
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data").join("formatscope");
    let db = data.join("history.sqlite3");
    let session = write_session(dir.path(), &server.base());
    let out = send(&session, &server, &db, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("HTTP 401"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("Incorrect API key provided"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !contains(&out.stderr, KEY.as_bytes()),
        "{}",
        text(&out.stderr)
    );
    // The key did go to the server (it was asked to).
    assert!(server.requests()[0]
        .header("authorization")
        .is_some_and(|h| h.contains(KEY)));

    for args in [
        vec!["history", "--json"],
        vec!["history"],
        vec!["history", "--show", "1"],
        vec!["history", "--show", "1", "--json"],
    ] {
        let out = with_history(&args, &db);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).contains("Incorrect API key provided") || args == ["history"],
            "{args:?}: {}",
            text(&out.stdout)
        );
        assert!(
            !contains(&out.stdout, KEY.as_bytes()) && !contains(&out.stderr, KEY.as_bytes()),
            "{args:?} prints the key: {}",
            text(&out.stdout)
        );
    }
    for f in files(dir.path().join("data").as_path()) {
        let bytes = std::fs::read(&f).expect("read");
        assert!(
            !contains(&bytes, KEY.as_bytes()),
            "the key is in {}",
            f.display()
        );
    }
}

#[cfg(unix)]
#[test]
fn the_history_is_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("data").join("formatscope");
    let db = folder.join("history.sqlite3");
    let mut h = History::open(&db).expect("open");
    h.record(&NewSend {
        session: "/s.json".into(),
        request: b"{\"messages\": [\"a prompt\"]}".to_vec(),
        status: "ok".into(),
        ..NewSend::default()
    })
    .expect("record");
    assert_eq!(mode(&db), 0o600, "the database");
    assert_eq!(mode(&folder), 0o700, "the folder made for it");
    assert_eq!(
        mode(&dir.path().join("data")),
        0o700,
        "the folder made for it"
    );
    for side in ["history.sqlite3-wal", "history.sqlite3-shm"] {
        let p = folder.join(side);
        if p.exists() {
            assert_eq!(mode(&p) & 0o077, 0, "{side}");
        }
    }
    drop(h);
    // A folder that was there before keeps its mode: only ours are made so.
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    History::open(&shared.join("h.sqlite3")).expect("open");
    assert_eq!(mode(&shared), 0o755);
    assert_eq!(mode(&shared.join("h.sqlite3")), 0o600);
}

/// Forty formatscopes recording at once into a history that does not exist
/// yet: each send is kept, none is "locked" or "another program's".
#[test]
fn forty_sends_at_once_on_a_new_database_are_all_kept() {
    for round in 0..3 {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("new").join("history.sqlite3");
        let start = std::sync::Arc::new(std::sync::Barrier::new(40));
        let writers: Vec<_> = (0..40)
            .map(|w| {
                let db = db.clone();
                let start = std::sync::Arc::clone(&start);
                std::thread::spawn(move || {
                    start.wait();
                    History::open(&db).and_then(|mut h| {
                        h.record(&NewSend {
                            session: format!("/w{w}.json").into(),
                            status: "ok".into(),
                            ..NewSend::default()
                        })
                    })
                })
            })
            .collect();
        let results: Vec<_> = writers
            .into_iter()
            .map(|w| w.join().expect("joins"))
            .collect();
        let failed: Vec<String> = results
            .iter()
            .filter_map(|r| r.as_ref().err().map(ToString::to_string))
            .collect();
        assert!(failed.is_empty(), "round {round}: {failed:?}");
        assert_eq!(
            History::open(&db).expect("open").count().expect("count"),
            40
        );
    }
}

/// The same with forty real processes sending to a fake provider.
#[test]
fn forty_processes_sending_at_once_all_record() {
    const REPLY: &str = r#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}"#;
    let server = FakeProvider::start(Plan::json(200, REPLY));
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("fresh").join("history.sqlite3");
    let session = write_session(dir.path(), &server.base());
    let host = format!("127.0.0.1:{}", server.port);
    let children: Vec<_> = (0..40)
        .map(|_| {
            run::bin()
                .args([
                    "send",
                    session.to_str().expect("utf-8"),
                    "--allow-host",
                    &host,
                ])
                .current_dir(dir.path())
                .env("FORMATSCOPE_HISTORY", &db)
                .env("OPENAI_API_KEY", KEY)
                .env_remove("OPENAI_BASE_URL")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            !text(&out.stderr).contains("history"),
            "{}",
            text(&out.stderr)
        );
    }
    assert_eq!(
        History::open(&db).expect("open").count().expect("count"),
        40
    );
}

#[test]
fn listing_a_history_that_is_not_there_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("no").join("such").join("history.sqlite3");
    let out = with_history(&["history"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("no sends"),
        "{}",
        text(&out.stderr)
    );
    let out = with_history(&["history", "--json"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let out = with_history(&["history", "--show", "1"], &db);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("no send 1"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !dir.path().join("no").exists(),
        "listing made folders or a database"
    );
    // The workbench's H reads the same way.
    assert!(History::open_existing(&db).expect("no error").is_none());
    assert!(!dir.path().join("no").exists());
}

#[test]
fn listing_holds_no_request_bodies_and_show_reads_one_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("history.sqlite3");
    let mut h = History::open(&db).expect("open");
    let body = vec![b'x'; 1 << 20];
    for _ in 0..5 {
        h.record(&NewSend {
            session: "/s.json".into(),
            request: body.clone(),
            reply: Some(json!({"content": [{"type": "text", "text": "short"}]})),
            status: "ok".into(),
            ..NewSend::default()
        })
        .expect("record");
    }
    let listed = h.list(None, 1000).expect("list");
    assert_eq!(listed.len(), 5);
    for s in &listed {
        assert!(s.send.request.is_empty(), "a listed send holds its body");
        assert_eq!(s.request_bytes, 1 << 20);
        assert!(!s.whole);
        assert_eq!(s.first_line(), "short");
    }
    let whole = h.get(listed[0].id).expect("get").expect("there");
    assert!(whole.whole);
    assert_eq!(whole.send.request, body);
}

/// Runs `formatscope ARGS` unable to write `dir` even as root (root's
/// DAC override dropped), or `None` when that cannot be arranged.
fn without_write_access(args: &[&str], db: &Path) -> Option<Output> {
    let root = unsafe { libc::geteuid() } == 0;
    let mut cmd = if root {
        if !Path::new("/usr/bin/setpriv").exists() {
            return None;
        }
        let mut c = std::process::Command::new("/usr/bin/setpriv");
        c.args([
            "--bounding-set=-dac_override,-dac_read_search",
            "--",
            env!("CARGO_BIN_EXE_formatscope"),
        ]);
        c
    } else {
        run::bin()
    };
    cmd.args(args)
        .env("FORMATSCOPE_HISTORY", db)
        .env("XDG_CONFIG_HOME", dir_of(db).join("no-config"));
    Some(cmd.output().expect("runs"))
}

fn dir_of(p: &Path) -> PathBuf {
    p.parent().expect("a folder").to_path_buf()
}

#[cfg(unix)]
#[test]
fn a_history_in_a_read_only_folder_is_listed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("ro");
    let db = folder.join("history.sqlite3");
    let mut h = History::open(&db).expect("open");
    h.record(&NewSend {
        session: "/s.json".into(),
        reply: Some(json!({"content": [{"type": "text", "text": "kept"}]})),
        status: "ok".into(),
        ..NewSend::default()
    })
    .expect("record");
    drop(h);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let out = without_write_access(&["history", "--json"], &db);
    let shown = without_write_access(&["history", "--show", "1"], &db);
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let Some(out) = out else {
        eprintln!("skipped: root without setpriv cannot be denied writing");
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("\"kept\""),
        "{}",
        text(&out.stdout)
    );
    let shown = shown.expect("ran");
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert!(
        text(&shown.stdout).contains("kept"),
        "{}",
        text(&shown.stdout)
    );
}

/// A reply carrying a one-character CSI (U+009B) and a bidi override
/// (U+202E): every JSON we print writes them as `\u` escapes.
#[test]
fn json_output_escapes_c1_and_bidi_controls_from_replies() {
    let reply = json!({"id": "c", "choices": [{"index": 0, "message": {"role": "assistant",
        "content": "safe \u{9b}31m red \u{202e}desrever"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}});
    let server = FakeProvider::start(Plan::json(200, &reply.to_string()));
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("history.sqlite3");
    let session = write_session(dir.path(), &server.base());
    let raw = |out: &Output| {
        let s = text(&out.stdout);
        s.contains('\u{9b}') || s.contains('\u{202e}')
    };
    let out = send(&session, &server, &db, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!raw(&out), "send --json: {:?}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("\\u009b"),
        "{}",
        text(&out.stdout)
    );
    // Still the same JSON: each line parses back to the reply's text.
    let last: Value = text(&out.stdout)
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .expect("a JSON summary");
    assert_eq!(
        last["final"]["content"][0]["text"],
        "safe \u{9b}31m red \u{202e}desrever"
    );
    for args in [
        vec!["history", "--json"],
        vec!["history", "--show", "1", "--json"],
    ] {
        let out = with_history(&args, &db);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(!raw(&out), "{args:?}: {:?}", text(&out.stdout));
        assert!(
            text(&out.stdout).contains("\\u202e"),
            "{}",
            text(&out.stdout)
        );
    }
}
