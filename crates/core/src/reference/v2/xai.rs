//! xAI in AgentScope 2.0.11: `xai_sdk` chat messages, written as their
//! proto3 JSON (`MessageToDict(..., preserving_proto_field_name=True)`:
//! fields at their default left out, enums by name), as the vectors do.

use super::base::Ctx;
use super::msgs::{Block, Item, Items, Msg, Source};
use crate::json;
use crate::py::{b64encode, PyErr};
use serde_json::{Map, Value};

/// A `user(...)` / `image(...)` argument.
enum Arg {
    Text(String),
    Image(String),
}

fn content(args: &[Arg]) -> Vec<Value> {
    args.iter()
        .map(|a| match a {
            Arg::Text(t) => json!({"text": t}),
            Arg::Image(u) => json!({"image_url": {"image_url": u, "detail": "DETAIL_AUTO"}}),
        })
        .collect()
}

fn with_role(args: &[Arg], role: &str) -> Value {
    let mut m = Map::new();
    let c = content(args);
    if !c.is_empty() {
        m.insert("content".into(), Value::Array(c));
    }
    m.insert("role".into(), role.into());
    Value::Object(m)
}

fn user(args: &[Arg]) -> Value {
    with_role(args, "ROLE_USER")
}

/// `_xai_user_args_from_blocks`.
fn user_args(ctx: &Ctx, items: &[Item]) -> Result<Vec<Arg>, PyErr> {
    let mut args = Vec::new();
    for item in items {
        match item {
            Item::Text(t) => args.push(Arg::Text(t.clone())),
            Item::Data(d) => {
                let mt = d.source.media_type();
                if !mt.starts_with("image/") || !ctx.matches(mt) {
                    ctx.warn(format!(
                        "Unsupported media type {mt} for xAI API. Supported media types are: {}. This block will be skipped.",
                        ctx.patterns_joined()
                    ));
                    continue;
                }
                args.push(Arg::Image(match &d.source {
                    Source::Url { url, .. } if url.starts_with("file://") => {
                        format!("data:{mt};base64,{}", b64encode(&ctx.read_file_url(url)?))
                    }
                    Source::Url { url, .. } => url.clone(),
                    Source::Base64 { data, .. } => format!("data:{mt};base64,{data}"),
                }));
            }
        }
    }
    Ok(args)
}

fn calls_message(texts: &mut Vec<String>, calls: &mut Vec<(String, String, String)>) -> Value {
    let mut m = Map::new();
    if !texts.is_empty() {
        m.insert("content".into(), json!([{"text": texts.join("\n")}]));
        texts.clear();
    }
    m.insert("role".into(), "ROLE_ASSISTANT".into());
    let mut list = Vec::new();
    for (id, name, input) in calls.drain(..) {
        let mut tc = Map::new();
        if !id.is_empty() {
            tc.insert("id".into(), id.into());
        }
        tc.insert("type".into(), "TOOL_CALL_TYPE_CLIENT_SIDE_TOOL".into());
        let mut f = Map::new();
        if !name.is_empty() {
            f.insert("name".into(), name.into());
        }
        if !input.is_empty() {
            f.insert("arguments".into(), input.into());
        }
        // Assigning its fields makes the submessage present, even empty.
        tc.insert("function".into(), Value::Object(f));
        list.push(Value::Object(tc));
    }
    m.insert("tool_calls".into(), Value::Array(list));
    Value::Object(m)
}

/// Pending calls as one assistant message, or pending text alone.
fn flush(out: &mut Vec<Value>, texts: &mut Vec<String>, calls: &mut Vec<(String, String, String)>) {
    if !calls.is_empty() {
        out.push(calls_message(texts, calls));
    } else if !texts.is_empty() {
        let text = texts.join("\n");
        if !text.is_empty() {
            out.push(with_role(&[Arg::Text(text)], "ROLE_ASSISTANT"));
        }
        texts.clear();
    }
}

fn hint(ctx: &Ctx, out: &mut Vec<Value>, h: &Items) -> Result<(), PyErr> {
    match h {
        Items::Str(s) => out.push(user(&[Arg::Text(s.clone())])),
        Items::List(items) => {
            let args = user_args(ctx, items)?;
            if !args.is_empty() {
                out.push(user(&args));
            }
        }
    }
    Ok(())
}

