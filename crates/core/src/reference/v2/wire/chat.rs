//! The openai SDK (3.40, on httpx2) under 2.0.11: `chat.completions.create`
//! for OpenAI, DashScope (its OpenAI-compatible mode), DeepSeek, Moonshot
//! and Volcengine, each class adding its own settings, and
//! `responses.create` for `OpenAIResponseModel`.

use super::{in_order, sorted_headers, Call, Model};
use crate::json;
use crate::reference::v2::Family;
use crate::wire::{Encoding, Wire, API_KEY};
use serde_json::{Map, Value};

/// `AsyncCompletions.create`'s body, in the order the SDK writes it.
const COMPLETIONS: [&str; 41] = [
    "model",
    "stream",
    "service_tier",
    "messages",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "stop",
    "store",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
    // Not body fields: how the request is made.
    "extra_headers",
    "extra_query",
    "extra_body",
    "timeout",
];

/// `AsyncResponses.create`'s body, in the order the SDK writes it.
const RESPONSES: [&str; 37] = [
    "model",
    "stream",
    "service_tier",
    "access_programs",
    "background",
    "context_management",
    "conversation",
    "include",
    "input",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "moderation",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "store",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
    "extra_headers",
    "extra_query",
    "extra_body",
    "timeout",
    "stream_id",
];

/// What the Responses model drops from the call's keyword arguments.
const RESPONSES_UNSUPPORTED: [&str; 2] = ["modalities", "audio"];

/// `{**extra_body, "thinking": {"type": T, **extra_body["thinking"]}}`:
/// DeepSeek's, Moonshot's and Volcengine's thinking switch.
fn with_thinking(kwargs: &mut Map<String, Value>, enabled: bool) {
    let mut extra = match kwargs.get("extra_body") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut thinking = Map::new();
    thinking.insert(
        "type".into(),
        json!(if enabled { "enabled" } else { "disabled" }),
    );
    if let Some(Value::Object(given)) = extra.get("thinking") {
        thinking.extend(given.clone());
    }
    extra.insert("thinking".into(), Value::Object(thinking));
    kwargs.insert("extra_body".into(), Value::Object(extra));
}

