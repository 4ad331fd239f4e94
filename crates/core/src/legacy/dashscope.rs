//! DashScopeFormatter (formatters-v0.md §5): media by URL; multi-agent takes
//! the media's kind from the URL's extension.

use super::media;
use super::msg::{btype, flatten, Arg};
use super::openai::{tool_call, tool_message, url_of};
use crate::json;
use crate::media::MediaEnv;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// DashScopeFormatter.format_chat (§5.1).
pub(super) fn dashscope_chat(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for m in msgs {
        let mut content = Vec::new();
        let mut calls = Vec::new();
        for b in m.blocks() {
            match btype(&b) {
                "text" => {
                    content.push(json!({"text": b.get("text").cloned().unwrap_or(Value::Null)}))
                }
                kind @ ("image" | "audio") => {
                    let mut item = Map::new();
                    item.insert(
                        kind.to_string(),
                        b.get("url").cloned().unwrap_or(Value::Null),
                    );
                    content.push(Value::Object(item));
                }
                "tool_use" => calls.push(tool_call(&b)),
                "tool_result" => out.push(tool_message(&b)),
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

/// DashScopeFormatter.format_multi_agent (§5.2).
pub(super) fn dashscope_multi(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    let mut lines = Vec::new();
    let mut media_items = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let text = m.text()?;
        if i == 0 && m.role == "system" {
            if let Some(t) = text.as_ref().filter(|t| !t.is_empty()) {
                out.push(json!({"role": "system", "content": [{"text": t}]}));
                continue;
            }
        }
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            lines.push(format!("{}: {t}", m.name));
        }
        for b in m.blocks() {
            if matches!(btype(&b), "image" | "audio") {
                if let Some(item) = media::dashscope_media(&url_of(&b), env) {
                    media_items.push(item);
                }
            }
        }
    }
    let mut content = media_items;
    content.push(json!({"text": format!("## Conversation History\n{}", lines.join("\n"))}));
    out.push(json!({"role": "user", "content": content}));
    Ok(Value::Array(out))
}
