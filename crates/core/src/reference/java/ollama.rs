//! AgentScope Java's Ollama formatters: `OllamaChatFormatter` (images read
//! or downloaded into `images`, tool calls without id or type, tool results
//! split into `tool` messages, optional promotion of tool-result images) and
//! `OllamaMultiAgentFormatter` (history wrapped like DashScope's text mode,
//! URL images skipped); `OllamaChatModel`'s request envelope.

use super::common::{self, Ctx};
use super::dashscope::extension;
use super::msg::{Block, Msg, Role, Source, ToolSchema};
use crate::json;
use serde_json::{Map, Value};

/// Java's `Object.toString()` of a `Base64Source` (its identity hash varies
/// per run; the vectors' comparator reads any hash as the same).
const BASE64_SOURCE: &str = "io.agentscope.core.message.Base64Source@0";

const IMAGE_EXTS: [&str; 7] = ["png", "jpg", "jpeg", "gif", "webp", "heic", "heif"];

fn is_local(url: &str) -> bool {
    !url.trim().is_empty()
        && !["http://", "https://", "ftp://", "file://", "oss://"]
            .iter()
            .any(|p| url.starts_with(p))
}

/// `OllamaMediaConverter.convertImageBlockToBase64`.
fn image_base64(ctx: &Ctx, source: &Source) -> Result<String, String> {
    use base64::Engine;
    match source {
        Source::Base64 { data, .. } => Ok(data.clone()),
        Source::Url(url) => {
            let ext = extension(url).to_lowercase();
            if !IMAGE_EXTS.contains(&ext.as_str()) {
                return Err(format!(
                    "\"{url}\" should end with one of [{}]",
                    IMAGE_EXTS.join(", ")
                ));
            }
            let bytes = if is_local(url) {
                if !ctx.env.exists(url) {
                    return Err(format!("File does not exist: {url}"));
                }
                ctx.env.read(url).map_err(|e| e.message)?
            } else {
                let resp = ctx.env.web().get(url).map_err(|e| e.message)?;
                if resp.status != 200 {
                    return Err(format!(
                        "Failed to download URL: HTTP {} for {url}",
                        resp.status
                    ));
                }
                resp.body
            };
            Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
    }
}

fn source_text(source: &Source) -> String {
    match source {
        Source::Url(u) => u.clone(),
        Source::Base64 { .. } => BASE64_SOURCE.into(),
    }
}

/// `OllamaMessage` in Jackson's field order.
#[derive(Default)]
struct OlMsg {
    role: String,
    content: Option<String>,
    images: Vec<String>,
    tool_calls: Vec<Value>,
    tool_call_id: Option<String>,
    name: Option<String>,
}

impl OlMsg {
    fn into_value(self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), self.role.into());
        if let Some(c) = self.content {
            m.insert("content".into(), c.into());
        }
        if !self.images.is_empty() {
            m.insert("images".into(), json!(self.images));
        }
        if !self.tool_calls.is_empty() {
            m.insert("tool_calls".into(), Value::Array(self.tool_calls));
        }
        if let Some(id) = self.tool_call_id {
            m.insert("tool_call_id".into(), id.into());
        }
        if let Some(n) = self.name {
            m.insert("name".into(), n.into());
        }
        Value::Object(m)
    }
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

fn tool_call(name: &Option<String>, input: &Map<String, Value>) -> Value {
    let mut f = Map::new();
    if let Some(n) = name {
        f.insert("name".into(), n.clone().into());
    }
    f.insert("arguments".into(), Value::Object(input.clone()));
    json!({ "function": Value::Object(f) })
}

