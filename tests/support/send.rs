//! Helpers for the `formatscope send` tests (`tests/send.rs`,
//! `tests/send_limits.rs`): sessions pointed at a fake provider on
//! 127.0.0.1, the key variables, and one send that must fail.

#![allow(dead_code)] // each test file uses part of these helpers

use crate::provider::{FakeProvider, Plan};
use crate::run::formatscope;
use formatscope::response::Api;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

/// The key the tests send: it must never appear where it should not.
pub const KEY: &str = "sk-test-SECRET-7f3a";

pub fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    let mut v = formatscope::json::parse(&bytes, Default::default())
        .unwrap()
        .value;
    formatscope::py::normalize_numbers(&mut v);
    v
}

/// The session's model settings that point a provider at `base`.
pub fn base_kwargs(provider: &str, base: &str) -> Value {
    match provider {
        "openai" => json!({"client_kwargs": {"base_url": format!("{base}/v1")}}),
        "deepseek" => json!({"client_kwargs": {"base_url": base}}),
        "anthropic" => json!({"client_kwargs": {"base_url": base}}),
        "dashscope" => json!({"base_http_api_url": format!("{base}/api/v1")}),
        "gemini" => json!({"client_kwargs": {"http_options": {"base_url": base}}}),
        _ => json!({"host": base}),
    }
}

pub fn write_session(
    dir: &Path,
    provider: &str,
    model: Option<&str>,
    stream: bool,
    base: &str,
) -> PathBuf {
    let mut request = json!({"stream": stream, "model_kwargs": base_kwargs(provider, base)});
    if let Some(m) = model {
        request["model"] = json!(m);
    }
    let session = json!({
        "provider": provider,
        "request": request,
        "messages": [
            {"name": "system", "role": "system", "content": "Answer briefly."},
            {"name": "Bob", "role": "user", "content": "Weather in Paris? 天气"}
        ]
    });
    let path = dir.join(format!("{provider}.json"));
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&session).unwrap() + "\n",
    )
    .unwrap();
    path
}

pub fn key_env(provider: &str) -> Vec<(&'static str, &'static str)> {
    match provider {
        "openai" => vec![("OPENAI_API_KEY", KEY)],
        "deepseek" => vec![("DEEPSEEK_API_KEY", KEY)],
        "anthropic" => vec![("ANTHROPIC_API_KEY", KEY)],
        "dashscope" => vec![("DASHSCOPE_API_KEY", KEY)],
        "gemini" => vec![("GEMINI_API_KEY", KEY)],
        _ => vec![],
    }
}

pub fn content_type(api: Api) -> &'static str {
    match api {
        Api::Ollama => "application/x-ndjson",
        _ => "text/event-stream",
    }
}

pub fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

pub fn one_failure(plan: Plan, provider: &str, extra: &[&str]) -> (Output, String, String) {
    one_failure_of(plan, provider, true, extra)
}

pub fn one_failure_of(
    plan: Plan,
    provider: &str,
    stream: bool,
    extra: &[&str],
) -> (Output, String, String) {
    let server = FakeProvider::start(plan);
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), provider, None, stream, &server.base());
    let before = std::fs::read_to_string(&session).unwrap();
    let host = format!("127.0.0.1:{}", server.port);
    let mut args = vec![
        "send",
        session.to_str().unwrap(),
        "--append",
        "--allow-host",
        &host,
    ];
    args.extend_from_slice(extra);
    let out = formatscope(&args, &key_env(provider));
    let after = std::fs::read_to_string(&session).unwrap();
    assert_eq!(before, after, "nothing is appended on failure");
    (out.clone(), text(&out.stdout), text(&out.stderr))
}

/// A session that names no host: the provider's variable points it.
pub fn write_plain_session(dir: &Path, provider: &str) -> PathBuf {
    let session = json!({
        "provider": provider,
        "request": {"stream": false},
        "messages": [{"name": "Bob", "role": "user", "content": "hi"}]
    });
    let path = dir.join(format!("{provider}-plain.json"));
    std::fs::write(&path, session.to_string()).unwrap();
    path
}

/// The SDK variable that points `provider` at `base` (what the user chose).
pub fn base_env(provider: &str, base: &str) -> (&'static str, String) {
    match provider {
        "openai" => ("OPENAI_BASE_URL", format!("{base}/v1")),
        "deepseek" => ("DEEPSEEK_BASE_URL", base.to_string()),
        "anthropic" => ("ANTHROPIC_BASE_URL", base.to_string()),
        "dashscope" => ("DASHSCOPE_HTTP_BASE_URL", format!("{base}/api/v1")),
        "gemini" => ("GOOGLE_GEMINI_BASE_URL", base.to_string()),
        _ => ("OLLAMA_HOST", base.to_string()),
    }
}
