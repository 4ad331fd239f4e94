//! `formatscope send` where the host or the reply is not what it should
//! be, against fake providers on 127.0.0.1 that the tests start: a
//! redirect is reported and never followed with the key; a host only the
//! session names gets no key; a body, an error body, an SSE stream or a
//! stream line past its limit stops there, named; a body that is not the
//! provider's reply says what came back.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;
#[path = "support/send.rs"]
mod send;

use formatscope::response::Api;
use provider::{FakeProvider, Plan};
use run::formatscope;
use send::*;
use std::time::Duration;

#[test]
fn a_redirect_is_reported_and_never_followed_with_the_key() {
    let elsewhere = FakeProvider::start(Plan::json(200, "{}"));
    for provider in ["anthropic", "gemini", "openai"] {
        for status in [301, 302, 303, 307, 308] {
            let redirector = FakeProvider::start(Plan::Reply {
                status,
                content_type: "text/plain".into(),
                headers: vec![(
                    "location".into(),
                    format!("http://localhost:{}/", elsewhere.port),
                )],
                pieces: vec![],
                delay: Duration::ZERO,
            });
            let dir = tempfile::tempdir().unwrap();
            let session = write_plain_session(dir.path(), provider);
            let before = std::fs::read_to_string(&session).unwrap();
            let (var, base) = base_env(provider, &redirector.base());
            let mut envs: Vec<(&str, &str)> = key_env(provider);
            envs.push((var, &base));
            let out = formatscope(&["send", session.to_str().unwrap(), "--append"], &envs);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{provider} {status}: {err}");
            assert!(err.contains(&format!("HTTP {status}")), "{err}");
            assert!(
                err.contains(&format!("localhost:{}", elsewhere.port)),
                "{err}"
            );
            assert!(!err.contains(KEY));
            assert_eq!(redirector.requests().len(), 1);
            assert_eq!(std::fs::read_to_string(&session).unwrap(), before);
        }
    }
    assert!(
        elsewhere.requests().is_empty(),
        "the redirect was followed: {:?}",
        elsewhere.requests()
    );
}

#[test]
fn a_host_only_the_session_names_gets_no_key_unless_the_user_chooses_it() {
    let reply = r#"{"error": {"message": "no", "type": "x"}}"#;
    for provider in ["openai", "deepseek", "anthropic", "dashscope", "gemini"] {
        let server = FakeProvider::start(Plan::json(400, reply));
        let dir = tempfile::tempdir().unwrap();
        let session = write_session(dir.path(), provider, None, false, &server.base());
        let s = session.to_str().unwrap();
        let host = format!("127.0.0.1:{}", server.port);
        // Only the session names the host: refused, and it says how.
        let out = formatscope(&["send", s], &key_env(provider));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{provider}: {err}");
        assert!(err.contains(&host) && err.contains("--allow-host"), "{err}");
        let count = formatscope(&["count", s, "--remote"], &key_env(provider));
        if matches!(provider, "anthropic" | "gemini") {
            assert_eq!(count.status.code(), Some(2), "{}", text(&count.stderr));
        }
        assert!(server.requests().is_empty(), "{provider}: the key went out");
        // The user allows the host: sent, and the host is named.
        let out = formatscope(&["send", s, "--allow-host", &host], &key_env(provider));
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!("note: sending to {host}")),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(server.requests().len(), 1);
        // The variable names the same host: sent.
        let (var, base) = base_env(provider, &server.base());
        let mut envs = key_env(provider);
        envs.push((var, &base));
        assert_eq!(formatscope(&["send", s], &envs).status.code(), Some(1));
        assert_eq!(server.requests().len(), 2);
        // --base-url moves a session that names no host.
        let plain = write_plain_session(dir.path(), provider);
        let out = formatscope(
            &["send", plain.to_str().unwrap(), "--base-url", &base],
            &key_env(provider),
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_eq!(server.requests().len(), 3);
        assert!(server
            .requests()
            .iter()
            .all(|r| r.headers.iter().any(|(_, v)| v.contains(KEY))));
    }
}

/// `pieces` chunks of 1 MB each, the first starting with `head`.
fn megabytes(head: &[u8], fill: u8, pieces: usize) -> Vec<Vec<u8>> {
    (0..pieces)
        .map(|i| {
            let mut p = vec![fill; 1024 * 1024];
            if i == 0 {
                p[..head.len()].copy_from_slice(head);
            }
            p
        })
        .collect()
}

