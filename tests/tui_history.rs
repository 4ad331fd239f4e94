//! The workbench's history (`H`) against a real SQLite file: the open
//! session's sends newest first, one shown whole, an old reply beside the
//! latest in the compare view; a file that is not a history is said in
//! the popup and the request stays on screen. Snapshots in
//! tests/snapshots/ (`cargo insta review`).

#[path = "support/provider.rs"]
mod provider;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::history::{session_key, History, NewSend};
use formatscope::tui::msg::Command;
use ratatui::crossterm::event::KeyCode;
use serde_json::json;
use std::path::Path;
use workbench::*;

/// Three sends of `session` at fixed times: the prompt changed between the
/// first and the others.
fn record_sends(db: &Path, session: &Path) {
    let mut h = History::open(db).expect("open");
    // The last two are of the conversation as it is now.
    let now = formatscope::history::messages_hash(
        formatscope::session::read_session(session)
            .expect("session")
            .messages
            .iter()
            .map(formatscope::session::PackedMessage::value),
    );
    let replies = [
        (
            "h1",
            "It is sunny in Paris, about 20°C.\nTake sunglasses.",
            1_764_000_000_000,
            512,
            14,
        ),
        (
            "h2",
            "Paris: light rain, 14°C.\nTake an umbrella.",
            1_764_000_600_000,
            530,
            12,
        ),
        (
            "h2",
            "Light rain in Paris, 14°C; an umbrella helps.",
            1_764_001_200_000,
            530,
            11,
        ),
    ];
    for (hash, text, at, input, output) in replies {
        let send = NewSend {
            session: session_key(session),
            messages_hash: if hash == "h2" { now.clone() } else { hash.into() },
            reference: "1.0.21".into(),
            provider: "OpenAI".into(),
            model: "gpt-4o".into(),
            host: "127.0.0.1:8000".into(),
            request: br#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather in Paris?"}]}"#.to_vec(),
            reply: Some(json!({
                "id": "chatcmpl-1",
                "content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": input, "output_tokens": output},
                "metadata": null,
            })),
            usage: Some(json!({"input_tokens": input, "output_tokens": output})),
            status: "ok".into(),
            elapsed_ms: 900,
            first_token_ms: Some(300),
            error: None,
        };
        h.record_at(&send, at).expect("record");
    }
    // Another session's send is not listed.
    let other = NewSend {
        session: "/elsewhere/other.json".into(),
        status: "ok".into(),
        ..NewSend::default()
    };
    h.record_at(&other, 1_764_002_000_000).expect("record");
}

#[test]
fn history_lists_the_sessions_sends_and_compares_an_old_reply_with_the_new() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("history.sqlite3");
    let session = session_path("library_trip.json");
    record_sends(&db, &session);
    let (mut app, mut computer) = loaded_app(&session, (120, 40));
    app.history_path = Some(db.clone());

    send(&mut app, &mut computer, key('H'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("3 sends, newest first"), "{screen}");
    assert!(!screen.contains("other.json"), "{screen}");
    insta::assert_snapshot!("history_list", screen);

    // The oldest, whole.
    send(&mut app, &mut computer, key('G'));
    send(&mut app, &mut computer, code(KeyCode::Enter));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("Take sunglasses."), "{screen}");
    assert!(screen.contains("Request body"), "{screen}");
    // The body, read whole when shown (a list holds none).
    assert!(screen.contains("Weather in Paris?"), "{screen}");

    // Beside the newest: what the model said before the prompt changed.
    send(&mut app, &mut computer, key('c'));
    assert!(app.popup.is_none());
    assert!(app.compare.open);
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("old reply / new reply"), "{screen}");
    assert!(screen.contains("send #1"), "{screen}");
    assert!(screen.contains("send #3"), "{screen}");
    insta::assert_snapshot!("history_compare_old_and_new_reply", screen);

    // C leaves for the requests' pairs.
    send(&mut app, &mut computer, key('C'));
    assert_ne!(
        app.compare.pair,
        formatscope::tui::panes::compare::Pair::Replies
    );

    // Each send from the workbench is recorded under the session.
    let cmds = app.update(key('S'));
    let job = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(job) => Some(job),
            _ => None,
        })
        .expect("a send");
    assert_eq!(job.history, Some((db.clone(), session_key(&session))));
}

