//! AgentScope Java's DashScope formatters: `DashScopeChatFormatter` and
//! `DashScopeMultiAgentFormatter`, each with its text-generation path
//! (`format`) and its multimodal-generation path (`formatMultiModal`);
//! `DashScopeChatModel`'s endpoint routing by model name and its request
//! envelope. Local media are sent as `file://` paths, not read.

use super::common::{self, Ctx};
use super::jackson::hash_map_order;
use super::msg::{with_cache_control, Block, Msg, Role, Source, ToolSchema};
use crate::json;
use serde_json::{Map, Value};

/// Which DashScope endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Text,
    Multimodal,
}

impl Endpoint {
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::Text => "text",
            Endpoint::Multimodal => "multimodal",
        }
    }
}

/// `DashScopeHttpClient.requiresMultimodalApi` with endpoint type `AUTO`.
pub fn route(model: &str) -> Endpoint {
    let m = model.to_lowercase();
    if m == "qwen3.6-max-preview" || m.starts_with("qwen3.7-max") {
        return Endpoint::Text;
    }
    let prefixed = ["qvq", "qwen3.5", "qwen3.6", "qwen3.7", "qwen3.8-max"]
        .iter()
        .any(|p| m.starts_with(p));
    let contains = ["-vl", "-asr", "kimi-k2.5", "kimi-k2.6"]
        .iter()
        .any(|p| m.contains(p));
    if prefixed || contains {
        Endpoint::Multimodal
    } else {
        Endpoint::Text
    }
}

const IMAGE_EXTS: [&str; 7] = ["png", "jpg", "jpeg", "gif", "webp", "heic", "heif"];
const VIDEO_EXTS: [&str; 10] = [
    "mp4", "mpeg", "mpg", "mov", "avi", "webm", "wmv", "flv", "3gp", "3gpp",
];

fn is_local(url: &str) -> bool {
    !url.trim().is_empty()
        && !["http://", "https://", "ftp://", "file://", "oss://"]
            .iter()
            .any(|p| url.starts_with(p))
}

/// `MediaUtils.getExtension`: of the file name (local) or the URI path.
pub fn extension(url: &str) -> String {
    if url.trim().is_empty() {
        return String::new();
    }
    let path = if is_local(url) {
        url.trim_end_matches('/')
    } else {
        let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
        let rest = rest.split(['?', '#']).next().unwrap_or("");
        match rest.find('/') {
            Some(i) => &rest[i..],
            None => "",
        }
    };
    let file = path.rsplit('/').next().unwrap_or("");
    match file.rfind('.') {
        Some(i) if i + 1 < file.len() => file[i + 1..].to_string(),
        _ => String::new(),
    }
}

/// `MediaUtils.urlToProtocolUrl`: an existing local file as
/// `file://<absolute path>` (not normalised, as `toAbsolutePath`), anything
/// else unchanged.
fn protocol_url(ctx: &Ctx, url: &str) -> String {
    if is_local(url) && ctx.env.exists(url) {
        let p = std::path::Path::new(url);
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            ctx.env.base_dir().join(p)
        };
        let abs = std::path::absolute(&abs).unwrap_or(abs);
        return format!("file://{}", abs.display());
    }
    url.to_string()
}

fn data_url(media_type: &Option<String>, data: &str) -> String {
    format!(
        "data:{};base64,{data}",
        media_type.as_deref().unwrap_or("null")
    )
}

/// A media block as a content part, or the exception message.
fn media_part(ctx: &Ctx, block: &Block) -> Result<Value, String> {
    let (key, source) = match block {
        Block::Image(s) => ("image", s),
        Block::Video(s) => ("video", s),
        Block::Audio(s) => ("audio", s),
        _ => return Err("not media".into()),
    };
    let url = match source {
        Source::Base64 { media_type, data } => data_url(media_type, data),
        Source::Url(u) => {
            let ext = extension(u).to_lowercase();
            if key == "image" && !IMAGE_EXTS.contains(&ext.as_str()) {
                return Err(format!(
                    "\"{u}\" should end with one of [{}]",
                    IMAGE_EXTS.join(", ")
                ));
            }
            if key == "video" && !VIDEO_EXTS.contains(&ext.as_str()) {
                return Err(format!(
                    "Unsupported video file extension: {ext}, [{}] are supported",
                    VIDEO_EXTS.join(", ")
                ));
            }
            protocol_url(ctx, u)
        }
    };
    // `DashScopeContentPart` has a `getVideoAsString()` getter, which
    // Jackson writes as a property of its own, before the field.
    Ok(if key == "video" {
        json!({ "videoAsString": &url, "video": url })
    } else {
        json!({ key: url })
    })
}

