//! `GeminiChatFormatter` and `GeminiMultiAgentFormatter`.

use super::shared::{
    block_type, get_or_null, history_parts, promoted_message, strip_file_scheme, tool_result_text,
    Group, Promotion,
};
use super::FormatOptions;
use crate::json;
use crate::media::{url_scheme, MediaEnv};
use crate::py::{self, get_item, py_str, PyErr};
use crate::session::{Msg, Role};
use serde_json::Value;
use std::sync::Arc;

/// `GeminiChatFormatter.supported_extensions`, in its order.
const SUPPORTED: [(&str, &[&str]); 3] = [
    ("image", &["png", "jpeg", "webp", "heic", "heif"]),
    (
        "video",
        &[
            "mp4", "mpeg", "mov", "avi", "x-flv", "mpg", "webm", "wmv", "3gpp",
        ],
    ),
    ("audio", &["mp3", "wav", "aiff", "aac", "ogg", "flac"]),
];
const SUPPORTED_REPR: &str = "{'image': ['png', 'jpeg', 'webp', 'heic', 'heif'], 'video': ['mp4', 'mpeg', 'mov', 'avi', 'x-flv', 'mpg', 'webm', 'wmv', '3gpp'], 'audio': ['mp3', 'wav', 'aiff', 'aac', 'ogg', 'flac']}";

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
        let mut parts = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("text") => {
                    let mut part = json!({"text": get_or_null(block, "text")?});
                    add_signature(&mut part, block)?;
                    parts.push(part);
                }
                Some("tool_use") => {
                    let name = get_item(block, "name")?;
                    let args = get_item(block, "input")?;
                    let mut part =
                        json!({"function_call": {"id": null, "name": name, "args": args}});
                    add_signature(&mut part, block)?;
                    parts.push(part);
                }
                Some("tool_result") => {
                    let (text, media) = tool_result_text(env, get_item(block, "output")?)?;
                    let id = get_item(block, "id")?;
                    let name = get_item(block, "name")?;
                    messages.push(json!({
                        "role": "user",
                        "parts": [{"function_response": {"id": id, "name": name, "response": {"output": text}}}],
                    }));
                    if let Some(promoted) = promoted_message(block, &media, &promotion)? {
                        msgs.insert(i + 1, promoted);
                    }
                }
                Some("image" | "audio" | "video") => parts.push(media_part(env, block)?),
                _ => {
                    let typ = get_or_null(block, "type")?;
                    env.warn(format!(
                        "Unsupported block type: {} in the message, skipped. ",
                        py_str(&typ)
                    ));
                }
            }
        }
        let role = if msg.role == Role::Assistant {
            "model"
        } else {
            "user"
        };
        if !parts.is_empty() {
            messages.push(json!({"role": role, "parts": parts}));
        }
        i += 1;
    }
    Ok(messages)
}

/// One history group: text and media parts interleaved, `<history>` with
/// no newline after it.
pub fn history(env: &MediaEnv, group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let parts = history_parts(
        group,
        prompt,
        "<history>",
        |text| json!({"text": text}),
        |_, block, typ| {
            Ok(match typ {
                "image" | "video" | "audio" => Some(media_part(env, block)?),
                _ => None,
            })
        },
        |text| json!({"text": text}),
    )?;
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![json!({"role": "user", "parts": parts})])
}

/// A `thought_signature` is base64-decoded to bytes, written `{"$bytes": b64}`.
fn add_signature(part: &mut Value, block: &Value) -> Result<(), PyErr> {
    let sig = get_or_null(block, "thought_signature")?;
    if !sig.is_null() {
        let bytes = py::b64decode(&sig)?;
        part["thought_signature"] = json!({"$bytes": py::b64encode(&bytes)});
    }
    Ok(())
}

/// `_format_gemini_media_block`.
fn media_part(env: &MediaEnv, block: &Value) -> Result<Value, PyErr> {
    let source = get_item(block, "source")?;
    match get_item(source, "type")?.as_str() {
        Some("base64") => {
            let data = get_item(source, "data")?;
            let mime = get_item(source, "media_type")?;
            Ok(json!({"inline_data": {"data": data, "mime_type": mime}}))
        }
        Some("url") => Ok(json!({"inline_data": inline_data(env, get_item(source, "url")?)?})),
        _ => Err(PyErr::value(format!(
            "Unsupported source type: {}",
            py_str(get_item(source, "type")?)
        ))),
    }
}

/// `_to_gemini_inline_data`: the category comes from the extension, which
/// is whatever follows the last `.` of the whole string.
fn inline_data(env: &MediaEnv, url_value: &Value) -> Result<Value, PyErr> {
    let raw = strip_file_scheme(url_value)?;
    let extension = raw.rsplit('.').next().unwrap_or_default().to_lowercase();
    let category = SUPPORTED
        .iter()
        .find(|(_, exts)| exts.contains(&extension.as_str()))
        .map(|(k, _)| *k);
    let unsupported = || {
        PyErr::type_error(format!(
            "Unsupported file extension: {extension}, expected {SUPPORTED_REPR}"
        ))
    };
    if env.exists(raw) {
        let category = category.ok_or_else(unsupported)?;
        let data = py::b64encode(&env.read(raw)?);
        return Ok(json!({"data": data, "mime_type": format!("{category}/{extension}")}));
    }
    if !matches!(url_scheme(raw).as_str(), "" | "file") {
        let category = category.ok_or_else(unsupported)?;
        let data = env.fetch_text_or_base64(&py_str(url_value))?;
        return Ok(json!({"data": data, "mime_type": format!("{category}/{extension}")}));
    }
    Err(PyErr::value(format!(
        "The URL `{}` is not a valid image URL or local file.",
        py_str(url_value)
    )))
}
