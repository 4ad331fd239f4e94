//! The OpenAI family of AgentScope Java: `OpenAIChatFormatter`,
//! `OpenAIMultiAgentFormatter` and the compat formatters built on them
//! (`DeepSeekFormatter`/`DeepSeekMultiAgentFormatter`: reasoning kept only
//! where DeepSeek wants it, no `strict`; `GLMFormatter`/
//! `GLMMultiAgentFormatter`: no `name`, a user message guaranteed, no
//! `strict`, no `stream_options`), and `OpenAIChatModel`'s request envelope.

use super::common::{self, Ctx};
use super::msg::{with_cache_control, Block, Msg, Role, Source, ToolSchema};
use crate::json;
use serde_json::{Map, Value};

/// Which OpenAI-compatible formatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    OpenAi,
    DeepSeek,
    Glm,
}

fn sanitize_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.encode_utf16().count() > 64 {
        s = s.chars().take(64).collect();
    }
    if s.is_empty() {
        "agent".into()
    } else {
        s
    }
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn image_url(source: &Source, fallback: &str) -> Result<String, String> {
    match source {
        Source::Url(u) if u.is_empty() => Err("URLSource has null or empty URL".into()),
        Source::Url(u) => Ok(u.clone()),
        Source::Base64 { data, .. } if data.is_empty() => {
            Err("Base64Source has null or empty data".into())
        }
        Source::Base64 { media_type, data } => Ok(format!(
            "data:{};base64,{data}",
            media_type.as_deref().unwrap_or(fallback)
        )),
    }
}

fn audio_format(media_type: Option<&str>) -> &'static str {
    let Some(m) = media_type else { return "mp3" };
    ["wav", "mp3", "opus", "flac"]
        .into_iter()
        .find(|f| m.contains(f))
        .unwrap_or("mp3")
}

/// `convertContentBlocks`: a user (or tool) message's part list.
fn content_parts(ctx: &Ctx, blocks: &[Block]) -> Vec<Value> {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            Block::Text(t) => parts.push(text_part(t)),
            Block::Image(s) => match image_url(s, "image/png") {
                Ok(u) => parts.push(json!({"type": "image_url", "image_url": {"url": u}})),
                Err(e) => {
                    ctx.warn(format!("Failed to process ImageBlock: {e}"));
                    parts.push(text_part(&format!("[Image - processing failed: {e}]")));
                }
            },
            Block::Video(s) => match image_url(s, "video/mp4") {
                Ok(u) => parts.push(json!({"type": "video_url", "video_url": {"url": u}})),
                Err(e) => {
                    ctx.warn(format!("Failed to process VideoBlock: {e}"));
                    parts.push(text_part(&format!("[Video - processing failed: {e}]")));
                }
            },
            Block::Audio(Source::Base64 { data, .. }) if data.is_empty() => {
                parts.push(text_part("[Audio - data missing]"))
            }
            Block::Audio(Source::Base64 { media_type, data }) => parts.push(json!({
                "type": "input_audio",
                "input_audio": {"data": data, "format": audio_format(media_type.as_deref())}
            })),
            Block::Audio(Source::Url(u)) if u.is_empty() => {
                parts.push(text_part("[Audio URL - missing]"))
            }
            Block::Audio(Source::Url(u)) => {
                ctx.warn("URL-based audio not directly supported, using text reference".into());
                parts.push(text_part(&format!("[Audio URL: {u}]")));
            }
            Block::Thinking(_) | Block::ToolUse { .. } | Block::ToolResult { .. } => {}
        }
    }
    parts
}

/// `OpenAIMessage` in Jackson's field order.
#[derive(Default)]
struct OaMsg {
    role: &'static str,
    content: Option<Value>,
    name: Option<String>,
    tool_call_id: Option<String>,
    tool_calls: Option<Vec<Value>>,
    reasoning_content: Option<String>,
}

impl OaMsg {
    fn into_value(self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), self.role.into());
        if let Some(c) = self.content {
            m.insert("content".into(), c);
        }
        if let Some(n) = self.name {
            m.insert("name".into(), n.into());
        }
        if let Some(id) = self.tool_call_id {
            m.insert("tool_call_id".into(), id.into());
        }
        if let Some(calls) = self.tool_calls {
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some(r) = self.reasoning_content {
            m.insert("reasoning_content".into(), r.into());
        }
        Value::Object(m)
    }
}

fn tool_message(ctx: &Ctx, msg: &Msg) -> OaMsg {
    let result = msg.first_tool_result();
    let id = result
        .and_then(|(id, _, _)| id.clone())
        .unwrap_or_else(common::invented_call_id);
    let content = match result {
        Some((_, _, output)) if output.iter().any(Block::is_media) => {
            Value::Array(content_parts(ctx, output))
        }
        Some((_, _, output)) => common::tool_result_string(ctx, output).into(),
        None => common::extract_text(msg).into(),
    };
    OaMsg {
        role: "tool",
        content: Some(content),
        tool_call_id: Some(id),
        ..OaMsg::default()
    }
}

