//! `AnthropicChatFormatter` and `AnthropicMultiAgentFormatter`.

use super::shared::{
    block_type, get_or, get_or_null, history_parts, strip_file_scheme, unsupported_warning, Group,
};
use crate::json;
use crate::media::{sniff_mime, splitext, url_scheme, MediaEnv};
use crate::py::{self, get_item, py_get, py_str, PyErr};
use crate::session::{Msg, Role};
use serde_json::Value;
use std::sync::Arc;

pub fn chat(env: &MediaEnv, msgs: &mut [Arc<Msg>]) -> Result<Vec<Value>, PyErr> {
    chat_at(env, msgs, 0)
}

/// `chat` for messages that sit at `offset` in the list the formatter sees
/// (only the message at index 0 may keep the `system` role).
pub fn chat_at(env: &MediaEnv, msgs: &[Arc<Msg>], offset: usize) -> Result<Vec<Value>, PyErr> {
    let mut messages = Vec::new();
    for (index, msg) in msgs.iter().enumerate() {
        let index = index + offset;
        let mut content = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("thinking" | "text") => content.push(block.clone()),
                Some("image") => content.push(image_block(env, block)?),
                Some("tool_use") => content.push(json!({
                    "id": get_or_null(block, "id")?,
                    "type": "tool_use",
                    "name": get_or_null(block, "name")?,
                    "input": get_or(block, "input", json!({}))?,
                })),
                Some("tool_result") => {
                    let value = match get_or_null(block, "output")? {
                        Value::Null => json!([{"type": "text", "text": ""}]),
                        Value::Array(items) => {
                            let mut out = Vec::with_capacity(items.len());
                            for item in items {
                                if py_get(&item, "type")?.and_then(Value::as_str) == Some("image") {
                                    out.push(image_block(env, &item)?);
                                } else {
                                    out.push(item);
                                }
                            }
                            Value::Array(out)
                        }
                        other => json!([{"type": "text", "text": py_str(&other)}]),
                    };
                    messages.push(json!({
                        "role": "user",
                        "content": [{
                            "type": "tool_result",
                            "tool_use_id": get_or_null(block, "id")?,
                            "content": value,
                        }],
                    }));
                }
                _ => unsupported_warning(env, block)?,
            }
        }
        // Only the first message of what this formatter sees may be `system`.
        let role = if msg.role == Role::System && index != 0 {
            "user"
        } else {
            msg.role.as_str()
        };
        if !content.is_empty() {
            messages.push(json!({"role": role, "content": content}));
        }
    }
    Ok(messages)
}

/// One history group: text parts interleaved with images.
pub fn history(env: &MediaEnv, group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    // Gathered text is {"text", "type"}; the wrapper's own parts {"type", "text"}.
    let parts = history_parts(
        group,
        prompt,
        "<history>\n",
        |text| json!({"text": text, "type": "text"}),
        |_, block, typ| {
            Ok(match typ {
                "image" => Some(image_block(env, block)?),
                _ => None,
            })
        },
        |text| json!({"type": "text", "text": text}),
    )?;
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![json!({"role": "user", "content": parts})])
}

/// `_format_anthropic_image_block`: local files become base64 sources.
fn image_block(env: &MediaEnv, block: &Value) -> Result<Value, PyErr> {
    let source = get_item(block, "source")?;
    if get_item(source, "type")?.as_str() == Some("base64") {
        return Ok(block.clone());
    }
    let url_value = get_item(source, "url")?;
    let raw = strip_file_scheme(url_value)?;
    if env.exists(raw) && env.is_file(raw) {
        let ext = splitext(raw).1.to_lowercase();
        let known = match ext.as_str() {
            ".png" => Some("image/png"),
            ".jpg" | ".jpeg" => Some("image/jpeg"),
            ".gif" => Some("image/gif"),
            ".webp" => Some("image/webp"),
            _ => None,
        };
        let bytes = env.read(raw)?;
        if let Some(media_type) =
            known.or_else(|| sniff_mime(&bytes).filter(|m| m.starts_with("image/")))
        {
            return Ok(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": py::b64encode(&bytes)},
            }));
        }
    }
    if !matches!(url_scheme(raw).as_str(), "" | "file") {
        return Ok(json!({"type": "image", "source": {"type": "url", "url": url_value}}));
    }
    Err(PyErr::value(format!(
        "Invalid image URL: \"{}\". It should be a local file or a web URL.",
        py_str(url_value)
    )))
}
