//! An OpenAI chat-completions request body, turned into AgentScope MSGs.
//!
//! A body whose messages already are valid MSGs (each with `name`, a
//! `user`/`assistant`/`system` role and no OpenAI-only keys) is read as our
//! own session shape, exactly as the reference oracle reads it.

use crate::json;
use serde_json::{Map, Value};

/// A session object (`map`, its messages aside) is an OpenAI request
/// body: it names a model and none of our settings, and one of its
/// `messages` is not a MSG (read one at a time: they may be packed).
pub fn looks_like_openai_request<M: std::borrow::Borrow<Value>>(
    map: &Map<String, Value>,
    messages: impl IntoIterator<Item = M>,
) -> bool {
    if ["provider", "mode", "title"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return false;
    }
    // `max_tokens` is a session's budget too: it counts as the body's own
    // only beside a field no session has.
    const BODY_ONLY: [&str; 12] = [
        "temperature",
        "top_p",
        "tool_choice",
        "stream",
        "stream_options",
        "stop",
        "seed",
        "n",
        "response_format",
        "max_completion_tokens",
        "frequency_penalty",
        "presence_penalty",
    ];
    if map.contains_key("max_tokens") && !BODY_ONLY.iter().any(|k| map.contains_key(*k)) {
        return false;
    }
    map.contains_key("model")
        && messages.into_iter().any(|m| {
            let Some(m) = m.borrow().as_object() else {
                return false;
            };
            !m.contains_key("name")
                || m.contains_key("tool_calls")
                || m.contains_key("tool_call_id")
                || !matches!(
                    m.get("role").and_then(Value::as_str),
                    Some("user" | "assistant" | "system")
                )
        })
}

/// Converts the body; an error names the JSON pointer of the bad value.
pub fn convert(doc: &Value) -> Result<Body, (String, String)> {
    let map = doc
        .as_object()
        .ok_or((String::new(), "expected an object".to_string()))?;
    let messages = map
        .get("messages")
        .and_then(Value::as_array)
        .ok_or(("/messages".to_string(), "expected an array".to_string()))?;
    // Tool names by call id, for tool messages that carry no name.
    let mut call_names: Map<String, Value> = Map::new();
    let mut out = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let at = |field: &str| format!("/messages/{i}{field}");
        let m = m
            .as_object()
            .ok_or((at(""), "expected a message object".to_string()))?;
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        match role {
            "tool" => {
                let id = m.get("tool_call_id").cloned().unwrap_or(Value::Null);
                let name = m
                    .get("name")
                    .cloned()
                    .or_else(|| id.as_str().and_then(|id| call_names.get(id).cloned()))
                    .unwrap_or(Value::Null);
                let output = match content {
                    Value::Array(parts) => Value::Array(parts.iter().map(convert_part).collect()),
                    Value::Null => Value::String(String::new()),
                    other => other,
                };
                out.push(json!({
                    "name": "system",
                    "role": "system",
                    "content": [{"type": "tool_result", "id": id, "name": name, "output": output}],
                }));
            }
            "system" | "developer" | "user" | "assistant" => {
                let role = if role == "developer" { "system" } else { role };
                let name = m.get("name").cloned().unwrap_or_else(|| Value::from(role));
                let mut blocks: Vec<Value> = match &content {
                    Value::String(s) if m.get("tool_calls").is_none() => {
                        out.push(json!({"name": name, "role": role, "content": s}));
                        continue;
                    }
                    Value::String(s) => vec![json!({"type": "text", "text": s})],
                    Value::Array(parts) => parts.iter().map(convert_part).collect(),
                    Value::Null => Vec::new(),
                    _ => {
                        return Err((at("/content"), "expected a string, an array or null".into()))
                    }
                };
                for call in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let function = call.get("function").cloned().unwrap_or(Value::Null);
                    let name = function.get("name").cloned().unwrap_or(Value::Null);
                    let args = function.get("arguments").cloned().unwrap_or(Value::Null);
                    let input = match &args {
                        Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| json!({})),
                        Value::Object(_) => args.clone(),
                        _ => json!({}),
                    };
                    let id = call.get("id").cloned().unwrap_or(Value::Null);
                    if let Some(id) = id.as_str() {
                        call_names.insert(id.to_string(), name.clone());
                    }
                    blocks
                        .push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
                }
                out.push(json!({"name": name, "role": role, "content": blocks}));
            }
            other => {
                return Err((at("/role"), format!("unknown role {other:?}")));
            }
        }
    }
    let mut settings = Map::new();
    settings.insert("provider".into(), "openai".into());
    settings.insert("mode".into(), "chat".into());
    if let Some(model) = map.get("model") {
        settings.insert("model".into(), model.clone());
    }
    if let Some(request) = request_object(map) {
        settings.insert("request".into(), request);
    }
    Ok(Body {
        messages: out,
        tools: map.get("tools").cloned(),
        settings,
    })
}

