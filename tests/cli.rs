//! The `formatscope format` command as a user runs it: output shape, exit
//! codes, and errors that say where and what.

use serde_json::Value;
use std::process::{Command, Output};

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

#[test]
fn formats_with_the_sessions_own_provider_and_mode() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/library_trip.json",
        "--count",
        "--tools",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout_json(&out);
    assert_eq!(json["formatter"], "DashScopeMultiAgentFormatter");
    assert_eq!(json["messages"][0]["role"], "system");
    assert_eq!(json["tokens"], 230);
    assert_eq!(json["tools"][1]["function"]["name"], "search_around");
}

#[test]
fn provider_and_mode_flags_pick_the_formatter() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/library_trip.json",
        "--provider",
        "gemini",
        "--mode",
        "chat",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json = stdout_json(&out);
    assert_eq!(json["formatter"], "GeminiChatFormatter");
    assert_eq!(
        json["messages"][4]["parts"][0]["function_call"]["name"],
        "get_current_location"
    );
}

#[test]
fn a_budget_truncates_oldest_first() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/chat_plain.json",
        "--max-tokens",
        "60",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json = stdout_json(&out);
    assert!(json["tokens"].as_i64().unwrap() <= 60);
    let messages = json["messages"].as_array().unwrap();
    assert_eq!(
        messages[0]["role"], "system",
        "the system prompt is always kept"
    );
    assert_eq!(
        messages.last().unwrap()["content"][0]["text"],
        "And the current building?"
    );
}

