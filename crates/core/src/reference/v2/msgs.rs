//! AgentScope 2.x messages: the parts of a 2.x `Msg` the formatters read,
//! which messages of a session are already 2.x dicts
//! (`Msg.model_dump(mode="json")`), and our v1 messages converted to 2.x
//! dicts as a user migrating would (the reference README's rules).
//! Validation is in `validate`.

use crate::json;
use serde_json::{Map, Value};
use std::path::Path;

/// The constant timestamp the reference pins generated timestamps to.
pub const FIXED_TIMESTAMP: &str = "2026-01-01T00:00:00";

/// A validated 2.x `Msg`: only what formatters and the estimate read.
#[derive(Debug, Clone)]
pub struct Msg {
    pub name: String,
    pub role: String,
    pub content: Vec<Block>,
}

#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    Thinking {
        thinking: String,
        extra: Map<String, Value>,
    },
    Data(Data),
    Hint(Items),
    ToolCall {
        id: String,
        name: String,
        input: String,
    },
    ToolResult {
        id: String,
        name: String,
        output: Items,
    },
}

/// `str | list[TextBlock | DataBlock]` (a hint, a tool output).
#[derive(Debug, Clone)]
pub enum Items {
    Str(String),
    List(Vec<Item>),
}

#[derive(Debug, Clone)]
pub enum Item {
    Text(String),
    Data(Data),
}

#[derive(Debug, Clone)]
pub struct Data {
    pub id: String,
    pub source: Source,
    pub name: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Source {
    Base64 { data: String, media_type: String },
    Url { url: String, media_type: String },
}

impl Source {
    pub fn media_type(&self) -> &str {
        match self {
            Source::Base64 { media_type, .. } | Source::Url { media_type, .. } => media_type,
        }
    }
    /// The part of the media type before `/`.
    pub fn main_type(&self) -> &str {
        self.media_type().split('/').next().unwrap_or("")
    }
}

impl Msg {
    pub fn has(&self, f: impl Fn(&Block) -> bool) -> bool {
        self.content.iter().any(f)
    }
    pub fn is_tool_sequence(&self) -> bool {
        self.has(|b| matches!(b, Block::ToolCall { .. } | Block::ToolResult { .. }))
    }
    /// `get_text_content()`: texts joined with `"\n"`, `None` without any.
    pub fn text_content(&self) -> Option<String> {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }
}

const NATIVE_KEYS: [&str; 6] = [
    "created_at",
    "finished_at",
    "usage",
    "finished_reason",
    "structured_output",
    "error",
];

/// A 2.x dict: a 2.x message key, or a block type only 2.x has.
pub fn is_native(msg: &Value) -> bool {
    let Some(obj) = msg.as_object() else {
        return false;
    };
    if NATIVE_KEYS.iter().any(|k| obj.contains_key(*k)) {
        return true;
    }
    match obj.get("content") {
        Some(Value::Array(blocks)) => blocks.iter().any(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("data" | "tool_call" | "hint")
            )
        }),
        _ => false,
    }
}

// ---------------------------------------------------------------------------
// v1 -> 2.x dict
// ---------------------------------------------------------------------------

fn has_scheme(url: &str) -> bool {
    let Some((scheme, _)) = url.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
}

/// A v1 URL naming a local file -> the path as written; web URLs -> None.
fn local_path(url: &str) -> Option<&str> {
    if has_scheme(url) && !url.starts_with("file://") {
        return None;
    }
    Some(url.strip_prefix("file://").unwrap_or(url))
}

/// `urlparse(url).path` for a URL with a scheme and host.
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    rest.find('/').map(|i| &rest[i..]).unwrap_or("")
}

fn guess_media_type(url: &str) -> String {
    if let Some(t) = data_url_type(url) {
        return t;
    }
    let path = local_path(url).unwrap_or_else(|| url_path(url));
    crate::media::guess_type(path).unwrap_or_else(|| "application/octet-stream".into())
}

/// `mimetypes.guess_type` of a `data:` URL (its scheme as `_splittype`
/// finds it, any case): the type before `;` or `,`, else `text/plain`
/// when it has `=` or no `/`; `None` without a comma or another scheme.
fn data_url_type(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once(':')?;
    if scheme.is_empty() || scheme.contains('/') || !scheme.eq_ignore_ascii_case("data") {
        return None;
    }
    let comma = rest.find(',')?;
    let head = &rest[..comma];
    let t = head.split(';').next().unwrap_or(head);
    Some(if t.contains('=') || !t.contains('/') {
        "text/plain".into()
    } else {
        t.to_string()
    })
}

