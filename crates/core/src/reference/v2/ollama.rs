//! Ollama in AgentScope 2.0.11: string content with an `images` list, one
//! assistant message per tool call (no call id), tool messages named by
//! `tool_name`, and a history wrapper only on the first agent group.

use super::base::{parse_tool_input, Ctx};
use super::msgs::{Block, Data, Item, Items, Msg};
use super::multi_agent::skeleton;
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

const CLASS_PREFIX: &str = "<class 'agentscope.message._block.";

/// `_format_ollama_data_block`: the image's base64, or nothing.
pub fn data_block(ctx: &Ctx, block: &Data) -> Result<Option<String>, PyErr> {
    let mt = block.source.media_type();
    if !ctx.matches(mt) {
        ctx.warn(format!("Media type {mt} is not supported, skipped."));
        return Ok(None);
    }
    if !mt.starts_with("image/") {
        ctx.warn(format!(
            "Ollama only supports image data, got {mt}, skipped."
        ));
        return Ok(None);
    }
    let data = ctx.source_b64(&block.source)?;
    Ok(Some(data).filter(|d| !d.is_empty()))
}

fn message(role: &str, content: String, images: Vec<String>) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), role.into());
    m.insert("content".into(), content.into());
    if !images.is_empty() {
        m.insert("images".into(), json!(images));
    }
    Value::Object(m)
}

pub fn format_chat(ctx: &Ctx, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for msg in msgs {
        let mut texts: Vec<String> = Vec::new();
        let mut images: Vec<String> = Vec::new();
        let mut pending: Vec<Value> = Vec::new();
        for block in &msg.content {
            if !pending.is_empty() && !matches!(block, Block::ToolResult { .. }) {
                out.append(&mut pending);
            }
            match block {
                Block::Text(t) => texts.push(t.clone()),
                Block::Hint(hint) => {
                    if !texts.is_empty() || !images.is_empty() {
                        out.push(message(
                            &msg.role,
                            texts.join("\n"),
                            std::mem::take(&mut images),
                        ));
                        texts.clear();
                    }
                    match hint {
                        Items::Str(h) => out.push(json!({"role": "user", "content": h})),
                        Items::List(items) => {
                            let mut ht = Vec::new();
                            let mut hi = Vec::new();
                            for item in items {
                                match item {
                                    Item::Text(t) => ht.push(t.clone()),
                                    Item::Data(d) => hi.extend(data_block(ctx, d)?),
                                }
                            }
                            if !ht.is_empty() || !hi.is_empty() {
                                out.push(message("user", ht.join("\n"), hi));
                            }
                        }
                    }
                }
                Block::Data(d) => images.extend(data_block(ctx, d)?),
                Block::Thinking { .. } => {}
                Block::ToolCall { name, input, .. } => {
                    let mut m = Map::new();
                    m.insert("role".into(), msg.role.clone().into());
                    m.insert("content".into(), texts.join("\n").into());
                    m.insert(
                        "tool_calls".into(),
                        json!([{"function": {"name": name, "arguments": parse_tool_input(input)?}}]),
                    );
                    if !images.is_empty() {
                        m.insert("images".into(), json!(std::mem::take(&mut images)));
                    }
                    texts.clear();
                    out.push(Value::Object(m));
                }
                Block::ToolResult { name, output, .. } => {
                    if !texts.is_empty() || !images.is_empty() {
                        out.push(message(
                            &msg.role,
                            texts.join("\n"),
                            std::mem::take(&mut images),
                        ));
                        texts.clear();
                    }
                    let (text, promoted) = ctx.tool_result_to_string(output)?;
                    out.push(json!({"role": "tool", "tool_name": name, "content": &text}));
                    if !promoted.is_empty() {
                        let mut ui = Vec::new();
                        let mut ut = Vec::new();
                        for item in &promoted {
                            match item {
                                Item::Data(d) => ui.extend(data_block(ctx, d)?),
                                Item::Text(t) => ut.push(t.clone()),
                            }
                        }
                        let content = if ut.is_empty() { text } else { ut.join("\n") };
                        pending.push(message("user", content, ui));
                    }
                }
            }
        }
        out.append(&mut pending);
        if !texts.is_empty() || !images.is_empty() {
            out.push(message(&msg.role, texts.join("\n"), images));
        }
    }
    Ok(out)
}

fn agent_group(ctx: &Ctx, msgs: &[Msg], first: bool, prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut lines: Vec<String> = Vec::new();
    let mut images: Vec<String> = Vec::new();
    for msg in msgs {
        let mut parts: Vec<String> = Vec::new();
        if !msg.name.is_empty() {
            parts.push(format!("{}:", msg.name));
        }
        for block in &msg.content {
            match block {
                Block::Text(t) => parts.push(t.clone()),
                Block::Data(d) => images.extend(data_block(ctx, d)?),
                Block::Hint(_) | Block::Thinking { .. } => {}
                Block::ToolCall { .. } => ctx.warn(format!(
                    "Unsupported block type {CLASS_PREFIX}ToolCallBlock'> in agent message, skipped."
                )),
                Block::ToolResult { .. } => ctx.warn(format!(
                    "Unsupported block type {CLASS_PREFIX}ToolResultBlock'> in agent message, skipped."
                )),
            }
        }
        if !parts.is_empty() {
            lines.push(parts.join("\n"));
        }
    }
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let mut blocks = vec![lines.join("\n")];
    if first {
        let open = format!("{prompt}<history>\n");
        if blocks[0].is_empty() {
            blocks.insert(0, open);
        } else {
            blocks[0] = format!("{open}{}", blocks[0]);
        }
        let last = blocks.len() - 1;
        if blocks[last].is_empty() {
            blocks.push("</history>".into());
        } else {
            blocks[last].push_str("\n</history>");
        }
    }
    Ok(vec![message("user", blocks.join("\n"), images)])
}

pub fn format_multi(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    skeleton(
        msgs,
        |m| {
            let mut texts = Vec::new();
            for b in &m.content {
                match b {
                    Block::Text(t) => texts.push(t.clone()),
                    _ => ctx.warn(format!(
                        "Unsupported block type {CLASS_PREFIX}DataBlock'> in system message, skipped."
                    )),
                }
            }
            Ok(json!({"role": "system", "content": texts.join("\n")}))
        },
        |group| format_chat(ctx, group),
        |group, first| agent_group(ctx, group, first, prompt),
    )
}
