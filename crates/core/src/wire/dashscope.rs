//! `DashScopeChatModel` and the dashscope SDK (1.25.19):
//! `AioGeneration.call` (text-generation) or `AioMultiModalConversation.call`
//! (multimodal-generation, chosen by the model name).

use super::{ctor_map, validate_tool_choice, Constructed, Failure, Rejected, Wire, API_KEY};
use crate::json;
use crate::py::{self, PyErr};
use serde_json::{Map, Value};

pub(super) fn build(
    model: &str,
    ctor: Map<String, Value>,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &super::Settings,
    warn: &mut dyn FnMut(String),
) -> Result<Wire, Rejected> {
    let enable_thinking = ctor.get("enable_thinking").filter(|v| !v.is_null());
    let mut stream = ctor.get("stream").is_none_or(crate::py::truthy);
    // Thinking needs streaming: the constructor switches it on.
    if enable_thinking.is_some_and(crate::py::truthy) && !stream {
        stream = true;
    }
    let constructed = Constructed {
        stream,
        model_kwargs: ctor.clone(),
    };
    let fail = |e| Box::new((Some(constructed.clone()), Failure::Model(e)));
    let mut kwargs = Map::new();
    kwargs.insert("messages".into(), Value::Array(messages));
    kwargs.insert("model".into(), Value::String(model.to_string()));
    kwargs.insert("stream".into(), Value::Bool(stream));
    kwargs.insert("result_format".into(), json!("message"));
    kwargs.insert("incremental_output".into(), Value::Bool(stream));
    kwargs.extend(ctor_map(&ctor, "generate_kwargs"));
    kwargs.extend(settings.call_kwargs.clone());
    if let Some(tools) = tools {
        kwargs.insert("tools".into(), checked_tools(tools).map_err(fail)?);
    }
    if let Some(choice) = settings.tool_choice.as_deref().filter(|c| !c.is_empty()) {
        let choice = if choice == "any" || choice == "required" {
            warn(format!(
                "DeprecationWarning: '{choice}' is not supported by DashScope API. It will be converted to 'auto'."
            ));
            "auto"
        } else {
            choice
        };
        validate_tool_choice(choice, tools).map_err(fail)?;
        kwargs.insert("tool_choice".into(), tool_choice(choice));
    }
    if let Some(thinking) = enable_thinking {
        if !kwargs.contains_key("enable_thinking") {
            kwargs.insert("enable_thinking".into(), thinking.clone());
        }
    }
    let multimodal = match ctor.get("multimodality").filter(|v| !v.is_null()) {
        Some(m) => crate::py::truthy(m),
        None => model.starts_with("qvq") || model.contains("-vl"),
    };
    let (sdk_call, task) = if multimodal {
        (
            "dashscope.AioMultiModalConversation.call",
            "multimodal-generation",
        )
    } else {
        (
            "dashscope.aigc.generation.AioGeneration.call",
            "text-generation",
        )
    };
    let mut recorded = Map::new();
    recorded.insert("api_key".into(), json!(API_KEY));
    recorded.extend(kwargs.clone());

    let base = ctor
        .get("base_http_api_url")
        .and_then(Value::as_str)
        .unwrap_or("https://dashscope.aliyuncs.com/api/v1");
    let url = format!(
        "{}/services/aigc/{task}/generation",
        base.trim_end_matches('/')
    );
    let sdk_stream = kwargs.get("stream").is_some_and(crate::py::truthy);
    let mut head = Map::new();
    head.insert(
        "accept".into(),
        json!(if sdk_stream {
            "text/event-stream"
        } else {
            "application/json"
        }),
    );
    head.insert("authorization".into(), json!(format!("Bearer {API_KEY}")));
    head.insert("content-type".into(), json!("application/json"));
    if sdk_stream {
        head.insert("x-accel-buffering".into(), json!("no"));
        head.insert("x-dashscope-sse".into(), json!("enable"));
    }
    let mut parameters = kwargs.clone();
    let messages = parameters.shift_remove("messages").unwrap_or(Value::Null);
    let model_value = parameters.shift_remove("model").unwrap_or(Value::Null);
    if let Some(Value::Object(extra)) = parameters.shift_remove("headers") {
        for (k, v) in extra {
            head.insert(k.to_lowercase(), v);
        }
    }
    // Text generation takes `enable_search` out for qwen models and puts it
    // first in the parameters when it is truthy.
    if !multimodal && model.starts_with("qwen") {
        if let Some(search) = parameters.shift_remove("enable_search") {
            if py::truthy(&search) {
                parameters.shift_insert(0, "enable_search".into(), search);
            }
        }
    }
    // Text generation refuses a call with neither a prompt nor messages
    // (`InputRequired`) before building anything; the multimodal call
    // sends what it has and leaves `input` empty.
    let has_messages = py::truthy(&messages);
    let sdk_error =
        (!multimodal && !has_messages && !parameters.get("prompt").is_some_and(py::truthy))
            .then(|| PyErr::new("InputRequired", "prompt or messages is required!"));
    let input = match has_messages {
        true => json!({"messages": messages}),
        false => json!({}),
    };
    let body = json!({"model": model_value, "parameters": parameters, "input": input});
    Ok(Wire {
        stream,
        model_kwargs: ctor,
        sdk_call,
        kwargs: Value::Object(recorded),
        method: "POST",
        url,
        headers: head,
        body,
        sdk_error,
        encoding: super::Encoding::Spaced,
        grpc: None,
    })
}

/// `_format_tools_json_schemas`: each tool must be a function schema.
fn checked_tools(tools: &Value) -> Result<Value, PyErr> {
    for tool in crate::py::iterate(tools)? {
        let is_function = tool.get("type").and_then(Value::as_str) == Some("function")
            && tool.get("function").is_some_and(Value::is_object);
        if !is_function {
            return Err(PyErr::value(format!(
                "Each schema must be a dict with 'type' as 'function' and 'function' key, got {}",
                crate::py::py_repr(&tool)
            )));
        }
    }
    Ok(tools.clone())
}

/// `_format_tool_choice`.
fn tool_choice(choice: &str) -> Value {
    match choice {
        "auto" | "none" => Value::String(choice.into()),
        name => json!({"type": "function", "function": {"name": name}}),
    }
}
