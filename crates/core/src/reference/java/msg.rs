//! A session's messages as AgentScope Java loads them into `Msg`s: roles
//! upper-cased (`TOOL` accepted), string content as one text block, a tool
//! result's string output as one text block, `raw_input` as the tool call's
//! raw `content`, a non-assistant message of only tool results split into one
//! `TOOL` message per result (what Java's ReActAgent stores). Shapes Java's
//! codec refuses (an object content, an unknown source type) fail here, as
//! `JsonException`s at stage `msg`.

use super::jackson::hash_map_order;
use crate::py::PyErr;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    /// No `role`: Java's codec leaves `Msg.role` null, and the formatters
    /// that read it throw `NullPointerException` when they format
    /// (`null_role_failure`).
    Null,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Url(String),
    Base64 {
        media_type: Option<String>,
        data: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    Thinking(String),
    Image(Source),
    Audio(Source),
    Video(Source),
    ToolUse {
        id: Option<String>,
        name: Option<String>,
        /// In Java's `HashMap` order.
        input: Map<String, Value>,
        /// The raw argument string (`raw_input`).
        content: Option<String>,
    },
    ToolResult {
        id: Option<String>,
        name: Option<String>,
        output: Vec<Block>,
    },
}

impl Block {
    pub fn is_media(&self) -> bool {
        matches!(self, Block::Image(_) | Block::Audio(_) | Block::Video(_))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub name: Option<String>,
    pub role: Role,
    pub content: Vec<Block>,
    /// `metadata["_cache_control"]` is `Boolean.TRUE`
    /// (`MessageMetadataKeys.CACHE_CONTROL`): the OpenAI and DashScope
    /// converters mark the message `cache_control: {"type": "ephemeral"}`.
    pub cache_control: bool,
}

impl Msg {
    pub fn has_media(&self) -> bool {
        self.content.iter().any(Block::is_media)
    }
    pub fn has_tool_use(&self) -> bool {
        self.content
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
    }
    pub fn has_tool_result(&self) -> bool {
        self.content
            .iter()
            .any(|b| matches!(b, Block::ToolResult { .. }))
    }
    pub fn first_tool_result(&self) -> Option<(&Option<String>, &Option<String>, &Vec<Block>)> {
        self.content.iter().find_map(|b| match b {
            Block::ToolResult { id, name, output } => Some((id, name, output)),
            _ => None,
        })
    }
    pub fn first_thinking(&self) -> Option<&str> {
        self.content.iter().find_map(|b| match b {
            Block::Thinking(t) => Some(t.as_str()),
            _ => None,
        })
    }
}

const DESER: &str = "Failed to deserialize JSON to io.agentscope.core.message.Msg: ";

fn json_err(message: impl AsRef<str>) -> PyErr {
    PyErr::new("JsonException", format!("{DESER}{}", message.as_ref()))
}

/// A `String` property as Jackson reads it: scalars coerced to text, an
/// object or array refused.
fn opt_str(v: Option<&Value>) -> Result<Option<String>, PyErr> {
    match v {
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(_)) => Err(json_err(
            "Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)",
        )),
        Some(Value::Array(_)) => Err(json_err(
            "Cannot deserialize value of type `java.lang.String` from Array value (token `JsonToken.START_ARRAY`)",
        )),
    }
}

fn source(v: Option<&Value>) -> Result<Source, PyErr> {
    let Some(Value::Object(s)) = v else {
        return Err(json_err("missing or invalid 'source'"));
    };
    match s.get("type").and_then(Value::as_str) {
        Some("url") => Ok(Source::Url(opt_str(s.get("url"))?.unwrap_or_default())),
        Some("base64") => Ok(Source::Base64 {
            media_type: opt_str(s.get("media_type"))?,
            data: opt_str(s.get("data"))?.unwrap_or_default(),
        }),
        other => Err(json_err(format!(
            "Could not resolve type id '{}' as a subtype of `io.agentscope.core.message.Source`: known type ids = [Source, base64, url] (for POJO property 'source')",
            other.unwrap_or("")
        ))),
    }
}

/// How Jackson names a JSON value's kind in its messages.
fn jackson_kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "Object",
        Value::Array(_) => "Array",
        Value::String(_) => "String",
        Value::Number(n) if n.is_f64() => "Floating-point",
        Value::Number(_) => "Integer",
        Value::Bool(_) => "Boolean",
        Value::Null => "Null",
    }
}

fn blocks(v: &Value) -> Result<Vec<Block>, PyErr> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(vec![Block::Text(s.clone())]),
        Value::Array(items) => items.iter().map(block).collect(),
        Value::Object(_) => Err(json_err(
            "Cannot deserialize value of type `java.util.ArrayList<io.agentscope.core.message.ContentBlock>` from Object value (token `JsonToken.START_OBJECT`)",
        )),
        other => Err(json_err(format!(
            "Cannot deserialize value of type `java.util.ArrayList<io.agentscope.core.message.ContentBlock>` from {} value",
            jackson_kind(other)
        ))),
    }
}

