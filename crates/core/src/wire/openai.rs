//! `OpenAIChatModel` (OpenAI, and DeepSeek through its `base_url`) and the
//! openai SDK's `chat.completions.create` (openai 2.38).

use super::{
    any_to_required, ctor_map, headers, in_parameter_order, validate_tool_choice,
    warn_unknown_ctor, Constructed, Failure, Rejected, Wire, API_KEY,
};
use crate::json;
use serde_json::{Map, Value};

/// `AsyncCompletions.create`'s parameters, in order: the body's key order.
const CREATE: [&str; 35] = [
    "messages",
    "model",
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
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// Arguments of `create` that shape the HTTP request, not the body.
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
            "stream",
            "reasoning_effort",
            "organization",
            "stream_tool_parsing",
            "client_type",
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
    // Qwen-Omni through the OpenAI-compatible API: base64 audio gets a
    // `data:;base64,` prefix, in place, before the call.
    if model.contains("omni") {
        prefix_omni_audio(&mut messages);
    }
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), Value::String(model.to_string()));
    kwargs.insert("messages".into(), Value::Array(messages));
    kwargs.insert("stream".into(), Value::Bool(stream));
    kwargs.extend(ctor_map(&ctor, "generate_kwargs"));
    kwargs.extend(settings.call_kwargs.clone());
    if let Some(effort) = ctor
        .get("reasoning_effort")
        .filter(|v| crate::py::truthy(v))
    {
        if !kwargs.contains_key("reasoning_effort") {
            kwargs.insert("reasoning_effort".into(), effort.clone());
        }
    }
    if let Some(tools) = tools {
        kwargs.insert("tools".into(), tools.clone());
    }
    if let Some(choice) = settings.tool_choice.as_deref().filter(|c| !c.is_empty()) {
        let choice = any_to_required(choice, warn);
        validate_tool_choice(&choice, tools).map_err(fail)?;
        kwargs.insert("tool_choice".into(), tool_choice(&choice));
    }
    if stream {
        kwargs.insert("stream_options".into(), json!({"include_usage": true}));
    }

    let client = ctor_map(&ctor, "client_kwargs");
    let base = client
        .get("base_url")
        .and_then(Value::as_str)
        .unwrap_or("https://api.openai.com/v1");
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let mut head = headers(&[
        ("accept", "application/json"),
        ("authorization", &format!("Bearer {API_KEY}")),
        ("content-type", "application/json"),
    ]);
    if let Some(org) = ctor.get("organization").and_then(Value::as_str) {
        head.insert("openai-organization".into(), Value::String(org.into()));
    }
    let mut body_args = kwargs.clone();
    let extras: Map<String, Value> = EXTRAS
        .iter()
        .filter_map(|k| body_args.shift_remove(*k).map(|v| (k.to_string(), v)))
        .collect();
    let (body, sdk_error) = match in_parameter_order(&body_args, &CREATE, "AsyncCompletions.create")
    {
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
        sdk_call: "openai.AsyncOpenAI.chat.completions.create",
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

/// `_format_tool_choice`: a mode as itself, a name as a function choice.
fn tool_choice(choice: &str) -> Value {
    match choice {
        "auto" | "none" | "required" => Value::String(choice.into()),
        name => json!({"type": "function", "function": {"name": name}}),
    }
}

/// `_format_audio_data_for_qwen_omni`: a block with an `input_audio`
/// whose `data` is a string not starting with "http" gets a
/// `data:;base64,` prefix.
fn prefix_omni_audio(messages: &mut [Value]) {
    for message in messages {
        let Some(Value::Array(content)) = message.get_mut("content") else {
            continue;
        };
        for block in content {
            if let Some(Value::String(data)) = block.pointer_mut("/input_audio/data") {
                if !data.starts_with("http") {
                    *data = format!("data:;base64,{data}");
                }
            }
        }
    }
}
