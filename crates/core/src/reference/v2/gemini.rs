//! Gemini in AgentScope 2.0.11: `parts` messages (role `model` for the
//! assistant), thinking as thought parts, function calls with their id (and
//! a `thought_signature` carried in a `gemini_ts:` id), a batch of function
//! responses in one user message followed by the promoted media, every
//! medium inlined.

use super::anthropic::wrap_history;
use super::base::{parse_tool_input, Ctx};
use super::msgs::{Block, Data, Item, Items, Msg, Source};
use super::multi_agent::skeleton;
use crate::json;
use crate::py::{b64decode, b64encode, PyErr};
use serde_json::Value;

/// `_format_gemini_data_block`.
pub fn data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if !ctx.matches(mt) {
        ctx.warn(format!("Media type {mt} is not supported, skipped."));
        return Ok(None);
    }
    let data = match &block.source {
        Source::Base64 { data, .. } => data.clone(),
        Source::Url { url, .. } => ctx.url_b64(url)?,
    };
    Ok(Some(
        json!({"inline_data": {"data": data, "mime_type": mt}}),
    ))
}

fn role(msg: &Msg) -> &'static str {
    if msg.role == "assistant" {
        "model"
    } else {
        "user"
    }
}

fn flush_results(out: &mut Vec<Value>, results: &mut Vec<Value>, promoted: &mut Vec<Value>) {
    if results.is_empty() {
        return;
    }
    out.push(json!({"role": "user", "parts": std::mem::take(results)}));
    if !promoted.is_empty() {
        out.push(json!({"role": "user", "parts": std::mem::take(promoted)}));
    }
    promoted.clear();
}

pub fn format_chat(ctx: &Ctx, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for msg in msgs {
        let mut parts: Vec<Value> = Vec::new();
        let mut results: Vec<Value> = Vec::new();
        let mut promoted: Vec<Value> = Vec::new();
        for block in &msg.content {
            if !results.is_empty() && !matches!(block, Block::ToolResult { .. }) {
                flush_results(&mut out, &mut results, &mut promoted);
            }
            match block {
                Block::Text(t) => {
                    if !t.is_empty() {
                        parts.push(json!({"text": t}));
                    }
                }
                Block::Thinking { thinking, .. } => {
                    if !thinking.is_empty() {
                        parts.push(json!({"thought": true, "text": thinking}));
                    }
                }
                Block::Hint(hint) => {
                    let mut hp = Vec::new();
                    match hint {
                        Items::Str(h) => {
                            if !h.is_empty() {
                                hp.push(json!({"text": h}));
                            }
                        }
                        Items::List(items) => {
                            for item in items {
                                match item {
                                    Item::Text(t) => {
                                        if !t.is_empty() {
                                            hp.push(json!({"text": t}));
                                        }
                                    }
                                    Item::Data(d) => {
                                        if let Some(v) = data_block(ctx, d)? {
                                            hp.push(v);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if !hp.is_empty() {
                        if !parts.is_empty() {
                            out.push(
                                json!({"role": role(msg), "parts": std::mem::take(&mut parts)}),
                            );
                        }
                        out.push(json!({"role": "user", "parts": hp}));
                    }
                }
                Block::Data(d) => {
                    if let Some(v) = data_block(ctx, d)? {
                        parts.push(v);
                    }
                }
                Block::ToolCall { id, name, input } => {
                    let mut part = json!({"function_call": {"id": id, "name": name, "args": parse_tool_input(input)?}});
                    if let Some(sig) = id.strip_prefix("gemini_ts:") {
                        let bytes = b64decode(&Value::String(sig.to_string()))?;
                        part["thought_signature"] = json!({"$bytes": b64encode(&bytes)});
                    }
                    parts.push(part);
                }
                Block::ToolResult { id, name, output } => {
                    if !parts.is_empty() {
                        out.push(json!({"role": role(msg), "parts": std::mem::take(&mut parts)}));
                    }
                    let (text, items) = ctx.tool_result_to_string(output)?;
                    results.push(json!({"function_response": {"id": id, "name": name, "response": {"output": text}}}));
                    for item in &items {
                        match item {
                            Item::Text(t) => promoted.push(json!({"text": t})),
                            Item::Data(d) => {
                                if let Some(v) = data_block(ctx, d)? {
                                    promoted.push(v);
                                }
                            }
                        }
                    }
                }
            }
        }
        if !parts.is_empty() {
            out.push(json!({"role": role(msg), "parts": parts}));
        }
        flush_results(&mut out, &mut results, &mut promoted);
    }
    Ok(out)
}

fn agent_group(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut parts: Vec<Value> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for msg in msgs {
        for block in &msg.content {
            match block {
                Block::Text(t) => lines.push(format!("{}: {t}", msg.name)),
                Block::Data(d) => {
                    if !lines.is_empty() {
                        parts.push(json!({"text": lines.join("\n")}));
                        lines.clear();
                    }
                    if let Some(v) = data_block(ctx, d)? {
                        parts.push(v);
                    }
                }
                _ => {}
            }
        }
    }
    if !lines.is_empty() {
        parts.push(json!({"text": lines.join("\n")}));
    }
    if parts.is_empty() {
        return Ok(Vec::new());
    }
    wrap_history(&mut parts, prompt, |t| json!({"text": t}), "text");
    Ok(vec![json!({"role": "user", "parts": parts})])
}

pub fn format_multi(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    skeleton(
        msgs,
        |m| Ok(json!({"role": "user", "parts": [{"text": m.text_content().unwrap_or_default()}]})),
        |group| format_chat(ctx, group),
        |group, first| agent_group(ctx, group, if first { prompt } else { "" }),
    )
}
