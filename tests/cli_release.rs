//! Every release behind one interface, as a user runs it: `request
//! --agentscope VERSION` for the releases with a wire, the errors that
//! name what a release has, and one guarded read for every command and
//! release (a FIFO or a device is refused, never read).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const RELEASES: [&str; 4] = ["1.0.21", "2.0.11", "0.1.6", "java-2.0.2"];

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("the binary runs")
}

fn case(name: &str) -> String {
    format!("tests/golden_v2/cases/{name}.json")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_2_0_11_request_is_the_model_classs_own() {
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "deepseek",
        "--model-kwargs",
        r#"{"parameters": {"thinking_enable": true}}"#,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["model_class"], "DeepSeekChatModel");
    assert_eq!(
        v["http"]["url"],
        "https://api.deepseek.com/chat/completions"
    );
    assert_eq!(v["http_body"]["thinking"]["type"], "enabled");
    assert_eq!(v["http_body"]["stream_options"]["include_usage"], true);
}

#[test]
fn exports_read_the_key_of_the_host_they_address() {
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "moonshot",
        "--as",
        "curl",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("https://api.moonshot.cn/v1/chat/completions"),
        "{text}"
    );
    assert!(text.contains("${MOONSHOT_API_KEY}"), "{text}");
    assert!(!text.contains("OPENAI_API_KEY"), "{text}");
}

