//! The anthropic SDK (2.3, on httpx2) under 2.0.11: `messages.create` for
//! `AnthropicChatModel` and `MiniMaxChatModel` (Anthropic's protocol on
//! MiniMax's host, adaptive thinking only, no output configuration).

use super::{in_order, sorted_headers, Call};
use crate::json;
use crate::reference::v2::Family;
use crate::wire::{Encoding, Wire, API_KEY};
use serde_json::{Map, Value};

/// `AsyncMessages.create`'s parameters: its body in order, then the
/// arguments that shape the request instead.
const CREATE: [&str; 23] = [
    "max_tokens",
    "messages",
    "model",
    "cache_control",
    "container",
    "diagnostics",
    "inference_geo",
    "metadata",
    "output_config",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "system",
    "thinking",
    "tool_choice",
    "tools",
    "user_profile_id",
    "workspace_id",
    "extra_headers",
    "extra_query",
    "extra_body",
    "timeout",
];

/// The anthropic-version header anthropic 2.3 sends.
const VERSION: &str = "2026-10-21";

pub(super) fn create(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let minimax = model.family == Family::MiniMax;
    let max_tokens = p.int("max_tokens").unwrap_or(8192);
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
    kwargs.insert("max_tokens".into(), json!(max_tokens));
    kwargs.insert("stream".into(), json!(model.stream));
    kwargs.extend(call.call_kwargs.clone());
    if !kwargs.contains_key("thinking") {
        let (thinking, expanded) = if minimax {
            let on = p.on("thinking_enable");
            (on.then(|| json!({"type": "adaptive"})), max_tokens)
        } else {
            thinking(p, max_tokens)
        };
        if let Some(t) = thinking {
            kwargs.insert("thinking".into(), t);
        }
        if expanded != max_tokens {
            kwargs.insert("max_tokens".into(), json!(expanded));
        }
    }
    if !minimax && !kwargs.contains_key("output_config") {
        if let Some(e) = p.get("reasoning_effort").filter(|v| crate::py::truthy(v)) {
            kwargs.insert("output_config".into(), json!({"effort": e}));
        }
    }
    if let Some(tools) = call.tools {
        kwargs.insert("tools".into(), tools);
    }
    if let Some(choice) = call.tool_choice {
        kwargs.insert("tool_choice".into(), choice);
    }
    let mut messages = call.messages;
    if messages.first().and_then(|m| m.get("role")) == Some(&json!("system")) {
        let system = messages.remove(0);
        kwargs.insert(
            "system".into(),
            system.get("content").cloned().unwrap_or(Value::Null),
        );
    }
    kwargs.insert("messages".into(), Value::Array(messages));

    let base = model
        .address()
        .unwrap_or_else(|| "https://api.anthropic.com".into());
    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    let mut headers = sorted_headers(vec![
        ("accept".into(), json!("application/json")),
        ("anthropic-version".into(), json!(VERSION)),
        ("authorization".into(), json!(format!("Bearer {API_KEY}"))),
        ("content-type".into(), json!("application/json")),
    ]);
    headers.extend(model.default_headers());
    let (body, sdk_error) = match in_order(&kwargs, &CREATE, &CREATE, "AsyncMessages.create") {
        Ok(mut body) => {
            if let Some(Value::Object(extra)) = body.shift_remove("extra_headers") {
                for (k, v) in extra {
                    headers.insert(k.to_lowercase(), Value::String(crate::py::py_str(&v)));
                }
            }
            body.shift_remove("extra_query");
            body.shift_remove("timeout");
            if let Some(Value::Object(extra)) = body.shift_remove("extra_body") {
                body.extend(extra);
            }
            (Value::Object(body), None)
        }
        Err(e) => (Value::Null, Some(e)),
    };
    Wire {
        stream: model.stream,
        model_kwargs: Map::new(),
        sdk_call: "anthropic.AsyncAnthropic.messages.create",
        kwargs: Value::Object(kwargs),
        method: "POST",
        url,
        headers: sorted_headers(headers.into_iter().collect()),
        body,
        sdk_error,
        encoding: Encoding::Compact,
        grpc: None,
    }
}

/// `_build_thinking_config`: the thinking object and `max_tokens`, raised
/// above the budget when the budget would reach it.
fn thinking(p: &super::Parameters, max_tokens: i64) -> (Option<Value>, i64) {
    let mode = match p.text("thinking_mode") {
        Some(m) => m.to_string(),
        None if p.on("thinking_enable") => "enabled".into(),
        None => return (None, max_tokens),
    };
    let mut thinking = Map::new();
    thinking.insert("type".into(), json!(&mode));
    let mut max_tokens = max_tokens;
    if mode == "enabled" {
        let budget = p.int("thinking_budget").unwrap_or(max_tokens / 2);
        if budget >= max_tokens {
            max_tokens = budget + 1024;
        }
        thinking.insert("budget_tokens".into(), json!(budget));
    }
    if mode != "disabled" {
        if let Some(d) = p.get("thinking_display").filter(|v| crate::py::truthy(v)) {
            thinking.insert("display".into(), d.clone());
        }
    }
    (Some(Value::Object(thinking)), max_tokens)
}
