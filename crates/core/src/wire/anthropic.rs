//! `AnthropicChatModel` and the anthropic SDK's `messages.create`
//! (anthropic 0.104).

use super::{
    any_to_required, ctor_map, headers, in_parameter_order, validate_tool_choice,
    warn_unknown_ctor, Constructed, Failure, Rejected, Wire, API_KEY,
};
use crate::formatter::{format_tools, Provider};
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// `AsyncMessages.create`'s parameters, in order: the body's key order.
const CREATE: [&str; 18] = [
    "max_tokens",
    "messages",
    "model",
    "cache_control",
    "container",
    "inference_geo",
    "metadata",
    "output_config",
    "service_tier",
    "stop_sequences",
    "stream",
    "system",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
];

const EXTRAS: [&str; 4] = ["extra_headers", "extra_query", "extra_body", "timeout"];

pub(super) fn build(
    model: &str,
    ctor: Map<String, Value>,
    mut messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &super::Settings,
    warn: &mut dyn FnMut(String),
) -> Result<Wire, Rejected> {
    let stream = ctor.get("stream").is_none_or(crate::py::truthy);
    warn_unknown_ctor(
        &ctor,
        &[
            "max_tokens",
            "stream",
            "thinking",
            "stream_tool_parsing",
            "client_kwargs",
            "generate_kwargs",
        ],
        warn,
    );
    let constructed = Constructed {
        stream,
        model_kwargs: ctor.clone(),
    };
    let fail = |e| Box::new((Some(constructed.clone()), Failure::Model(e)));
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), Value::String(model.to_string()));
    kwargs.insert(
        "max_tokens".into(),
        ctor.get("max_tokens").cloned().unwrap_or(json!(2048)),
    );
    kwargs.insert("stream".into(), Value::Bool(stream));
    kwargs.extend(ctor_map(&ctor, "generate_kwargs"));
    kwargs.extend(settings.call_kwargs.clone());
    if let Some(thinking) = ctor.get("thinking").filter(|v| crate::py::truthy(v)) {
        if !kwargs.contains_key("thinking") {
            kwargs.insert("thinking".into(), thinking.clone());
        }
    }
    if let Some(tools) = tools {
        let formatted = format_tools(Provider::Anthropic, tools, warn).map_err(fail)?;
        kwargs.insert("tools".into(), formatted);
    }
    if let Some(choice) = settings.tool_choice.as_deref().filter(|c| !c.is_empty()) {
        let choice = any_to_required(choice, warn);
        validate_tool_choice(&choice, tools).map_err(fail)?;
        kwargs.insert("tool_choice".into(), tool_choice(&choice));
    }
    // `messages[0]["role"] == "system"`: on an empty list, an IndexError.
    let Some(first) = messages.first() else {
        return Err(fail(PyErr::new("IndexError", "list index out of range")));
    };
    if crate::py::get_item(first, "role").map_err(fail)? == "system" {
        let system = messages.remove(0);
        let content = crate::py::get_item(&system, "content").map_err(fail)?;
        kwargs.insert("system".into(), content.clone());
    }
    kwargs.insert("messages".into(), Value::Array(messages));

    let client = ctor_map(&ctor, "client_kwargs");
    let base = client
        .get("base_url")
        .and_then(Value::as_str)
        .unwrap_or("https://api.anthropic.com");
    let url = format!("{}/v1/messages", base.trim_end_matches('/'));
    let mut head = headers(&[
        ("accept", "application/json"),
        ("anthropic-version", "2023-06-01"),
        ("content-type", "application/json"),
        ("x-api-key", API_KEY),
    ]);
    let mut body_args = kwargs.clone();
    let extras: Map<String, Value> = EXTRAS
        .iter()
        .filter_map(|k| body_args.shift_remove(*k).map(|v| (k.to_string(), v)))
        .collect();
    let (body, sdk_error) = match in_parameter_order(&body_args, &CREATE, "AsyncMessages.create") {
        Ok(mut body) => {
            if let Some(Value::Object(extra)) = extras.get("extra_body") {
                body.extend(extra.clone());
            }
            if let Some(Value::Object(extra)) = extras.get("extra_headers") {
                for (k, v) in extra {
                    head.insert(k.to_lowercase(), v.clone());
                }
            }
            (Value::Object(body), None)
        }
        Err(e) => (Value::Null, Some(e)),
    };
    Ok(Wire {
        stream,
        model_kwargs: ctor,
        sdk_call: "anthropic.AsyncAnthropic.messages.create",
        kwargs: Value::Object(kwargs),
        method: "POST",
        url,
        headers: head,
        body,
        sdk_error,
        encoding: super::Encoding::Compact,
        grpc: None,
    })
}

/// `_format_tool_choice`.
fn tool_choice(choice: &str) -> Value {
    match choice {
        "auto" => json!({"type": "auto"}),
        "none" => json!({"type": "none"}),
        "required" => json!({"type": "any"}),
        name => json!({"type": "tool", "name": name}),
    }
}