/// `_call_api` of the five chat-completions classes.
pub(super) fn completions(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
    kwargs.insert("messages".into(), Value::Array(call.messages));
    kwargs.insert("stream".into(), json!(model.stream));
    let k3 = model.family == Family::Moonshot && model.name == "kimi-k3";
    if let Some(n) = p.get("max_tokens") {
        let key = if matches!(model.family, Family::OpenAi) || k3 {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        kwargs.insert(key.into(), n.clone());
    }
    for key in ["temperature", "top_p"] {
        if let Some(v) = p.get(key) {
            kwargs.insert(key.into(), v.clone());
        }
    }
    let effort = p.get("reasoning_effort").cloned();
    match model.family {
        Family::OpenAi if p.on("thinking_enable") => {
            if let Some(e) = effort.filter(crate::py::truthy) {
                kwargs.insert("reasoning_effort".into(), e);
            }
        }
        Family::DeepSeek | Family::Volcengine => {
            if let Some(e) = effort {
                kwargs.insert("reasoning_effort".into(), e);
            }
        }
        _ => {}
    }
    if let Some(voice) = p.get("voice") {
        kwargs.insert("audio".into(), json!({"voice": voice, "format": "pcm16"}));
        kwargs.insert("modalities".into(), json!(["text", "audio"]));
    }
    if let Some(extra) = &model.extra_body {
        kwargs.insert("extra_body".into(), Value::Object(extra.clone()));
    }
    kwargs.extend(call.call_kwargs.clone());
    let parallel_off = !p.get("parallel_tool_calls").is_none_or(crate::py::truthy);
    match model.family {
        Family::DeepSeek => with_thinking(&mut kwargs, p.on("thinking_enable")),
        Family::Moonshot if k3 => {
            if let Some(e) = p.get("reasoning_effort") {
                kwargs.insert("reasoning_effort".into(), e.clone());
            }
        }
        Family::Moonshot => with_thinking(&mut kwargs, p.on("thinking_enable")),
        Family::Volcengine => {
            if let Some(Value::Bool(on)) = p.get("thinking_enable") {
                with_thinking(&mut kwargs, *on);
            }
        }
        _ => {}
    }
    if let Some(tools) = call.tools {
        kwargs.insert("tools".into(), tools);
        if parallel_off && matches!(model.family, Family::OpenAi | Family::DashScope) {
            kwargs.insert("parallel_tool_calls".into(), json!(false));
        }
    }
    if let Some(choice) = call.tool_choice {
        kwargs.insert("tool_choice".into(), choice);
    }
    if model.family == Family::DashScope {
        // A copy of the call's extra_body with the thinking settings
        // added unless already there: always sent.
        let mut extra = match kwargs.get("extra_body") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        for key in ["thinking_enable", "thinking_budget", "top_k"] {
            if let Some(v) = p.get(key) {
                let name = if key == "thinking_enable" {
                    "enable_thinking"
                } else {
                    key
                };
                if !extra.contains_key(name) {
                    extra.insert(name.into(), v.clone());
                }
            }
        }
        kwargs.insert("extra_body".into(), Value::Object(extra));
    }
    if model.stream {
        kwargs.insert("stream_options".into(), json!({"include_usage": true}));
    }
    let base = model
        .address()
        .unwrap_or_else(|| "https://api.openai.com/v1".into());
    http(
        model,
        kwargs,
        &base,
        "/chat/completions",
        &COMPLETIONS,
        "AsyncCompletions.create",
        "openai.AsyncOpenAI.chat.completions.create",
    )
}

/// `OpenAIResponseModel._call_api`.
pub(super) fn responses(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
    kwargs.insert("input".into(), Value::Array(call.messages));
    kwargs.insert("stream".into(), json!(model.stream));
    if let Some(n) = p.get("max_tokens") {
        kwargs.insert("max_output_tokens".into(), n.clone());
    }
    if let Some(t) = p.get("temperature") {
        kwargs.insert("temperature".into(), t.clone());
    }
    if p.on("thinking_enable") {
        if let Some(e) = p.get("reasoning_effort").filter(|v| crate::py::truthy(v)) {
            kwargs.insert("reasoning".into(), json!({"effort": e}));
        }
    }
    for (k, v) in call.call_kwargs {
        if !RESPONSES_UNSUPPORTED.contains(&k.as_str()) {
            kwargs.insert(k.clone(), v.clone());
        }
    }
    if let Some(tools) = call.tools {
        kwargs.insert("tools".into(), tools);
    }
    if let Some(choice) = call.tool_choice {
        kwargs.insert("tool_choice".into(), choice);
    }
    let base = model
        .address()
        .unwrap_or_else(|| "https://api.openai.com/v1".into());
    http(
        model,
        kwargs,
        &base,
        "/responses",
        &RESPONSES,
        "AsyncResponses.create",
        "openai.AsyncOpenAI.responses.create",
    )
}

/// What the openai SDK makes of the keyword arguments: the body in its
/// order with `extra_body` merged last, the headers with
/// `extra_headers`, the URL with `extra_query`.
fn http(
    model: &Model,
    kwargs: Map<String, Value>,
    base: &str,
    path: &str,
    order: &[&str],
    method: &str,
    sdk_call: &'static str,
) -> Wire {
    let mut headers = vec![
        ("accept".to_string(), json!("application/json")),
        (
            "authorization".to_string(),
            json!(format!("Bearer {API_KEY}")),
        ),
        ("content-type".to_string(), json!("application/json")),
    ];
    if let Some(Value::String(org)) = model.credential.get("organization") {
        headers.push(("openai-organization".into(), json!(org)));
    }
    let mut headers = sorted_headers(headers);
    headers.extend(model.default_headers());
    let mut url = format!("{}{path}", base.trim_end_matches('/'));
    let (body, sdk_error) = match in_order(&kwargs, order, order, method) {
        Ok(mut body) => {
            let extra_body = body.shift_remove("extra_body");
            let extra_headers = body.shift_remove("extra_headers");
            let extra_query = body.shift_remove("extra_query");
            body.shift_remove("timeout");
            if let Some(Value::Object(extra)) = extra_body {
                for (k, v) in extra {
                    body.insert(k, v);
                }
            }
            if let Some(Value::Object(extra)) = extra_headers {
                for (k, v) in extra {
                    headers.insert(k.to_lowercase(), Value::String(crate::py::py_str(&v)));
                }
            }
            if let Some(Value::Object(query)) = extra_query {
                let pairs: Vec<String> = query
                    .iter()
                    .map(|(k, v)| format!("{k}={}", crate::py::py_str(v)))
                    .collect();
                if !pairs.is_empty() {
                    url = format!("{url}?{}", pairs.join("&"));
                }
            }
            (Value::Object(body), None)
        }
        Err(e) => (Value::Null, Some(e)),
    };
    Wire {
        stream: model.stream,
        model_kwargs: Map::new(),
        sdk_call,
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
