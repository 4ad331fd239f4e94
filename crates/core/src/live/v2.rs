//! AgentScope 2.0.11's calls: one `chat MODEL` span per model call, its
//! messages as GenAI "parts" (there is no formatter span), made back into
//! a session (live-tracing.md §3.4). A tool call's arguments come from
//! its `execute_tool` span, exactly as the model sent them (the chat span
//! holds them parsed, and 2.x sends the raw string back).

use super::otlp::Span;
use super::v1::json_attribute;
use super::{RebuildError, Rebuilt};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// What a 2.0.11 trace never carries.
pub const ASSUMED: &str = "the model's parameters (max_tokens, temperature, stream, reasoning_effort, extra_body), its ToolChoice and its formatter class are not in 2.0.11 traces: the request assumes the defaults and the provider's chat formatter; an agent that injects runtime state (InjectionConfig.inject_runtime_state, on by default) also sent a <system-reminder> user message the trace does not carry";

/// A hint block (runtime state, plan, context usage) is dropped from the
/// trace: its message arrives with no parts.
pub const HINT: &str = "a message the trace carries without its blocks (2.0.11 drops hint blocks: runtime state, plan, context usage) is left out; with runtime-state injection on (InjectionConfig.inject_runtime_state, the default) the request also held a <system-reminder> the trace does not have";

/// The provider as sessions name it.
fn provider(span: &Span) -> String {
    match span.text("gen_ai.provider.name") {
        Some("gcp.gemini") => "gemini".into(),
        Some(p) => p.into(),
        None => "openai".into(),
    }
}

