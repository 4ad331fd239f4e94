//! OpenAIFormatter (formatters-v0.md §3): format_chat is format_multi_agent; tool
//! results become their own messages before the one that carries them.

use super::media;
use super::msg::{btype, flatten, Arg};
use crate::json;
use crate::media::MediaEnv;
use crate::py::{dumps, py_str, PyErr};
use serde_json::{Map, Value};

pub(super) fn tool_call(b: &Value) -> Value {
    json!({
        "id": b.get("id").cloned().unwrap_or(Value::Null),
        "type": "function",
        "function": {
            "name": b.get("name").cloned().unwrap_or(Value::Null),
            "arguments": dumps(b.get("input").unwrap_or(&Value::Null)),
        },
    })
}

pub(super) fn tool_message(b: &Value) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": b.get("id").cloned().unwrap_or(Value::Null),
        "content": py_str(b.get("output").unwrap_or(&Value::Null)),
        "name": b.get("name").cloned().unwrap_or(Value::Null),
    })
}

/// The block's `url`, or Python's `str(None)` when absent.
pub(super) fn url_of(b: &Value) -> String {
    b.get("url")
        .and_then(Value::as_str)
        .unwrap_or("None")
        .to_string()
}

/// OpenAIFormatter: chat and multi-agent are the same (§3).
pub(super) fn openai(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for m in msgs {
        let mut content = Vec::new();
        let mut calls = Vec::new();
        for b in m.blocks() {
            match btype(&b) {
                "text" => content.push(b.clone()),
                "tool_use" => calls.push(tool_call(&b)),
                "tool_result" => out.push(tool_message(&b)),
                "image" => content.push(json!({
                    "type": "image_url",
                    "image_url": {"url": media::openai_image_url(&url_of(&b), env)?},
                })),
                other => env.warn(format!(
                    "Unsupported block type {other} in the message, skipped."
                )),
            }
        }
        if content.is_empty() && calls.is_empty() {
            continue;
        }
        let mut msg = Map::new();
        msg.insert("role".into(), Value::from(m.role.clone()));
        msg.insert("name".into(), Value::from(m.name.clone()));
        msg.insert(
            "content".into(),
            if content.is_empty() {
                Value::Null
            } else {
                Value::Array(content)
            },
        );
        if !calls.is_empty() {
            msg.insert("tool_calls".into(), Value::Array(calls));
        }
        out.push(Value::Object(msg));
    }
    Ok(Value::Array(out))
}
