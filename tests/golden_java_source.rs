//! AgentScope Java 2.0.2 where its source decides and the golden vectors do
//! not reach: each case names the class whose code it follows (tag v2.0.2).
//! No oracle made these; they pin what formatscope reads in that source.

use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::reference::java::{self, dashscope, Options};
use formatscope::reference::Family;
use serde_json::{json, Value};
use std::sync::Arc;

fn run(session: Value, formatter: &str, model: Option<&str>) -> Value {
    let env = MediaEnv::new(env!("CARGO_MANIFEST_DIR"), Arc::new(NoNetwork));
    let opts = Options {
        formatter: Some(formatter.into()),
        model: model.map(String::from),
        ..Options::default()
    };
    java::run(&session, &env, &opts).expect("runs")
}

fn text(out: &Value) -> &str {
    out["request_text"].as_str().expect("request_text")
}

/// `DashScopeHttpClient.isMultimodalModel`: prefixes and substrings, two
/// text-only exceptions, case-insensitive.
#[test]
fn dashscope_routes_models_as_java_does() {
    use dashscope::Endpoint::{Multimodal, Text};
    for (model, endpoint) in [
        ("qwen-max", Text),
        ("qwen-vl-max", Multimodal),
        ("QVQ-Max", Multimodal),
        ("qwen3.5-plus", Multimodal),
        ("qwen3.6-plus", Multimodal),
        ("qwen3.6-max-preview", Text),
        ("qwen3.7-max-2026", Text),
        ("qwen3.7-plus", Multimodal),
        ("qwen3.8-max", Multimodal),
        ("qwen3.8-plus", Text),
        ("paraformer-asr-v2", Multimodal),
        ("Moonshot/Kimi-K2.5", Multimodal),
        ("kimi-k2", Text),
    ] {
        assert_eq!(dashscope::route(model), endpoint, "{model}");
    }
    let session = json!({"messages": [{"role": "user", "content": "hi"}]});
    let out = run(
        session.clone(),
        "DashScopeChatFormatter",
        Some("qwen-vl-plus"),
    );
    assert_eq!(out["endpoint"], "multimodal");
    assert_eq!(out["messages"][0]["content"], json!([{"text": "hi"}]));
    let out = run(
        session,
        "DashScopeChatFormatter",
        Some("qwen3.6-max-preview"),
    );
    assert_eq!(out["endpoint"], "text");
    assert_eq!(out["messages"][0]["content"], "hi");
}

/// `GLMFormatter.ensureUserMessage`: no user message at all, one empty
/// user message is appended (and GLM sends no `name`).
#[test]
fn glm_appends_an_empty_user_message() {
    let session = json!({"messages": [{"name": "sys", "role": "system", "content": "Be brief."}]});
    for class in ["GLMFormatter", "GLMMultiAgentFormatter"] {
        let out = run(session.clone(), class, None);
        assert_eq!(
            text(&out),
            r#"{"model":"glm-4.6","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":""}],"stream":true}"#,
            "{class}"
        );
    }
}

/// `DeepSeekFormatter.applyDeepSeekFixes`: in thinking mode, reasoning is
/// kept on the current turn and on earlier turns that called tools.
#[test]
fn deepseek_keeps_reasoning_on_turns_with_tool_calls() {
    let session = json!({"messages": [
        {"name": "user", "role": "user", "content": "Weather?"},
        {"name": "Friday", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Call the tool."},
            {"type": "tool_use", "id": "c1", "name": "weather", "input": {}}]},
        {"name": "user", "role": "user", "content": [
            {"type": "tool_result", "id": "c1", "name": "weather", "output": "Sunny"}]},
        {"name": "Friday", "role": "assistant", "content": "Sunny."},
        {"name": "user", "role": "user", "content": "And 2+2?"},
        {"name": "Friday", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Easy."}, {"type": "text", "text": "4"}]},
        {"name": "user", "role": "user", "content": "Thanks"},
        {"name": "Friday", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "Reply."}, {"type": "text", "text": "Welcome"}]}
    ]});
    let out = run(session, "DeepSeekFormatter", None);
    let reasoning: Vec<Option<&str>> = out["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m.get("reasoning_content").and_then(Value::as_str))
        .collect();
    assert_eq!(
        reasoning,
        [
            None,
            Some("Call the tool."),
            None,
            None,
            None,
            None,
            None,
            Some("Reply.")
        ]
    );
}

