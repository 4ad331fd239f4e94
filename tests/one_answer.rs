//! One question, one answer, whichever command or pane asks: the model a
//! request is for (`count`, `request`, its exports, `send` to a fake
//! provider on 127.0.0.1, the workbench's header and `E` export), a badly
//! typed session field (the same `file:line:col` error everywhere), and a
//! reader that closes the pipe early (no panic in any command).

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;
#[path = "support/workbench.rs"]
mod workbench;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use formatscope::provider::Provider;
use formatscope::tui::app::Event;
use provider::{FakeProvider, Plan};
use run::formatscope;
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A model each provider serves that is not its default.
fn other_model(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "gpt-4.1",
        Provider::Anthropic => "claude-opus-4-1",
        Provider::DashScope => "qwen-plus",
        Provider::Gemini => "gemini-2.5-pro",
        Provider::Ollama => "qwen3:8b",
        Provider::DeepSeek => "deepseek-reasoner",
    }
}

fn write_session(dir: &Path, provider: Provider, model: Option<&str>) -> PathBuf {
    let mut session = json!({
        "provider": provider.id(),
        "messages": [
            {"name": "system", "role": "system", "content": "Answer briefly."},
            {"name": "Bob", "role": "user", "content": "Weather in Paris?"}
        ]
    });
    if let Some(m) = model {
        session["model"] = json!(m);
    }
    let path = dir.join(format!("{}.json", provider.id()));
    std::fs::write(&path, serde_json::to_string_pretty(&session).expect("json")).expect("write");
    path
}

/// Where the model name shows in a request: the body's `model`, or (Gemini)
/// the URL's path.
fn model_of_request(out: &Value) -> String {
    match out["http_body"]["model"].as_str() {
        Some(m) => m.to_string(),
        None => {
            let url = out["http"]["url"].as_str().expect("a url");
            let (_, rest) = url.split_once("/models/").expect("a model in the url");
            rest.split(':').next().unwrap_or_default().to_string()
        }
    }
}

/// `count`, `request` (its object, its body and `--as curl`) and the
/// workbench (header and `E` export) name one model, for every provider,
/// with and without a model in the session.
#[test]
fn every_command_and_the_workbench_name_the_same_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    for provider in Provider::ALL {
        for named in [None, Some(other_model(provider))] {
            let path = write_session(dir.path(), provider, named);
            let p = path.to_str().expect("utf-8 path");
            let want = named.unwrap_or(provider.default_model());
            let label = format!("{provider} {named:?}");

            let count = formatscope(&["count", p, "--json"], &[]);
            let count: Value = serde_json::from_slice(&count.stdout).expect("count --json");
            assert_eq!(count["model"], want, "{label}: count");

            let request = formatscope(&["request", p], &[]);
            let stderr = text(&request.stderr);
            assert_eq!(
                stderr.contains("assuming"),
                named.is_none(),
                "{label}: request says when the model is a guess: {stderr}"
            );
            let request: Value = serde_json::from_slice(&request.stdout).expect("request");
            assert_eq!(request["model"], want, "{label}: request");
            assert_eq!(model_of_request(&request), want, "{label}: request body");
            let curl = text(&formatscope(&["request", p, "--as", "curl"], &[]).stdout);
            assert!(curl.contains(want), "{label}: curl: {curl}");

            let (mut app, mut computer) = workbench::loaded_app(&path, (140, 40));
            let screen = workbench::screen_text(&app, 140, 40);
            let header = screen.lines().next().unwrap_or_default().to_string();
            assert!(header.contains(want), "{label}: header {header}");
            assert_eq!(
                header.contains("(default)"),
                named.is_none(),
                "{label}: header {header}"
            );
            let cmds = app.update(Event::Key(KeyEvent::new(
                KeyCode::Char('E'),
                KeyModifiers::NONE,
            )));
            workbench::run_commands(&mut app, &mut computer, cmds);
            let export =
                path.with_file_name(format!("{}.{}.curl.sh", provider.id(), provider.id()));
            let script = std::fs::read_to_string(&export).expect("E writes the export");
            assert!(
                script.contains(want),
                "{label}: export {script} ({})",
                app.status
            );
            std::fs::remove_file(&export).expect("remove the export");
            assert_eq!(
                script.trim_end(),
                curl.trim_end(),
                "{label}: E and --as curl"
            );
        }
    }
}

