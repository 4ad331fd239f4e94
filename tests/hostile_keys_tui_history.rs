//! Issue 41, item 12, in the workbench: `H` lists sends without holding
//! their bodies, and reads one whole when it is shown (Enter) or its large
//! reply compared (`c`); a history that is not there is not made by `H`.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::history::{session_key, History, NewSend};
use formatscope::tui::app::Event;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use workbench::*;

#[test]
fn h_reads_a_large_send_whole_only_when_it_is_shown_or_compared() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        json!({"provider": "openai", "request": {"stream": false, "model": "gpt-4o"},
               "messages": [{"name": "u", "role": "user", "content": "hi"}]})
        .to_string(),
    )
    .expect("write");
    let db = dir.path().join("h.sqlite3");
    let mut h = History::open(&db).expect("open");
    // A reply over the list's limit (an image block's data), and a large
    // body.
    for (text, pad) in [("a short old reply", 0), ("BEGINNING · THE END", 100_000)] {
        h.record(&NewSend {
            session: session_key(&path),
            request: format!(
                "{{\"marker\": \"BODY-MARK\", \"pad\": \"{}\"}}",
                "x".repeat(300_000)
            )
            .into_bytes(),
            reply: Some(json!({"content": [
                {"type": "text", "text": text},
                {"type": "image", "source": {"type": "base64", "data": "A".repeat(pad)}}
            ]})),
            status: "ok".into(),
            ..NewSend::default()
        })
        .expect("record");
    }
    drop(h);
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.history_path = Some(db.clone());
    send(&mut app, &mut computer, key('H'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("2 sends, newest first"), "{screen}");
    assert!(screen.contains("read when shown"), "{screen}");
    // The newest, whole: its reply and body read from the file.
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("BEGINNING"), "{screen}");
    assert!(screen.contains("BODY-MARK"), "{screen}");
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    // The old short reply compared with the large one: both there.
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('c'));
    assert!(app.compare.open, "{}", app.status);
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("a short old reply"), "{screen}");

    // Listed afresh, the large reply left out: `c` reads it, then compares.
    send(&mut app, &mut computer, key('c'));
    assert!(!app.compare.open);
    send(&mut app, &mut computer, key('H'));
    assert!(screen_text(&app, 120, 40).contains("read when shown"));
    send(&mut app, &mut computer, key('c'));
    assert!(app.compare.open, "{}", app.status);
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("BEGINNING"), "{screen}");
}

#[test]
fn h_on_a_history_that_is_not_there_makes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        json!({"messages": [{"name": "u", "role": "user", "content": "hi"}]}).to_string(),
    )
    .expect("write");
    let db = dir.path().join("no").join("such").join("h.sqlite3");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.history_path = Some(db);
    send(&mut app, &mut computer, key('H'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("No sends of this session yet"), "{screen}");
    assert!(!dir.path().join("no").exists(), "H made folders");
}
