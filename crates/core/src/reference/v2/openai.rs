//! The OpenAI Chat Completions shape, as AgentScope 2.0.11's
//! `OpenAIChatFormatter` writes it, and the one chat loop that DashScope,
//! Moonshot and Volcengine share with it in 2.x (they differ only in
//! `name`, `reasoning_content`, the promoted message's name and how a data
//! block is written, all held in [`Style`]).

use super::base::Ctx;
use super::msgs::{Block, Data, Item, Items, Msg, Source};
use crate::json;
use crate::py::{b64encode, PyErr};
use serde_json::{Map, Value};

pub type DataFn = fn(&Ctx, &Data) -> Result<Option<Value>, PyErr>;

/// What thinking blocks become.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reasoning {
    /// Dropped (OpenAI).
    Drop,
    /// Kept only with `application/x-thinking` in `input_types` (DashScope).
    DashScope,
    /// Always gathered, written on assistant messages that had any (Volcengine).
    Volcengine,
    /// Non-empty ones gathered; every assistant message carries it (Moonshot).
    Moonshot,
}

#[derive(Clone, Copy)]
pub struct Style {
    pub name: bool,
    pub promo_name: bool,
    pub reasoning: Reasoning,
    pub data: DataFn,
}

pub const OPENAI: Style = Style {
    name: true,
    promo_name: true,
    reasoning: Reasoning::Drop,
    data: openai_data_block,
};

/// `_format_openai_data_block`.
pub fn openai_data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if !ctx.matches(mt) {
        ctx.warn(format!(
            "Unsupported media type {mt} for OpenAI API. Supported types: {}. This block will be skipped.",
            ctx.patterns_joined()
        ));
        return Ok(None);
    }
    let main = block.source.main_type();
    if main == "image" {
        return Ok(Some(openai_image(ctx, &block.source)?));
    }
    if main == "audio" {
        return Ok(Some(openai_audio(ctx, &block.source)?));
    }
    if mt == "application/pdf" {
        let data = ctx.source_b64(&block.source)?;
        return Ok(Some(json!({
            "type": "file",
            "file": {
                "filename": block.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| "document.pdf".into()),
                "file_data": format!("data:{mt};base64,{data}"),
            }
        })));
    }
    ctx.warn(format!(
        "Unsupported main media type {main} for OpenAI API. This block will be skipped."
    ));
    Ok(None)
}

pub fn openai_image(ctx: &Ctx, source: &Source) -> Result<Value, PyErr> {
    Ok(json!({"type": "image_url", "image_url": {"url": ctx.data_uri_or_url(source)?}}))
}

pub fn openai_audio(ctx: &Ctx, source: &Source) -> Result<Value, PyErr> {
    let mt = source.media_type();
    let format = match mt {
        "audio/wav" => "wav",
        "audio/mp3" | "audio/mpeg" => "mp3",
        _ => {
            return Err(PyErr::type_error(format!(
                "Unsupported audio media type: {mt}, only WAV and MP3 audio are supported."
            )))
        }
    };
    let data = ctx.source_b64(source)?;
    Ok(json!({"type": "input_audio", "input_audio": {"data": data, "format": format}}))
}

/// Moonshot: every image and video inlined (web URLs downloaded).
pub fn moonshot_media(ctx: &Ctx, source: &Source) -> Result<Value, PyErr> {
    let mt = source.media_type();
    let url = match source {
        Source::Base64 { data, .. } => format!("data:{mt};base64,{data}"),
        Source::Url { url, .. } => {
            let bytes = if url.starts_with("file://") {
                ctx.read_file_url(url)?
            } else {
                ctx.download(url)?
            };
            format!("data:{mt};base64,{}", b64encode(&bytes))
        }
    };
    let key = if mt.starts_with("video/") {
        "video_url"
    } else {
        "image_url"
    };
    let mut out = Map::new();
    out.insert("type".into(), key.into());
    out.insert(key.into(), json!({"url": url}));
    Ok(Value::Object(out))
}

pub fn moonshot_data_block(ctx: &Ctx, block: &Data) -> Result<Option<Value>, PyErr> {
    let mt = block.source.media_type();
    if (mt.starts_with("video/") || mt.starts_with("image/")) && ctx.matches(mt) {
        return Ok(Some(moonshot_media(ctx, &block.source)?));
    }
    openai_data_block(ctx, block)
}

/// The parts of a list hint / a promotion, through the style's data writer.
pub fn parts(ctx: &Ctx, style: &Style, items: &[Item]) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Text(t) => out.push(json!({"type": "text", "text": t})),
            Item::Data(d) => {
                if let Some(v) = (style.data)(ctx, d)? {
                    out.push(v);
                }
            }
        }
    }
    Ok(out)
}

struct Turn {
    content: Vec<Value>,
    calls: Vec<Value>,
    thinking: Vec<String>,
}

