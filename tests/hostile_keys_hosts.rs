//! Issue 41, item 1: a session cannot send a key in clear text. A host the
//! user chose over https (the provider's own, an SDK variable's, a flag's)
//! takes the key only over https: the same name and port over plain HTTP,
//! named by a session, is a host nobody chose. Plain HTTP gets a key only
//! when the user chose that URL.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;

use formatscope::net::hosts::{check, ChosenHosts, Host, HostRefusal};
use formatscope::provider::Provider;
use provider::{FakeProvider, Plan};
use run::formatscope;
use serde_json::json;

const KEY: &str = "sk-test-CLEAR-TEXT-0b7e";

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn a_providers_own_host_over_plain_http_is_not_its_own_host() {
    for (provider, url) in [
        (Provider::OpenAi, "http://api.openai.com:443/v1/chat/completions"),
        (Provider::Anthropic, "http://api.anthropic.com:443/v1/messages"),
        (Provider::DeepSeek, "http://api.deepseek.com:443/chat/completions"),
        (
            Provider::DashScope,
            "http://dashscope.aliyuncs.com:443/api/v1/services/aigc/text-generation/generation",
        ),
        (
            Provider::Gemini,
            "http://generativelanguage.googleapis.com:443/v1beta/models/gemini-2.5-flash:generateContent",
        ),
    ] {
        let chosen = ChosenHosts::new(provider, no_env, None, &[]);
        assert!(
            matches!(check(url, true, &chosen), Err(HostRefusal::NotChosen(_))),
            "{provider}: the key would go in clear text to {url}"
        );
        // Over https it is the provider's own host.
        let https = url.replacen("http://", "https://", 1);
        assert!(check(&https, true, &chosen).is_ok(), "{provider}: {https}");
    }
}

#[test]
fn plain_http_gets_the_key_only_when_the_user_chose_that_url() {
    // The SDK's variable, a flag, a profile: chosen, so plain HTTP is the
    // user's word.
    let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://api.openai.com:443/v1".into());
    let chosen = ChosenHosts::new(Provider::OpenAi, env, None, &[]);
    assert!(check("http://api.openai.com:443/v1/x", true, &chosen).is_ok());
    let chosen = ChosenHosts::new(
        Provider::OpenAi,
        no_env,
        Some("http://127.0.0.1:8000/v1"),
        &[],
    );
    assert!(check("http://127.0.0.1:8000/v1/x", true, &chosen).is_ok());
    // --allow-host HOST:PORT names that port, either scheme.
    let allowed = [Host::parse_allowed("api.openai.com:443").expect("a host")];
    let chosen = ChosenHosts::new(Provider::OpenAi, no_env, None, &allowed);
    assert!(check("http://api.openai.com:443/v1/x", true, &chosen).is_ok());
    // --allow-host HOST without a port: https only.
    let allowed = [Host::parse_allowed("example.com").expect("a host")];
    let chosen = ChosenHosts::new(Provider::OpenAi, no_env, None, &allowed);
    assert!(check("http://example.com:443/v1/x", true, &chosen).is_err());
    // A URL the user chose over https never covers plain HTTP.
    let chosen = ChosenHosts::new(
        Provider::OpenAi,
        no_env,
        Some("https://127.0.0.1:8000/v1"),
        &[],
    );
    assert!(check("http://127.0.0.1:8000/v1/x", true, &chosen).is_err());
}

/// End to end, on 127.0.0.1 only: the user points OpenAI at
/// `https://127.0.0.1:PORT/v1`, a session names `http://127.0.0.1:PORT/v1`;
/// `send` refuses (exit 2) and the server never sees the key.
#[test]
fn send_never_takes_a_key_over_plain_http_where_the_user_chose_https() {
    let server = FakeProvider::start(Plan::json(200, "{}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let session = dir.path().join("s.json");
    let plain = format!("{}/v1", server.base());
    std::fs::write(
        &session,
        json!({"provider": "openai",
               "request": {"stream": false, "model": "gpt-4o",
                           "model_kwargs": {"client_kwargs": {"base_url": plain}}},
               "messages": [{"name": "u", "role": "user", "content": "hi"}]})
        .to_string(),
    )
    .expect("write");
    let chosen = format!("https://127.0.0.1:{}/v1", server.port);
    let out = formatscope(
        &["send", session.to_str().expect("utf-8")],
        &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &chosen)],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(err.contains("over plain HTTP"), "{err}");
    assert!(
        server.requests().is_empty(),
        "the key went out in clear text: {:?}",
        server.requests()
    );
}

#[path = "support/workbench.rs"]
mod workbench;

/// The workbench's `S`, the user having chosen `https://127.0.0.1:PORT`
/// (`OPENAI_BASE_URL`) and the session naming the same host and port over
/// plain HTTP: nothing is sent, and the question says the key would travel
/// in clear text (the host's name alone looks like the chosen one).
#[test]
fn s_asks_before_a_key_goes_in_clear_text_to_a_chosen_hosts_name() {
    use formatscope::tui::app::Event;
    use formatscope::tui::msg::Command;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let server = FakeProvider::start(Plan::json(200, "{}"));
    // The only test here that sets this process's environment (the
    // others run the binary with their own).
    std::env::set_var("OPENAI_API_KEY", KEY);
    std::env::set_var(
        "OPENAI_BASE_URL",
        format!("https://127.0.0.1:{}/v1", server.port),
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        json!({"provider": "openai",
               "request": {"stream": false, "model": "gpt-4o",
                           "model_kwargs": {"client_kwargs": {"base_url": format!("{}/v1", server.base())}}},
               "messages": [{"name": "u", "role": "user", "content": "hi"}]})
        .to_string(),
    )
    .expect("write");
    let (mut app, _) = workbench::loaded_app(&path, (120, 40));
    let cmds = app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('S'),
        KeyModifiers::NONE,
    )));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = formatscope::net::client(Default::default()).expect("client");
    let mut sends = 0;
    for cmd in cmds {
        let Command::Send(job) = cmd else { continue };
        sends += 1;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        runtime.block_on(formatscope::tui::sender::run(client.clone(), *job, tx));
        while let Ok(msg) = rx.try_recv() {
            app.update(msg);
        }
    }
    std::env::remove_var("OPENAI_BASE_URL");
    assert_eq!(sends, 1, "{}", app.status);
    assert!(
        server.requests().is_empty(),
        "the key went out in clear text"
    );
    let screen = workbench::screen_text(&app, 120, 40);
    assert!(screen.contains("Send your key there?"), "{screen}");
    assert!(screen.contains("plain HTTP"), "{screen}");
}
