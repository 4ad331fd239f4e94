//! `DeepSeekChatFormatter` and `DeepSeekMultiAgentFormatter`: text only,
//! thinking as `reasoning_content`.

use super::shared::{
    block_type, get_or_null, history_parts, join_field, join_field_owned, openai_tool_call,
    tool_message, tool_result_text, unsupported_warning, Group,
};
use crate::json;
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::session::Msg;
use serde_json::Value;
use std::sync::Arc;

pub fn chat(env: &MediaEnv, msgs: &mut [Arc<Msg>]) -> Result<Vec<Value>, PyErr> {
    let mut messages = Vec::new();
    for msg in msgs.iter() {
        let mut texts = Vec::new();
        let mut thoughts = Vec::new();
        let mut tool_calls = Vec::new();
        for block in msg.blocks() {
            match block_type(block)? {
                Some("text") => texts.push(block.clone()),
                Some("thinking") => thoughts.push(block.clone()),
                Some("tool_use") => tool_calls.push(openai_tool_call(block)?),
                Some("tool_result") => {
                    // No promotion here, but base64 media are still "saved".
                    let (text, _) = tool_result_text(env, &get_or_null(block, "output")?)?;
                    messages.push(tool_message(block, text)?);
                }
                _ => unsupported_warning(env, block)?,
            }
        }
        let content = join_field(&texts, "text")?;
        let reasoning = join_field(&thoughts, "thinking")?;
        let has_content = !content.is_empty();
        let mut out = json!({
            "role": msg.role.as_str(),
            "content": if has_content {
                Value::String(content)
            } else if tool_calls.is_empty() {
                Value::String(String::new())
            } else {
                Value::Null
            },
        });
        if !reasoning.is_empty() {
            out["reasoning_content"] = Value::String(reasoning);
        }
        let has_calls = !tool_calls.is_empty();
        if has_calls {
            out["tool_calls"] = Value::Array(tool_calls);
        }
        if has_content || has_calls {
            messages.push(out);
        }
    }
    Ok(messages)
}

/// One history group: text lines only, media and thinking dropped.
pub fn history(group: Group<'_>, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let parts = history_parts(
        group,
        prompt,
        "<history>\n",
        |text| json!({"text": text}),
        |_, _, _| Ok(None),
        |text| json!({"text": text}),
    )?;
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        json!({"role": "user", "content": join_field_owned(parts, "text")?}),
    ])
}
