//! xai-sdk (1.21, gRPC) under 2.0.11: `XAIChatModel` calls
//! `client.chat.create(model, [settings], [tools], [tool_choice],
//! **call_kwargs)`, appends each formatted message and reads
//! `chat.stream()` or `chat.sample()`. The request is one
//! `xai_api.GetCompletionsRequest`, shown as proto3 JSON with the proto
//! field names (fields in their numbers' order, defaults left out, enums
//! by name), as the vectors write it.

use super::{sorted_headers, Call};
use crate::json;
use crate::py::PyErr;
use crate::wire::{Encoding, Grpc, Wire, API_KEY};
use serde_json::{Map, Value};

/// `chat.create`'s keyword arguments.
const CREATE: [&str; 31] = [
    "model",
    "conversation_id",
    "messages",
    "user",
    "safety_identifier",
    "max_tokens",
    "seed",
    "stop",
    "temperature",
    "top_p",
    "logprobs",
    "top_logprobs",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "frequency_penalty",
    "presence_penalty",
    "reasoning_effort",
    "search_parameters",
    "store_messages",
    "previous_response_id",
    "use_encrypted_content",
    "max_turns",
    "include",
    "agent_count",
    "batch_request_id",
    "service_tier",
    "guidelines",
    // Not request fields.
    "timeout",
    "metadata",
];

/// `GetCompletionsRequest`'s fields in number order: its proto3 JSON order.
const FIELDS: [&str; 26] = [
    "messages",
    "model",
    "frequency_penalty",
    "logprobs",
    "top_logprobs",
    "max_tokens",
    "n",
    "presence_penalty",
    "response_format",
    "seed",
    "stop",
    "temperature",
    "top_p",
    "user",
    "tools",
    "tool_choice",
    "reasoning_effort",
    "search_parameters",
    "parallel_tool_calls",
    "previous_response_id",
    "store_messages",
    "use_encrypted_content",
    "max_turns",
    "include",
    "agent_count",
    "service_tier",
];

pub(super) fn completion(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
    for key in ["max_tokens", "temperature", "top_p"] {
        if let Some(v) = p.get(key) {
            kwargs.insert(key.into(), v.clone());
        }
    }
    if p.on("thinking_enable") {
        if let Some(e) = p.get("reasoning_effort").filter(|v| crate::py::truthy(v)) {
            kwargs.insert("reasoning_effort".into(), e.clone());
        }
    }
    if let Some(tools) = call.tools {
        kwargs.insert("tools".into(), tools);
    }
    if let Some(choice) = call.tool_choice {
        kwargs.insert("tool_choice".into(), choice);
    }
    kwargs.extend(call.call_kwargs.clone());
    let (method, kind) = if model.stream {
        ("/xai_api.Chat/GetCompletionChunk", "unary_stream")
    } else {
        ("/xai_api.Chat/GetCompletion", "unary_unary")
    };
    let target = model.address().unwrap_or_else(|| "api.x.ai".into());
    let host = target.strip_suffix(":443").unwrap_or(&target).to_string();
    let (body, sdk_error) = match request(&kwargs, call.messages) {
        Ok(b) => (b, None),
        Err(e) => (Value::Null, Some(e)),
    };
    Wire {
        stream: model.stream,
        model_kwargs: Map::new(),
        sdk_call: "xai_sdk.AsyncClient.chat.create",
        kwargs: Value::Object(kwargs),
        method: "POST",
        url: format!("https://{host}{method}"),
        headers: sorted_headers(vec![(
            "authorization".into(),
            json!(format!("Bearer {API_KEY}")),
        )]),
        body,
        sdk_error,
        encoding: Encoding::Protobuf,
        grpc: Some(Grpc {
            target,
            method,
            kind,
            request_type: "xai_api.GetCompletionsRequest",
        }),
    }
}

/// The request message the SDK builds, as proto3 JSON, or what the SDK
/// raises before the RPC.
fn request(kwargs: &Map<String, Value>, messages: Vec<Value>) -> Result<Value, PyErr> {
    if let Some(k) = kwargs.keys().find(|k| !CREATE.contains(&k.as_str())) {
        return Err(PyErr::type_error(format!(
            "Chat.create() got an unexpected keyword argument '{k}'"
        )));
    }
    if messages.is_empty() {
        return Err(PyErr::value(
            "Cannot create a completion request: No messages provided. Please include at least one message.",
        ));
    }
    // The SDK's tracing attributes parse every tool call's arguments as
    // JSON, installed tracer or not.
    for call in messages
        .iter()
        .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
        .flatten()
    {
        // An absent field reads as proto3's default, "".
        let args = call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(said) = crate::py::loads_error(args) {
            return Err(PyErr::new("JSONDecodeError", said));
        }
    }
    let mut fields = Map::new();
    fields.insert("messages".into(), Value::Array(messages));
    fields.insert("n".into(), json!(1));
    for (key, value) in kwargs {
        if value.is_null() || matches!(key.as_str(), "timeout" | "metadata") {
            continue;
        }
        let value = match key.as_str() {
            "tool_choice" => match value {
                Value::String(mode) => {
                    json!({"mode": format!("TOOL_MODE_{}", mode.to_uppercase())})
                }
                other => other.clone(),
            },
            "reasoning_effort" => match value {
                Value::String(e) => json!(format!("EFFORT_{}", e.to_uppercase())),
                other => other.clone(),
            },
            "stop" => match value {
                Value::String(s) => json!([s]),
                other => other.clone(),
            },
            "temperature" | "top_p" | "frequency_penalty" | "presence_penalty" => {
                match value.as_f64() {
                    // proto3 JSON: a float at its default (0) is left out.
                    Some(0.0) => continue,
                    _ => value.clone(),
                }
            }
            _ => value.clone(),
        };
        // Defaults are not on the wire.
        if value == json!(false) || value == json!("") || value == json!([]) {
            continue;
        }
        fields.insert(key.clone(), value);
    }
    Ok(Value::Object(
        FIELDS
            .iter()
            .filter_map(|k| fields.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect(),
    ))
}
