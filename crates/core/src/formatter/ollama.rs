//! `OllamaChatFormatter` and `OllamaMultiAgentFormatter`.

use super::shared::{
    block_type, get_or, get_or_null, history_parts, join_field, join_field_owned, promoted_message,
    strip_file_scheme, tool_message, tool_result_text, unsupported_warning, Group, Promotion,
};
use super::FormatOptions;
use crate::json;
use crate::media::{url_scheme, MediaEnv};
use crate::py::{self, get_item, py_str, PyErr};
use crate::session::Msg;
use serde_json::Value;
use std::sync::Arc;

pub fn chat(
    env: &MediaEnv,
    msgs: &mut Vec<Arc<Msg>>,
    options: &FormatOptions,
) -> Result<Vec<Value>, PyErr> {
    let promotion = Promotion {
        images: options.promote_images,
        audios: false,
        videos: false,
        wording: "image contents",
    };
    let mut messages = Vec::new();
    let mut i = 0;
    while i < msgs.len() {
        let msg = Arc::clone(&msgs[i]);
        let mut texts = Vec::new();
        let mut tool_calls = Vec::new();
        let mut images = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("text") => texts.push(block.clone()),
                Some("tool_use") => tool_calls.push(json!({
                    "id": get_or_null(block, "id")?,
                    "type": "function",
                    // Ollama takes the arguments as an object, not a string.
                    "function": {"name": get_or_null(block, "name")?, "arguments": get_or(block, "input", json!({}))?},
                })),
                Some("tool_result") => {
                    let (text, media) = tool_result_text(env, get_item(block, "output")?)?;
                    messages.push(tool_message(block, text)?);
                    if let Some(promoted) = promoted_message(block, &media, &promotion)? {
                        msgs.insert(i + 1, promoted);
                    }
                }
                Some("image") => images.push(image_data(env, block)?),
                _ => unsupported_warning(env, block)?,
            }
        }
        let content = join_field(&texts, "text")?;
        let keep = !content.is_empty() || !images.is_empty() || !tool_calls.is_empty();
        let mut out = json!({
            "role": msg.role.as_str(),
            "content": if content.is_empty() { Value::Null } else { Value::String(content) },
        });
        if !tool_calls.is_empty() {
            out["tool_calls"] = Value::Array(tool_calls);
        }
        if !images.is_empty() {
            out["images"] = Value::Array(images);
        }
        if keep {
            messages.push(out);
        }
        i += 1;
    }
    Ok(messages)
}

/// One history group: one string (each image leaves an empty line) and the
/// images in `images`.
pub fn history(env: &MediaEnv, group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut images = Vec::new();
    // An image stays in the parts as a copy of its block (no text), so it
    // leaves an empty line when the parts are joined.
    let parts = history_parts(
        group,
        prompt,
        "<history>\n",
        |text| json!({"text": text}),
        |_, block, typ| {
            if typ != "image" {
                return Ok(None);
            }
            images.push(image_data(env, block)?);
            Ok(Some(block.clone()))
        },
        |text| json!({"text": text}),
    )?;
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = json!({"role": "user", "content": join_field_owned(parts, "text")?});
    if !images.is_empty() {
        out["images"] = Value::Array(images);
    }
    Ok(vec![out])
}

/// `_format_ollama_image_block`: bare base64; any local file is accepted.
fn image_data(env: &MediaEnv, block: &Value) -> Result<Value, PyErr> {
    let source = get_item(block, "source")?;
    match get_item(source, "type")?.as_str() {
        Some("url") => {
            let url_value = get_item(source, "url")?;
            let raw = strip_file_scheme(url_value)?;
            if env.exists(raw) {
                return Ok(Value::String(py::b64encode(&env.read(raw)?)));
            }
            if !matches!(url_scheme(raw).as_str(), "" | "file") {
                return Ok(Value::String(env.fetch_text_or_base64(&py_str(url_value))?));
            }
            Err(PyErr::value(format!(
                "The URL `{}` is not a valid image URL or local file.",
                py_str(url_value)
            )))
        }
        Some("base64") => Ok(get_item(source, "data")?.clone()),
        _ => Err(PyErr::value(format!(
            "Unsupported image source type: {}",
            py_str(get_item(source, "type")?)
        ))),
    }
}
