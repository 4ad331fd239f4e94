//! `formatscope send` end to end, against fake providers on 127.0.0.1 that
//! the tests start (no other address, ever): the request that arrives is
//! the wire view byte for byte; recorded golden replies, replayed with real
//! SSE or NDJSON framing and a delay between events, parse as AgentScope
//! parses them; HTTP errors, a dropped connection, a silent server and
//! Ctrl-C end cleanly, and nothing is appended on failure.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/run.rs"]
mod run;
#[path = "support/send.rs"]
mod send;
mod support;

use formatscope::response::framing::encode;
use formatscope::response::Api;
use provider::{FakeProvider, Plan};
use run::formatscope;
use send::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use support::response_differ;

/// Every recorded golden reply with the model class's default options,
/// sent for real: what arrives equals `request --as json` and the wire
/// view's path and headers; what `send --json` prints equals the oracle's
/// chunks and final response.
#[test]
fn recorded_replies_replayed_over_http_parse_as_agentscope_parses_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses");
    let manifest = read_json(&root.join("manifest.json"));
    let mut checked = 0;
    for case in manifest["cases"].as_array().unwrap() {
        let words: Vec<String> = case["command"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let provider = words[4].as_str();
        let rest = &words[5..];
        let stream = rest.iter().any(|w| w == "--stream");
        let model = rest
            .iter()
            .position(|w| w == "--model-name")
            .map(|i| rest[i + 1].clone());
        let other_options = rest
            .iter()
            .any(|w| w.starts_with("--") && w != "--stream" && w != "--model-name");
        if provider == "openai-responses" || other_options {
            continue;
        }
        let api = Api::from_id(provider).unwrap();
        let data = read_json(&root.join(words[2].trim_start_matches("shared/golden/responses/")));
        let expected = read_json(&root.join(case["expected"].as_str().unwrap()));
        let plan = if stream {
            let events: Vec<Value> = data.as_array().unwrap().clone();
            Plan::stream(
                content_type(api),
                encode(api, &events),
                Duration::from_millis(3),
            )
        } else {
            Plan::json(200, &serde_json::to_string(&data).unwrap())
        };
        let server = FakeProvider::start(plan);
        let dir = tempfile::tempdir().unwrap();
        let session = write_session(
            dir.path(),
            provider,
            model.as_deref(),
            stream,
            &server.base(),
        );
        let s = session.to_str().unwrap();
        let envs = key_env(provider);
        // The session names the fake server: the user allows it.
        let host = format!("127.0.0.1:{}", server.port);
        let out = formatscope(&["send", s, "--json", "--allow-host", &host], &envs);
        let name = words[2].rsplit('/').next().unwrap().to_string();
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{name}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stdout).contains(KEY) && !text(&out.stderr).contains(KEY));

        // What arrived is the wire view, byte for byte.
        let received = server.requests();
        assert_eq!(received.len(), 1, "{name}");
        let got = &received[0];
        let body = formatscope(&["request", s, "--as", "json"], &[]);
        assert_eq!(
            text(&got.body).trim_end(),
            text(&body.stdout).trim_end(),
            "{name}: body"
        );
        let wire: Value =
            serde_json::from_slice(&formatscope(&["request", s], &[]).stdout).unwrap();
        let url = wire["http"]["url"].as_str().unwrap();
        assert!(url.ends_with(&got.path), "{name}: {url} vs {}", got.path);
        for (k, v) in wire["http"]["headers"].as_object().unwrap() {
            let want = v.as_str().unwrap().replace("<API_KEY>", KEY);
            assert_eq!(got.header(k), Some(want.as_str()), "{name}: header {k}");
        }

        // What was printed is what AgentScope yields.
        let lines: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (summary, chunks) = lines.split_last().unwrap();
        if let Some(exp_chunks) = expected.get("chunks").and_then(Value::as_array) {
            assert_eq!(chunks.len(), exp_chunks.len(), "{name}: chunk count");
            for (i, (e, g)) in exp_chunks.iter().zip(chunks).enumerate() {
                if let Some(d) = response_differ(e, g, &format!("chunks[{i}]")) {
                    panic!("{name}: {d}");
                }
            }
        }
        if let Some(d) = response_differ(&expected["final"], &summary["final"], "final") {
            panic!("{name}: {d}");
        }
        assert_eq!(
            expected.get("error_type"),
            summary["error"].get("error_type"),
            "{name}: error"
        );
        checked += 1;
    }
    println!("{checked} recorded replies sent and parsed over HTTP");
    assert!(checked >= 40, "only {checked} cases ran");
}

