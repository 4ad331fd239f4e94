//! Issue 41, items 6, 10 and 14, against `formatscope send` and servers
//! the tests start on 127.0.0.1: a session with 33,000 extra headers (the
//! HTTP client panicked), a stream of real content without end (memory
//! grew without limit), and replies of another shape or with nothing in
//! them (one was appended as an empty assistant turn).

#[path = "support/endless.rs"]
mod endless;
#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;
#[path = "support/send.rs"]
mod send;

use endless::endless_openai_stream;
use provider::{FakeProvider, Plan};
use run::formatscope;
use send::{base_kwargs, key_env, text};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// A session for `provider` at `base`, with `request` merged into its
/// `"request"` object.
fn write_session(dir: &Path, provider: &str, stream: bool, base: &str, request: Value) -> PathBuf {
    let mut req = json!({"stream": stream, "model_kwargs": base_kwargs(provider, base)});
    if let (Some(r), Value::Object(extra)) = (req.as_object_mut(), request) {
        r.extend(extra);
    }
    let session = json!({
        "provider": provider,
        "request": req,
        "messages": [{"name": "Bob", "role": "user", "content": "Weather in Paris?"}]
    });
    let path = dir.join(format!("{provider}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&session).expect("json")).expect("write");
    path
}

/// `send FILE --append --allow-host HOST` against `base`: the output, and
/// whether the session was left as it was.
fn send_append(file: &Path, provider: &str, port: u16, extra: &[&str]) -> (Output, bool) {
    let before = std::fs::read_to_string(file).expect("read");
    let host = format!("127.0.0.1:{port}");
    let mut args = vec![
        "send",
        file.to_str().expect("utf-8"),
        "--append",
        "--allow-host",
        &host,
    ];
    args.extend_from_slice(extra);
    let out = formatscope(&args, &key_env(provider));
    let after = std::fs::read_to_string(file).expect("read");
    (out, before == after)
}

/// Item 6: 33,000 extra headers, or one of 100 KB: an error naming the
/// limit before anything is sent (the HTTP client panicked at 32,768).
#[test]
fn too_many_or_too_large_headers_are_an_error_before_sending() {
    let server = FakeProvider::start(Plan::json(200, "{}"));
    let dir = tempfile::tempdir().expect("tempdir");
    let many: serde_json::Map<String, Value> = (0..33_000)
        .map(|i| (format!("X-Extra-{i}"), json!("v")))
        .collect();
    let huge = json!({"X-Huge": "h".repeat(100 * 1024)});
    for (what, headers) in [("many", Value::Object(many)), ("huge", huge)] {
        let file = write_session(
            dir.path(),
            "openai",
            false,
            &server.base(),
            json!({"call_kwargs": {"extra_headers": headers}}),
        );
        let (out, unchanged) = send_append(&file, "openai", server.port, &[]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(
            err.contains("nothing was sent") && err.contains("256 headers and 64 KB"),
            "{what}: {err}"
        );
        assert!(unchanged, "{what}: nothing appended");
    }
    assert!(server.requests().is_empty(), "nothing reached the server");
}

/// The peak resident memory of the children waited for so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    usage.ru_maxrss as u64 * 1024
}

/// Item 10: the whole streamed reply is capped (it grew to 830 MB in
/// 100 s): an error naming the limit, nothing appended, memory bounded.
#[test]
fn an_endless_stream_of_content_stops_at_the_body_limit() {
    let port = endless_openai_stream();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_session(
        dir.path(),
        "openai",
        true,
        &format!("http://127.0.0.1:{port}"),
        json!({}),
    );
    let started = Instant::now();
    let (out, unchanged) = send_append(&file, "openai", port, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("larger than the 64 MB body limit"), "{err}");
    assert!(err.contains("nothing was appended"), "{err}");
    assert!(unchanged);
    assert!(
        started.elapsed() < Duration::from_secs(240),
        "took {:?}",
        started.elapsed()
    );
    let peak = children_peak_rss();
    eprintln!(
        "endless stream: stopped after {:?}, peak RSS {} MB",
        started.elapsed(),
        peak / (1024 * 1024)
    );
    assert!(
        peak < 512 * 1024 * 1024,
        "peak RSS {} MB",
        peak / (1024 * 1024)
    );
}

/// Item 14: replies of another API's shape, or with nothing an agent
/// keeps (no content, an empty list, blocks without text or name), whole
/// or streamed, for each provider: an error that says what came back,
/// exit 1, nothing appended. (An Anthropic send of an OpenAI body exited 0
/// and appended `{"role": "assistant", "content": []}`.)
#[test]
fn replies_with_nothing_to_keep_are_errors_and_nothing_is_appended() {
    let openai_body = r#"{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}}"#;
    let whole: &[(&str, &str)] = &[
        // The attack: an OpenAI body where Anthropic's was expected.
        ("anthropic", openai_body),
        (
            "anthropic",
            r#"{"id": "msg_1", "type": "message", "content": [], "usage": {"input_tokens": 9, "output_tokens": 0}}"#,
        ),
        (
            "anthropic",
            r#"{"id": "msg_1", "type": "message", "content": [{"type": "text"}, {"type": "tool_use"}], "usage": {"input_tokens": 9, "output_tokens": 1}}"#,
        ),
        (
            "anthropic",
            r#"{"id": "msg_1", "type": "message", "content": [{"type": "text", "text": ""}], "usage": {"input_tokens": 9, "output_tokens": 1}}"#,
        ),
        (
            "openai",
            r#"{"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}}"#,
        ),
        (
            "openai",
            r#"{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": null}}], "usage": {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}}"#,
        ),
        (
            "openai",
            r#"{"id": "msg_1", "type": "message", "content": [{"type": "text", "text": "Sunny."}], "usage": {"input_tokens": 9, "output_tokens": 2}}"#,
        ),
        (
            "deepseek",
            r#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}}], "usage": {"prompt_tokens": 9, "completion_tokens": 0}}"#,
        ),
        ("gemini", openai_body),
        (
            "gemini",
            r#"{"candidates": [], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 0, "totalTokenCount": 9}}"#,
        ),
        (
            "gemini",
            r#"{"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}], "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}}"#,
        ),
        ("dashscope", openai_body),
        (
            "dashscope",
            r#"{"request_id": "r", "output": {"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]}, "usage": {"input_tokens": 9, "output_tokens": 0}}"#,
        ),
        (
            "ollama",
            r#"{"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": true, "prompt_eval_count": 9, "eval_count": 0}"#,
        ),
        ("ollama", openai_body),
    ];
    let sse = |events: &[Value]| -> Vec<Vec<u8>> {
        events
            .iter()
            .map(|e| format!("data: {e}\n\n").into_bytes())
            .chain([b"data: [DONE]\n\n".to_vec()])
            .collect()
    };
    let streamed: Vec<(&str, &str, Vec<Vec<u8>>)> = vec![
        // Usage, and not a word.
        (
            "openai",
            "text/event-stream",
            sse(&[
                json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
                json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 0, "total_tokens": 9}}),
            ]),
        ),
        (
            "anthropic",
            "text/event-stream",
            vec![
                b"event: message_start\ndata: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_1\", \"type\": \"message\", \"role\": \"assistant\", \"content\": [], \"usage\": {\"input_tokens\": 9, \"output_tokens\": 0}}}\n\n".to_vec(),
                b"event: message_delta\ndata: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\"}, \"usage\": {\"output_tokens\": 0}}\n\n".to_vec(),
                b"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n".to_vec(),
            ],
        ),
        (
            "gemini",
            "text/event-stream",
            vec![format!(
                "data: {}\n\n",
                json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}],
                    "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}})
            )
            .into_bytes()],
        ),
        (
            "dashscope",
            "text/event-stream",
            vec![format!(
                "id:1\nevent:result\ndata:{}\n\n",
                json!({"output": {"choices": [{"message": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]},
                    "usage": {"input_tokens": 9, "output_tokens": 0}, "request_id": "r"})
            )
            .into_bytes()],
        ),
        (
            "ollama",
            "application/x-ndjson",
            vec![b"{\"model\": \"qwen3:8b\", \"message\": {\"role\": \"assistant\", \"content\": \"\"}, \"done\": true, \"prompt_eval_count\": 9, \"eval_count\": 0}\n".to_vec()],
        ),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let check = |provider: &str, plan: Plan, stream: bool, what: &str| {
        let server = FakeProvider::start(plan);
        let file = write_session(dir.path(), provider, stream, &server.base(), json!({}));
        let (out, unchanged) = send_append(&file, provider, server.port, &[]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{provider} {what}: {err}");
        // What came back, said (or AgentScope's own error for it).
        assert!(
            err.contains("error: ") && err.contains("nothing was appended"),
            "{provider} {what}: {err}"
        );
        if what == openai_body {
            assert!(
                err.contains("the server answered 200 application/json") || err.contains("Error"),
                "{provider}: {err}"
            );
        }
        assert!(unchanged, "{provider} {what}: the session changed");
        assert_eq!(server.requests().len(), 1);
        err
    };
    for (provider, body) in whole {
        check(provider, Plan::json(200, body), false, body);
    }
    // The attack's own words: what came back, and whose reply it is not.
    let err = check("anthropic", Plan::json(200, openai_body), false, "again");
    assert!(
        err.contains("the server answered 200 application/json")
            && err.contains("not an Anthropic reply"),
        "{err}"
    );
    for (provider, content_type, pieces) in streamed {
        check(
            provider,
            Plan::stream(content_type, pieces, Duration::ZERO),
            true,
            "stream",
        );
    }
    // A reply with something in it still goes in.
    let server = FakeProvider::start(Plan::json(
        200,
        r#"{"id": "msg_1", "type": "message", "content": [{"type": "text", "text": "Sunny."}], "usage": {"input_tokens": 9, "output_tokens": 2}}"#,
    ));
    let file = write_session(dir.path(), "anthropic", false, &server.base(), json!({}));
    let (out, unchanged) = send_append(&file, "anthropic", server.port, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!unchanged, "appended");
}

/// Item 5, from a server: `NaN` and `Infinity` in a reply (Python's
/// `json.loads` reads them, and so does the SDK) are printed and appended
/// as Python writes them; the summary of `--json` panicked on them.
#[test]
fn a_reply_with_nan_and_infinity_prints_and_appends_as_python_writes_it() {
    let reply = r#"{"id": "msg_1", "type": "message", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"x": NaN, "y": -Infinity}}], "usage": {"input_tokens": NaN, "output_tokens": 1e400}}"#;
    let server = FakeProvider::start(Plan::json(200, reply));
    let dir = tempfile::tempdir().expect("tempdir");
    for flags in [&["--json"][..], &[]] {
        let file = write_session(dir.path(), "anthropic", false, &server.base(), json!({}));
        let (out, unchanged) = send_append(&file, "anthropic", server.port, flags);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {err}");
        assert!(!unchanged, "{flags:?}: appended");
        let saved = std::fs::read_to_string(&file).expect("read");
        assert!(
            saved.contains(r#""x": NaN"#) && saved.contains(r#""y": -Infinity"#),
            "{saved}"
        );
        if flags == ["--json"] {
            let summary = text(&out.stdout);
            let last = summary.lines().last().unwrap_or_default();
            assert!(last.contains(r#""output_tokens":Infinity"#), "{summary}");
        }
    }
}