#[test]
fn the_body_export_is_the_bytes_the_sdk_writes() {
    // google-genai on aiohttp: json.dumps defaults, non-ASCII escaped.
    let out = formatscope(&[
        "request",
        &case("non_ascii"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "gemini",
        "--mode",
        "chat",
        "--as",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("{\"contents\": [{\"parts\": "), "{text}");
    assert!(text.is_ascii(), "{text}");
    // openai on httpx2: compact, UTF-8 as is.
    let out = formatscope(&[
        "request",
        &case("non_ascii"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "openai",
        "--mode",
        "chat",
        "--as",
        "json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":"),
        "{text}"
    );
    assert!(!text.is_ascii(), "{text}");
}

#[test]
fn xai_goes_over_grpc_and_says_so() {
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "xai",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["grpc"]["method"], "/xai_api.Chat/GetCompletionChunk");
    assert_eq!(v["http_body"]["n"], 1);
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "xai",
        "--as",
        "curl",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("gRPC"), "{}", stderr(&out));
}

#[test]
fn a_java_request_goes_to_the_java_clients_endpoint() {
    let out = formatscope(&[
        "request",
        "tests/golden/cases/chat_plain.json",
        "--agentscope",
        "java-2.0.2",
        "--provider",
        "ollama",
        "--mode",
        "chat",
        "--no-stream",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["http"]["url"], "http://localhost:11434/api/chat");
    assert_eq!(v["http_body"]["stream"], false);
    assert!(v["http"]["headers"].get("authorization").is_none());
}

#[test]
fn what_a_release_lacks_is_named_with_what_it_has() {
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "2.0.11",
        "--provider",
        "glm",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("unknown provider \"glm\": AgentScope 2.0.11 has"),
        "{e}"
    );
    assert!(e.contains("volcengine"), "{e}");
    let out = formatscope(&[
        "request",
        &case("chat_plain"),
        "--agentscope",
        "java-2.0.2",
        "--formatter",
        "MiniMaxChatFormatter",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("GLMFormatter"), "{}", stderr(&out));
    let out = formatscope(&["request", &case("chat_plain"), "--agentscope", "9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("java-2.0.2"), "{}", stderr(&out));
}

/// A FIFO in a fresh folder (removed with it).
fn fifo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("pipe.json");
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("a path");
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    (dir, path)
}

#[test]
fn every_command_under_every_release_refuses_what_is_not_a_regular_file() {
    let (_dir, pipe) = fifo();
    for target in [pipe.as_path(), Path::new("/dev/zero")] {
        let t = target.to_str().expect("a path");
        for release in RELEASES {
            for command in [
                vec!["format", t, "--agentscope", release],
                vec!["request", t, "--agentscope", release],
                vec!["explain", t, "--agentscope", release],
                vec!["lint", t, "--agentscope", release],
            ] {
                let out = formatscope(&command);
                assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
                assert!(
                    stderr(&out).contains("not a regular file"),
                    "{command:?}: {}",
                    stderr(&out)
                );
            }
        }
        for command in [
            vec!["count", t],
            vec!["truncate", t, "--max-tokens", "100"],
            vec!["lint", t],
            vec!["explain", t],
            vec!["diff", t, "--left", "openai", "--right", "2.0.11:anthropic"],
            vec!["legacy", t, "--formatter", "OpenAIFormatter"],
        ] {
            let out = formatscope(&command);
            assert!(
                stderr(&out).contains("not a regular file"),
                "{command:?}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
fn provider_and_mode_pick_a_releases_class_and_its_missing_options_say_why() {
    for (release, provider, class) in [
        ("2.0.11", "anthropic", "AnthropicChatFormatter"),
        ("2.0.11", "minimax", "MiniMaxChatFormatter"),
        ("2.0.11", "openai_response", "OpenAIResponseFormatter"),
        ("java-2.0.2", "glm", "GLMFormatter"),
        ("java-2.0.2", "deepseek", "DeepSeekFormatter"),
    ] {
        let out = formatscope(&[
            "format",
            "tests/golden/cases/chat_plain.json",
            "--agentscope",
            release,
            "--provider",
            provider,
            "--mode",
            "chat",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{release} {provider}: {}",
            stderr(&out)
        );
        assert_eq!(json(&out)["formatter"], class, "{release} {provider}");
    }
    let out = formatscope(&[
        "format",
        "tests/golden/cases/chat_plain.json",
        "--agentscope",
        "2.0.11",
        "--provider",
        "anthropic",
        "--max-tokens",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("--max-tokens") && e.contains("do not truncate"),
        "{e}"
    );
    let out = formatscope(&[
        "format",
        "tests/golden/cases/chat_plain.json",
        "--agentscope",
        "java-2.0.2",
        "--count",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("neither count tokens nor truncate"),
        "{}",
        stderr(&out)
    );
    let out = formatscope(&[
        "format",
        "tests/golden/cases/chat_plain.json",
        "--msgs-only",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--agentscope VERSION"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn diff_compares_two_releases_wire_bodies() {
    let out = formatscope(&[
        "diff",
        "tests/golden/cases/chat_plain.json",
        "--left",
        "2.0.11:openai:chat:wire",
        "--right",
        "2.0.11:deepseek:chat:wire",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ops = json(&out)["operations"].clone();
    let text = ops.to_string();
    // DeepSeek's class always sends its thinking switch; OpenAI's does not.
    assert!(
        text.contains("\"/thinking\"") && text.contains("disabled"),
        "{text}"
    );
}

#[test]
fn the_legacy_api_writes_numbers_as_python_holds_them() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        r#"{"messages": [{"role": "assistant", "name": "a", "content": [{"type": "tool_use", "id": "1", "name": "f", "input": {"x": 0.10, "y": 1E5, "z": -0}}]}, {"role": "user", "name": "u", "content": [{"type": "tool_result", "id": "1", "name": "f", "output": [1E5, -0, 0.10]}]}]}"#,
    )
    .expect("write");
    let out = formatscope(&[
        "legacy",
        path.to_str().expect("a path"),
        "--formatter",
        "OpenAIFormatter",
        "--method",
        "chat",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"{\"x\": 0.1, \"y\": 100000.0, \"z\": 0}"#),
        "{text}"
    );
    assert!(text.contains("[100000.0, 0, 0.1]"), "{text}");
}

/// Found by comparing with the real 2.0.11 (its oracle): a `data:` URL
/// given as a v1 URL source takes its media type as Python's `mimetypes`
/// reads a data URL; a block without `"type"` is the first 2.x block whose
/// fields it has, its type filled in.
#[test]
fn v2_reads_data_urls_and_untyped_blocks_as_2_0_11_does() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        r#"{"messages": [{"role": "assistant", "name": "a", "content": [
            {"type": "image", "source": {"type": "url", "url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "image", "source": {"type": "url", "url": "data:,hello"}},
            {"text": "no type"},
            {"thinking": "no type either"}]}]}"#,
    )
    .expect("write");
    let out = formatscope(&[
        "format",
        path.to_str().expect("a path"),
        "--agentscope",
        "2.0.11",
        "--msgs-only",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let content = json(&out)["msgs"][0]["content"].clone();
    assert_eq!(content[0]["source"]["media_type"], "image/png");
    assert_eq!(content[1]["source"]["media_type"], "text/plain");
    assert_eq!(content[2]["type"], "text");
    assert_eq!(content[3]["type"], "thinking");
}

/// The ids of the rules `explain --json` fired, with their messages.
fn fired(v: &Value) -> Vec<(String, Vec<u64>)> {
    v["explained"][0]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            let on = r["messages"].as_array().expect("messages");
            (
                r["id"].as_str().expect("an id").to_string(),
                on.iter().filter_map(Value::as_u64).collect(),
            )
        })
        .collect()
}

#[test]
fn explain_under_every_release_lists_that_releases_own_rules() {
    for (release, prefix) in [
        ("1.0.21", "openai."),
        ("2.0.11", "v2."),
        ("0.1.6", "v0."),
        ("java-2.0.2", "java."),
    ] {
        let out = formatscope(&[
            "explain",
            &case("library_trip"),
            "--agentscope",
            release,
            "--provider",
            "openai",
            "--mode",
            "chat",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{release}: {}", stderr(&out));
        let rules = fired(&json(&out));
        assert!(!rules.is_empty(), "{release}: no rules");
        assert!(
            rules.iter().any(|(id, _)| id.starts_with(prefix)),
            "{release}: {rules:?}"
        );
    }
}

#[test]
fn a_releases_rules_name_the_messages_they_shape() {
    // library_trip: messages 4 and 6 call tools, 5 and 7 hold the results.
    let explain = |release: &str, provider: &str| {
        let out = formatscope(&[
            "explain",
            &case("library_trip"),
            "--agentscope",
            release,
            "--provider",
            provider,
            "--mode",
            "chat",
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{release}: {}", stderr(&out));
        fired(&json(&out))
    };
    let on = |rules: &[(String, Vec<u64>)], id: &str| {
        rules
            .iter()
            .find(|(r, _)| r == id)
            .map(|(_, m)| m.clone())
            .unwrap_or_else(|| panic!("{id} did not fire: {rules:?}"))
    };
    let java = explain("java-2.0.2", "openai");
    assert_eq!(on(&java, "java.tool-call.arguments-compact"), [4, 6]);
    assert_eq!(on(&java, "java.openai.tool-message-no-name"), [5, 7]);
    let v2 = explain("2.0.11", "anthropic");
    assert_eq!(on(&v2, "v2.tool_call.raw-input"), [4, 6]);
    assert_eq!(on(&v2, "v2.tool-result.assistant-message"), [5, 7]);
    assert!(
        on(&v2, "v2.count.bytes-estimate").is_empty(),
        "the whole request"
    );
    let v0 = explain("0.1.6", "openai");
    assert_eq!(on(&v0, "v0.openai.tool-result-first"), [5, 7]);
    // Java sends a local image it cannot read as its path: read from what
    // it sent, not from the file system.
    let out = formatscope(&[
        "explain",
        &case("err_missing_image_file"),
        "--agentscope",
        "java-2.0.2",
        "--provider",
        "openai",
        "--json",
    ]);
    assert_eq!(on(&fired(&json(&out)), "java.openai.local-image-path"), [0]);
}

#[test]
fn node_attribution_is_the_default_releases_and_other_releases_say_so() {
    let out = formatscope(&[
        "explain",
        &case("library_trip"),
        "--agentscope",
        "2.0.11",
        "--nodes",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("by the messages they shape"),
        "{}",
        stderr(&out)
    );
    let out = formatscope(&[
        "explain",
        &case("library_trip"),
        "--agentscope",
        "2.0.11",
        "--formatter",
        "NoSuchFormatter",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("AnthropicChatFormatter"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn lint_under_0_1_6_names_what_that_release_cannot_hold_or_skips() {
    let lint = |case_name: &str, provider: &str| {
        let out = formatscope(&[
            "lint",
            &case(case_name),
            "--agentscope",
            "0.1.6",
            "--provider",
            provider,
            "--mode",
            "chat",
            "--offline",
            "--json",
        ]);
        let v = json(&out);
        v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| {
                f["rule"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("release."))
            })
            .map(|f| {
                (
                    f["rule"].as_str().unwrap_or_default().to_string(),
                    f["message"].as_u64(),
                    f["block"].as_u64(),
                )
            })
            .collect::<Vec<_>>()
    };
    // 0.1.6's Msg holds media by URL only.
    let base64 = lint("image_base64", "openai");
    assert!(
        base64.contains(&("release.lost".into(), Some(0), Some(1))),
        "{base64:?}"
    );
    // Its GeminiFormatter sends text only: the tool calls and results go.
    let gemini = lint("library_trip", "gemini");
    for at in [(4, 0), (5, 0), (6, 0), (7, 0)] {
        assert!(
            gemini.contains(&("release.block-dropped".into(), Some(at.0), Some(at.1))),
            "{at:?}: {gemini:?}"
        );
    }
}

#[test]
fn every_releases_rules_are_in_its_catalogue_for_every_class() {
    // A rule id a release fires that its catalogue lacks panics (a debug
    // assertion): every class, both modes, sessions with every block.
    for release in ["2.0.11", "0.1.6", "java-2.0.2"] {
        for name in [
            "library_trip",
            "thinking_blocks",
            "image_local_paths",
            "tool_result_text_and_image",
            "system_in_middle",
            "empty_content",
        ] {
            for mode in ["chat", "multi_agent"] {
                let out = formatscope(&[
                    "explain",
                    &case(name),
                    "--agentscope",
                    release,
                    "--provider",
                    "all",
                    "--mode",
                    mode,
                    "--offline",
                ]);
                assert!(
                    matches!(out.status.code(), Some(0 | 1)),
                    "{release} {name} {mode}: {}",
                    stderr(&out)
                );
                assert!(
                    String::from_utf8_lossy(&out.stdout).contains(" rule"),
                    "{release} {name} {mode}"
                );
            }
        }
    }
}

#[test]
fn ollama_requests_are_validated_as_the_sdks_chat_request_is() {
    // Made by scripts/ollama-validation-v2.py with the real 2.0.11 and the
    // ollama SDK of its release day: the body sent, or the SDK's error.
    let text =
        std::fs::read_to_string("tests/golden_v2/ollama_sdk_validation.json").expect("the vectors");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    assert!(cases.len() > 50);
    for case in &cases {
        let kwargs = case["call_kwargs"].to_string();
        let out = formatscope(&[
            "request",
            "tests/golden_v2/cases/chat_plain.json",
            "--agentscope",
            "2.0.11",
            "--formatter",
            "OllamaChatFormatter",
            "--model",
            "qwen3:8b",
            "--call-kwargs",
            &kwargs,
        ]);
        let got = json(&out);
        assert_eq!(got["http_error"], case["http_error"], "{kwargs}");
        assert_eq!(got["http_body"], case["http_body"], "{kwargs}");
    }
}