#[test]
fn http_errors_say_what_the_provider_said_and_when_to_retry() {
    let cases = [
        (
            "openai",
            400,
            r#"{"error": {"message": "Invalid 'messages': empty.", "type": "invalid_request_error", "code": null}}"#,
            "Invalid 'messages': empty.",
        ),
        (
            "anthropic",
            401,
            r#"{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}"#,
            "authentication_error: invalid x-api-key",
        ),
        (
            "dashscope",
            429,
            r#"{"code": "Throttling.RateQuota", "message": "Requests rate limit exceeded", "request_id": "r-1"}"#,
            "Throttling.RateQuota: Requests rate limit exceeded",
        ),
        (
            "gemini",
            500,
            r#"{"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}"#,
            "INTERNAL: Internal error encountered.",
        ),
        (
            "ollama",
            404,
            r#"{"error": "model \"qwen2.5\" not found, try pulling it first"}"#,
            "not found, try pulling it first",
        ),
    ];
    for (provider, status, body, shown) in cases {
        let plan = Plan::Reply {
            status,
            content_type: "application/json".into(),
            headers: vec![("retry-after".into(), "17".into())],
            pieces: vec![body.as_bytes().to_vec()],
            delay: Duration::ZERO,
        };
        let (out, _, err) = one_failure(plan, provider, &[]);
        assert_eq!(out.status.code(), Some(1), "{provider}: {err}");
        assert!(err.contains(&format!("HTTP {status}")), "{provider}: {err}");
        assert!(err.contains(shown), "{provider}: {err}");
        assert!(err.contains("retry after 17"), "{provider}: {err}");
        assert!(err.contains("nothing was appended"), "{provider}: {err}");
        assert!(!err.contains(KEY));
    }
}

#[test]
fn a_connection_dropped_mid_stream_is_reported_and_nothing_is_appended() {
    let first =
        b"data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Par\"}}]}\n\n"
            .to_vec();
    let (out, stdout, err) = one_failure(Plan::DropAfter(vec![first]), "openai", &[]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        stdout.contains("Par"),
        "the text before the break was shown: {stdout}"
    );
    assert!(err.contains("broke mid-reply"), "{err}");
}

#[test]
fn a_server_that_never_answers_times_out() {
    let started = std::time::Instant::now();
    let (out, _, err) = one_failure(Plan::Silent, "anthropic", &["--first-byte-timeout", "0.5"]);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no response within"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn ctrl_c_cancels_a_request_in_flight() {
    let server = FakeProvider::start(Plan::Silent);
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), "ollama", None, true, &server.base());
    let before = std::fs::read_to_string(&session).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["send", session.to_str().unwrap(), "--append"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the request arrived, then interrupt.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.requests().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(server.requests().len(), 1);
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cancelled"));
    assert_eq!(std::fs::read_to_string(&session).unwrap(), before);
}

#[test]
fn a_missing_key_names_the_variable_and_sends_nothing() {
    let server = FakeProvider::start(Plan::json(200, "{}"));
    let dir = tempfile::tempdir().unwrap();
    for (provider, var) in [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY"),
    ] {
        let session = write_session(dir.path(), provider, None, true, &server.base());
        let out = formatscope(&["send", session.to_str().unwrap()], &[]);
        assert_eq!(out.status.code(), Some(2));
        assert!(text(&out.stderr).contains(var), "{}", text(&out.stderr));
    }
    assert!(server.requests().is_empty());
}