/// `send` to a fake provider on 127.0.0.1: the model that arrives is the
/// session's, as `request` shows it.
#[test]
fn send_sends_the_model_request_shows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reply = json!({"id": "1", "object": "chat.completion", "created": 0, "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Sunny."}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}});
    let server = FakeProvider::start(Plan::json(200, &reply.to_string()));
    let path = dir.path().join("s.json");
    let session = json!({
        "provider": "openai", "model": "gpt-4.1",
        "request": {"stream": false,
                    "model_kwargs": {"client_kwargs": {"base_url": format!("{}/v1", server.base())}}},
        "messages": [{"name": "Bob", "role": "user", "content": "Weather?"}]
    });
    std::fs::write(&path, session.to_string()).expect("write");
    let p = path.to_str().expect("utf-8");
    // The session names the fake server; the user allows it.
    let host = format!("127.0.0.1:{}", server.port);
    let out = formatscope(
        &["send", p, "--json", "--allow-host", &host],
        &[("OPENAI_API_KEY", "sk-test")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let received = server.requests();
    assert_eq!(received.len(), 1);
    let body: Value = serde_json::from_slice(&received[0].body).expect("a JSON body");
    assert_eq!(body["model"], "gpt-4.1");
    let shown: Value =
        serde_json::from_slice(&formatscope(&["request", p], &[]).stdout).expect("request");
    assert_eq!(shown["http_body"]["model"], "gpt-4.1");
}

/// A pasted OpenAI request body keeps its model, sampling fields and tool
/// choice on the wire.
#[test]
fn a_pasted_openai_body_keeps_model_temperature_and_tool_choice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("body.json");
    let body = json!({
        "model": "gpt-4.1", "temperature": 0.2, "max_tokens": 64,
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "tools": [{"type": "function", "function": {"name": "get_weather",
                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
        "messages": [{"role": "user", "content": "Weather in Paris?"}]
    });
    std::fs::write(&path, body.to_string()).expect("write");
    let out = formatscope(&["request", path.to_str().expect("utf-8")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let request: Value = serde_json::from_slice(&out.stdout).expect("request");
    let sent = &request["http_body"];
    assert_eq!(sent["model"], "gpt-4.1");
    assert_eq!(sent["temperature"], 0.2);
    assert_eq!(sent["max_tokens"], 64);
    assert_eq!(sent["tool_choice"]["function"]["name"], "get_weather");
}

/// A badly typed field is the same error, at the same place, in every
/// command and in the workbench.
#[test]
fn a_badly_typed_field_is_one_error_everywhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (field, value, says) in [
        (
            "max_tokens",
            json!("100"),
            "\"max_tokens\" must be a whole number",
        ),
        (
            "max_tokens",
            json!(true),
            "\"max_tokens\" must be a whole number",
        ),
        (
            "max_tokens",
            json!(1.5),
            "\"max_tokens\" must be a whole number",
        ),
        ("provider", json!("openia"), "\"provider\" must be one of"),
        ("mode", json!(2), "\"mode\" must be"),
    ] {
        let path = dir.path().join("bad.json");
        let text_of =
            format!("{{\n  \"title\": \"t\",\n  \"{field}\": {value},\n  \"messages\": []\n}}\n");
        std::fs::write(&path, &text_of).expect("write");
        let p = path.to_str().expect("utf-8");
        let at = format!("{p}:3:{}: {says}", field.len() + 7);
        for args in [
            vec!["format", p, "--session-budget"],
            vec!["count", p],
            vec!["truncate", p, "--max-tokens", "10"],
            vec!["lint", p],
            vec!["request", p],
            vec!["explain", p],
        ] {
            let out = formatscope(&args, &[]);
            assert_eq!(out.status.code(), Some(2), "{args:?} {field}");
            let stderr = text(&out.stderr);
            assert!(stderr.contains(&at), "{args:?}: {stderr} (want {at})");
        }
        let (app, _) = workbench::loaded_app(&path, (140, 40));
        let screen = workbench::screen_text(&app, 140, 40);
        assert!(
            screen.contains(&format!("bad.json:3:{}", field.len() + 7)),
            "the workbench: {screen}"
        );
    }
}

/// A large session, so every command's output is larger than a pipe holds.
fn large_session(dir: &Path) -> PathBuf {
    let mut messages = vec![json!({"name": "system", "role": "system", "content": "Be brief."})];
    for i in 0..3000 {
        let (name, role) = if i % 2 == 0 {
            ("Bob", "user")
        } else {
            ("Friday", "assistant")
        };
        messages.push(json!({"name": name, "role": role, "content": format!("message number {i} about the library")}));
    }
    let path = dir.join("large.json");
    std::fs::write(&path, json!({"messages": messages}).to_string()).expect("write");
    path
}

/// `formatscope CMD | head -1`: the reader closes the pipe after one line;
/// no command panics, and each ends as `format` does.
#[test]
fn every_command_handles_a_closed_pipe() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = large_session(dir.path());
    let p = path.to_str().expect("utf-8");
    for args in [
        vec!["format", p],
        vec!["count", p],
        vec!["count", p, "--json"],
        vec!["explain", p, "--nodes"],
        vec!["diff", p, "--left", "openai", "--right", "anthropic"],
        vec!["lint", p],
        vec!["truncate", p, "--max-tokens", "100", "--json"],
        vec!["request", p],
        vec!["tokenize", p],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 16];
        let _ = stdout.read(&mut first);
        drop(stdout);
        let out = child.wait_with_output().expect("wait");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {stderr}");
    }
}