pub fn format_chat(ctx: &Ctx, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for msg in msgs {
        match msg.role.as_str() {
            "system" => {
                let texts: Vec<&str> = msg
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        Block::Text(t) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                out.push(with_role(&[Arg::Text(texts.join("\n"))], "ROLE_SYSTEM"));
            }
            "user" => {
                let mut args: Vec<Arg> = Vec::new();
                for block in &msg.content {
                    match block {
                        Block::Hint(h) => {
                            if !args.is_empty() {
                                out.push(user(&args));
                                args.clear();
                            }
                            hint(ctx, &mut out, h)?;
                        }
                        Block::Text(t) => args.push(Arg::Text(t.clone())),
                        Block::Data(d) => args.extend(user_args(ctx, &[Item::Data(d.clone())])?),
                        _ => {}
                    }
                }
                if !args.is_empty() {
                    out.push(user(&args));
                }
            }
            _ => {
                let mut texts: Vec<String> = Vec::new();
                let mut calls: Vec<(String, String, String)> = Vec::new();
                let mut pending: Vec<Value> = Vec::new();
                for block in &msg.content {
                    if !pending.is_empty() && !matches!(block, Block::ToolResult { .. }) {
                        out.append(&mut pending);
                    }
                    match block {
                        Block::ToolResult { id, output, .. } => {
                            flush(&mut out, &mut texts, &mut calls);
                            let (text, promoted) = ctx.tool_result_to_string(output)?;
                            out.push(json!({"content": [{"text": text}], "role": "ROLE_TOOL", "tool_call_id": id}));
                            if !promoted.is_empty() {
                                let args = user_args(ctx, &promoted)?;
                                if !args.is_empty() {
                                    pending.push(user(&args));
                                }
                            }
                        }
                        Block::ToolCall { id, name, input } => {
                            calls.push((id.clone(), name.clone(), input.clone()))
                        }
                        Block::Text(t) => texts.push(t.clone()),
                        Block::Hint(h) => {
                            flush(&mut out, &mut texts, &mut calls);
                            hint(ctx, &mut out, h)?;
                        }
                        _ => {}
                    }
                }
                out.append(&mut pending);
                flush(&mut out, &mut texts, &mut calls);
            }
        }
    }
    Ok(out)
}

fn history_text(msgs: &[Msg], prompt: &str) -> String {
    let mut lines = Vec::new();
    for msg in msgs {
        let mut parts: Vec<String> = Vec::new();
        if !msg.name.is_empty() {
            parts.push(format!("{}:", msg.name));
        }
        for block in &msg.content {
            if let Block::Text(t) = block {
                parts.push(t.clone());
            }
        }
        if !parts.is_empty() {
            lines.push(parts.join(" "));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!("{prompt}<history>\n{}\n</history>", lines.join("\n"))
}

pub fn format_multi(ctx: &Ctx, msgs: &[Msg], prompt: &str) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    let mut rest = msgs;
    if let Some(first) = msgs.first().filter(|m| m.role == "system") {
        // `system(None)` when it has no text: protobuf refuses the None.
        let Some(text) = first.text_content() else {
            return Err(PyErr::type_error(
                "Parameter to initialize message field must be dict or instance of same class: expected <class 'xai.api.v1.chat_pb2.Content'> got <class 'NoneType'>.",
            ));
        };
        out.push(with_role(&[Arg::Text(text)], "ROLE_SYSTEM"));
        rest = &msgs[1..];
    }
    let mut is_first = true;
    for (tools, group) in super::base::group_messages(rest) {
        if tools {
            out.extend(format_chat(ctx, group)?);
            continue;
        }
        let text = history_text(group, if is_first { prompt } else { "" });
        let data: Vec<Item> = group
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| match b {
                Block::Data(d) => Some(Item::Data(d.clone())),
                _ => None,
            })
            .collect();
        let mut args = user_args(ctx, &data)?;
        if !text.is_empty() {
            args.insert(0, Arg::Text(text.clone()));
        }
        if !args.is_empty() {
            out.push(user(&args));
            if !text.is_empty() {
                is_first = false;
            }
        }
    }
    Ok(out)
}
