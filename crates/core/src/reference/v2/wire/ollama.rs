//! The ollama SDK (0.6.3, on httpx) under 2.0.11: `OllamaChatModel` always
//! sends `think` and streams by default; `options` only when a setting is
//! given; never a `tool_choice`. The SDK's request model (the one 1.0.21's
//! wire reproduces) drops what it does not know, and validates what it
//! knows as pydantic 2.14 does (`ChatRequest`): a `think` of 3 or a
//! `format` of "xml" raises its `ValidationError`, a `keep_alive` of 5 is
//! sent as 5.0, a `logprobs` of "yes" as true.

use super::{sorted_headers, Call};
use crate::json;
use crate::py::pydantic::{self, Outcome, Ty};
use crate::py::PyErr;
use crate::wire::ollama::{chat_request, parse_host};
use crate::wire::{Encoding, Wire};
use serde_json::{Map, Value};

pub(super) fn chat(call: Call) -> Wire {
    let model = call.model;
    let p = &model.parameters;
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), json!(&model.name));
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
    let (body, sdk_error) = match chat_request(&kwargs).and_then(validated) {
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

/// `ChatRequest`'s fields after the messages and tools, in its order.
const FIELDS: [(&str, Ty); 7] = [
    ("stream", Ty::Bool),
    (
        "options",
        Ty::Union(&[
            ("dict[str,any]", Ty::Dict(&Ty::Any)),
            ("Options", Ty::DictModel("Options")),
        ]),
    ),
    (
        "format",
        Ty::Union(&[
            ("literal['','json']", Ty::Literal(&["", "json"])),
            ("dict[str,any]", Ty::Dict(&Ty::Any)),
        ]),
    ),
    (
        "keep_alive",
        Ty::Union(&[("float", Ty::Float), ("str", Ty::Str)]),
    ),
    ("think", Ty::Union(&[("bool", Ty::Bool), ("str", Ty::Str)])),
    ("logprobs", Ty::Bool),
    ("top_logprobs", Ty::Int),
];

/// The body `chat_request` dumped, validated as `ChatRequest` does, with
/// the values pydantic's lax mode makes of what it accepts.
fn validated(mut body: Value) -> Result<Value, PyErr> {
    let mut out = Outcome::default();
    for (key, ty) in &FIELDS {
        if let Some(v) = body.get(*key).filter(|v| !v.is_null()) {
            pydantic::validate(ty, v, &mut vec![key.to_string()], &mut out);
        }
    }
    pydantic::check_as("ChatRequest", &out.errors, "2.14")?;
    if let Value::Object(fields) = &mut body {
        for (key, value) in fields.iter_mut() {
            let coerced = match (key.as_str(), &*value) {
                ("keep_alive", Value::Bool(b)) => Some(json!(f64::from(u8::from(*b)))),
                ("keep_alive", Value::Number(n)) => n.as_f64().map(|f| json!(f)),
                // A string is the union's exact member: kept.
                ("think", Value::String(_)) => None,
                ("think" | "logprobs" | "stream", v) => pydantic::lax_bool(v).map(Value::Bool),
                ("top_logprobs", v) => pydantic::lax_int(v).map(|n| json!(n)),
                _ => None,
            };
            if let Some(c) = coerced {
                *value = c;
            }
        }
    }
    Ok(body)
}
