//! The ollama SDK (0.6.3, on httpx) under 2.0.11: `OllamaChatModel` always
//! sends `think` and streams by default; `options` only when a setting is
//! given; never a `tool_choice`. The SDK's request model (the one 1.0.21's
//! wire reproduces) drops what it does not know.

use super::{sorted_headers, Call};
use crate::json;
use crate::wire::ollama::{chat_request, parse_host};
use crate::wire::{Encoding, Wire};
use serde_json::{Map, Value};

pub(super) fn chat(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(model.name));
    kwargs.insert("messages".into(), Value::Array(call.messages));
    kwargs.insert("stream".into(), json!(model.stream));
    let mut options = Map::new();
    if let Some(n) = p.get("max_tokens") {
        options.insert("num_predict".into(), n.clone());
    }
    if let Some(t) = p.get("temperature") {
        options.insert("temperature".into(), t.clone());
    }
    if !options.is_empty() {
        kwargs.insert("options".into(), Value::Object(options));
    }
    kwargs.insert("think".into(), json!(p.on("thinking_enable")));
    kwargs.extend(call.call_kwargs.clone());
    if let Some(tools) = call.tools {
        kwargs.insert("tools".into(), tools);
    }
    let host = model
        .address()
        .map(|h| parse_host(&h))
        .unwrap_or_else(|| "http://127.0.0.1:11434".into());
    let (body, sdk_error) = match chat_request(&kwargs) {
        Ok(body) => (body, None),
        Err(e) => (Value::Null, Some(e)),
    };
    let mut headers = sorted_headers(vec![
        ("accept".into(), json!("application/json")),
        ("content-type".into(), json!("application/json")),
    ]);
    headers.extend(model.default_headers());
    Wire {
        stream: model.stream,
        model_kwargs: Map::new(),
        sdk_call: "ollama.AsyncClient.chat",
        kwargs: Value::Object(kwargs),
        method: "POST",
        url: format!("{host}/api/chat"),
        headers,
        body,
        sdk_error,
        encoding: Encoding::Compact,
        grpc: None,
    }
}