/// `os.path.normpath` of an absolute path.
pub(crate) fn normpath(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `Path(p).as_uri()`: `file://` + the path percent-quoted (safe `/`).
fn as_uri(path: &str) -> String {
    let mut out = String::from("file://");
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || b"/_.-~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn convert_source(source: &Value, session_dir: &Path) -> Value {
    let Some(obj) = source.as_object() else {
        return source.clone();
    };
    match (obj.get("type").and_then(Value::as_str), obj.get("url")) {
        (Some("url"), Some(Value::String(url))) => {
            let media_type = match obj.get("media_type") {
                Some(v) if crate::py::truthy(v) => v.clone(),
                _ => Value::String(guess_media_type(url)),
            };
            let url = match local_path(url) {
                Some(local) => {
                    let local = expand_user(local);
                    let joined = if local.starts_with('/') {
                        local
                    } else {
                        format!("{}/{local}", session_dir.display())
                    };
                    as_uri(&normpath(&joined))
                }
                None => url.clone(),
            };
            json!({"type": "url", "url": url, "media_type": media_type})
        }
        (Some("base64"), _) => {
            let mut out = Map::new();
            for key in ["type", "data", "media_type"] {
                if let Some(v) = obj.get(key) {
                    out.insert(key.into(), v.clone());
                }
            }
            Value::Object(out)
        }
        _ => source.clone(),
    }
}

fn expand_user(p: &str) -> String {
    if p == "~" || p.starts_with("~/") {
        if let Ok(home) = std::env::var("HOME") {
            return format!("{home}{}", &p[1..]);
        }
    }
    p.to_string()
}

fn convert_block(block: &Value, block_id: &str, session_dir: &Path) -> Value {
    let Some(obj) = block.as_object() else {
        return block.clone();
    };
    let get = |k: &str| obj.get(k).cloned().unwrap_or(Value::Null);
    match obj.get("type").and_then(Value::as_str) {
        Some("text") => json!({"type": "text", "text": get("text"), "id": block_id}),
        Some("thinking") => {
            let mut out = json!({"type": "thinking", "thinking": get("thinking"), "id": block_id});
            for key in [
                "signature",
                "redacted_thinking_data",
                "reasoning_item_id",
                "reasoning_item_raw",
            ] {
                if let (Some(v), Some(o)) = (obj.get(key), out.as_object_mut()) {
                    o.insert(key.into(), v.clone());
                }
            }
            out
        }
        Some("image" | "audio" | "video") => json!({
            "type": "data",
            "id": block_id,
            "source": convert_source(&get("source"), session_dir),
        }),
        Some("tool_use") => {
            let raw = match obj.get("input") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => "{}".into(),
                Some(v) => crate::py::dumps(v),
            };
            json!({"type": "tool_call", "id": get("id"), "name": get("name"), "input": raw, "state": "finished"})
        }
        Some("tool_result") => {
            let output = match obj.get("output") {
                Some(Value::Array(items)) => Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(k, b)| convert_block(b, &format!("{block_id}.{k}"), session_dir))
                        .collect(),
                ),
                other => other.cloned().unwrap_or(Value::Null),
            };
            json!({"type": "tool_result", "id": get("id"), "name": get("name"), "output": output, "state": "success"})
        }
        _ => block.clone(),
    }
}

pub fn convert_v1_msg(msg: &Value, index: usize, session_dir: &Path) -> Value {
    let Some(obj) = msg.as_object() else {
        return msg.clone();
    };
    let msg_id = match obj.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => format!("msg-{index}"),
    };
    let blocks = match obj.get("content") {
        Some(Value::String(s)) => json!([{"type": "text", "text": s, "id": format!("{msg_id}.0")}]),
        Some(Value::Array(items)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(j, b)| convert_block(b, &format!("{msg_id}.{j}"), session_dir))
                .collect(),
        ),
        other => other.cloned().unwrap_or(Value::Null),
    };
    let mut role = obj.get("role").cloned().unwrap_or(Value::Null);
    if let Value::Array(items) = &blocks {
        let types: Vec<&str> = items
            .iter()
            .filter_map(|b| b.get("type").and_then(Value::as_str))
            .collect();
        let only = |allowed: &[&str]| types.iter().all(|t| allowed.contains(t));
        if (role == "user" && !only(&["text", "data"])) || (role == "system" && !only(&["text"])) {
            role = Value::String("assistant".into());
        }
    }
    let mut out = Map::new();
    out.insert(
        "name".into(),
        obj.get("name").cloned().unwrap_or(Value::Null),
    );
    out.insert("role".into(), role);
    out.insert("content".into(), blocks);
    out.insert("id".into(), Value::String(msg_id));
    if let Some(m @ Value::Object(_)) = obj.get("metadata") {
        out.insert("metadata".into(), m.clone());
    }
    if let Some(t @ Value::String(_)) = obj.get("timestamp") {
        out.insert("created_at".into(), t.clone());
    }
    Value::Object(out)
}