fn convert(ctx: &Ctx, msg: &Msg, has_media: bool) -> OaMsg {
    let name = msg.name.as_deref().map(sanitize_name);
    if msg.role == Role::System && msg.has_tool_result() {
        return tool_message(ctx, msg);
    }
    match msg.role {
        Role::System => OaMsg {
            role: "system",
            content: Some(common::extract_text(msg).into()),
            name,
            ..OaMsg::default()
        },
        // A null role throws before this (`null_role_failure`).
        Role::User | Role::Null => {
            let content = match msg.content.as_slice() {
                [Block::Text(t)] if !has_media => t.clone().into(),
                blocks => {
                    let parts = content_parts(ctx, blocks);
                    if parts.is_empty() {
                        "".into()
                    } else {
                        Value::Array(parts)
                    }
                }
            };
            OaMsg {
                role: "user",
                content: Some(content),
                name,
                ..OaMsg::default()
            }
        }
        Role::Assistant => {
            let calls: Vec<Value> = msg
                .content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolUse {
                        id: Some(id),
                        name: Some(n),
                        input,
                        content,
                    } => Some(json!({
                        "id": id,
                        "type": "function",
                        "function": {"name": n, "arguments": common::args_json(ctx, Some(n.as_str()), input, content.as_deref())}
                    })),
                    _ => None,
                })
                .collect();
            OaMsg {
                role: "assistant",
                content: Some(common::extract_text(msg).into()),
                name,
                tool_calls: msg.has_tool_use().then_some(calls),
                reasoning_content: msg
                    .first_thinking()
                    .filter(|t| !t.is_empty())
                    .map(str::to_string),
                ..OaMsg::default()
            }
        }
        Role::Tool => tool_message(ctx, msg),
    }
}

fn convert_for(ctx: &Ctx, flavor: Flavor, msg: &Msg, has_media: bool) -> Value {
    let mut m = convert(ctx, msg, has_media);
    if flavor == Flavor::Glm {
        m.name = None;
    }
    with_cache_control(m.into_value(), msg)
}

/// `mergeToUserMessage`: one history group as one user message.
fn merge(ctx: &Ctx, msgs: &[&Msg], prompt: &str) -> Value {
    let mut parts: Vec<Value> = Vec::new();
    let mut buf = String::from(prompt);
    buf.push_str("<history>\n");
    let prefix = msgs.len() > 1;
    let flush = |buf: &mut String, parts: &mut Vec<Value>| {
        if !buf.is_empty() {
            parts.push(text_part(buf));
            buf.clear();
        }
    };
    for msg in msgs {
        let name = msg.name.clone().unwrap_or_default();
        let push_prefix = |buf: &mut String| {
            if prefix && !name.is_empty() {
                buf.push_str(&name);
                buf.push_str(": ");
            }
        };
        for block in &msg.content {
            match block {
                Block::Text(t) => {
                    push_prefix(&mut buf);
                    buf.push_str(t);
                    buf.push('\n');
                }
                Block::Image(s) | Block::Video(s) => {
                    flush(&mut buf, &mut parts);
                    let (kind, label, fallback) = if matches!(block, Block::Image(_)) {
                        ("image_url", "Image", "image/png")
                    } else {
                        ("video_url", "Video", "video/mp4")
                    };
                    match image_url(s, fallback) {
                        Ok(u) => parts.push(json!({"type": kind, kind: {"url": u}})),
                        Err(e) => {
                            ctx.warn(format!("Failed to process {label}Block: {e}"));
                            push_prefix(&mut buf);
                            buf.push_str(&format!("[{label} - processing failed: {e}]\n"));
                        }
                    }
                }
                Block::Audio(s) => {
                    flush(&mut buf, &mut parts);
                    match s {
                        Source::Base64 { data, .. } if data.is_empty() => {
                            push_prefix(&mut buf);
                            buf.push_str("[Audio - null or empty data]\n");
                        }
                        Source::Base64 { media_type, data } => parts.push(json!({
                            "type": "input_audio",
                            "input_audio": {"data": data, "format": audio_format(media_type.as_deref())}
                        })),
                        Source::Url(u) if u.is_empty() => {
                            push_prefix(&mut buf);
                            buf.push_str("[Audio - null or empty URL]\n");
                        }
                        Source::Url(u) => {
                            ctx.warn(
                                "URL-based audio not directly supported, using text reference"
                                    .into(),
                            );
                            push_prefix(&mut buf);
                            buf.push_str(&format!("[Audio URL: {u}]\n"));
                        }
                    }
                }
                Block::Thinking(t) => {
                    push_prefix(&mut buf);
                    if !t.is_empty() {
                        buf.push_str(&format!("[Thinking]: {t}\n"));
                    }
                }
                Block::ToolResult {
                    name: tool, output, ..
                } => {
                    let text = common::tool_result_string(ctx, output);
                    let text = if text.is_empty() {
                        "[Empty tool result]".to_string()
                    } else {
                        text
                    };
                    buf.push_str(&format!(
                        "{} ({}): {text}\n",
                        msg.name.as_deref().unwrap_or("null"),
                        tool.as_deref().unwrap_or("null")
                    ));
                }
                Block::ToolUse { .. } => {}
            }
        }
    }
    buf.push_str("</history>\n");
    parts.push(text_part(&buf));
    json!({"role": "user", "content": parts})
}