impl Turn {
    fn new() -> Self {
        Turn {
            content: Vec::new(),
            calls: Vec::new(),
            thinking: Vec::new(),
        }
    }
    fn any(&self) -> bool {
        !self.content.is_empty() || !self.calls.is_empty() || !self.thinking.is_empty()
    }
    fn message(&mut self, style: &Style, msg: &Msg) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), msg.role.clone().into());
        if style.name {
            m.insert("name".into(), msg.name.clone().into());
        }
        m.insert(
            "content".into(),
            if self.content.is_empty() {
                Value::Null
            } else {
                Value::Array(std::mem::take(&mut self.content))
            },
        );
        let joined = self.thinking.join("\n");
        match style.reasoning {
            Reasoning::Moonshot if msg.role == "assistant" => {
                m.insert("reasoning_content".into(), joined.clone().into());
            }
            Reasoning::Volcengine if msg.role == "assistant" && !self.thinking.is_empty() => {
                m.insert("reasoning_content".into(), joined.clone().into());
            }
            _ => {}
        }
        if !self.calls.is_empty() {
            m.insert(
                "tool_calls".into(),
                Value::Array(std::mem::take(&mut self.calls)),
            );
        }
        if style.reasoning == Reasoning::DashScope && !self.thinking.is_empty() {
            m.insert("reasoning_content".into(), joined.into());
        }
        self.thinking.clear();
        Value::Object(m)
    }
}

/// The chat formatter of the OpenAI-shaped providers.
pub fn format_chat(ctx: &Ctx, style: &Style, msgs: &[Msg]) -> Result<Vec<Value>, PyErr> {
    let with_thinking = ctx
        .input_types
        .iter()
        .any(|t| t == "application/x-thinking");
    let mut out = Vec::new();
    for msg in msgs {
        let mut turn = Turn::new();
        let mut pending: Vec<Value> = Vec::new();
        for block in &msg.content {
            if !pending.is_empty() && !matches!(block, Block::ToolResult { .. }) {
                out.append(&mut pending);
            }
            match block {
                Block::Text(t) => turn.content.push(json!({"type": "text", "text": t})),
                Block::Data(d) => {
                    if let Some(v) = (style.data)(ctx, d)? {
                        turn.content.push(v);
                    }
                }
                Block::Thinking { thinking, .. } => match style.reasoning {
                    Reasoning::Drop => {}
                    Reasoning::DashScope if !with_thinking => {}
                    Reasoning::Moonshot if thinking.is_empty() => {}
                    _ => turn.thinking.push(thinking.clone()),
                },
                Block::Hint(hint) => {
                    if turn.any() {
                        out.push(turn.message(style, msg));
                    }
                    match hint {
                        Items::Str(h) => out.push(
                            json!({"role": "user", "content": [{"type": "text", "text": h}]}),
                        ),
                        Items::List(items) => {
                            let p = parts(ctx, style, items)?;
                            if !p.is_empty() {
                                out.push(json!({"role": "user", "content": p}));
                            }
                        }
                    }
                }
                Block::ToolCall { id, name, input } => turn.calls.push(json!({
                    "id": id, "type": "function", "function": {"name": name, "arguments": input}
                })),
                Block::ToolResult { id, name, output } => {
                    if turn.any() {
                        out.push(turn.message(style, msg));
                    }
                    let (text, promoted) = ctx.tool_result_to_string(output)?;
                    out.push(
                        json!({"role": "tool", "tool_call_id": id, "content": text, "name": name}),
                    );
                    if !promoted.is_empty() {
                        let p = parts(ctx, style, &promoted)?;
                        if !p.is_empty() {
                            pending.push(if style.promo_name {
                                json!({"role": "user", "name": "system-reminder", "content": p})
                            } else {
                                json!({"role": "user", "content": p})
                            });
                        }
                    }
                }
            }
        }
        out.append(&mut pending);
        let had_thinking = !turn.thinking.is_empty();
        let joined_nonempty = turn.thinking.iter().any(|t| !t.is_empty());
        let has = !turn.content.is_empty() || !turn.calls.is_empty();
        let keep = has
            || match style.reasoning {
                Reasoning::Drop => false,
                Reasoning::DashScope => joined_nonempty || turn.thinking.len() > 1,
                Reasoning::Volcengine | Reasoning::Moonshot => had_thinking,
            };
        let m = turn.message(style, msg);
        if keep {
            out.push(m);
        }
    }
    Ok(out)
}

/// The agent-message group of the OpenAI-shaped multi-agent formatters:
/// `"<name>: <text>"` lines in the history tags, media after.
pub fn agent_group(
    ctx: &Ctx,
    data: DataFn,
    msgs: &[Msg],
    prompt: &str,
) -> Result<Vec<Value>, PyErr> {
    let mut lines = Vec::new();
    let mut media = Vec::new();
    for msg in msgs {
        for block in &msg.content {
            match block {
                Block::Text(t) => lines.push(format!("{}: {t}", msg.name)),
                Block::Data(d) => {
                    if let Some(v) = data(ctx, d)? {
                        media.push(v);
                    }
                }
                _ => {}
            }
        }
    }
    let mut content = Vec::new();
    if !lines.is_empty() {
        content.push(json!({"type": "text", "text": format!("{prompt}<history>\n{}\n</history>", lines.join("\n"))}));
    }
    content.extend(media);
    if content.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![json!({"role": "user", "content": content})])
}

/// `{"role": "system", "content": <texts joined, or null>}`.
pub fn string_system(msg: &Msg) -> Value {
    json!({"role": "system", "content": msg.text_content()})
}
