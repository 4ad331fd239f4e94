//! `DashScopeChatFormatter` and `DashScopeMultiAgentFormatter`.

use super::shared::{
    block_type, get_or_null, history_parts, openai_tool_call, promoted_message, tool_message,
    tool_result_text, unsupported_warning, Group, Promotion,
};
use super::FormatOptions;
use crate::json;
use crate::media::{guess_type, MediaEnv};
use crate::py::{self, get_item, py_get, py_str, PyErr};
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
        audios: options.promote_audios,
        videos: options.promote_videos,
        wording: "media contents",
    };
    let mut messages = Vec::new();
    let mut i = 0;
    while i < msgs.len() {
        let msg = Arc::clone(&msgs[i]);
        let mut content = Vec::new();
        let mut tool_calls = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("text") => content.push(json!({"text": get_or_null(block, "text")?})),
                Some("image" | "audio" | "video") => content.push(media_block(env, block)?),
                Some("tool_use") => tool_calls.push(openai_tool_call(block)?),
                Some("tool_result") => {
                    let (text, media) = tool_result_text(env, get_item(block, "output")?)?;
                    messages.push(tool_message(block, text)?);
                    if let Some(promoted) = promoted_message(block, &media, &promotion)? {
                        msgs.insert(i + 1, promoted);
                    }
                }
                _ => unsupported_warning(env, block)?,
            }
        }
        let keep = !content.is_empty() || !tool_calls.is_empty();
        // A tool-call-only message keeps `content: []`: qwen-vl models
        // reject a missing or null content.
        let mut out = json!({"role": msg.role.as_str(), "content": content});
        if !tool_calls.is_empty() {
            out["tool_calls"] = Value::Array(tool_calls);
        }
        if keep {
            messages.push(out);
        }
        i += 1;
    }
    reformat(&mut messages)?;
    Ok(messages)
}

/// One history group: text and media parts interleaved.
pub fn history(env: &MediaEnv, group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let parts = history_parts(
        group,
        prompt,
        "<history>\n",
        |text| json!({"text": text}),
        |_, block, typ| {
            Ok(match typ {
                "image" | "audio" | "video" => Some(media_block(env, block)?),
                _ => None,
            })
        },
        |text| json!({"text": text}),
    )?;
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    let mut messages = vec![json!({"role": "user", "content": parts})];
    reformat(&mut messages)?;
    Ok(messages)
}

/// `_format_dashscope_media_block`: `{type: url-or-data-URI}`.
fn media_block(env: &MediaEnv, block: &Value) -> Result<Value, PyErr> {
    let typ = get_item(block, "type")?
        .as_str()
        .unwrap_or_default()
        .to_string();
    let source = get_item(block, "source")?;
    match get_item(source, "type")?.as_str() {
        Some("url") => {
            let url_value = get_item(source, "url")?;
            let url = py::get_str_method_target(url_value, "removeprefix")?;
            let url = url.strip_prefix("file://").unwrap_or(url);
            let local = url.strip_prefix("file://").unwrap_or(url);
            if env.is_file(local) {
                let abs_path = env.abspath(url);
                let Some(media_type) = guess_type(&abs_path) else {
                    return Err(PyErr::value(format!(
                        "Cannot determine the media type of '{abs_path}'. Please use a file with a recognized extension (e.g., .png, .jpg, .mp3, .mp4)."
                    )));
                };
                let bytes = env.read(&abs_path)?;
                Ok(json!({typ: format!("data:{media_type};base64,{}", py::b64encode(&bytes))}))
            } else {
                Ok(json!({typ: url}))
            }
        }
        Some("base64") => {
            let media_type = get_item(source, "media_type")?;
            let data = get_item(source, "data")?;
            Ok(json!({typ: format!("data:{};base64,{}", py_str(media_type), py_str(data))}))
        }
        _ => Err(PyErr::new(
            "NotImplementedError",
            format!(
                "Unsupported source type '{}' for {typ} block.",
                py_str(&py_get(source, "type")?.cloned().unwrap_or(Value::Null))
            ),
        )),
    }
}

/// `_reformat_messages`: an all-text content list becomes one string of its
/// non-empty texts joined with `"\n"` (when there is at least one).
fn reformat(messages: &mut [Value]) -> Result<(), PyErr> {
    for message in messages.iter_mut() {
        let Some(Value::Array(items)) = message.get("content") else {
            continue;
        };
        let mut all_text = true;
        let mut texts = Vec::new();
        for item in items {
            let Some(map) = item.as_object() else {
                all_text = false;
                break;
            };
            let Some(text) = map.get("text") else {
                all_text = false;
                break;
            };
            if map.get("type").is_some_and(|t| t.as_str() != Some("text")) {
                all_text = false;
                break;
            }
            if py::truthy(text) {
                texts.push(text.clone());
            }
        }
        if all_text && !texts.is_empty() {
            message["content"] = Value::String(py::join_strs("\n", &texts)?);
        }
    }
    Ok(())
}