/// One OpenAI-family formatter over the Java `Msg`s.
pub fn format(ctx: &Ctx, flavor: Flavor, multi: bool, msgs: &[Msg], prompt: &str) -> Vec<Value> {
    let mut out = if multi {
        multi_agent(ctx, flavor, msgs, prompt)
    } else {
        msgs.iter()
            .map(|m| convert_for(ctx, flavor, m, m.has_media()))
            .collect()
    };
    match flavor {
        Flavor::OpenAi => {}
        Flavor::DeepSeek => deepseek_fixes(&mut out),
        Flavor::Glm => {
            if !out.iter().any(|m| m["role"] == "user") {
                out.push(json!({"role": "user", "content": ""}));
            }
        }
    }
    out
}

#[derive(PartialEq, Clone, Copy)]
enum Group {
    System,
    Tools,
    Conversation,
}

fn multi_agent(ctx: &Ctx, flavor: Flavor, msgs: &[Msg], prompt: &str) -> Vec<Value> {
    let kind = |m: &Msg| match m.role {
        Role::System => Group::System,
        Role::Tool => Group::Tools,
        _ if m.has_tool_use() => Group::Tools,
        _ => Group::Conversation,
    };
    let mut groups: Vec<(Group, Vec<&Msg>)> = Vec::new();
    for m in msgs {
        let k = kind(m);
        match groups.last_mut() {
            Some((g, list)) if *g == k && k != Group::System => list.push(m),
            _ => groups.push((k, vec![m])),
        }
    }
    let mut out = Vec::new();
    for (g, list) in groups {
        match g {
            Group::System => out.push(convert_for(ctx, flavor, list[0], false)),
            Group::Tools => {
                for m in list {
                    if matches!(m.role, Role::Assistant | Role::Tool) {
                        out.push(convert_for(ctx, flavor, m, m.has_media()));
                    }
                }
            }
            Group::Conversation => out.push(merge(ctx, &list, prompt)),
        }
    }
    out
}

/// `applyDeepSeekFixes`: `reasoning_content` only on the current turn (from
/// the last user message on), or, in thinking mode, also on turns with tool
/// calls.
fn deepseek_fixes(out: &mut [Value]) {
    let last_user = out.iter().rposition(|m| m["role"] == "user").unwrap_or(0);
    let thinking = out.iter().any(|m| m.get("reasoning_content").is_some());
    let mut seg_tool = vec![false; out.len()];
    if thinking {
        let mut prev: Option<usize> = None;
        for i in 0..=out.len() {
            if i == out.len() || out[i]["role"] == "user" {
                if let Some(p) = prev {
                    let has_tool = out[p + 1..i].iter().any(|m| {
                        m.get("tool_calls")
                            .and_then(Value::as_array)
                            .is_some_and(|a| !a.is_empty())
                    });
                    if has_tool {
                        seg_tool[p + 1..i].iter_mut().for_each(|f| *f = true);
                    }
                }
                prev = Some(i);
            }
        }
    }
    for (i, m) in out.iter_mut().enumerate() {
        let need = i >= last_user || (thinking && seg_tool[i]);
        if !need {
            if let Some(obj) = m.as_object_mut() {
                // `fixMessage` rebuilds a message whose reasoning it
                // strips, without its cache marker.
                if obj.shift_remove("reasoning_content").is_some() {
                    obj.shift_remove("cache_control");
                }
            }
        }
    }
}

/// `OpenAIChatModel`'s body: model, messages, stream, stream_options
/// (stripped by GLM), tools.
pub fn request(flavor: Flavor, model: &str, messages: Vec<Value>, tools: &[ToolSchema]) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), true.into());
    if flavor != Flavor::Glm {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if !tools.is_empty() {
        let list: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut f = Map::new();
                f.insert("name".into(), t.name.clone().into());
                f.insert("description".into(), t.description.clone().into());
                f.insert("parameters".into(), t.parameters.clone());
                if let (Flavor::OpenAi, Some(s)) = (flavor, t.strict) {
                    f.insert("strict".into(), s.into());
                }
                json!({"type": "function", "function": Value::Object(f)})
            })
            .collect();
        body.insert("tools".into(), Value::Array(list));
    }
    Value::Object(body)
}
