//! AnthropicFormatter (formatters-v0.md §4): chat keeps blocks; multi-agent
//! writes every block as a history line (tool blocks by their Python repr).

use super::media;
use super::msg::{btype, empty_error, flatten, Arg};
use super::openai::url_of;
use crate::json;
use crate::media::MediaEnv;
use crate::py::{py_repr, PyErr};
use serde_json::Value;

pub(super) fn anthropic_item(b: &Value, env: &MediaEnv) -> Result<Option<Value>, PyErr> {
    Ok(Some(match btype(b) {
        "text" => json!({"type": "text", "text": b.get("text").cloned().unwrap_or(Value::Null)}),
        "image" => json!({"type": "image", "source": media::anthropic_source(&url_of(b), env)?}),
        "tool_use" => b.clone(),
        "tool_result" => json!({
            "type": "tool_result",
            "tool_use_id": b.get("id").cloned().unwrap_or(Value::Null),
            "content": b.get("output").cloned().unwrap_or(Value::Null),
        }),
        other => {
            env.warn(format!("Unsupported block type: {other}"));
            return Ok(None);
        }
    }))
}

/// AnthropicFormatter.format_chat (§4.1).
pub(super) fn anthropic_chat(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let mut content = Vec::new();
        for b in m.blocks() {
            if let Some(item) = anthropic_item(&b, env)? {
                content.push(item);
            }
        }
        let role = if m.role == "system" && i != 0 {
            "user"
        } else {
            m.role.as_str()
        };
        out.push(json!({"role": role, "content": content}));
    }
    Ok(Value::Array(out))
}

/// AnthropicFormatter.format_multi_agent (§4.2).
pub(super) fn anthropic_multi(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    if msgs.is_empty() {
        return Err(empty_error());
    }
    let mut system = None;
    let mut lines = Vec::new();
    let mut images = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if i == 0 && m.role == "system" {
            system = m.text()?;
            continue;
        }
        for b in m.blocks() {
            match btype(&b) {
                "text" => lines.push(format!(
                    "{}: {}",
                    m.name,
                    b.get("text").and_then(Value::as_str).unwrap_or("None")
                )),
                "tool_use" => lines.push(format!("<tool_use>{}</tool_use>", py_repr(&b))),
                "tool_result" => lines.push(format!("<tool_result>{}</tool_result>", py_repr(&b))),
                "image" => images.push(
                    json!({"type": "image", "source": media::anthropic_source(&url_of(&b), env)?}),
                ),
                _ => {}
            }
        }
    }
    let history = if lines.is_empty() {
        String::new()
    } else {
        format!("## Conversation History\n{}", lines.join("\n"))
    };
    let mut out = Vec::new();
    if let Some(s) = system {
        out.push(json!({"role": "system", "content": s}));
    }
    let mut content = vec![json!({"type": "text", "text": history})];
    content.extend(images);
    out.push(json!({"role": "user", "content": content}));
    Ok(Value::Array(out))
}