#[test]
fn a_history_that_cannot_be_read_is_said_and_the_request_stays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("history.sqlite3");
    std::fs::write(&db, vec![0x5a; 4096]).expect("write");
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    app.history_path = Some(db.clone());
    send(&mut app, &mut computer, key('H'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("is not a formatscope history"), "{screen}");
    send(&mut app, &mut computer, code(KeyCode::Esc));
    assert!(app.popup.is_none());
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("\"role\": \"system\""), "{screen}");

    // No history at all: H says so.
    app.history_path = None;
    send(&mut app, &mut computer, key('H'));
    assert!(app.popup.is_none());
    assert!(app.status.contains("history is off"), "{}", app.status);
}

/// A real send from the workbench (its sender task, to a fake provider on
/// 127.0.0.1) is recorded with its reply, and H lists it; the key is in
/// none of the history's files.
#[test]
fn a_workbench_send_is_recorded_with_its_reply_and_never_the_key() {
    const KEY: &str = "sk-test-WORKBENCH-HISTORY-5d0e";
    // The only test here that reads a key from this process's environment.
    std::env::set_var("OPENAI_API_KEY", KEY);
    std::env::remove_var("OPENAI_BASE_URL");
    let server = provider::FakeProvider::start(provider::Plan::json(
        200,
        r#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Recorded reply."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}}"#,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("data").join("history.sqlite3");
    let path = dir.path().join("s.json");
    let session = json!({"provider": "openai",
        "request": {"stream": false, "model_kwargs": {"client_kwargs": {"base_url": format!("{}/v1", server.base())}}},
        "messages": [{"name": "u", "role": "user", "content": "hi"}]});
    std::fs::write(&path, session.to_string()).expect("write");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.history_path = Some(db.clone());
    let host = format!("127.0.0.1:{}", server.port);
    let host = formatscope::net::hosts::Host::parse_allowed(&host).expect("host");
    app.consent.answer_send_host(host, true);
    let cmds = app.update(key('S'));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = formatscope::net::client(Default::default()).expect("client");
    let mut sent = 0;
    for cmd in cmds {
        let Command::Send(job) = cmd else { continue };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        runtime.block_on(formatscope::tui::sender::run(client.clone(), *job, tx));
        while let Ok(msg) = rx.try_recv() {
            app.update(msg);
        }
        sent += 1;
    }
    assert_eq!(sent, 1, "{}", app.status);
    assert_eq!(server.requests().len(), 1, "{}", app.status);

    let sends = History::open(&db)
        .expect("open")
        .list(Some(&session_key(&path)), 10)
        .expect("list");
    assert_eq!(sends.len(), 1);
    assert_eq!(sends[0].reply_text(), "Recorded reply.");
    assert_eq!(sends[0].tokens(), (Some(9), Some(2)));
    // A list holds no bodies; one send is read whole.
    let whole = History::open(&db)
        .expect("open")
        .get(sends[0].id)
        .expect("get")
        .expect("there");
    assert_eq!(whole.send.request, server.requests()[0].body);
    for entry in std::fs::read_dir(db.parent().expect("folder")).expect("list") {
        let bytes = std::fs::read(entry.expect("entry").path()).expect("read");
        assert!(!bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()));
    }
    send(&mut app, &mut computer, key('H'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("1 send, newest first"), "{screen}");
    // Recorded with the hash of the conversation on screen.
    assert!(screen.contains("=    1  "), "{screen}");
    assert!(screen.contains("Recorded reply."), "{screen}");
    send(&mut app, &mut computer, code(KeyCode::Esc));

    // A history that cannot be written: the reply stands, the status says
    // why after the send's own line.
    let garbage = dir.path().join("garbage.sqlite3");
    std::fs::write(&garbage, vec![0x5a; 4096]).expect("write");
    app.history_path = Some(garbage);
    let cmds = app.update(key('S'));
    for cmd in cmds {
        let Command::Send(job) = cmd else { continue };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        runtime.block_on(formatscope::tui::sender::run(client.clone(), *job, tx));
        while let Ok(msg) = rx.try_recv() {
            app.update(msg);
        }
    }
    assert_eq!(server.requests().len(), 2);
    assert!(
        app.status.starts_with("warning: history: ")
            && app.status.contains("is not a formatscope history database"),
        "{}",
        app.status
    );
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("Recorded reply."), "{screen}");
}
