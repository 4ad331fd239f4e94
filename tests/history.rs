//! The history of sends against a real SQLite file in a temporary folder
//! (no mock): `formatscope send` to a fake provider on 127.0.0.1 records
//! the request body and the reply, never the key; another formatscope
//! holding the file, a file that is not a history and a full disk are
//! clear errors, and sending and formatting go on.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;

use formatscope::history::{History, HistoryError, NewSend};
use provider::{FakeProvider, Plan};
use run::formatscope;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

const KEY: &str = "sk-test-HISTORY-SECRET-91c2";

const REPLY: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Sunny in Paris.\nAbout 20°C."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}"#;

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn write_session(dir: &Path, base: &str, question: &str) -> PathBuf {
    let session = json!({
        "provider": "openai",
        "request": {"stream": false, "model": "gpt-4o",
                    "model_kwargs": {"client_kwargs": {"base_url": format!("{base}/v1")}}},
        "messages": [
            {"name": "system", "role": "system", "content": "Answer briefly."},
            {"name": "Bob", "role": "user", "content": question}
        ]
    });
    let path = dir.join("weather.json");
    std::fs::write(&path, serde_json::to_string_pretty(&session).unwrap()).unwrap();
    path
}

/// `formatscope ARGS` with the history at `db` and the key set.
fn with_history(args: &[&str], db: &Path) -> Output {
    formatscope(
        args,
        &[
            ("FORMATSCOPE_HISTORY", db.to_str().unwrap()),
            ("OPENAI_API_KEY", KEY),
        ],
    )
}

fn send(session: &Path, server: &FakeProvider, db: &Path) -> Output {
    let host = format!("127.0.0.1:{}", server.port);
    with_history(
        &["send", session.to_str().unwrap(), "--allow-host", &host],
        db,
    )
}

fn json_lines(out: &Output) -> Vec<Value> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn sends_appear_with_their_replies_and_never_the_key() {
    let server = FakeProvider::start(Plan::json(200, REPLY));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let db = data.join("history.sqlite3");
    let session = write_session(dir.path(), &server.base(), "Weather in Paris?");
    let out = send(&session, &server, &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("history"),
        "{}",
        text(&out.stderr)
    );
    // The prompt changed: the same session, other messages.
    write_session(dir.path(), &server.base(), "And in Rome?");
    let out = send(&session, &server, &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Another session's send is not listed under this one.
    let rome = dir.path().join("rome");
    std::fs::create_dir(&rome).unwrap();
    let other = write_session(&rome, &server.base(), "And in Rome?");
    let out = send(&other, &server, &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Newest first, the session's own.
    let out = with_history(&["history", session.to_str().unwrap(), "--json"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sends = json_lines(&out);
    assert_eq!(sends.len(), 2);
    assert!(sends[0]["id"].as_i64() > sends[1]["id"].as_i64());
    let s = &sends[1];
    assert_eq!(s["provider"], "OpenAI");
    assert_eq!(s["model"], "gpt-4o");
    assert_eq!(s["status"], "ok");
    assert_eq!(s["host"], format!("127.0.0.1:{}", server.port));
    assert_eq!(s["input_tokens"], 12);
    assert_eq!(s["output_tokens"], 7);
    assert_eq!(
        s["reply"]["content"][0]["text"],
        "Sunny in Paris.\nAbout 20°C."
    );
    assert_ne!(s["messages_hash"], sends[0]["messages_hash"]);

    // --show: the body that arrived, byte for byte.
    let id = s["id"].as_i64().unwrap().to_string();
    let out = with_history(&["history", "--show", &id, "--json"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown: Value = serde_json::from_slice(&out.stdout).unwrap();
    let arrived = &server.requests()[0];
    assert_eq!(
        shown["request"].as_str().unwrap().as_bytes(),
        &arrived.body[..]
    );

    let out = with_history(&["history", "--show", &id], &db);
    let shown = text(&out.stdout);
    assert!(shown.contains("--- request body"), "{shown}");
    assert!(shown.contains("\"text\": \"Weather in Paris?\""), "{shown}");
    assert!(shown.contains("--- reply"), "{shown}");
    assert!(shown.contains("About 20°C."), "{shown}");

    // The table: id, time, provider, model, tokens, status, first line.
    let out = with_history(&["history"], &db);
    let listed = text(&out.stdout);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(
        listed.contains("OpenAI gpt-4o  12→7  ok  weather.json  Sunny in Paris."),
        "{listed}"
    );
    assert!(!listed.contains("About 20°C"), "{listed}");

    // The key went to the server, never into the files.
    assert!(arrived.header("authorization").unwrap().contains(KEY));
    for entry in std::fs::read_dir(&data).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in the history's files"
        );
    }

    // Prune keeps the newest.
    let out = with_history(&["history", "--prune", "--keep", "1"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("removed 2 send"));
    let out = with_history(&["history", "--json"], &db);
    assert_eq!(json_lines(&out).len(), 1);
}

/// A send goes on when the history cannot be written: same output, same
/// exit code, a warning naming the reason; formatting never looks at it.
fn send_goes_on(dir: &Path, db: &Path, expected: &str) {
    let server = FakeProvider::start(Plan::json(200, REPLY));
    let session = write_session(dir, &server.base(), "Weather in Paris?");
    let out = send(&session, &server, db);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text(&out.stdout).contains("Sunny in Paris."));
    assert!(err.contains(&format!("warning: {expected}")), "{err}");
    let out = with_history(&["format", session.to_str().unwrap()], db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Weather in Paris?"));
    let out = with_history(&["count", session.to_str().unwrap()], db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn another_formatscope_holding_the_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite3");
    let mut h = History::open(&db).unwrap();
    h.record(&NewSend {
        session: "/s.json".into(),
        status: "ok".into(),
        ..NewSend::default()
    })
    .unwrap();
    // A second instance in the middle of a write.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let locked = format!(
        "history: the database is locked by another formatscope ({})",
        db.display()
    );
    assert_eq!(
        h.record(&NewSend::default()),
        Err(HistoryError::Locked {
            path: db.display().to_string()
        })
    );
    send_goes_on(dir.path(), &db, &locked);
    let out = with_history(&["history", "--prune", "--keep", "0"], &db);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&locked), "{}", text(&out.stderr));
    // Reading goes on beside a writer (WAL).
    let out = with_history(&["history", "--json"], &db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(json_lines(&out).len(), 1);

    other.execute_batch("COMMIT").unwrap();
    h.record(&NewSend::default()).unwrap();
}

#[test]
fn a_file_that_is_not_a_history_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite3");
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let err = History::open(&db).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "history: {} is not a formatscope history database: ",
            db.display()
        )),
        "{err}"
    );
    send_goes_on(dir.path(), &db, "history: ");
    let out = with_history(&["history"], &db);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is not a formatscope history database"),
        "{}",
        text(&out.stderr)
    );
    // Nothing was written over it.
    assert_eq!(std::fs::read(&db).unwrap(), vec![0x5a; 8192]);

    // Another program's SQLite file is not written into either.
    let theirs = dir.path().join("theirs.sqlite3");
    let c = rusqlite::Connection::open(&theirs).unwrap();
    c.execute_batch("CREATE TABLE t (x)").unwrap();
    let err = History::open(&theirs).unwrap_err().to_string();
    assert!(err.contains("another program's SQLite database"), "{err}");
}

