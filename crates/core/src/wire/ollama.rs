//! `OllamaChatModel` and the ollama SDK's `AsyncClient.chat` (ollama
//! 0.6.2): the request is a pydantic `ChatRequest`, so messages and tools
//! keep only the fields the SDK models, and `None`s are dropped.

use super::{ctor_map, headers, Rejected, Wire};
use crate::json;
use crate::py::{self, PyErr};
use serde_json::{Map, Value};

/// `AsyncClient.chat`'s parameters; `ChatRequest`'s field order is the
/// body's.
const CHAT: [&str; 10] = [
    "model",
    "messages",
    "tools",
    "stream",
    "think",
    "logprobs",
    "top_logprobs",
    "format",
    "options",
    "keep_alive",
];
const BODY_ORDER: [&str; 10] = [
    "model",
    "stream",
    "options",
    "format",
    "keep_alive",
    "messages",
    "tools",
    "think",
    "logprobs",
    "top_logprobs",
];

pub(super) fn build(
    model: &str,
    ctor: Map<String, Value>,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &super::Settings,
    warn: &mut dyn FnMut(String),
) -> Result<Wire, Rejected> {
    // The constructor takes **kwargs: nothing it is given raises.
    let stream = ctor.get("stream").is_some_and(py::truthy);
    let mut kwargs = Map::new();
    kwargs.insert("model".into(), Value::String(model.to_string()));
    kwargs.insert("messages".into(), Value::Array(messages));
    kwargs.insert("stream".into(), Value::Bool(stream));
    kwargs.insert(
        "options".into(),
        ctor.get("options").cloned().unwrap_or(Value::Null),
    );
    kwargs.insert(
        "keep_alive".into(),
        ctor.get("keep_alive").cloned().unwrap_or(json!("5m")),
    );
    kwargs.extend(ctor_map(&ctor, "generate_kwargs"));
    kwargs.extend(settings.call_kwargs.clone());
    if let Some(think) = ctor.get("enable_thinking").filter(|v| !v.is_null()) {
        if !kwargs.contains_key("think") {
            kwargs.insert("think".into(), think.clone());
        }
    }
    if let Some(tools) = tools {
        kwargs.insert("tools".into(), tools.clone());
    }
    if settings
        .tool_choice
        .as_deref()
        .is_some_and(|c| !c.is_empty())
    {
        warn("Ollama does not support tool_choice yet, ignored.".into());
    }
    let host = ctor
        .get("host")
        .and_then(Value::as_str)
        .map(parse_host)
        .unwrap_or_else(|| "http://127.0.0.1:11434".into());
    let (body, sdk_error) = match chat_request(&kwargs) {
        Ok(body) => (body, None),
        Err(e) => (Value::Null, Some(e)),
    };
    Ok(Wire {
        stream,
        model_kwargs: ctor,
        sdk_call: "ollama.AsyncClient.chat",
        kwargs: Value::Object(kwargs),
        method: "POST",
        url: format!("{host}/api/chat"),
        headers: headers(&[
            ("accept", "application/json"),
            ("content-type", "application/json"),
        ]),
        body,
        sdk_error,
        encoding: super::Encoding::Compact,
        grpc: None,
    })
}

/// `ChatRequest(...).model_dump(exclude_none=True)`.
pub(crate) fn chat_request(kwargs: &Map<String, Value>) -> Result<Value, PyErr> {
    if let Some(k) = kwargs.keys().find(|k| !CHAT.contains(&k.as_str())) {
        return Err(PyErr::type_error(format!(
            "AsyncClient.chat() got an unexpected keyword argument '{k}'"
        )));
    }
    let mut fields = Map::new();
    for key in BODY_ORDER {
        let value = match key {
            "messages" => Some(Value::Array(
                py::iterate(kwargs.get("messages").unwrap_or(&Value::Null))?
                    .iter()
                    .map(message)
                    .collect::<Result<_, _>>()?,
            )),
            // Always a list, `[]` without tools.
            "tools" => Some(Value::Array(match kwargs.get("tools") {
                Some(tools) if !tools.is_null() => py::iterate(tools)?
                    .iter()
                    .map(tool)
                    .collect::<Result<_, _>>()?,
                _ => Vec::new(),
            })),
            _ => kwargs.get(key).filter(|v| !v.is_null()).cloned(),
        };
        if let Some(v) = value {
            fields.insert(key.to_string(), v);
        }
    }
    // The dump serialises the images in message order; the first that
    // cannot be serialised stops it.
    let images = fields
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("images").and_then(Value::as_array))
        .flatten();
    if let Some(e) = images.filter_map(image_error).next() {
        return Err(e);
    }
    Ok(Value::Object(fields))
}

