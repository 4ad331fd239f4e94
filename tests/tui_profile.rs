//! Profiles in the workbench: picked in the settings (`s`, the last
//! field), never saved in the session; S then sends through the profile's
//! server with its key variable and headers, though the session names no
//! host.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use formatscope::tui::msg::Command;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use std::sync::Arc;
use workbench::*;

#[test]
fn a_profile_picked_in_the_settings_takes_the_send_to_its_server() {
    const KEY: &str = "sk-profile-test-7f3a";
    // A variable only this test reads.
    std::env::set_var("FORMATSCOPE_TEST_PROFILE_KEY", KEY);
    let server = provider::FakeProvider::start(provider::Plan::json(
        200,
        r#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Through the profile."}, "finish_reason": "stop"}]}"#,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    let session = json!({"provider": "openai", "request": {"stream": false},
        "messages": [{"name": "u", "role": "user", "content": "hi"}]});
    std::fs::write(&path, session.to_string()).expect("write");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let profiles = formatscope::net::profile::Profiles::parse(
        &format!(
            "[profiles.local]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nkey_env = \"FORMATSCOPE_TEST_PROFILE_KEY\"\nmodel = \"local-model\"\nheaders = {{ \"X-Team\" = \"research\" }}\n",
            server.base()
        ),
        "profiles.toml",
    )
    .expect("parses");
    app.profiles = Arc::new(Ok(profiles));
    // s, up to the last field (the profile), a name it does not have:
    // the form says which there are.
    for e in [key('s'), code(KeyCode::Up)] {
        let cmds = app.update(e);
        run_commands(&mut app, &mut computer, cmds);
    }
    for c in "nope".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Enter));
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("no profile \"nope\" (there are local)"),
        "{screen}"
    );
    app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    for c in "local".chars() {
        app.update(key(c));
    }
    let cmds = app.update(code(KeyCode::Enter));
    run_commands(&mut app, &mut computer, cmds);
    assert_eq!(app.profile.as_deref(), Some("local"));
    assert!(app.status.contains("profile local"), "{}", app.status);
    // Not saved in the session: the file and its settings are unchanged.
    assert!(!app.unsaved(), "{}", app.status);

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
    let got = server.requests();
    assert_eq!(got.len(), 1, "{}", app.status);
    let header = |name: &str| {
        got[0]
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("x-team").as_deref(), Some("research"));
    assert_eq!(header("authorization"), Some(format!("Bearer {KEY}")));
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).expect("json");
    assert_eq!(body["model"], "local-model");
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("Through the profile."), "{screen}");
}
