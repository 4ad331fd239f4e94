//! Issue 41, item 3's streamed side: a server that echoes the key inside a
//! streamed reply's text (`Incorrect API key provided: Bearer sk-…`) never
//! gets it printed, even when it comes split across two chunks of the
//! stream. `send` prints a reply's text as it streams, so the tail of each
//! chunk that could start the key is held back until the next chunk (or
//! the end) shows whether it does. Fake providers on 127.0.0.1 only.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;

use provider::{FakeProvider, Plan};
use run::formatscope;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

const KEY: &str = "sk-test-STREAMED-KEY-8b2f41";

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// An OpenAI chat session that streams, at `base`.
fn write_session(dir: &Path, base: &str) -> PathBuf {
    let session = json!({
        "provider": "openai",
        "request": {"stream": true, "model": "gpt-4o",
                    "model_kwargs": {"client_kwargs": {"base_url": format!("{base}/v1")}}},
        "messages": [{"name": "Bob", "role": "user", "content": "hi"}]
    });
    let path = dir.join("s.json");
    std::fs::write(&path, session.to_string()).expect("write");
    path
}

/// The reply's text in pieces: the key cut at `cuts` (byte offsets into
/// the key), each piece its own SSE event in its own HTTP chunk; a second
/// copy of the key cut one byte in; a tool call whose arguments hold it.
fn frames(cut: usize) -> Vec<Vec<u8>> {
    let delta = |d: serde_json::Value| {
        let chunk = json!({"id": "chatcmpl-k", "object": "chat.completion.chunk",
            "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": d, "finish_reason": null}]});
        format!("data: {chunk}\n\n").into_bytes()
    };
    let content = |s: &str| delta(json!({"content": s}));
    let (a, b) = KEY.split_at(cut);
    let (c, d) = KEY.split_at(1);
    let done = json!({"id": "chatcmpl-k", "object": "chat.completion.chunk", "created": 1,
        "model": "gpt-4o", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}});
    vec![
        content("Incorrect API key provided: Bearer "),
        content(a),
        content(b),
        content(". Again: "),
        content(c),
        content(d),
        // A key's start that never ends: not the key, shown at the end.
        content(" and sk-test-STR"),
        delta(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "echo", "arguments": format!("{{\"key\": \"{a}")}}]}),
        ),
        delta(json!({"tool_calls": [{"index": 0, "function": {"arguments": format!("{b}\"}}")}}]})),
        format!("data: {done}\n\n").into_bytes(),
        b"data: [DONE]\n\n".to_vec(),
    ]
}

fn send(session: &Path, server: &FakeProvider, extra: &[&str]) -> Output {
    let host = format!("127.0.0.1:{}", server.port);
    let mut args = vec![
        "send",
        session.to_str().expect("utf-8"),
        "--allow-host",
        &host,
    ];
    args.extend(extra);
    formatscope(&args, &[("OPENAI_API_KEY", KEY)])
}

fn assert_no_key(out: &Output, what: &str) {
    assert!(
        !contains(&out.stdout, KEY.as_bytes()),
        "{what}: the key in stdout:\n{}",
        text(&out.stdout)
    );
    assert!(
        !contains(&out.stderr, KEY.as_bytes()),
        "{what}: the key in stderr:\n{}",
        text(&out.stderr)
    );
}

/// `send` in plain output: every cut of the key across two chunks.
#[test]
fn a_key_split_across_stream_chunks_is_never_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    for cut in [1, 3, 9, KEY.len() / 2, KEY.len() - 1] {
        let server = FakeProvider::start(Plan::stream(
            "text/event-stream",
            frames(cut),
            Duration::from_millis(15),
        ));
        let session = write_session(dir.path(), &server.base());
        let out = send(&session, &server, &[]);
        let what = format!("cut at {cut}");
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        assert_no_key(&out, &what);
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains(
                "Incorrect API key provided: Bearer <API_KEY>. Again: <API_KEY> and sk-test-STR"
            ),
            "{what}: {stdout}"
        );
        assert!(
            stdout.contains(r#"[tool_use echo id=call_1] {"key":"<API_KEY>"}"#),
            "{what}: {stdout}"
        );
        // It did go to the server (the user allowed the host).
        assert!(server.requests()[0]
            .header("authorization")
            .is_some_and(|h| h.contains(KEY)));
    }
}

/// `send --json`: each response as it grows, and the summary.
#[test]
fn a_streamed_key_is_in_no_json_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        frames(7),
        Duration::from_millis(5),
    ));
    let session = write_session(dir.path(), &server.base());
    let out = send(&session, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_no_key(&out, "--json");
    assert!(text(&out.stdout).contains("<API_KEY>"));
}

/// Under another release (`--agentscope 2.0.11`): its own printing of the
/// stream, and its JSON lines.
#[test]
fn a_streamed_key_is_never_printed_under_2_0_11() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (cut, json) in [(2, false), (KEY.len() - 2, false), (5, true)] {
        let server = FakeProvider::start(Plan::stream(
            "text/event-stream",
            frames(cut),
            Duration::from_millis(10),
        ));
        let session = write_session(dir.path(), &server.base());
        let base = format!("{}/v1", server.base());
        let mut args = vec![
            "--agentscope",
            "2.0.11",
            "--provider",
            "openai",
            "--mode",
            "chat",
            "--model",
            "gpt-4o",
            "--base-url",
            &base,
        ];
        if json {
            args.push("--json");
        }
        let out = send(&session, &server, &args);
        let what = format!("2.0.11, cut at {cut}, json {json}");
        assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
        assert_no_key(&out, &what);
        let stdout = text(&out.stdout);
        assert!(stdout.contains("<API_KEY>"), "{what}: {stdout}");
        if !json {
            assert!(
                stdout.contains("Bearer <API_KEY>. Again: <API_KEY> and sk-test-STR"),
                "{what}: {stdout}"
            );
        }
    }
}