fn label(block: &Block) -> &'static str {
    match block {
        Block::Image(_) => "Image",
        Block::Video(_) => "Video",
        _ => "Audio",
    }
}

fn text(t: &str) -> Value {
    json!({ "text": t })
}

/// The converter's own text extraction: texts only, leading empties skipped.
fn simple_text(msg: &Msg) -> String {
    msg.content
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .fold(String::new(), |a, b| {
            if a.is_empty() {
                b.to_string()
            } else {
                format!("{a}\n{b}")
            }
        })
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        // Never written: every path that reads a null role throws first.
        Role::Null => "null",
    }
}

fn tool_calls(ctx: &Ctx, msg: &Msg) -> Option<Value> {
    let calls: Vec<Value> = msg
        .content
        .iter()
        .filter_map(|b| match b {
            Block::ToolUse {
                id,
                name,
                input,
                content,
            } => {
                let mut c = Map::new();
                if let Some(id) = id {
                    c.insert("id".into(), id.clone().into());
                }
                c.insert("type".into(), "function".into());
                let mut f = Map::new();
                if let Some(n) = name {
                    f.insert("name".into(), n.clone().into());
                }
                f.insert(
                    "arguments".into(),
                    common::args_json(ctx, name.as_deref(), input, content.as_deref()).into(),
                );
                c.insert("function".into(), Value::Object(f));
                Some(Value::Object(c))
            }
            _ => None,
        })
        .collect();
    (!calls.is_empty()).then_some(Value::Array(calls))
}

/// `DashScopeMessage` in Jackson's field order.
fn message(
    role: &str,
    content: Value,
    name: Option<&String>,
    call_id: Option<String>,
    calls: Option<Value>,
) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), role.into());
    m.insert("content".into(), content);
    if let Some(n) = name {
        m.insert("name".into(), n.clone().into());
    }
    if let Some(id) = call_id {
        m.insert("tool_call_id".into(), id.into());
    }
    if let Some(c) = calls {
        m.insert("tool_calls".into(), c);
    }
    Value::Object(m)
}

fn parts(ctx: &Ctx, blocks: &[Block], in_tool_result: bool) -> Vec<Value> {
    let mut out = Vec::new();
    for b in blocks {
        match b {
            Block::Text(t) => out.push(text(t)),
            Block::Image(_) | Block::Video(_) | Block::Audio(_) => match media_part(ctx, b) {
                Ok(p) => out.push(p),
                Err(e) => {
                    let l = label(b);
                    ctx.warn(if in_tool_result {
                        format!("Failed to process {l}Block in tool result: {e}")
                    } else {
                        format!("Failed to process {l}Block: {e}")
                    });
                    out.push(text(&format!("[{l} - processing failed: {e}]")));
                }
            },
            Block::ToolResult { output, .. } if !in_tool_result => {
                let s = common::tool_result_string(ctx, output);
                if !s.is_empty() {
                    out.push(text(&s));
                }
            }
            _ => {}
        }
    }
    out
}

/// `convertToMessage(msg, true)`.
fn multimodal_message(ctx: &Ctx, msg: &Msg) -> Value {
    if msg.role == Role::Tool {
        return match msg.first_tool_result() {
            Some((id, name, output)) => {
                let content = if output.iter().any(Block::is_media) {
                    parts(ctx, output, true)
                } else {
                    vec![text(&common::tool_result_string(ctx, output))]
                };
                message(
                    "tool",
                    Value::Array(content),
                    name.as_ref(),
                    id.clone(),
                    None,
                )
            }
            None => message("tool", json!([text(&simple_text(msg))]), None, None, None),
        };
    }
    let mut content = parts(ctx, &msg.content, false);
    if content.is_empty() {
        content.push(text(""));
    }
    let calls = if msg.role == Role::Assistant {
        tool_calls(ctx, msg)
    } else {
        None
    };
    message(
        role_name(msg.role),
        Value::Array(content),
        None,
        None,
        calls,
    )
}