/// `ToolSchema`: `description` is required; missing `parameters` is an
/// empty map; `strict` only where the formatter supports it (OpenAI).
#[test]
fn tool_schemas_as_java_builds_them() {
    let bare = json!({"tools": [{"type": "function", "function": {"name": "f"}}],
                      "messages": [{"role": "user", "content": "x"}]});
    let out = run(bare, "OpenAIChatFormatter", None);
    assert_eq!(out["error_type"], "NullPointerException");
    assert_eq!(out["stage"], "tools");
    assert_eq!(out["error"], "description is required");

    let tools = json!({"tools": [{"type": "function", "function": {
                           "name": "f", "description": "d", "strict": true}}],
                       "messages": [{"role": "user", "content": "x"}]});
    let out = run(tools.clone(), "OpenAIChatFormatter", None);
    assert!(text(&out).ends_with(
        r#""tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{},"strict":true}}]}"#
    ));
    for class in ["DeepSeekFormatter", "GLMFormatter"] {
        let out = run(tools.clone(), class, None);
        assert!(
            text(&out).ends_with(r#""description":"d","parameters":{}}}]}"#),
            "{class}: {}",
            text(&out)
        );
    }
}

/// Jackson's escapes: control characters as `\uXXXX` with upper-case hex,
/// the short forms for `\b \f \n \r \t`, `/` and non-ASCII as they are.
#[test]
fn jackson_escapes() {
    let session = json!({"messages": [{"role": "user", "content": "a\u{1f}b\u{8}c/é\u{7f}"}]});
    let out = run(session, "OllamaChatFormatter", None);
    assert!(
        text(&out).contains(r#""content":"a\u001Fb\bc/é"#),
        "{}",
        text(&out)
    );
}

/// `JsonUtils.resolveToolCallArgsJson`: raw arguments that are not a JSON
/// object fall back to the input map, in `HashMap` order, with a warning.
#[test]
fn invalid_raw_arguments_fall_back_to_the_input() {
    let session = json!({"messages": [
        {"name": "user", "role": "user", "content": "go"},
        {"name": "Friday", "role": "assistant", "content": [
            {"type": "tool_use", "id": "1", "name": "search", "raw_input": "[1, 2]",
             "input": {"location": [1, 2], "keyword": "x"}}]}
    ]});
    let out = run(session, "OpenAIChatFormatter", None);
    assert_eq!(
        out["messages"][1]["tool_calls"][0]["function"]["arguments"],
        r#"{"keyword":"x","location":[1,2]}"#
    );
    assert_eq!(
        out["warnings"],
        json!([
            "Invalid JSON in tool call content for 'search', falling back to input serialization"
        ])
    );
}

/// The release interface: Java formats the four providers it has classes
/// for (DashScope on the endpoint the session's model routes to), and says
/// why Anthropic and Gemini are not reproduced.
#[test]
fn the_java_release_behind_reference() {
    use formatscope::provider::Provider;
    use formatscope::reference::{by_version, Mode};
    let java = by_version("java-2.0.2").expect("registered");
    assert_eq!(java.title(), "AgentScope Java 2.0.2");
    assert!(!java.counts_and_truncates());
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    std::fs::write(
        &path,
        r#"{"provider": "dashscope", "model": "qwen-vl-max", "messages": [{"name": "user", "role": "user", "content": "hi"}]}"#,
    )
    .expect("write");
    let session = formatscope::session::read_session(&path).expect("session");
    let env = MediaEnv::new(dir.path(), Arc::new(NoNetwork));
    let f = java.format(&session, &Family::of(Provider::DashScope), Mode::Chat, &env);
    assert_eq!(f.call, "DashScopeChatFormatter.formatMultiModal");
    assert_eq!(
        f.messages.expect("formats"),
        [json!({"role": "user", "content": [{"text": "hi"}]})]
    );
    let f = java.format(
        &session,
        &Family::of(Provider::OpenAi),
        Mode::MultiAgent,
        &env,
    );
    assert_eq!(f.call, "OpenAIMultiAgentFormatter.format");
    let f = java.format(&session, &Family::of(Provider::Anthropic), Mode::Chat, &env);
    let e = f.messages.expect_err("not reproduced");
    assert!(e.message.contains("Java SDK"), "{}", e.message);
}

/// `AbstractBaseFormatter.saveBase64DataToTempFile`: a tool result's
/// base64 media is decoded by Java's basic decoder (padding optional);
/// data it refuses throws out of `format`.
#[test]
fn tool_result_base64_goes_through_javas_decoder() {
    let session = |data: &str| {
        json!({"messages": [
            {"name": "Friday", "role": "assistant", "content": [
                {"type": "tool_use", "id": "1", "name": "shot", "input": {}}]},
            {"name": "user", "role": "user", "content": [
                {"type": "tool_result", "id": "1", "name": "shot", "output": [
                    {"type": "text", "text": "done"},
                    {"type": "audio", "source": {"type": "base64", "media_type": "audio/wav", "data": data}}]}]}
        ]})
    };
    let out = run(session("AAAA-"), "DashScopeChatFormatter", None);
    assert_eq!(out["stage"], "format");
    assert_eq!(out["error_type"], "IllegalArgumentException");
    assert_eq!(out["error"], "Illegal base64 character 2d");
    let out = run(session("AAE"), "DashScopeChatFormatter", None);
    // The temp file's folder is written portably when it lies under the
    // session folder's parent (a checkout in /tmp): only its name is fixed.
    let content = out["messages"][1]["content"].as_str().unwrap_or_default();
    assert!(
        content.starts_with("- done\n- The returned audio can be found at: ")
            && content.ends_with("/agentscope_b413f47d.wav"),
        "{content}"
    );
}