fn block(v: &Value) -> Result<Block, PyErr> {
    let Value::Object(b) = v else {
        return Err(json_err(
            "Cannot construct instance of `io.agentscope.core.message.ContentBlock`",
        ));
    };
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    Ok(match kind {
        "text" => Block::Text(opt_str(b.get("text"))?.unwrap_or_default()),
        "thinking" => Block::Thinking(opt_str(b.get("thinking"))?.unwrap_or_default()),
        "image" => Block::Image(source(b.get("source"))?),
        "audio" => Block::Audio(source(b.get("source"))?),
        "video" => Block::Video(source(b.get("source"))?),
        "tool_use" => Block::ToolUse {
            id: opt_str(b.get("id"))?,
            name: opt_str(b.get("name"))?,
            input: match b.get("input") {
                Some(Value::Object(m)) => hash_map_order(m),
                None | Some(Value::Null) => Map::new(),
                Some(other) => {
                    return Err(json_err(format!(
                        "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.String,java.lang.Object>` from {} value",
                        jackson_kind(other)
                    )))
                }
            },
            content: match opt_str(b.get("raw_input"))? {
                Some(raw) => Some(raw),
                None => opt_str(b.get("content"))?,
            },
        },
        "tool_result" => Block::ToolResult {
            id: opt_str(b.get("id"))?,
            name: opt_str(b.get("name"))?,
            output: blocks(b.get("output").unwrap_or(&Value::Null))?,
        },
        other => {
            return Err(json_err(format!(
                "Could not resolve type id '{other}' as a subtype of `io.agentscope.core.message.ContentBlock`: known type ids = [ContentBlock, audio, data, hint, image, text, thinking, tool_result, tool_use, video] (for POJO property 'content')"
            )))
        }
    })
}

/// One session message → its Java `Msg`s.
fn load_one(v: &Value) -> Result<Vec<Msg>, PyErr> {
    let Value::Object(m) = v else {
        return Err(json_err(
            "Cannot construct instance of `io.agentscope.core.message.Msg`",
        ));
    };
    let role_text = opt_str(m.get("role"))?.map(|r| r.to_uppercase());
    let role = match role_text.as_deref().unwrap_or("") {
        _ if role_text.is_none() => Role::Null,
        "SYSTEM" => Role::System,
        "USER" => Role::User,
        "ASSISTANT" => Role::Assistant,
        "TOOL" => Role::Tool,
        other => {
            return Err(json_err(format!(
                "Cannot deserialize value of type `io.agentscope.core.message.MsgRole` from String \"{other}\": not one of the values accepted for Enum class: [SYSTEM, TOOL, USER, ASSISTANT]"
            )))
        }
    };
    let name = opt_str(m.get("name"))?;
    let cache_control =
        m.get("metadata").and_then(|md| md.get("_cache_control")) == Some(&Value::Bool(true));
    let content = blocks(m.get("content").unwrap_or(&Value::Null))?;
    let only_results = !content.is_empty()
        && content
            .iter()
            .all(|b| matches!(b, Block::ToolResult { .. }));
    if role != Role::Assistant && only_results {
        return Ok(content
            .into_iter()
            .map(|b| Msg {
                name: name.clone(),
                role: Role::Tool,
                content: vec![b],
                cache_control,
            })
            .collect());
    }
    Ok(vec![Msg {
        name,
        role,
        content,
        cache_control,
    }])
}

/// `cache_control: {"type": "ephemeral"}` as the last key of a converted
/// message whose `Msg` asks for it (`applyCacheControlFromMetadata`).
pub fn with_cache_control(mut message: Value, msg: &Msg) -> Value {
    if let (true, Value::Object(m)) = (msg.cache_control, &mut message) {
        m.insert(
            "cache_control".into(),
            serde_json::json!({"type": "ephemeral"}),
        );
    }
    message
}

/// All messages, in order.
pub fn load(messages: &[Value]) -> Result<Vec<Msg>, PyErr> {
    let mut out = Vec::new();
    for m in messages {
        out.extend(load_one(m)?);
    }
    Ok(out)
}

/// The session's tools as `ToolSchema`s, in the OpenAI function shape every
/// Java model class sends (`strict` kept when given). `ToolSchema` holds its
/// parameters in a `HashMap`: their top-level keys go out in its order.
pub fn tool_schemas(tools: &[Value]) -> Result<Vec<ToolSchema>, PyErr> {
    tools
        .iter()
        .map(|t| {
            let f = t.get("function").unwrap_or(t);
            let name = opt_str(f.get("name"))?
                .ok_or_else(|| PyErr::new("NullPointerException", "name is required"))?;
            let description = opt_str(f.get("description"))?
                .ok_or_else(|| PyErr::new("NullPointerException", "description is required"))?;
            Ok(ToolSchema {
                name,
                description,
                parameters: match f.get("parameters") {
                    Some(Value::Object(p)) => Value::Object(hash_map_order(p)),
                    _ => Value::Object(Map::new()),
                },
                strict: f.get("strict").and_then(Value::as_bool),
            })
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolSchema {
    pub name: String,
    pub description: String,
    /// `{}` when the session gives none (Java's `emptyMap()`).
    pub parameters: Value,
    pub strict: Option<bool>,
}

/// The `cause` Java reports under a load error: Jackson's own exception
/// (its simple class name) and message.
pub fn cause(e: &PyErr) -> Option<String> {
    let detail = e.message.strip_prefix(DESER)?;
    let kind = if detail.starts_with("Could not resolve type id") {
        "InvalidTypeIdException"
    } else if detail.contains("MsgRole") {
        "InvalidFormatException"
    } else {
        "MismatchedInputException"
    };
    Some(format!("{kind}: {detail}"))
}