/// `Message.model_validate({k: v for k, v in message.items() if v})`,
/// dumped: `role`, `content`, `thinking`, `images`, `tool_name`,
/// `tool_calls`; everything else is not sent.
fn message(m: &Value) -> Result<Value, PyErr> {
    let Value::Object(map) = m else {
        return Err(validation("Message", "Input should be a valid dictionary"));
    };
    let kept = |key: &str| map.get(key).filter(|v| py::truthy(v));
    let mut out = Map::new();
    match kept("role") {
        Some(Value::String(r)) => out.insert("role".into(), Value::String(r.clone())),
        _ => return Err(validation("Message.role", "Field required, a string")),
    };
    for key in ["content", "thinking", "tool_name"] {
        match kept(key) {
            None => {}
            Some(Value::String(s)) => {
                out.insert(key.into(), Value::String(s.clone()));
            }
            Some(_) => {
                return Err(validation(
                    &format!("Message.{key}"),
                    "Input should be a valid string",
                ))
            }
        }
    }
    if let Some(images) = kept("images") {
        // Checked when the request is dumped, after every field validated:
        // see `image_error`.
        out.insert("images".into(), Value::Array(py::iterate(images)?));
    }
    if let Some(calls) = kept("tool_calls") {
        let mut list = Vec::new();
        for call in py::iterate(calls)? {
            let function = py::get_item(&call, "function")?;
            list.push(json!({"function": {
                "name": py::get_item(function, "name")?.clone(),
                "arguments": py::get_item(function, "arguments")?.clone(),
            }}));
        }
        out.insert("tool_calls".into(), Value::Array(list));
    }
    // Reorder as the model's fields (content before thinking, tool_name
    // before tool_calls).
    let order = [
        "role",
        "content",
        "thinking",
        "images",
        "tool_name",
        "tool_calls",
    ];
    Ok(Value::Object(
        order
            .iter()
            .filter_map(|k| out.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect(),
    ))
}

/// `Tool.model_validate(tool)`, dumped: `type` (default "function") and
/// `function` with `name`, `description` and `parameters` (`type`
/// "object", `items`, `required`, `properties` with `type`, `items`,
/// `description`, `enum` each, then `$defs`, which the request's serializer
/// moves to the end).
fn tool(t: &Value) -> Result<Value, PyErr> {
    let mut out = Map::new();
    out.insert(
        "type".into(),
        t.get("type")
            .cloned()
            .filter(|v| !v.is_null())
            .unwrap_or(json!("function")),
    );
    if let Some(function) = t.get("function").filter(|v| !v.is_null()) {
        let mut f = Map::new();
        for key in ["name", "description"] {
            if let Some(v) = function.get(key).filter(|v| !v.is_null()) {
                f.insert(key.into(), v.clone());
            }
        }
        if let Some(params) = function.get("parameters").filter(|v| !v.is_null()) {
            f.insert("parameters".into(), parameters(params)?);
        }
        out.insert("function".into(), Value::Object(f));
    }
    Ok(Value::Object(out))
}

fn parameters(p: &Value) -> Result<Value, PyErr> {
    let mut out = Map::new();
    match p.get("type") {
        None | Some(Value::Null) => {
            out.insert("type".into(), json!("object"));
        }
        Some(Value::String(s)) if s == "object" => {
            out.insert("type".into(), json!("object"));
        }
        Some(_) => {
            return Err(validation(
                "Tool.function.parameters.type",
                "Input should be 'object'",
            ))
        }
    }
    for key in ["items", "required"] {
        if let Some(v) = p.get(key).filter(|v| !v.is_null()) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(props) = p.get("properties").filter(|v| !v.is_null()) {
        let Value::Object(props) = props else {
            return Err(validation(
                "Tool.function.parameters.properties",
                "Input should be a valid dictionary",
            ));
        };
        let mut kept = Map::new();
        for (name, prop) in props {
            let mut q = Map::new();
            for key in ["type", "items", "description", "enum"] {
                if let Some(v) = prop.get(key).filter(|v| !v.is_null()) {
                    q.insert(key.into(), v.clone());
                }
            }
            kept.insert(name.clone(), Value::Object(q));
        }
        out.insert("properties".into(), Value::Object(kept));
    }
    if let Some(defs) = p.get("$defs").filter(|v| !v.is_null()) {
        out.insert("$defs".into(), defs.clone());
    }
    Ok(Value::Object(out))
}

fn validation(field: &str, what: &str) -> PyErr {
    PyErr::new(
        "ValidationError",
        format!("1 validation error for {field}: {what}"),
    )
}

/// What `Image.serialize_model` raises for a string, if anything (pydantic
/// reports it as a `PydanticSerializationError` of the dump). A string
/// naming an existing file would be read and encoded: formatscope does not
/// read files while building a request, so such a string is judged as text.
fn image_error(image: &Value) -> Option<PyErr> {
    let Value::String(s) = image else {
        return None;
    };
    let raised = |message: String| {
        Some(PyErr::new(
            "PydanticSerializationError",
            format!("Error calling function `serialize_model`: ValueError: {message}"),
        ))
    };
    // The text after the last dot, as `value.split('.')[-1]`: a file name
    // that does not exist.
    let extension = s.rsplit('.').next().unwrap_or_default();
    if ["png", "jpg", "jpeg", "webp"].contains(&extension) {
        return raised(format!("File {s} does not exist"));
    }
    if !b64decodes(s) {
        return raised(
            "Invalid image data, expected base64 string or path to image file".to_string(),
        );
    }
    None
}

/// `base64.b64decode(s)` succeeds: ASCII only, then binascii's lenient
/// `a2b_base64`: characters outside the alphabet are skipped, a pad ends
/// the input once the quad holds two or three characters and has its pads,
/// and the characters must otherwise fill whole quads.
fn b64decodes(s: &str) -> bool {
    if !s.is_ascii() {
        return false;
    }
    let (mut quad, mut pads) = (0usize, 0usize);
    for b in s.bytes() {
        if b == b'=' {
            if quad >= 2 {
                pads += 1;
                if quad + pads >= 4 {
                    return true;
                }
            }
            continue;
        }
        if !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/') {
            continue;
        }
        pads = 0;
        quad = (quad + 1) % 4;
    }
    quad == 0
}

/// `_parse_host`: a scheme and the default port when missing.
pub(crate) fn parse_host(host: &str) -> String {
    let host = host.trim_end_matches('/');
    let (scheme, rest) = match host.split_once("://") {
        Some((s, r)) => (s.to_string(), r.to_string()),
        None => ("http".to_string(), host.to_string()),
    };
    let has_port = rest
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    let port = if has_port {
        String::new()
    } else if scheme == "https" {
        ":443".into()
    } else {
        ":11434".into()
    };
    format!("{scheme}://{rest}{port}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b64decode_leniency_as_binascii() {
        for (s, ok) in [
            ("ab=c", false),
            ("abc=d", true),
            ("ab", false),
            ("", true),
            ("QUJD\n", true),
            ("a b c d", true),
            ("abcde", false),
            ("héllo", false),
        ] {
            assert_eq!(b64decodes(s), ok, "{s:?}");
        }
    }

    #[test]
    fn image_names_and_text() {
        let message = |v: &str| image_error(&json!(v)).map(|e| e.to_string());
        assert!(message("QUJD").is_none());
        assert!(message("cat.png").is_some_and(|m| m.contains("File cat.png does not exist")));
        // The extension check is case-sensitive: this one is base64 text.
        assert!(message("photo.JPG").is_none());
        assert!(message("not base64!").is_some_and(|m| m.contains("Invalid image data")));
    }
}