#[test]
fn a_full_disk_is_a_clear_error_and_reading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite3");
    let mut h = History::open(&db).unwrap();
    let small = NewSend {
        session: "/s.json".into(),
        request: b"{}".to_vec(),
        status: "ok".into(),
        ..NewSend::default()
    };
    h.record(&small).unwrap();
    // SQLite's own SQLITE_FULL, as a full disk gives it.
    h.set_max_pages(8).unwrap();
    let big = NewSend {
        request: vec![b'x'; 256 * 1024],
        ..small.clone()
    };
    let err = h.record(&big).unwrap_err();
    assert!(matches!(err, HistoryError::Full { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("history: disk full writing {}", db.display())),
        "{err}"
    );
    // The failed write left the file as it was.
    assert_eq!(h.count().unwrap(), 1);
    let kept = h.list(None, 10).unwrap()[0].id;
    assert_eq!(h.get(kept).unwrap().unwrap().send.request, b"{}");
    drop(h);
    // Formatting and sending never depended on it.
    send_goes_on_ok(dir.path(), &db);
}

/// A send with a working history records and says nothing of it.
fn send_goes_on_ok(dir: &Path, db: &Path) {
    let server = FakeProvider::start(Plan::json(200, REPLY));
    let session = write_session(dir, &server.base(), "Weather in Paris?");
    let out = send(&session, &server, db);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = with_history(&["history", "--json"], db);
    assert_eq!(json_lines(&out).len(), 2);
}

#[test]
fn a_failed_send_is_recorded_with_its_error() {
    let server = FakeProvider::start(Plan::json(429, r#"{"error": {"message": "slow down"}}"#));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite3");
    let session = write_session(dir.path(), &server.base(), "Weather in Paris?");
    let out = send(&session, &server, &db);
    assert_eq!(out.status.code(), Some(1));
    let out = with_history(&["history", "--json"], &db);
    let sends = json_lines(&out);
    assert_eq!(sends[0]["status"], "error");
    assert!(
        sends[0]["error"].as_str().unwrap().contains("slow down"),
        "{}",
        sends[0]
    );
}

/// Two formatscopes writing at once (two connections, two threads): the
/// busy timeout lets each wait its turn, and every send is kept.
#[test]
fn two_writers_at_once_both_keep_their_sends() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("history.sqlite3");
    History::open(&db).unwrap();
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut h = History::open(&db).unwrap();
                for i in 0..25 {
                    h.record(&NewSend {
                        session: format!("/w{w}.json").into(),
                        request: format!("{{\"n\": {i}}}").into_bytes(),
                        status: "ok".into(),
                        ..NewSend::default()
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let h = History::open(&db).unwrap();
    assert_eq!(h.count().unwrap(), 50);
    assert_eq!(h.list(Some(Path::new("/w1.json")), 100).unwrap().len(), 25);
}