#[test]
fn a_streamed_reply_is_appended_to_the_session() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses/cases");
    let events: Vec<Value> = read_json(&root.join("anthropic_text_stream.json"))
        .as_array()
        .unwrap()
        .clone();
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        encode(Api::Anthropic, &events),
        Duration::from_millis(2),
    ));
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), "anthropic", None, true, &server.base());
    let out = formatscope(
        &[
            "send",
            session.to_str().unwrap(),
            "--append",
            "--name",
            "Friday",
            "--allow-host",
            &format!("127.0.0.1:{}", server.port),
        ],
        &key_env("anthropic"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("usage:") && err.contains("first token"),
        "{err}"
    );
    let saved = read_json(&session);
    let messages = saved["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    let last = &messages[2];
    assert_eq!(last["name"], "Friday");
    assert_eq!(last["role"], "assistant");
    let printed = text(&out.stdout);
    let reply = last["content"][0]["text"].as_str().unwrap();
    assert!(printed.contains(reply), "{printed}");
    // The file stays valid for the formatters.
    let check = formatscope(&["format", session.to_str().unwrap()], &[]);
    assert_eq!(check.status.code(), Some(0));
}

#[test]
fn base_urls_come_from_the_sdks_variables() {
    let server = FakeProvider::start(Plan::json(
        200,
        r#"{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}"#,
    ));
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.json");
    std::fs::write(
        &session,
        r#"{"provider": "openai", "request": {"stream": false}, "messages": [{"name": "u", "role": "user", "content": "hi"}]}"#,
    )
    .unwrap();
    let base = format!("{}/v1", server.base());
    let out = formatscope(
        &["send", session.to_str().unwrap()],
        &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "ok");
    assert_eq!(server.requests()[0].path, "/v1/chat/completions");
}

#[test]
fn count_remote_asks_the_providers_own_counter() {
    for (provider, reply, path_end, n) in [
        (
            "anthropic",
            r#"{"input_tokens": 123}"#,
            "/v1/messages/count_tokens",
            123,
        ),
        ("gemini", r#"{"totalTokens": 77}"#, ":countTokens", 77),
    ] {
        let server = FakeProvider::start(Plan::json(200, reply));
        let dir = tempfile::tempdir().unwrap();
        let session = write_session(dir.path(), provider, None, true, &server.base());
        // The variable names the host the session names: the user chose it.
        let (var, base) = base_env(provider, &server.base());
        let mut envs = key_env(provider);
        envs.push((var, &base));
        let out = formatscope(
            &["count", session.to_str().unwrap(), "--remote", "--json"],
            &envs,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["remote"]["input_tokens"], n);
        assert_eq!(v["remote"]["exact"], true);
        let got = &server.requests()[0];
        assert!(got.path.ends_with(path_end), "{}", got.path);
        let body: Value = serde_json::from_slice(&got.body).unwrap();
        assert!(body.get("max_tokens").is_none() && body.get("stream").is_none());
        assert!(!text(&out.stdout).contains(KEY));
    }
    // Providers without such an endpoint say so.
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), "openai", None, true, "http://127.0.0.1:9");
    let out = formatscope(
        &["count", session.to_str().unwrap(), "--remote"],
        &key_env("openai"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no token-counting endpoint"));
}

#[test]
fn a_session_can_split_think_tags_in_replies() {
    let reply = r#"{"model": "qwq", "created_at": "2026-01-01T00:00:00Z", "done": true, "message": {"role": "assistant", "content": "<think>\nCount the letters.\n</think>\n\nThree."}, "prompt_eval_count": 9, "eval_count": 12}"#;
    let server = FakeProvider::start(Plan::json(200, reply));
    let dir = tempfile::tempdir().unwrap();
    let session = write_session(dir.path(), "ollama", Some("qwq"), false, &server.base());
    let plain = formatscope(&["send", session.to_str().unwrap(), "--json"], &[]);
    assert!(
        text(&plain.stdout).contains("<think>"),
        "off by default, as AgentScope"
    );
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&session).unwrap()).unwrap();
    v["reply"] = json!({"split_think_tags": true});
    std::fs::write(&session, v.to_string()).unwrap();
    let split = formatscope(&["send", session.to_str().unwrap(), "--json"], &[]);
    let last: Value = serde_json::from_str(text(&split.stdout).lines().last().unwrap()).unwrap();
    let content = &last["final"]["content"];
    assert_eq!(content[0]["type"], "thinking");
    assert_eq!(content[0]["thinking"], "Count the letters.");
    assert_eq!(content[1]["text"], "Three.");
}