#[test]
fn a_malformed_file_names_line_and_column_and_exits_2() {
    let out = formatscope(&["format", "tests/sessions/cases/invalid.json"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: tests/sessions/cases/invalid.json:6:5: expected `,` or `]`"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_missing_file_exits_2() {
    let out = formatscope(&["format", "tests/sessions/cases/nope.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("tests/sessions/cases/nope.json: cannot read"));
}

#[test]
fn a_reference_failure_prints_the_error_object_and_exits_1() {
    let out = formatscope(&[
        "format",
        "tests/golden/cases/err_missing_image_file.json",
        "--formatter",
        "OpenAIChatFormatter",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(json["error_type"], "ValueError");
    assert_eq!(json["stage"], "format");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ValueError: Invalid image URL"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}

#[test]
fn an_option_the_formatter_lacks_is_a_usage_error() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/chat_plain.json",
        "--formatter",
        "AnthropicChatFormatter",
        "--promote-tool-result-images",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("AnthropicChatFormatter has no option promote_tool_result_images"));
}

#[test]
fn unknown_formatter_and_provider_are_usage_errors() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/chat_plain.json",
        "--formatter",
        "FooFormatter",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/chat_plain.json",
        "--provider",
        "mistral",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Typed: a name no release has is refused with every release's list.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'mistral' for '--provider <P>'")
            && err.contains("openai, anthropic, dashscope, gemini, ollama, deepseek")
            && err.contains("minimax"),
        "{err}"
    );
    // One another release has: refused under this one, with its list.
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/chat_plain.json",
        "--provider",
        "minimax",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown provider"), "{err}");
}

#[test]
fn help_explains_every_option() {
    let out = formatscope(&["format", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--formatter",
        "--provider",
        "--mode",
        "--max-tokens",
        "--count",
        "--tools",
        "--promote-tool-result-images",
        "--promote-tool-result-audios",
        "--promote-tool-result-videos",
        "--conversation-history-prompt",
        "--web-root",
    ] {
        assert!(help.contains(flag), "--help mentions {flag}");
    }
}

#[test]
fn every_example_session_formats_with_every_formatter() {
    for session in ["library_trip", "chat_plain", "multimodal", "reasoning"] {
        for formatter in formatscope::formatter::FormatterId::all() {
            let path = format!("tests/sessions/cases/{session}.json");
            let out = formatscope(&[
                "format",
                &path,
                "--formatter",
                &formatter.class_name(),
                "--offline",
            ]);
            assert_eq!(out.status.code(), Some(0), "{session} with {formatter}");
        }
    }
}

#[test]
fn a_message_agentscope_rejects_is_located_in_the_file() {
    let out = formatscope(&["format", "tests/golden/cases/err_content_not_list.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["stage"], "msg");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: tests/golden/cases/err_content_not_list.json:")
            && stderr
                .contains(": message 0 rejected (AssertionError: The content must be a string")
            && stderr.contains("\"content\" is dict"),
        "{stderr}"
    );
}

/// AgentScope rejects a `tool` role with an empty AssertionError: the JSON
/// keeps the reference's error, stderr says where and why.
#[test]
fn an_unknown_role_is_explained_with_the_roles_that_exist() {
    let out = formatscope(&["format", "tests/golden/cases/err_invalid_role.json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(
        (json["error_type"].as_str(), json["error"].as_str()),
        (Some("AssertionError"), Some(""))
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        "error: tests/golden/cases/err_invalid_role.json:9:5: message 1 rejected (AssertionError): \
         role \"tool\" is not one of AgentScope's roles (\"system\", \"user\" or \"assistant\"): \
         a tool's output is a tool_result block, usually in a \"system\" message"
    );
}

/// Python's json reads NaN, Infinity, 1e400 and lone surrogates: so do we,
/// printing the numbers as AgentScope does and saying where a surrogate was.
#[test]
fn what_pythons_json_reads_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        "{\"messages\": [\n {\"name\": \"u\", \"role\": \"user\", \"content\": \"a \\ud800 b\"},\n \
         {\"name\": \"f\", \"role\": \"assistant\", \"content\": [{\"type\": \"tool_use\", \"id\": \"1\", \"name\": \"c\", \
         \"input\": {\"x\": 1e400, \"y\": NaN, \"z\": -Infinity}}]}]}",
    )
    .unwrap();
    let out = formatscope(&[
        "format",
        path.to_str().unwrap(),
        "--formatter",
        "OpenAIChatFormatter",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(r#""arguments": "{\"x\": Infinity, \"y\": NaN, \"z\": -Infinity}""#),
        "{stdout}"
    );
    assert!(stdout.contains("a \u{fffd} b"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("s.json:2:46: \\ud800 is half of a surrogate pair"),
        "{stderr}"
    );
}

/// `formatscope request`: the model class's call and the HTTP request, with
/// the session's "request" object as defaults and flags over it.
#[test]
fn request_prints_the_wire_request_and_flags_override_the_sessions_settings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        r#"{"provider": "anthropic", "request": {"model": "claude-opus-4-1", "stream": false, "model_kwargs": {"max_tokens": 512}},
            "messages": [{"name": "system", "role": "system", "content": "Be brief."},
                         {"name": "Bob", "role": "user", "content": "Hi"}]}"#,
    )
    .unwrap();
    let out = formatscope(&["request", path.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout_json(&out);
    assert_eq!(json["http"]["url"], "https://api.anthropic.com/v1/messages");
    assert_eq!(json["http"]["headers"]["x-api-key"], "<API_KEY>");
    assert_eq!(
        json["http_body"]["system"],
        serde_json::json!([{"type": "text", "text": "Be brief."}])
    );
    assert_eq!(json["http_body"]["model"], "claude-opus-4-1");
    assert_eq!(json["http_body"]["max_tokens"], 512);
    assert_eq!(json["http_body"]["stream"], false);
    let keys: Vec<&String> = json["http_body"].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["max_tokens", "messages", "model", "stream", "system"]
    );

    let out = formatscope(&[
        "request",
        path.to_str().unwrap(),
        "--stream",
        "--model",
        "claude-sonnet-4-6",
        "--tool-choice",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json = stdout_json(&out);
    assert_eq!(
        (json["stage"].as_str(), json["error_type"].as_str()),
        (Some("model"), Some("TypeError"))
    );
    assert_eq!(json["stream"], true);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("TypeError: 'NoneType' object is not iterable"));

    std::fs::write(&path, r#"{"request": {"stream": "yes"}, "messages": []}"#).unwrap();
    let out = formatscope(&["request", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("\"request\".stream must be true or false")
    );
}

/// A session's C1 controls (U+009B is CSI: an escape sequence in one
/// character) and bidi overrides never reach the terminal raw: JSON output,
/// `--as curl` and `--as http` write them as `\uXXXX`, the same JSON.
#[test]
fn json_output_escapes_c1_and_bidi_controls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("c1.json");
    std::fs::write(
        &path,
        "{\"messages\": [{\"name\": \"B\u{9b}2J\", \"role\": \"user\", \"content\": \"x\u{202e}y\u{7f}\"}]}",
    )
    .expect("write");
    let p = path.to_str().expect("utf-8");
    for args in [
        vec!["format", p],
        vec!["request", p],
        vec!["request", p, "--as", "curl"],
        vec!["request", p, "--as", "http"],
        vec!["count", p, "--json"],
    ] {
        let out = formatscope(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains(['\u{9b}', '\u{202e}', '\u{7f}']),
            "{args:?}: {text}"
        );
        assert!(text.contains("\\u009b2J"), "{args:?}: {text}");
    }
    let out = formatscope(&["format", p]);
    assert_eq!(stdout_json(&out)["messages"][0]["name"], "B\u{9b}2J");
}

/// `cd tests/sessions/cases && formatscope count multimodal.json` reads its media as
/// inside the session's folder, as `./multimodal.json` does.
#[test]
fn a_bare_file_name_is_in_the_current_folder() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    for name in ["multimodal.json", "./multimodal.json"] {
        let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .args(["count", name])
            .current_dir(&dir)
            .output()
            .expect("the binary runs");
        assert_eq!(out.status.code(), Some(0));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("outside"), "{name}: {stderr}");
    }
}

/// `--agentscope` takes every registered release: 0.1.6 through the same
/// interface the workbench's `V` uses, its messages those of the workbench's
/// 0.1.6 view; an unknown version names the known ones.
#[test]
fn agentscope_takes_every_registered_release() {
    let out = formatscope(&[
        "format",
        "tests/sessions/cases/reasoning.json",
        "--agentscope",
        "0.1.6",
        "--provider",
        "openai",
        "--mode",
        "chat",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = stdout_json(&out);
    assert_eq!(json["agentscope"], "0.1.6");
    assert_eq!(json["formatter"], "OpenAIFormatter.format_chat");
    // What 0.1.6's Msg cannot hold of a 1.0 session is listed.
    assert!(
        json["lost"][0]
            .as_str()
            .unwrap_or_default()
            .contains("thinking"),
        "{json}"
    );
    assert!(json["messages"].as_array().is_some_and(|m| !m.is_empty()));

    let out = formatscope(&[
        "format",
        "tests/sessions/cases/reasoning.json",
        "--agentscope",
        "9.9",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let known = format!("one of {}", formatscope::reference::versions());
    assert!(
        err.contains(&known) && known.contains("1.0.21, 2.0.11, 0.1.6"),
        "{err}"
    );
}

/// A failure nobody expects (here an output file that cannot be written)
/// is main's to report: `Error: ...` with its cause, exit 1, and no
/// backtrace unless one is asked for.
#[test]
fn an_output_file_that_cannot_be_written_is_reported_with_its_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let html = dir.path().join("no-such-folder").join("x.html");
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["explain", "tests/sessions/cases/chat_plain.json", "--html"])
        .arg(&html)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!("Error: cannot write {}", html.display())),
        "{err}"
    );
    assert!(err.contains("Caused by:"), "{err}");
}

/// A reader that stops early (`| head -1`) ends the output quietly: exit
/// 0, nothing on stderr.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["manpage"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Closed before anything is read.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
