//! Anthropic (and MiniMax, which is Anthropic plus video) in AgentScope
//! 2.0.11: content-part messages, empty texts dropped, thinking only with a
//! signature, consecutive tool results merged into one user message, media
//! always inlined as base64, tool-call inputs parsed with repair.

use super::base::{parse_tool_input, Ctx};
use super::msgs::{Block, Data, Item, Items, Msg, Source};
use super::multi_agent::skeleton;
use crate::json;
use crate::py::{truthy, PyErr};
use serde_json::Value;

/// `_format_anthropic_data_block` (`video`: MiniMax's addition).
pub fn data_block(ctx: &Ctx, block: &Data, video: bool) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if video && mt.starts_with("video/") && ctx.matches(mt) {
        return Ok(Some(source(ctx, &block.source, "video")?));
    }
    if !ctx.matches(mt) {
        ctx.warn(format!("Media type {mt} is not supported, skipped."));
        return Ok(None);
    }
    if mt.starts_with("image/") {
        return Ok(Some(source(ctx, &block.source, "image")?));
    }
    if mt == "application/pdf" {
        return Ok(Some(source(ctx, &block.source, "document")?));
    }
    ctx.warn(format!(
        "Anthropic only supports image and PDF data, got {mt}, skipped."
    ));
    Ok(None)
}

fn source(ctx: &Ctx, source: &Source, kind: &str) -> Result<Value, PyErr> {
    let data = ctx.source_b64(source)?;
    Ok(json!({
        "type": kind,
        "source": {"type": "base64", "media_type": source.media_type(), "data": data}
    }))
}

fn tool_result(ctx: &Ctx, output: &Items, video: bool) -> Result<Vec<Value>, PyErr> {
    let mut content = Vec::new();
    match output {
        Items::Str(s) => {
            if !s.is_empty() {
                content.push(json!({"type": "text", "text": s}));
            }
        }
        Items::List(items) => {
            for item in items {
                match item {
                    Item::Text(t) => {
                        if !t.is_empty() {
                            content.push(json!({"type": "text", "text": t}));
                        }
                    }
                    Item::Data(d) => match data_block(ctx, d, video)? {
                        Some(v) => content.push(v),
                        None => {
                            let main = d.source.main_type();
                            let text = match &d.source {
                                Source::Url { url, .. } => {
                                    format!("[{main} file returned, URL: {url}]")
                                }
                                Source::Base64 { media_type, .. } => {
                                    format!("[{main} file returned, type: {media_type}]")
                                }
                            };
                            content.push(json!({"type": "text", "text": text}));
                        }
                    },
                }
            }
        }
    }
    if content.is_empty() {
        content.push(json!({"type": "text", "text": "(empty tool output)"}));
    }
    Ok(content)
}