#[test]
fn a_reply_body_past_the_body_limit_is_an_error_naming_it() {
    // 65 MB of a JSON string that never closes: read whole before, now
    // reading stops at 64 MB.
    let plan = Plan::Reply {
        status: 200,
        content_type: "application/json".into(),
        headers: Vec::new(),
        pieces: megabytes(b"{\"id\": \"", b'x', 65),
        delay: Duration::ZERO,
    };
    let (out, _, err) = one_failure_of(plan, "openai", false, &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("64 MB body limit"), "{err}");
}

#[test]
fn an_error_body_is_read_only_up_to_its_limit() {
    let plan = Plan::Reply {
        status: 500,
        content_type: "text/plain".into(),
        headers: Vec::new(),
        pieces: megabytes(b"overloaded ", b'z', 8),
        delay: Duration::ZERO,
    };
    let (out, _, err) = one_failure_of(plan, "openai", false, &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("HTTP 500"), "{err}");
    assert!(err.contains("overloaded"), "{err}");
    assert!(err.contains("64 KB error-body limit"), "{err}");
}

#[test]
fn endless_sse_comments_stop_at_the_event_limit() {
    // 9 MB of comment lines and never a blank line: one event without end.
    let line = b": keep-alive\n";
    let piece: Vec<u8> = line
        .iter()
        .copied()
        .cycle()
        .take(line.len() * 80_000)
        .collect();
    let pieces = vec![piece; 9];
    let plan = Plan::stream("text/event-stream", pieces, Duration::ZERO);
    let (out, _, err) = one_failure(plan, "anthropic", &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("8 MB event limit"), "{err}");
}

#[test]
fn an_endless_stream_line_stops_at_the_line_limit() {
    for (provider, head) in [("ollama", &b"{\"a\": \""[..]), ("openai", &b"data: \""[..])] {
        let plan = Plan::stream(
            content_type(Api::from_id(provider).unwrap()),
            megabytes(head, b'a', 9),
            Duration::ZERO,
        );
        let (out, _, err) = one_failure(plan, provider, &[]);
        assert_eq!(out.status.code(), Some(1), "{provider}: {err}");
        assert!(err.contains("8 MB line limit"), "{provider}: {err}");
    }
}

/// Item 18: a body that is not the provider's reply (a login page, an
/// empty body, another API's shape) is an error that says what came back,
/// never a silent exit 0 or an empty "done"; nothing is appended.
#[test]
fn a_body_that_is_not_the_providers_reply_says_what_came_back() {
    let page = b"<!doctype html><html><head><title>Sign in</title></head><body>".repeat(20);
    let cases: [(&str, Plan, &[&str]); 3] = [
        (
            "openai",
            Plan::stream("text/html; charset=utf-8", vec![page], Duration::ZERO),
            &[
                "the server answered 200 text/html; charset=utf-8 (1,240 bytes): \"<!doctype html><html>",
                "…\" — not an OpenAI reply",
            ],
        ),
        (
            "anthropic",
            Plan::stream("text/event-stream", Vec::new(), Duration::ZERO),
            &["the server answered 200 text/event-stream with an empty body — not an Anthropic reply"],
        ),
        (
            // An OpenAI stream where Ollama's NDJSON was expected.
            "ollama",
            Plan::stream(
                "application/x-ndjson",
                vec![b"{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n".to_vec()],
                Duration::ZERO,
            ),
            &[
                "the server answered 200 application/x-ndjson (61 bytes): \"{\"id\":\"c1\"",
                "AgentScope yields nothing from it: not an Ollama reply",
            ],
        ),
    ];
    for (provider, plan, said) in cases {
        let (out, _, err) = one_failure(plan, provider, &[]);
        assert_eq!(out.status.code(), Some(1), "{provider}: {err}");
        for s in said {
            assert!(err.contains(s), "{provider}: {s}\n{err}");
        }
        assert!(err.contains("nothing was appended"), "{provider}: {err}");
        assert!(!err.contains(KEY));
    }

    // Not streamed: Ollama's client reading an OpenAI body.
    let server = FakeProvider::start(Plan::json(
        200,
        r#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}"#,
    ));
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), "ollama", None, false, &server.base());
    let out = formatscope(&["send", session.to_str().unwrap()], &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the server answered 200 application/json (")
            && err.contains("— not an Ollama reply"),
        "{err}"
    );
}