/// After a send, the reply's cost from its usage at the price table's
/// rate: cached prompt tokens (as the usage reports them) at the cached
/// price; a model the table does not have is "cost unknown", not a guess.
#[test]
fn a_reply_says_what_it_cost_by_its_usage() {
    let reply = r#"{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100, "prompt_tokens_details": {"cached_tokens": 400}}}"#;
    let server = FakeProvider::start(Plan::json(200, reply));
    let dir = tempfile::tempdir().unwrap();
    let base = format!("{}/v1", server.base());
    let send = |model: &str| {
        let session = dir.path().join(format!("{model}.json"));
        std::fs::write(
            &session,
            format!(r#"{{"provider": "openai", "request": {{"stream": false, "model": "{model}"}}, "messages": [{{"name": "u", "role": "user", "content": "hi"}}]}}"#),
        )
        .unwrap();
        formatscope(
            &["send", session.to_str().unwrap()],
            &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)],
        )
    };
    let out = send("gpt-4o");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // 600 × $2.50/M + 400 cached × $1.25/M + 100 × $10/M = $0.003.
    assert!(
        text(&out.stderr).contains("usage: 1000 in, 100 out · cost $0.003000, 400 cached · "),
        "{}",
        text(&out.stderr)
    );
    let out = send("gpt-imaginary");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cost unknown (no price for this model)"),
        "{}",
        text(&out.stderr)
    );
}

/// A profile of the user's profiles.toml sends through a local server
/// without the session naming it: its base URL (a host the user chose),
/// its key variable and its headers; a session's own host is not used.
#[test]
fn a_profile_sends_through_its_server_with_its_key_and_headers() {
    let server = FakeProvider::start(Plan::json(
        200,
        r#"{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}"#,
    ));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config");
    std::fs::create_dir_all(config.join("formatscope")).unwrap();
    std::fs::write(
        config.join("formatscope/profiles.toml"),
        format!(
            "[profiles.local]\nprovider = \"openai\"\nbase_url = \"{}/v1\"\nkey_env = \"LOCAL_KEY\"\nmodel = \"qwen-local\"\nheaders = {{ \"X-Team\" = \"research\" }}\n",
            server.base()
        ),
    )
    .unwrap();
    // The session names another host: the profile's is used, and the key
    // goes only there.
    let session = dir.path().join("s.json");
    std::fs::write(
        &session,
        r#"{"provider": "openai", "request": {"stream": false, "model_kwargs": {"client_kwargs": {"base_url": "https://elsewhere.example.com/v1"}}}, "messages": [{"name": "u", "role": "user", "content": "hi"}]}"#,
    )
    .unwrap();
    let config_home = config.to_str().unwrap();
    let out = formatscope(
        &["send", session.to_str().unwrap(), "--profile", "local"],
        &[
            ("XDG_CONFIG_HOME", config_home),
            ("LOCAL_KEY", "sk-local-123"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("model qwen-local from profile local"),
        "{}",
        text(&out.stderr)
    );
    let got = server.requests();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].path, "/v1/chat/completions");
    let header = |name: &str| {
        got[0]
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("x-team").as_deref(), Some("research"));
    assert_eq!(
        header("authorization").as_deref(),
        Some("Bearer sk-local-123")
    );
    let body: Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(body["model"], "qwen-local");
    // The key variable missing: nothing is sent, the variable is named.
    let out = formatscope(
        &["send", session.to_str().unwrap(), "--profile", "local"],
        &[("XDG_CONFIG_HOME", config_home)],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("LOCAL_KEY"),
        "{}",
        text(&out.stderr)
    );
    // An unknown profile says which there are.
    let out = formatscope(
        &["send", session.to_str().unwrap(), "--profile", "nope"],
        &[("XDG_CONFIG_HOME", config_home), ("LOCAL_KEY", "k")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no profile nope in")
            && text(&out.stderr).contains("(it has local)"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(server.requests().len(), 1, "nothing more was sent");
}