/// `convertToMessage(msg, false)`.
fn simple_message(ctx: &Ctx, msg: &Msg) -> Value {
    if let Some((id, name, output)) = msg.first_tool_result() {
        if matches!(msg.role, Role::Tool | Role::System) {
            let s = common::tool_result_string(ctx, output);
            return message("tool", s.into(), name.as_ref(), id.clone(), None);
        }
    }
    let calls = if msg.role == Role::Assistant {
        tool_calls(ctx, msg)
    } else {
        None
    };
    message(
        role_name(msg.role),
        simple_text(msg).into(),
        None,
        None,
        calls,
    )
}

/// One DashScope formatter over the Java `Msg`s.
pub fn format(
    ctx: &Ctx,
    multi: bool,
    endpoint: Endpoint,
    msgs: &[Msg],
    prompt: &str,
) -> Vec<Value> {
    match (multi, endpoint) {
        (false, Endpoint::Text) => msgs
            .iter()
            .map(|m| {
                let v = if m.has_media() {
                    multimodal_message(ctx, m)
                } else {
                    simple_message(ctx, m)
                };
                with_cache_control(v, m)
            })
            .collect(),
        (false, Endpoint::Multimodal) => msgs
            .iter()
            .map(|m| with_cache_control(multimodal_message(ctx, m), m))
            .collect(),
        (true, e) => multi_agent(ctx, e, msgs, prompt),
    }
}

fn multi_agent(ctx: &Ctx, endpoint: Endpoint, msgs: &[Msg], prompt: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = msgs;
    if let Some(first) = msgs.first().filter(|m| m.role == Role::System) {
        let t = common::extract_text(first);
        out.push(match endpoint {
            Endpoint::Text => json!({"role": "system", "content": t}),
            Endpoint::Multimodal => json!({"role": "system", "content": [text(&t)]}),
        });
        rest = &msgs[1..];
    }
    let mut groups: Vec<(bool, Vec<&Msg>)> = Vec::new();
    for m in rest {
        let tool = m.role == Role::Tool || m.has_tool_use() || m.has_tool_result();
        match groups.last_mut() {
            Some((t, list)) if *t == tool => list.push(m),
            _ => groups.push((tool, vec![m])),
        }
    }
    let mut first = true;
    for (tool, list) in groups {
        if tool {
            for m in list {
                match endpoint {
                    // The multimodal path converts tool sequences with
                    // `convertToMessage`, which reads the cache marker;
                    // the text path builds them itself and does not.
                    Endpoint::Multimodal => {
                        out.push(with_cache_control(multimodal_message(ctx, m), m))
                    }
                    Endpoint::Text => {
                        if let Some(v) = tool_seq_message(ctx, m) {
                            out.push(v);
                        }
                    }
                }
            }
        } else {
            out.push(match endpoint {
                Endpoint::Text => merge_text(ctx, &list, if first { prompt } else { "" }),
                Endpoint::Multimodal => merge_multimodal(ctx, &list, prompt, first),
            });
            first = false;
        }
    }
    out
}

fn tool_seq_message(ctx: &Ctx, m: &Msg) -> Option<Value> {
    if m.role == Role::Assistant {
        let calls = tool_calls(ctx, m);
        return Some(message(
            "assistant",
            common::extract_text(m).into(),
            None,
            None,
            calls,
        ));
    }
    if m.role == Role::Tool || (m.role == Role::System && m.has_tool_result()) {
        return Some(match m.first_tool_result() {
            Some((id, name, output)) => message(
                "tool",
                common::tool_result_string(ctx, output).into(),
                name.as_ref(),
                id.clone(),
                None,
            ),
            None => message(
                "tool",
                common::extract_text(m).into(),
                None,
                Some(common::invented_call_id()),
                None,
            ),
        });
    }
    None
}