fn texts_joined(output: &[Block]) -> String {
    output
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `OllamaMessageConverter.convertMessage`.
fn convert(ctx: &Ctx, msg: &Msg) -> OlMsg {
    if msg.role == Role::Tool {
        let mut m = OlMsg {
            role: "tool".into(),
            ..OlMsg::default()
        };
        match msg.first_tool_result() {
            Some((id, name, output)) => {
                let mut content = texts_joined(output);
                let paths: Vec<String> = output
                    .iter()
                    .filter_map(|b| match b {
                        Block::Image(s) => Some(source_text(s)),
                        _ => None,
                    })
                    .collect();
                if !paths.is_empty() {
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    for p in paths {
                        content.push_str(&format!("- The returned image can be found at: {p}\n"));
                    }
                }
                m.content = Some(content.trim().to_string());
                m.tool_call_id = id.clone();
                m.name = name.clone();
            }
            None => m.content = Some(common::extract_text(msg)),
        }
        return m;
    }
    let mut text = String::new();
    let mut m = OlMsg {
        role: role_name(msg.role).into(),
        ..OlMsg::default()
    };
    for b in &msg.content {
        match b {
            Block::Text(t) => text.push_str(t),
            Block::Image(s) => match image_base64(ctx, s) {
                Ok(d) => m.images.push(d),
                Err(_) => ctx.warn("Failed to convert image block to Ollama format".into()),
            },
            Block::ToolUse { name, input, .. } => m.tool_calls.push(tool_call(name, input)),
            _ => {}
        }
    }
    if !text.is_empty() {
        m.content = Some(text);
    }
    m
}

fn skipped(ctx: &Ctx, b: &Block) {
    let kind = match b {
        Block::Thinking(_) => "ThinkingBlock",
        Block::Audio(_) => "AudioBlock",
        Block::Video(_) => "VideoBlock",
        _ => return,
    };
    ctx.warn(format!(
        "Unsupported block type {kind} in the message, skipped."
    ));
}

/// `OllamaChatFormatter.processMessage`.
fn chat_message(ctx: &Ctx, msg: &Msg, promote: bool, out: &mut Vec<Value>) {
    let mut texts: Vec<&str> = Vec::new();
    let mut images: Vec<String> = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut results: Vec<(&Option<String>, &Option<String>, &Vec<Block>)> = Vec::new();
    for b in &msg.content {
        match b {
            Block::Text(t) => texts.push(t),
            Block::ToolUse { name, input, .. } => calls.push(tool_call(name, input)),
            Block::ToolResult { id, name, output } => results.push((id, name, output)),
            Block::Image(s) => match image_base64(ctx, s) {
                Ok(d) => images.push(d),
                Err(_) => ctx.warn("Failed to convert image block to Ollama format".into()),
            },
            other => skipped(ctx, other),
        }
    }
    for (id, name, output) in results {
        out.push(
            OlMsg {
                role: "tool".into(),
                content: Some(texts_joined(output)),
                tool_call_id: id.clone(),
                name: name.clone(),
                ..OlMsg::default()
            }
            .into_value(),
        );
        let pictures: Vec<&Source> = output
            .iter()
            .filter_map(|b| match b {
                Block::Image(s) => Some(s),
                _ => None,
            })
            .collect();
        if promote && !pictures.is_empty() {
            let mut blocks = vec![Block::Text(format!(
                "<system-info>The following are the image contents from the tool result of '{}':",
                name.as_deref().unwrap_or("null")
            ))];
            for s in pictures {
                blocks.push(Block::Text(format!(
                    "\n- The image from '{}': ",
                    source_text(s)
                )));
                blocks.push(Block::Image(s.clone()));
            }
            blocks.push(Block::Text("</system-info>".into()));
            let temp = Msg {
                name: Some("user".into()),
                role: Role::User,
                content: blocks,
                cache_control: false,
            };
            out.push(convert(ctx, &temp).into_value());
        }
    }
    let has_main = !texts.is_empty() || !images.is_empty() || !calls.is_empty();
    // An empty joined text is no content (`null`), and a message with
    // nothing else is dropped.
    let content = Some(texts.join("\n")).filter(|c| !c.is_empty());
    if has_main && (content.is_some() || !images.is_empty() || !calls.is_empty()) {
        out.push(
            OlMsg {
                role: role_name(msg.role).into(),
                content,
                images,
                tool_calls: calls,
                ..OlMsg::default()
            }
            .into_value(),
        );
    }
}

/// One Ollama formatter over the Java `Msg`s.
pub fn format(ctx: &Ctx, multi: bool, msgs: &[Msg], prompt: &str, promote: bool) -> Vec<Value> {
    if !multi {
        let mut out = Vec::new();
        for m in msgs {
            chat_message(ctx, m, promote, &mut out);
        }
        return out;
    }
    let mut out = Vec::new();
    let mut rest = msgs;
    if let Some(first) = msgs.first().filter(|m| m.role == Role::System) {
        out.push(json!({"role": "system", "content": common::extract_text(first)}));
        rest = &msgs[1..];
    }
    let is_tool = |m: &Msg| m.role == Role::Tool || m.has_tool_use() || m.has_tool_result();
    if rest.len() == 1 && !is_tool(&rest[0]) {
        out.push(convert(ctx, &rest[0]).into_value());
        return out;
    }
    let mut groups: Vec<(bool, Vec<&Msg>)> = Vec::new();
    for m in rest {
        let tool = is_tool(m);
        match groups.last_mut() {
            Some((t, list)) if *t == tool => list.push(m),
            _ => groups.push((tool, vec![m])),
        }
    }
    let mut first = true;
    for (tool, list) in groups {
        if !tool {
            out.push(merge(ctx, &list, if first { prompt } else { "" }));
            first = false;
            continue;
        }
        for m in list {
            let converted = tool_seq_message(ctx, m, promote);
            let content = converted.content.clone().unwrap_or_default();
            let name = converted.name.clone();
            out.push(converted.into_value());
            if promote
                && m.role == Role::Tool
                && content.contains("image")
                && content.contains("can be found at:")
            {
                if let Some(v) = promotion(ctx, m, &content, name) {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn tool_seq_message(ctx: &Ctx, m: &Msg, promote: bool) -> OlMsg {
    let mut converted = convert(ctx, m);
    converted.role = role_name(m.role).into();
    if m.role == Role::Tool {
        if let Some((id, name, output)) = m.first_tool_result() {
            converted.tool_call_id = id.clone();
            converted.name = name.clone();
            let mut content = texts_joined(output);
            if promote {
                for b in output {
                    if let Block::Image(s) = b {
                        content.push_str(&format!("\nimage can be found at: {}", source_text(s)));
                    }
                }
            }
            converted.content = Some(content);
        }
    }
    converted
}

fn promotion(ctx: &Ctx, m: &Msg, content: &str, name: Option<String>) -> Option<Value> {
    let at = content.find("can be found at: ")? + "can be found at: ".len();
    let path: String = content[at..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    if path.is_empty() {
        return None;
    }
    let image = m.content.iter().find_map(|b| match b {
        Block::Image(s) => Some(s),
        Block::ToolResult { output, .. } => output.iter().find_map(|o| match o {
            Block::Image(s) => Some(s),
            _ => None,
        }),
        _ => None,
    })?;
    match image_base64(ctx, image) {
        Ok(data) => Some(json!({
            "role": "user",
            "content": format!(
                "<system-info>The following are the image contents from the tool result of '{}':\n\n- The image from '{path}': \n</system-info>",
                name.as_deref().unwrap_or("null")
            ),
            "images": [data],
        })),
        Err(_) => {
            ctx.warn("Failed to promote image from tool result".into());
            None
        }
    }
}

/// `OllamaConversationMerger.mergeToMessage`.
fn merge(ctx: &Ctx, msgs: &[&Msg], prompt: &str) -> Value {
    let mut acc = String::from(prompt);
    acc.push_str("<history>\n");
    let mut images: Vec<String> = Vec::new();
    for m in msgs {
        let name = m.name.as_deref().unwrap_or("Unknown");
        for b in &m.content {
            match b {
                Block::Text(t) => acc.push_str(&format!("{name}: {t}\n")),
                Block::Image(Source::Base64 { data, .. }) => {
                    images.push(data.clone());
                    acc.push_str(&format!("{name}: [Image]\n"));
                }
                Block::Image(Source::Url(_)) => {
                    ctx.warn(
                        "URL image source not yet supported for Ollama, skipping image block in merger"
                            .into(),
                    );
                    acc.push_str(&format!("{name}: [Image - processing failed]\n"));
                }
                _ => {}
            }
        }
    }
    acc.push_str("</history>");
    let mut m = Map::new();
    m.insert("role".into(), "user".into());
    m.insert("content".into(), acc.into());
    if !images.is_empty() {
        m.insert("images".into(), json!(images));
    }
    Value::Object(m)
}

/// `OllamaChatModel`'s body: model, messages, stream, tools, options.
pub fn request(model: &str, messages: Vec<Value>, tools: &[ToolSchema]) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), true.into());
    if !tools.is_empty() {
        let list: Vec<Value> = tools
            .iter()
            .map(|t| {
                let mut f = Map::new();
                f.insert("name".into(), t.name.clone().into());
                f.insert("description".into(), t.description.clone().into());
                f.insert("parameters".into(), t.parameters.clone());
                json!({"type": "function", "function": Value::Object(f)})
            })
            .collect();
        body.insert("tools".into(), Value::Array(list));
    }
    body.insert("options".into(), json!({}));
    Value::Object(body)
}
