//! `OpenAIChatFormatter` and `OpenAIMultiAgentFormatter`.

use super::shared::{
    block_type, history_parts, join_field_owned, openai_tool_call, promoted_message,
    strip_file_scheme, tool_message, tool_result_text, unsupported_warning, Group, Promotion,
};
use super::FormatOptions;
use crate::json;
use crate::media::{sniff_mime, url_scheme, MediaEnv};
use crate::py::{self, get_item, py_str, PyErr};
use crate::session::{Msg, Role};
use serde_json::Value;
use std::sync::Arc;

const IMAGE_EXTENSIONS: [&str; 5] = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

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
        let mut content = Vec::new();
        let mut tool_calls = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("text") => content.push(block.clone()),
                Some("tool_use") => tool_calls.push(openai_tool_call(block)?),
                Some("tool_result") => {
                    let (text, media) = tool_result_text(env, get_item(block, "output")?)?;
                    messages.push(tool_message(block, text)?);
                    if let Some(promoted) = promoted_message(block, &media, &promotion)? {
                        msgs.insert(i + 1, promoted);
                    }
                }
                Some("image") => content.push(image_block(env, block)?),
                Some("audio") => {
                    if msg.role == Role::Assistant {
                        continue;
                    }
                    content.push(json!({
                        "type": "input_audio",
                        "input_audio": audio_data(env, get_item(block, "source")?)?,
                    }));
                }
                _ => unsupported_warning(env, block)?,
            }
        }
        let has_content = !content.is_empty();
        let has_calls = !tool_calls.is_empty();
        if has_content || has_calls {
            let mut out = json::object([
                ("role", Value::from(msg.role.as_str())),
                ("name", msg.name().clone()),
                (
                    "content",
                    if has_content {
                        Value::Array(content)
                    } else {
                        Value::Null
                    },
                ),
            ]);
            if has_calls {
                out.insert("tool_calls".to_string(), Value::Array(tool_calls));
            }
            messages.push(Value::Object(out));
        }
        i += 1;
    }
    Ok(messages)
}

/// One history group: all text in one part, then the images, then audio.
pub fn history(env: &MediaEnv, group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut images = Vec::new();
    let mut audios = Vec::new();
    // Media are not interleaved: they go after the single text part.
    let parts = history_parts(
        group,
        prompt,
        "<history>\n",
        |text| json!({"text": text}),
        |msg, block, typ| {
            match typ {
                "image" => images.push(image_block(env, block)?),
                "audio" if msg.role != Role::Assistant => audios.push(json!({
                    "type": "input_audio",
                    "input_audio": audio_data(env, get_item(block, "source")?)?,
                })),
                _ => {}
            }
            Ok(None)
        },
        |text| json!({"text": text}),
    )?;
    let text = join_field_owned(parts, "text")?;
    let mut content = Vec::new();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    content.extend(images);
    content.extend(audios);
    if content.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![json!({"role": "user", "content": content})])
}

/// `_format_openai_image_block`.
fn image_block(env: &MediaEnv, block: &Value) -> Result<Value, PyErr> {
    let source = get_item(block, "source")?;
    let url = match get_item(source, "type")?.as_str() {
        Some("url") => to_image_url(env, get_item(source, "url")?)?,
        Some("base64") => {
            let data = get_item(source, "data")?;
            let media_type = get_item(source, "media_type")?;
            format!("data:{};base64,{}", py_str(media_type), py_str(data))
        }
        _ => {
            return Err(PyErr::value(format!(
                "Unsupported image source type: {}",
                py_str(get_item(source, "type")?)
            )))
        }
    };
    Ok(json!({"type": "image_url", "image_url": {"url": url}}))
}

/// `_to_openai_image_url`: local files become data URLs, web URLs pass.
fn to_image_url(env: &MediaEnv, url_value: &Value) -> Result<String, PyErr> {
    let raw = strip_file_scheme(url_value)?;
    let url = py_str(url_value);
    if env.exists(raw) && env.is_file(raw) {
        if IMAGE_EXTENSIONS.iter().any(|ext| raw.ends_with(ext)) {
            let bytes = env.read(raw)?;
            let lower = raw.to_lowercase();
            let extension = lower.rsplit('.').next().unwrap_or_default();
            return Ok(format!(
                "data:image/{extension};base64,{}",
                py::b64encode(&bytes)
            ));
        }
        let bytes = env.read(raw)?;
        if let Some(mime) = sniff_mime(&bytes).filter(|m| m.starts_with("image/")) {
            return Ok(format!("data:{mime};base64,{}", py::b64encode(&bytes)));
        }
    }
    if !matches!(url_scheme(raw).as_str(), "" | "file") {
        return Ok(url);
    }
    Err(PyErr::value(format!(
        "Invalid image URL: \"{url}\". It should be a local file or a web URL."
    )))
}

/// `_to_openai_audio_data`.
fn audio_data(env: &MediaEnv, source: &Value) -> Result<Value, PyErr> {
    match get_item(source, "type")?.as_str() {
        Some("url") => {
            let url_value = get_item(source, "url")?;
            let raw = strip_file_scheme(url_value)?;
            let extension = raw.rsplit('.').next().unwrap_or_default().to_lowercase();
            if extension != "wav" && extension != "mp3" {
                return Err(PyErr::type_error(format!(
                    "Unsupported audio file extension: {extension}, wav and mp3 are supported."
                )));
            }
            let data = if env.exists(raw) {
                py::b64encode(&env.read(raw)?)
            } else if !matches!(url_scheme(raw).as_str(), "" | "file") {
                let url = py_str(url_value);
                let response = env.web().get(&url)?.raise_for_status(&url)?;
                py::b64encode(&response.body)
            } else {
                return Err(PyErr::value(format!(
                    "Unsupported audio source: {}, it should be a local file or a web URL.",
                    py_str(url_value)
                )));
            };
            Ok(json!({"data": data, "format": extension}))
        }
        Some("base64") => {
            let data = get_item(source, "data")?;
            let media_type = get_item(source, "media_type")?;
            let media_type_str = py::get_str_method_target(media_type, "split");
            if !matches!(media_type.as_str(), Some("audio/wav" | "audio/mp3")) {
                return Err(PyErr::type_error(format!(
                    "Unsupported audio media type: {}, only audio/wav and audio/mp3 are supported.",
                    py_str(media_type)
                )));
            }
            let subtype = media_type_str?.rsplit('/').next().unwrap_or_default();
            Ok(json!({"data": data, "format": subtype}))
        }
        _ => Err(PyErr::type_error(format!(
            "Unsupported audio source: {}.",
            py_str(get_item(source, "type")?)
        ))),
    }
}
