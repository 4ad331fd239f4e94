//! OpenAI Responses in AgentScope 2.0.11: input items (messages with
//! `input_text`/`output_text` parts, `function_call`,
//! `function_call_output`, `reasoning` items), media as OpenAI writes them
//! converted to `input_image`/`input_file`, no audio, no promotion.

use super::base::Ctx;
use super::msgs::{Block, Data, Item, Items, Msg};
use super::multi_agent::skeleton;
use super::openai::{openai_data_block, string_system};
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// `_format_response_data_block`.
pub fn data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    if block.source.main_type() == "audio" {
        ctx.warn("Audio input is not supported by the OpenAI Responses API. Use OpenAIChatModel with an audio-capable model instead. This audio block will be skipped.".into());
        return Ok(None);
    }
    let Some(base) = openai_data_block(ctx, block)? else {
        return Ok(None);
    };
    match base.get("type").and_then(Value::as_str) {
        Some("image_url") => Ok(Some(
            json!({"type": "input_image", "image_url": &base["image_url"]["url"]}),
        )),
        Some("file") => {
            let mut m = Map::new();
            m.insert("type".into(), "input_file".into());
            if let Some(Value::Object(f)) = base.get("file") {
                m.extend(f.clone());
            }
            Ok(Some(Value::Object(m)))
        }
        _ => Ok(Some(base)),
    }
}

fn tool_output(ctx: &Ctx, output: &Items) -> Result<Value, PyErr> {
    let list = match output {
        Items::Str(s) => return Ok(Value::String(s.clone())),
        Items::List(list) => list,
    };
    let mut parts = Vec::new();
    let mut native = false;
    for item in list {
        match item {
            Item::Text(t) => parts.push(json!({"type": "input_text", "text": t})),
            Item::Data(d) => {
                let mt = d.source.media_type();
                let supported =
                    (d.source.main_type() == "image" || mt == "application/pdf") && ctx.matches(mt);
                if supported {
                    let formatted = data_block(ctx, d)?.ok_or_else(|| {
                        PyErr::new(
                            "RuntimeError",
                            format!("Supported OpenAI Responses tool-result media could not be formatted: {mt}."),
                        )
                    })?;
                    parts.push(formatted);
                    native = true;
                } else {
                    parts.push(json!({"type": "input_text", "text": ctx.fallback_text(d)?}));
                }
            }
        }
    }
    if native {
        return Ok(Value::Array(parts));
    }
    let texts: Vec<&str> = parts
        .iter()
        .map(|p| p["text"].as_str().unwrap_or(""))
        .collect();
    Ok(Value::String(texts.join("\n")))
}

fn flush(items: &mut Vec<Value>, role: &str, parts: &mut Vec<Value>, calls: &mut Vec<Value>) {
    if !calls.is_empty() {
        if !parts.is_empty() {
            items.push(json!({"role": role, "content": std::mem::take(parts)}));
        }
        items.append(calls);
    } else if !parts.is_empty() {
        items.push(json!({"role": role, "content": std::mem::take(parts)}));
    }
}

pub fn format_chat(ctx: &Ctx, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let mut items = Vec::new();
    for msg in msgs {
        let mut parts: Vec<Value> = Vec::new();
        let mut calls: Vec<Value> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        let text_type = if msg.role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        for block in &msg.content {
            match block {
                Block::Text(t) => parts.push(json!({"type": text_type, "text": t})),
                Block::Data(d) => {
                    if let Some(v) = data_block(ctx, d)? {
                        parts.push(v);
                    }
                }
                Block::Hint(hint) => {
                    flush(&mut items, &msg.role, &mut parts, &mut calls);
                    match hint {
                        Items::Str(h) => items.push(
                            json!({"role": "user", "content": [{"type": "input_text", "text": h}]}),
                        ),
                        Items::List(list) => {
                            let mut hp = Vec::new();
                            for item in list {
                                match item {
                                    Item::Text(t) => {
                                        hp.push(json!({"type": "input_text", "text": t}))
                                    }
                                    Item::Data(d) => {
                                        if let Some(v) = data_block(ctx, d)? {
                                            hp.push(v);
                                        }
                                    }
                                }
                            }
                            if !hp.is_empty() {
                                items.push(json!({"role": "user", "content": hp}));
                            }
                        }
                    }
                }
                Block::Thinking { thinking, extra } => {
                    let Some(rid) = extra
                        .get("reasoning_item_id")
                        .filter(|v| crate::py::truthy(v))
                    else {
                        continue;
                    };
                    let key = crate::py::py_repr(rid);
                    if seen.contains(&key) {
                        continue;
                    }
                    seen.push(key);
                    if !parts.is_empty() && !thinking.is_empty() {
                        items.push(
                            json!({"role": &msg.role, "content": std::mem::take(&mut parts)}),
                        );
                    }
                    match extra.get("reasoning_item_raw") {
                        Some(raw @ Value::Object(r))
                            if r.get("type") == Some(&json!("reasoning"))
                                && r.get("id") == Some(rid) =>
                        {
                            items.push(raw.clone());
                        }
                        _ => {
                            let summary = if thinking.is_empty() {
                                json!([])
                            } else {
                                json!([{"type": "summary_text", "text": thinking}])
                            };
                            items.push(json!({"type": "reasoning", "id": rid, "summary": summary, "content": []}));
                        }
                    }
                }
                Block::ToolCall { id, name, input } => calls.push(json!({
                    "type": "function_call", "call_id": id, "name": name, "arguments": input
                })),
                Block::ToolResult { id, output, .. } => {
                    flush(&mut items, &msg.role, &mut parts, &mut calls);
                    items.push(json!({"type": "function_call_output", "call_id": id, "output": tool_output(ctx, output)?}));
                }
            }
        }
        flush(&mut items, &msg.role, &mut parts, &mut calls);
    }
    Ok(items)
}

fn agent_group(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut lines = Vec::new();
    let mut media = Vec::new();
    for msg in msgs {
        for block in &msg.content {
            match block {
                Block::Text(t) => lines.push(format!("{}: {t}", msg.name)),
                Block::Data(d) => {
                    if let Some(v) = data_block(ctx, d)? {
                        media.push(v);
                    }
                }
                _ => {}
            }
        }
    }
    if lines.is_empty() && media.is_empty() {
        return Ok(Vec::new());
    }
    let mut content = vec![
        json!({"type": "input_text", "text": format!("{prompt}<history>\n{}\n</history>", lines.join("\n"))}),
    ];
    content.extend(media);
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