fn speaker(m: &Msg) -> &str {
    m.name.as_deref().unwrap_or("Unknown")
}

/// `mergeToMessage`: the text endpoint's history message.
fn merge_text(ctx: &Ctx, msgs: &[&Msg], prompt: &str) -> Value {
    let mut acc = String::from(prompt);
    acc.push_str("<history>\n");
    let mut media: Vec<Value> = Vec::new();
    for m in msgs {
        let name = speaker(m);
        for b in &m.content {
            match b {
                Block::Text(t) => acc.push_str(&format!("{name}: {t}\n")),
                Block::Image(_) => match media_part(ctx, b) {
                    Ok(p) => {
                        media.push(p);
                        acc.push_str(&format!("{name}: [Image]\n"));
                    }
                    Err(e) => {
                        ctx.warn(format!("Failed to process ImageBlock: {e}"));
                        acc.push_str(&format!("{name}: [Image - processing failed]\n"));
                    }
                },
                Block::Video(_) => match media_part(ctx, b) {
                    Ok(p) => {
                        let url = p["video"].as_str().unwrap_or_default().to_string();
                        acc.push_str(&format!("{name}: [Video: {url}]\n"));
                    }
                    Err(e) => {
                        ctx.warn(format!("Failed to process VideoBlock: {e}"));
                        acc.push_str(&format!("{name}: [Video - processing failed]\n"));
                    }
                },
                Block::ToolResult {
                    name: tool, output, ..
                } => {
                    let s = common::tool_result_string(ctx, output);
                    let s = if s.is_empty() {
                        "[Empty tool result]".into()
                    } else {
                        s
                    };
                    acc.push_str(&format!(
                        "{name} ({}): {s}\n",
                        tool.as_deref().unwrap_or("null")
                    ));
                }
                _ => {}
            }
        }
    }
    acc.push_str("</history>");
    if media.is_empty() {
        json!({"role": "user", "content": acc})
    } else {
        let mut content = vec![text(&acc)];
        content.extend(media);
        json!({"role": "user", "content": content})
    }
}

/// `mergeToMultiModalMessage`: the multimodal endpoint's history message.
fn merge_multimodal(ctx: &Ctx, msgs: &[&Msg], prompt: &str, first: bool) -> Value {
    let mut content: Vec<Value> = Vec::new();
    let mut acc: Vec<String> = vec![if first {
        format!("{prompt}<history>")
    } else {
        "<history>".into()
    }];
    for m in msgs {
        let name = speaker(m);
        for b in &m.content {
            match b {
                Block::Text(t) => acc.push(format!("{name}: {t}")),
                Block::Image(_) | Block::Audio(_) | Block::Video(_) => {
                    if !acc.is_empty() {
                        content.push(text(&acc.join("\n")));
                        acc.clear();
                    }
                    match media_part(ctx, b) {
                        Ok(p) => content.push(p),
                        Err(e) => {
                            let l = label(b);
                            ctx.warn(format!("Failed to process {l}Block in multimodal: {e}"));
                            content.push(text(&format!("[{l} - processing failed: {e}]")));
                        }
                    }
                }
                Block::ToolResult { .. } => {
                    ctx.warn("Unexpected ToolResultBlock in agent message group, skipping".into())
                }
                _ => {}
            }
        }
    }
    acc.push("</history>".into());
    content.push(text(&acc.join("\n")));
    json!({"role": "user", "content": content})
}

/// `DashScopeChatModel`'s body: model, input.messages, parameters
/// (result_format, incremental_output, tools: always set, `[]` when none).
pub fn request(model: &str, messages: Vec<Value>, tools: &[ToolSchema]) -> Value {
    let list: Vec<Value> = tools
        .iter()
        .map(|t| {
            let params = match &t.parameters {
                Value::Object(p) => Value::Object(hash_map_order(p)),
                _ => json!({}),
            };
            json!({"type": "function", "function": {
                "name": &t.name, "description": &t.description, "parameters": params}})
        })
        .collect();
    json!({
        "model": model,
        "input": {"messages": messages},
        "parameters": {"result_format": "message", "incremental_output": true, "tools": list}
    })
}