/// A body as a session's parts: its messages as AgentScope MSG dicts, its
/// tools and the settings it implies (the loader makes the session).
pub struct Body {
    pub messages: Vec<Value>,
    pub tools: Option<Value>,
    pub settings: Map<String, Value>,
}

/// The body's other fields as the session's `"request"` object, so the wire
/// sends what the pasted body asked for: `stream`, `tool_choice` (a named
/// function as its name, as AgentScope takes it) and every sampling or
/// output field (`temperature`, `max_tokens`, `response_format`, ...) as
/// keyword arguments of the call.
fn request_object(body: &Map<String, Value>) -> Option<Value> {
    let mut request = Map::new();
    let mut call_kwargs = Map::new();
    for (key, value) in body {
        match key.as_str() {
            "model" | "messages" | "tools" => {}
            "stream" if value.is_boolean() => {
                request.insert("stream".into(), value.clone());
            }
            "tool_choice" => {
                let named = value
                    .get("function")
                    .and_then(|f| f.get("name"))
                    .filter(|n| n.is_string());
                match (value, named) {
                    (Value::String(_), _) => {
                        request.insert("tool_choice".into(), value.clone());
                    }
                    (_, Some(name)) => {
                        request.insert("tool_choice".into(), name.clone());
                    }
                    _ => {
                        call_kwargs.insert(key.clone(), value.clone());
                    }
                }
            }
            _ => {
                call_kwargs.insert(key.clone(), value.clone());
            }
        }
    }
    if !call_kwargs.is_empty() {
        request.insert("call_kwargs".into(), Value::Object(call_kwargs));
    }
    (!request.is_empty()).then_some(Value::Object(request))
}

/// One OpenAI content part as an AgentScope block.
fn convert_part(part: &Value) -> Value {
    match part.get("type").and_then(Value::as_str) {
        Some("text") => {
            json!({"type": "text", "text": part.get("text").cloned().unwrap_or(Value::Null)})
        }
        Some("image_url") => {
            let url = part
                .get("image_url")
                .and_then(|u| u.get("url").or(Some(u)))
                .and_then(Value::as_str)
                .unwrap_or_default();
            json!({"type": "image", "source": data_url_source(url)})
        }
        Some("input_audio") => {
            let audio = part.get("input_audio").cloned().unwrap_or(Value::Null);
            let format = audio.get("format").and_then(Value::as_str).unwrap_or("wav");
            json!({"type": "audio", "source": {
                "type": "base64",
                "media_type": format!("audio/{format}"),
                "data": audio.get("data").cloned().unwrap_or(Value::Null),
            }})
        }
        _ => part.clone(),
    }
}

/// `data:<type>;base64,<data>` becomes a base64 source, anything else a URL.
fn data_url_source(url: &str) -> Value {
    if let Some(rest) = url.strip_prefix("data:") {
        if let Some((media_type, data)) = rest.split_once(";base64,") {
            return json!({"type": "base64", "media_type": media_type, "data": data});
        }
    }
    json!({"type": "url", "url": url})
}

#[cfg(test)]
mod tests {
    use crate::session::{parse_session, InputShape};

    #[test]
    fn converts_an_openai_body() {
        let body = r#"{"model": "gpt-4o", "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Hi"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                "function": {"name": "f", "arguments": "{\"x\": 1.50}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "done"}
        ], "tools": []}"#;
        let s = parse_session(body, "b.json").unwrap();
        assert_eq!(s.shape, InputShape::OpenAiRequest);
        assert_eq!(s.messages[0].value()["name"], "system");
        assert_eq!(
            s.messages[1].value()["content"][1]["source"]["type"],
            "base64"
        );
        assert_eq!(
            s.messages[2].value()["content"][0]["input"]["x"].to_string(),
            "1.5"
        );
        assert_eq!(s.messages[3].value()["content"][0]["name"], "f");
        assert_eq!(s.model(), Some("gpt-4o"));
    }
}
