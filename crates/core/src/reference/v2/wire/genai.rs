//! google-genai (2.33, on aiohttp) under 2.0.11: `GeminiChatModel` builds a
//! `config` (its settings, an always-present thinking config, the call's
//! keyword arguments, tools) and calls `generate_content[_stream]`; the
//! SDK validates it and writes the REST body (the conversion is the one
//! 1.0.21's wire uses, with this release's `inlineData.mime_type`).

use super::{sorted_headers, Call};
use crate::json;
use crate::wire::gemini::{checked_body, Genai};
use crate::wire::{Encoding, Wire, API_KEY};
use serde_json::{Map, Value};

pub(super) fn generate(call: Call, warnings: &mut Vec<String>) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut config = Map::new();
    if let Some(n) = p.get("max_tokens") {
        config.insert("max_output_tokens".into(), n.clone());
    }
    for key in ["temperature", "top_p"] {
        if let Some(v) = p.get(key) {
            config.insert(key.into(), v.clone());
        }
    }
    let thinking = if p.on("thinking_enable") {
        json!({"include_thoughts": true, "thinking_budget": p.int("thinking_budget").unwrap_or(1024)})
    } else {
        json!({"include_thoughts": false, "thinking_budget": 0})
    };
    config.insert("thinking_config".into(), thinking);
    config.extend(call.call_kwargs.clone());
    if let Some(tools) = call.tools {
        config.insert("tools".into(), tools);
    }
    if let Some(choice) = call.tool_choice {
        config.insert("tool_config".into(), choice);
    }
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
    kwargs.insert("contents".into(), Value::Array(call.messages));
    kwargs.insert("config".into(), Value::Object(config));
    let (sdk_call, method) = if model.stream {
        (
            "google.genai.Client.aio.models.generate_content_stream",
            "streamGenerateContent?alt=sse",
        )
    } else {
        (
            "google.genai.Client.aio.models.generate_content",
            "generateContent",
        )
    };
    let (checked, enum_warnings) = checked_body(&kwargs, Genai::V2_33);
    warnings.extend(enum_warnings);
    let (body, sdk_error) = match checked {
        Ok(b) => (b, None),
        Err(e) => (Value::Null, Some(e)),
    };
    let path = if model.name.starts_with("models/") || model.name.starts_with("tunedModels/") {
        model.name.clone()
    } else {
        format!("models/{}", model.name)
    };
    // genai.Client(**client_kwargs): http_options.base_url moves the host.
    let base = model
        .client_kwargs
        .get("http_options")
        .and_then(|h| h.get("base_url"))
        .and_then(Value::as_str)
        .unwrap_or("https://generativelanguage.googleapis.com/")
        .trim_end_matches('/')
        .to_string();
    let mut headers = sorted_headers(vec![
        ("content-type".into(), json!("application/json")),
        ("x-goog-api-key".into(), json!(API_KEY)),
    ]);
    headers.extend(model.default_headers());
    Wire {
        stream: model.stream,
        model_kwargs: Map::new(),
        sdk_call,
        kwargs: Value::Object(kwargs),
        method: "POST",
        url: format!("{base}/v1beta/{path}:{method}"),
        headers,
        body,
        sdk_error,
        encoding: Encoding::Spaced,
        grpc: None,
    }
}