/// The session of one model call. `raw` holds the tool calls' arguments
/// as the model sent them, by call id.
pub fn rebuild(chat: &Span, raw: &HashMap<String, String>) -> Result<Rebuilt, RebuildError> {
    let input =
        json_attribute(chat, "gen_ai.input.messages").ok_or(RebuildError::NoInputMessages)?;
    let input = input.as_array().ok_or(RebuildError::InputNotAList)?;
    // Tool names by call id, for the results (parts carry no name).
    let mut names: HashMap<&str, &str> = HashMap::new();
    for part in input.iter().flat_map(parts) {
        if part.get("type").and_then(Value::as_str) == Some("tool_call") {
            if let (Some(id), Some(name)) = (
                part.get("id").and_then(Value::as_str),
                part.get("name").and_then(Value::as_str),
            ) {
                names.insert(id, name);
            }
        }
    }
    let mut assumed = vec![ASSUMED.to_string()];
    let mut messages = Vec::with_capacity(input.len());
    for message in input {
        let blocks: Vec<Value> = parts(message)
            .filter_map(|p| block(p, raw, &names))
            .collect();
        if blocks.is_empty() {
            if !assumed.iter().any(|a| a == HINT) {
                assumed.push(HINT.into());
            }
            continue;
        }
        let mut m = Map::new();
        let name = message.get("name").and_then(Value::as_str);
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("user");
        m.insert("name".into(), name.unwrap_or(role).into());
        m.insert("role".into(), role.into());
        m.insert("content".into(), Value::Array(blocks));
        messages.push(Value::Object(m));
    }
    let provider = provider(chat);
    let mut session = Map::new();
    session.insert("provider".into(), provider.clone().into());
    session.insert("mode".into(), "chat".into());
    if let Some(model) = chat.text("gen_ai.request.model") {
        session.insert("model".into(), model.into());
    }
    if let Some(Value::Array(defs)) = json_attribute(chat, "gen_ai.tool.definitions") {
        let tools: Vec<Value> = defs
            .iter()
            .map(|d| {
                let mut function = Map::new();
                for key in ["name", "description", "parameters"] {
                    if let Some(v) = d.get(key) {
                        function.insert(key.into(), v.clone());
                    }
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        session.insert("tools".into(), Value::Array(tools));
    }
    session.insert("messages".into(), Value::Array(messages));
    Ok(Rebuilt {
        session,
        formatter: String::new(),
        recorded: None,
        assumed,
        conversation: chat
            .text("gen_ai.conversation.id")
            .filter(|c| *c != "[no_session_id]")
            .map(str::to_string),
    })
}

fn parts(message: &Value) -> impl Iterator<Item = &Value> {
    message
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A part as the session's block; None for a part the session cannot
/// hold (an unknown type).
fn block(
    part: &Value,
    raw: &HashMap<String, String>,
    names: &HashMap<&str, &str>,
) -> Option<Value> {
    let text = |k: &str| part.get(k).cloned().unwrap_or(Value::Null);
    match part.get("type").and_then(Value::as_str)? {
        "text" => Some(json!({"type": "text", "text": text("content")})),
        "reasoning" => Some(json!({"type": "thinking", "thinking": text("content")})),
        "tool_call" => {
            let id = part.get("id").and_then(Value::as_str).unwrap_or_default();
            // The raw string, as 2.x sends it back; else the parsed object.
            let input = raw
                .get(id)
                .map(|s| Value::String(s.clone()))
                .unwrap_or_else(|| text("arguments"));
            Some(json!({"type": "tool_use", "id": id, "name": text("name"), "input": input}))
        }
        "tool_call_response" => {
            let id = part.get("id").and_then(Value::as_str).unwrap_or_default();
            let name = names.get(id).copied().unwrap_or_default();
            let output = match part.get("response") {
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(Value::Array(blocks)) => {
                        let converted: Option<Vec<Value>> =
                            blocks.iter().map(output_block).collect();
                        converted
                            .map(Value::Array)
                            .unwrap_or_else(|| Value::String(s.clone()))
                    }
                    _ => Value::String(s.clone()),
                },
                Some(other) => other.clone(),
                None => Value::String(String::new()),
            };
            Some(json!({"type": "tool_result", "id": id, "name": name, "output": output}))
        }
        "uri" => {
            Some(json!({"type": modality(part), "source": {"type": "url", "url": text("uri")}}))
        }
        "blob" => Some(json!({"type": modality(part), "source": {"type": "base64",
            "media_type": text("media_type"), "data": text("content")}})),
        _ => None,
    }
}

/// A 2.x block inside a tool result's output, as a session block.
fn output_block(block: &Value) -> Option<Value> {
    match block.get("type").and_then(Value::as_str)? {
        "text" => Some(json!({"type": "text", "text": block.get("text")?})),
        "data" => {
            let source = block.get("source")?;
            let media_type = source
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let kind = media_kind(media_type);
            Some(json!({"type": kind, "source": source}))
        }
        _ => None,
    }
}

fn modality(part: &Value) -> &'static str {
    match part.get("modality").and_then(Value::as_str) {
        Some("audio") => "audio",
        Some("video") => "video",
        Some("image") => "image",
        _ => media_kind(
            part.get("media_type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        ),
    }
}

fn media_kind(media_type: &str) -> &'static str {
    match media_type.split('/').next() {
        Some("audio") => "audio",
        Some("video") => "video",
        _ => "image",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::v1::span;

    #[test]
    fn parts_become_blocks_with_the_raw_arguments() {
        let chat = span(
            "chat",
            json!({
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.tool.definitions": "[{\"type\": \"function\", \"name\": \"f\", \"description\": \"d\", \"parameters\": {}}]",
                "gen_ai.input.messages": json!([
                    {"role": "system", "parts": [{"type": "text", "content": "sys"}], "name": "system"},
                    {"role": "assistant", "parts": [], "name": "Friday"},
                    {"role": "assistant", "name": "Friday", "parts": [
                        {"type": "tool_call", "id": "c1", "name": "f", "arguments": {"a": 1}},
                        {"type": "tool_call_response", "id": "c1", "response": "[{\"type\": \"text\", \"text\": \"ok\", \"id\": \"x\"}]"}]}
                ]).to_string(),
            }),
        );
        let raw = HashMap::from([("c1".to_string(), "{\"a\":1}".to_string())]);
        let r = rebuild(&chat, &raw).expect("rebuilds");
        let s = Value::Object(r.session);
        assert_eq!(
            s["tools"][0],
            json!({"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}})
        );
        assert_eq!(
            s["messages"].as_array().map(Vec::len),
            Some(2),
            "the hint-only message is left out"
        );
        let blocks = &s["messages"][1]["content"];
        assert_eq!(blocks[0]["input"], "{\"a\":1}");
        assert_eq!(
            blocks[1],
            json!({"type": "tool_result", "id": "c1", "name": "f", "output": [{"type": "text", "text": "ok"}]})
        );
        assert!(r.assumed.iter().any(|a| a == HINT));
    }
}
