//! DeepSeek in AgentScope 2.0.11: the OpenAI shape without `name`, string
//! content when every part is text, `reasoning_content` on every assistant
//! message, media only in user messages, and its own history wrapper.

use super::base::Ctx;
use super::msgs::{Block, Item, Items, Msg};
use super::multi_agent::skeleton;
use super::openai::{openai_data_block, string_system};
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

const DATA_BLOCK_CLASS: &str = "<class 'agentscope.message._block.DataBlock'>";

/// `_content_from_blocks`: the texts joined when every part is text.
fn content_from(parts: &[Value]) -> Value {
    if parts.iter().any(|p| p.get("type") != Some(&json!("text"))) {
        return Value::Array(parts.to_vec());
    }
    let texts: Vec<&str> = parts
        .iter()
        .map(|p| p.get("text").and_then(Value::as_str).unwrap_or(""))
        .collect();
    Value::String(texts.join("\n"))
}

fn truthy(v: &Value) -> bool {
    crate::py::truthy(v)
}

fn message(
    msg: &Msg,
    parts: &mut Vec<Value>,
    calls: &mut Vec<Value>,
    thinking: &mut Vec<String>,
) -> Value {
    let content = content_from(parts);
    let mut m = Map::new();
    m.insert("role".into(), msg.role.clone().into());
    m.insert(
        "content".into(),
        if truthy(&content) {
            content
        } else if calls.is_empty() {
            json!("")
        } else {
            Value::Null
        },
    );
    if msg.role == "assistant" {
        m.insert("reasoning_content".into(), thinking.join("\n").into());
    }
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(std::mem::take(calls)));
    }
    parts.clear();
    thinking.clear();
    Value::Object(m)
}

pub fn format_chat(ctx: &Ctx, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for msg in msgs {
        let mut parts: Vec<Value> = Vec::new();
        let mut calls: Vec<Value> = Vec::new();
        let mut thinking: Vec<String> = Vec::new();
        let mut pending: Vec<Value> = Vec::new();
        for block in &msg.content {
            if !pending.is_empty() && !matches!(block, Block::ToolResult { .. }) {
                out.append(&mut pending);
            }
            match block {
                Block::Text(t) => parts.push(json!({"type": "text", "text": t})),
                Block::Data(d) if msg.role == "user" => {
                    if let Some(v) = openai_data_block(ctx, d)? {
                        parts.push(v);
                    }
                }
                Block::Data(_) => ctx.warn(format!(
                    "Unsupported block type {DATA_BLOCK_CLASS} in the message, skipped."
                )),
                Block::Thinking { thinking: t, .. } => thinking.push(t.clone()),
                Block::Hint(hint) => {
                    if !parts.is_empty() || !calls.is_empty() || !thinking.is_empty() {
                        out.push(message(msg, &mut parts, &mut calls, &mut thinking));
                    }
                    match hint {
                        Items::Str(h) => out.push(json!({"role": "user", "content": h})),
                        Items::List(items) => {
                            let mut hp = Vec::new();
                            for item in items {
                                match item {
                                    Item::Text(t) => hp.push(json!({"type": "text", "text": t})),
                                    Item::Data(d) => hp.push(openai_data_block(ctx, d)?.unwrap_or_else(|| {
                                        json!({"type": "text", "text": format!("[{} attached, not supported by this provider]", d.source.media_type())})
                                    })),
                                }
                            }
                            if !hp.is_empty() {
                                out.push(json!({"role": "user", "content": content_from(&hp)}));
                            }
                        }
                    }
                }
                Block::ToolCall { id, name, input } => calls.push(json!({
                    "id": id, "type": "function", "function": {"name": name, "arguments": input}
                })),
                Block::ToolResult { id, name, output } => {
                    if !parts.is_empty() || !calls.is_empty() || !thinking.is_empty() {
                        out.push(message(msg, &mut parts, &mut calls, &mut thinking));
                    }
                    let (text, promoted) = ctx.tool_result_to_string(output)?;
                    out.push(
                        json!({"role": "tool", "tool_call_id": id, "content": text, "name": name}),
                    );
                    if !promoted.is_empty() {
                        let mut p = Vec::new();
                        for item in &promoted {
                            match item {
                                Item::Text(t) => p.push(json!({"type": "text", "text": t})),
                                Item::Data(d) => {
                                    if let Some(v) = openai_data_block(ctx, d)? {
                                        p.push(v);
                                    }
                                }
                            }
                        }
                        if !p.is_empty() {
                            pending.push(json!({"role": "user", "content": p}));
                        }
                    }
                }
            }
        }
        out.append(&mut pending);
        let had_thinking = !thinking.is_empty();
        let has_calls = !calls.is_empty();
        let m = message(msg, &mut parts, &mut calls, &mut thinking);
        if truthy(&m["content"]) || has_calls || had_thinking {
            out.push(m);
        }
    }
    Ok(out)
}

fn agent_group(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut parts: Vec<Value> =
        vec![json!({"type": "text", "text": format!("{prompt}<history>\n")})];
    let mut has_history = false;
    let mut has_image = false;
    let append = |parts: &mut Vec<Value>, s: &str| {
        if let Some(Value::String(t)) = parts.last_mut().and_then(|p| p.get_mut("text")) {
            t.push_str(s);
        }
    };
    for msg in msgs {
        for block in &msg.content {
            match block {
                Block::Text(t) => {
                    append(&mut parts, &format!("{}: {t}\n", msg.name));
                    has_history = true;
                }
                Block::Data(d) => {
                    if let Some(v) = openai_data_block(ctx, d)? {
                        append(&mut parts, &format!("{}: ", msg.name));
                        parts.push(v);
                        parts.push(json!({"type": "text", "text": "\n"}));
                        has_history = true;
                        has_image = true;
                    }
                }
                _ => {}
            }
        }
    }
    if !has_history {
        return Ok(Vec::new());
    }
    append(&mut parts, "</history>");
    let content = if has_image {
        Value::Array(parts)
    } else {
        parts[0]["text"].clone()
    };
    Ok(vec![json!({"role": "user", "content": content})])
}

pub fn format_multi(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    skeleton(
        msgs,
        |m| Ok(string_system(m)),
        |group| format_chat(ctx, group),
        |group, first| agent_group(ctx, group, if first { prompt } else { "" }),
    )
}