/// `_format_messages`.
pub fn format_chat(ctx: &Ctx, msgs: &[Msg], video: bool) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for msg in msgs {
        let mut content: Vec<Value> = Vec::new();
        let mut has_tool_result = false;
        for block in &msg.content {
            if has_tool_result && !content.is_empty() && !matches!(block, Block::ToolResult { .. })
            {
                out.push(json!({"role": "user", "content": std::mem::take(&mut content)}));
                has_tool_result = false;
            }
            match block {
                Block::Text(t) => {
                    if !t.is_empty() {
                        content.push(json!({"type": "text", "text": t}));
                    }
                }
                Block::Thinking { thinking, extra } => {
                    match extra.get("redacted_thinking_data") {
                        Some(data) if !data.is_null() => {
                            content.push(json!({"type": "redacted_thinking", "data": data}));
                        }
                        _ => {
                            if let Some(sig) = extra.get("signature").filter(|s| truthy(s)) {
                                content.push(json!({"type": "thinking", "thinking": thinking, "signature": sig}));
                            }
                        }
                    }
                }
                Block::Hint(hint) => {
                    let mut parts = Vec::new();
                    match hint {
                        Items::Str(h) => {
                            if !h.is_empty() {
                                parts.push(json!({"type": "text", "text": h}));
                            }
                        }
                        Items::List(items) => {
                            for item in items {
                                match item {
                                    Item::Text(t) => {
                                        if !t.is_empty() {
                                            parts.push(json!({"type": "text", "text": t}));
                                        }
                                    }
                                    Item::Data(d) => {
                                        if let Some(v) = data_block(ctx, d, video)? {
                                            parts.push(v);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if !parts.is_empty() {
                        if !content.is_empty() {
                            let role = if has_tool_result {
                                "user"
                            } else {
                                msg.role.as_str()
                            };
                            out.push(
                                json!({"role": role, "content": std::mem::take(&mut content)}),
                            );
                            has_tool_result = false;
                        }
                        out.push(json!({"role": "user", "content": parts}));
                    }
                }
                Block::Data(d) => {
                    if let Some(v) = data_block(ctx, d, video)? {
                        content.push(v);
                    }
                }
                Block::ToolCall { id, name, input } => {
                    content.push(json!({"type": "tool_use", "id": id, "name": name, "input": parse_tool_input(input)?}));
                }
                Block::ToolResult { id, output, .. } => {
                    if !content.is_empty() && !has_tool_result {
                        out.push(
                            json!({"role": &msg.role, "content": std::mem::take(&mut content)}),
                        );
                    }
                    let c = tool_result(ctx, output, video)?;
                    content.push(json!({"type": "tool_result", "tool_use_id": id, "content": c}));
                    has_tool_result = true;
                }
            }
        }
        if !content.is_empty() {
            let role = if has_tool_result {
                "user"
            } else {
                msg.role.as_str()
            };
            out.push(json!({"role": role, "content": content}));
        }
    }
    Ok(out)
}

fn agent_group(
    ctx: &Ctx,
    msgs: &[Msg],
    first: bool,
    prompt: &str,
    video: bool,
) -> Result<Vec<Value>, PyErr> {
    let mut blocks: Vec<Value> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for msg in msgs {
        let name = if msg.name.is_empty() {
            "Agent"
        } else {
            msg.name.as_str()
        };
        let mut texts: Vec<&str> = Vec::new();
        for block in &msg.content {
            match block {
                Block::Text(t) => texts.push(t),
                Block::Data(d) => {
                    if let Some(v) = data_block(ctx, d, video)? {
                        if !lines.is_empty() {
                            blocks.push(json!({"type": "text", "text": lines.join("\n")}));
                            lines.clear();
                        }
                        blocks.push(v);
                    }
                }
                _ => {}
            }
        }
        if !texts.is_empty() {
            lines.push(format!("{name}: {}", texts.join(" ")));
        }
    }
    if !lines.is_empty() {
        blocks.push(json!({"type": "text", "text": lines.join("\n")}));
    }
    if !blocks.is_empty() && first {
        wrap_history(
            &mut blocks,
            prompt,
            |t| json!({"type": "text", "text": t}),
            "text",
        );
    }
    if blocks.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![json!({"role": "user", "content": blocks})])
}

/// Puts `prompt + "<history>\n"` before the first text part (or as a new
/// first part) and `"\n</history>"` after the last (or a new last part).
pub fn wrap_history(
    parts: &mut Vec<Value>,
    prompt: &str,
    make: impl Fn(String) -> Value,
    key: &str,
) {
    let open = format!("{prompt}<history>\n");
    let text_of = |p: &Value| {
        p.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match parts.first().and_then(text_of) {
        Some(t) => parts[0][key] = Value::String(format!("{open}{t}")),
        None => parts.insert(0, make(open)),
    }
    let last = parts.len() - 1;
    match parts.last().and_then(text_of) {
        Some(t) => parts[last][key] = Value::String(format!("{t}\n</history>")),
        None => parts.push(make("</history>".into())),
    }
}

pub fn format_multi(
    ctx: &Ctx,
    msgs: &[Msg],
    prompt: &str,
    video: bool,
) -> Result<Vec<Value>, PyErr> {
    skeleton(
        msgs,
        |m| {
            let texts: Vec<&str> = m
                .content
                .iter()
                .filter_map(|b| match b {
                    Block::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            Ok(json!({"role": "system", "content": [{"type": "text", "text": texts.join("\n")}]}))
        },
        |group| format_chat(ctx, group, video),
        |group, first| agent_group(ctx, group, first, prompt, video),
    )
}
