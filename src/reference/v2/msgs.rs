//! AgentScope 2.x messages: our v1 session messages converted as a user
//! migrating would (the reference README's rules), and 2.x's own
//! `Msg.model_dump(mode="json")` dicts read as they are; both validated as
//! `Msg.model_validate` validates them, so what 2.x rejects fails here with
//! a `ValidationError`, and what it accepts dumps back as 2.x dumps it.

use crate::py::{py_repr, PyErr};
use serde_json::{json, Map, Value};
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

/// Generated ids (`id-0001`, ...), as the reference's id factory.
#[derive(Default)]
pub struct Ids(usize);

impl Ids {
    fn next(&mut self) -> String {
        self.0 += 1;
        format!("id-{:04}", self.0)
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

/// Builds every Msg; the first invalid one fails the whole list.
pub fn build(messages: &[Value], session_dir: &Path) -> Result<(Vec<Msg>, Vec<Value>), PyErr> {
    let mut ids = Ids::default();
    let mut msgs = Vec::new();
    let mut dumps = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let data = if is_native(m) {
            m.clone()
        } else {
            convert_v1_msg(m, i, session_dir)
        };
        let (msg, dump) = validate_msg(&data, &mut ids)?;
        msgs.push(msg);
        dumps.push(dump);
    }
    Ok((msgs, dumps))
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
    let path = local_path(url).unwrap_or_else(|| url_path(url));
    crate::media::guess_type(path).unwrap_or_else(|| "application/octet-stream".into())
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

fn convert_v1_msg(msg: &Value, index: usize, session_dir: &Path) -> Value {
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
    out.insert("name".into(), obj.get("name").cloned().unwrap_or(Value::Null));
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

// ---------------------------------------------------------------------------
// Msg.model_validate
// ---------------------------------------------------------------------------

struct Errors(Vec<(String, String)>);

impl Errors {
    fn add(&mut self, loc: &str, msg: String) {
        self.0.push((loc.to_string(), msg));
    }
}

fn type_name(v: &Value) -> &'static str {
    crate::py::type_name(v)
}

fn str_error(v: &Value) -> String {
    format!(
        "Input should be a valid string [type=string_type, input_value={}, input_type={}]",
        py_repr(v),
        type_name(v)
    )
}

fn missing(obj: &Map<String, Value>) -> String {
    format!(
        "Field required [type=missing, input_value={}, input_type=dict]",
        py_repr(&Value::Object(obj.clone()))
    )
}

/// A required `str` field.
fn req_str(obj: &Map<String, Value>, key: &str, loc: &str, errs: &mut Errors) -> String {
    match obj.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.{key}"), str_error(v));
            String::new()
        }
        None => {
            errs.add(&format!("{loc}.{key}"), missing(obj));
            String::new()
        }
    }
}

/// An optional `str` field with a default (`None` when absent and no default).
fn opt_str(
    obj: &Map<String, Value>,
    key: &str,
    loc: &str,
    default: Value,
    nullable: bool,
    errs: &mut Errors,
) -> Value {
    match obj.get(key) {
        None => default,
        Some(Value::Null) if nullable => Value::Null,
        Some(v @ Value::String(_)) => v.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.{key}"), str_error(v));
            Value::Null
        }
    }
}

fn id_or_new(
    obj: &Map<String, Value>,
    loc: &str,
    ids: &mut Ids,
    errs: &mut Errors,
) -> Value {
    match obj.get("id") {
        None => Value::String(ids.next()),
        Some(v @ Value::String(_)) => v.clone(),
        Some(v) => {
            errs.add(&format!("{loc}.id"), str_error(v));
            Value::Null
        }
    }
}

fn stamps(obj: &Map<String, Value>, loc: &str, out: &mut Map<String, Value>, hint: bool, errs: &mut Errors) {
    let ts = Value::String(FIXED_TIMESTAMP.into());
    out.insert(
        "created_at".into(),
        opt_str(obj, "created_at", loc, ts.clone(), false, errs),
    );
    let fin_default = if hint { ts } else { Value::Null };
    out.insert(
        "finished_at".into(),
        opt_str(obj, "finished_at", loc, fin_default, true, errs),
    );
}

fn source(v: &Value, loc: &str, errs: &mut Errors) -> (Option<Source>, Value) {
    let Some(obj) = v.as_object() else {
        errs.add(
            loc,
            format!(
                "Input should be a valid dictionary or instance of Base64Source [type=model_type, input_value={}, input_type={}]",
                py_repr(v),
                type_name(v)
            ),
        );
        return (None, Value::Null);
    };
    let typ = obj.get("type").and_then(Value::as_str);
    let is_url = typ == Some("url") || (typ.is_none() && obj.contains_key("url"));
    if typ.is_some() && !matches!(typ, Some("url" | "base64")) {
        errs.add(
            &format!("{loc}.type"),
            format!("Input should be 'base64' or 'url' [type=literal_error, input_value={}, input_type=str]", py_repr(&obj["type"])),
        );
        return (None, Value::Null);
    }
    let n = errs.0.len();
    if is_url {
        let url = req_str(obj, "url", loc, errs);
        let media_type = req_str(obj, "media_type", loc, errs);
        let url = if errs.0.len() == n {
            match normalise_url(&url) {
                Ok(u) => u,
                Err(e) => {
                    errs.add(&format!("{loc}.URLSource.url"), e);
                    return (None, Value::Null);
                }
            }
        } else {
            url
        };
        let dump = json!({"type": "url", "url": url, "media_type": media_type});
        (Some(Source::Url { url, media_type }), dump)
    } else {
        let data = req_str(obj, "data", loc, errs);
        let media_type = req_str(obj, "media_type", loc, errs);
        let dump = json!({"type": "base64", "data": data, "media_type": media_type});
        (Some(Source::Base64 { data, media_type }), dump)
    }
}

/// pydantic's `AnyUrl`: a scheme is required; special schemes get a path.
fn normalise_url(url: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "Input should be a valid URL, relative URL without a base [type=url_parsing, input_value={}, input_type=str]",
            py_repr(&Value::String(url.into()))
        )
    };
    let trimmed = url.trim();
    let Some((scheme, rest)) = trimmed.split_once(':') else {
        return Err(bad());
    };
    let mut chars = scheme.chars();
    if !matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        || !chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    {
        return Err(bad());
    }
    let scheme = scheme.to_ascii_lowercase();
    let special = matches!(scheme.as_str(), "http" | "https" | "ws" | "wss" | "ftp");
    if special {
        let rest = rest.trim_start_matches(['/', '\\']);
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (host, tail) = rest.split_at(end);
        if host.is_empty() {
            return Err(format!(
                "Input should be a valid URL, empty host [type=url_parsing, input_value={}, input_type=str]",
                py_repr(&Value::String(url.into()))
            ));
        }
        let tail = if tail.starts_with('/') {
            tail.to_string()
        } else {
            format!("/{tail}")
        };
        return Ok(format!("{scheme}://{}{}", host.to_ascii_lowercase(), tail.replace(' ', "%20")));
    }
    Ok(format!("{scheme}:{}", rest.replace(' ', "%20")))
}

fn data_block(obj: &Map<String, Value>, loc: &str, ids: &mut Ids, errs: &mut Errors) -> (Option<Data>, Value) {
    let id = id_or_new(obj, loc, ids, errs);
    let (src, src_dump) = match obj.get("source") {
        Some(v) => source(v, &format!("{loc}.source"), errs),
        None => {
            errs.add(&format!("{loc}.source"), missing(obj));
            (None, Value::Null)
        }
    };
    let name = opt_str(obj, "name", loc, Value::Null, true, errs);
    let mut out = Map::new();
    out.insert("type".into(), "data".into());
    out.insert("id".into(), id.clone());
    out.insert("source".into(), src_dump);
    out.insert("name".into(), name.clone());
    stamps(obj, loc, &mut out, false, errs);
    let data = src.map(|source| Data {
        id: id.as_str().unwrap_or("").to_string(),
        source,
        name: name.as_str().map(str::to_string),
    });
    (data, Value::Object(out))
}

fn text_block(obj: &Map<String, Value>, loc: &str, ids: &mut Ids, errs: &mut Errors) -> (String, Value) {
    let text = req_str(obj, "text", loc, errs);
    let mut out = Map::new();
    out.insert("type".into(), "text".into());
    out.insert("text".into(), Value::String(text.clone()));
    out.insert("id".into(), id_or_new(obj, loc, ids, errs));
    stamps(obj, loc, &mut out, false, errs);
    (text, Value::Object(out))
}

/// `str | list[TextBlock | DataBlock]`.
fn items(v: Option<&Value>, loc: &str, ids: &mut Ids, errs: &mut Errors, parent: &Map<String, Value>) -> (Items, Value) {
    match v {
        Some(Value::String(s)) => (Items::Str(s.clone()), Value::String(s.clone())),
        Some(Value::Array(list)) => {
            let mut out = Vec::new();
            let mut dump = Vec::new();
            for (k, b) in list.iter().enumerate() {
                let l = format!("{loc}.{k}");
                let obj = match b.as_object() {
                    Some(o) => o,
                    None => {
                        errs.add(&l, format!("Input should be a valid dictionary or instance of TextBlock [type=model_type, input_value={}, input_type={}]", py_repr(b), type_name(b)));
                        continue;
                    }
                };
                match obj.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let (t, d) = text_block(obj, &l, ids, errs);
                        out.push(Item::Text(t));
                        dump.push(d);
                    }
                    Some("data") => {
                        let (d, dv) = data_block(obj, &l, ids, errs);
                        if let Some(d) = d {
                            out.push(Item::Data(d));
                        }
                        dump.push(dv);
                    }
                    _ => errs.add(
                        &format!("{l}.TextBlock.type"),
                        format!("Input should be 'text' [type=literal_error, input_value={}, input_type={}]", py_repr(obj.get("type").unwrap_or(&Value::Null)), type_name(obj.get("type").unwrap_or(&Value::Null))),
                    ),
                }
            }
            (Items::List(out), Value::Array(dump))
        }
        Some(other) => {
            errs.add(loc, str_error(other));
            (Items::Str(String::new()), Value::Null)
        }
        None => {
            errs.add(loc, missing(parent));
            (Items::Str(String::new()), Value::Null)
        }
    }
}

fn block(b: &Value, loc: &str, ids: &mut Ids, errs: &mut Errors) -> Option<(Block, Value)> {
    let Some(obj) = b.as_object() else {
        errs.add(loc, format!("Input should be a valid dictionary or instance of TextBlock [type=model_type, input_value={}, input_type={}]", py_repr(b), type_name(b)));
        return None;
    };
    let typ = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let mut out = Map::new();
    let n = errs.0.len();
    let result = match typ {
        "text" => {
            let (t, d) = text_block(obj, &format!("{loc}.TextBlock"), ids, errs);
            return (errs.0.len() == n).then_some((Block::Text(t), d));
        }
        "data" => {
            let (d, dv) = data_block(obj, &format!("{loc}.DataBlock"), ids, errs);
            return d.filter(|_| errs.0.len() == n).map(|d| (Block::Data(d), dv));
        }
        "thinking" => {
            let l = format!("{loc}.ThinkingBlock");
            let thinking = req_str(obj, "thinking", &l, errs);
            out.insert("type".into(), "thinking".into());
            out.insert("thinking".into(), Value::String(thinking.clone()));
            out.insert("id".into(), id_or_new(obj, &l, ids, errs));
            stamps(obj, &l, &mut out, false, errs);
            let mut extra = Map::new();
            for (k, v) in obj {
                if !["type", "thinking", "id", "created_at", "finished_at"].contains(&k.as_str()) {
                    extra.insert(k.clone(), v.clone());
                    out.insert(k.clone(), v.clone());
                }
            }
            Block::Thinking { thinking, extra }
        }
        "hint" => {
            let l = format!("{loc}.HintBlock");
            out.insert("type".into(), "hint".into());
            let (hint, dump) = items(obj.get("hint"), &format!("{l}.hint"), ids, errs, obj);
            out.insert("hint".into(), dump);
            out.insert("id".into(), id_or_new(obj, &l, ids, errs));
            out.insert("source".into(), opt_str(obj, "source", &l, Value::Null, true, errs));
            stamps(obj, &l, &mut out, true, errs);
            Block::Hint(hint)
        }
        "tool_call" => {
            let l = format!("{loc}.ToolCallBlock");
            let id = req_str(obj, "id", &l, errs);
            let name = req_str(obj, "name", &l, errs);
            let input = req_str(obj, "input", &l, errs);
            out.insert("type".into(), "tool_call".into());
            out.insert("id".into(), Value::String(id.clone()));
            out.insert("name".into(), Value::String(name.clone()));
            out.insert("input".into(), Value::String(input.clone()));
            out.insert("state".into(), obj.get("state").cloned().unwrap_or_else(|| "pending".into()));
            out.insert("suggested_rules".into(), obj.get("suggested_rules").cloned().unwrap_or_else(|| json!([])));
            stamps(obj, &l, &mut out, false, errs);
            Block::ToolCall { id, name, input }
        }
        "tool_result" => {
            let l = format!("{loc}.ToolResultBlock");
            let id = req_str(obj, "id", &l, errs);
            let name = req_str(obj, "name", &l, errs);
            out.insert("type".into(), "tool_result".into());
            out.insert("id".into(), Value::String(id.clone()));
            out.insert("name".into(), Value::String(name.clone()));
            let (output, dump) = items(obj.get("output"), &format!("{l}.output"), ids, errs, obj);
            out.insert("output".into(), dump);
            out.insert("state".into(), obj.get("state").cloned().unwrap_or_else(|| "running".into()));
            out.insert("metadata".into(), obj.get("metadata").cloned().unwrap_or_else(|| json!({})));
            stamps(obj, &l, &mut out, false, errs);
            Block::ToolResult { id, name, output }
        }
        _ => {
            errs.add(
                &format!("{loc}.TextBlock.type"),
                format!("Input should be 'text' [type=literal_error, input_value={}, input_type={}]", py_repr(obj.get("type").unwrap_or(&Value::Null)), type_name(obj.get("type").unwrap_or(&Value::Null))),
            );
            return None;
        }
    };
    (errs.0.len() == n).then_some((result, Value::Object(out)))
}

fn report(errs: &Errors) -> PyErr {
    let n = errs.0.len();
    let mut text = format!(
        "{n} validation error{} for Msg",
        if n == 1 { "" } else { "s" }
    );
    for (loc, msg) in &errs.0 {
        if !loc.is_empty() {
            text.push('\n');
            text.push_str(loc);
        }
        text.push_str("\n  ");
        text.push_str(msg);
    }
    PyErr::new("ValidationError", text)
}

/// `Msg.model_validate(dict)` and its `model_dump(mode="json")`.
pub fn validate_msg(v: &Value, ids: &mut Ids) -> Result<(Msg, Value), PyErr> {
    let mut errs = Errors(Vec::new());
    let Some(obj) = v.as_object() else {
        errs.add("", format!("Input should be a valid dictionary or instance of Msg [type=model_type, input_value={}, input_type={}]", py_repr(v), type_name(v)));
        return Err(report(&errs));
    };
    let name = req_str(obj, "name", "", &mut errs);
    let name_loc_fix = |errs: &mut Errors| {
        for e in errs.0.iter_mut() {
            if let Some(s) = e.0.strip_prefix('.') {
                e.0 = s.to_string();
            }
        }
    };
    let mut blocks = Vec::new();
    let mut dumps = Vec::new();
    match obj.get("content") {
        Some(Value::Array(items)) => {
            for (j, b) in items.iter().enumerate() {
                if let Some((blk, d)) = block(b, &format!("content.{j}"), ids, &mut errs) {
                    blocks.push(blk);
                    dumps.push(d);
                }
            }
        }
        Some(other) => errs.add(
            "content",
            format!("Input should be a valid list [type=list_type, input_value={}, input_type={}]", py_repr(other), type_name(other)),
        ),
        None => errs.add("content", missing(obj)),
    }
    let role = match obj.get("role") {
        Some(Value::String(r)) if ["user", "assistant", "system"].contains(&r.as_str()) => r.clone(),
        other => {
            let o = other.cloned().unwrap_or(Value::Null);
            errs.add(
                "role",
                format!("Input should be 'user', 'assistant' or 'system' [type=literal_error, input_value={}, input_type={}]", py_repr(&o), type_name(&o)),
            );
            String::new()
        }
    };
    let mut dump = Map::new();
    dump.insert("name".into(), Value::String(name.clone()));
    dump.insert("content".into(), Value::Array(dumps));
    dump.insert("role".into(), Value::String(role.clone()));
    dump.insert("id".into(), id_or_new(obj, "", ids, &mut errs));
    dump.insert("metadata".into(), obj.get("metadata").cloned().unwrap_or_else(|| json!({})));
    dump.insert(
        "created_at".into(),
        opt_str(obj, "created_at", "", Value::String(FIXED_TIMESTAMP.into()), false, &mut errs),
    );
    let usage = match obj.get("usage") {
        Some(Value::Object(u)) => {
            let mut u = u.clone();
            u.entry("cache_input_tokens").or_insert(json!(0));
            u.entry("cache_creation_input_tokens").or_insert(json!(0));
            Value::Object(u)
        }
        other => other.cloned().unwrap_or(Value::Null),
    };
    dump.insert("usage".into(), usage);
    for key in ["finished_at", "finished_reason", "structured_output", "error"] {
        dump.insert(key.into(), obj.get(key).cloned().unwrap_or(Value::Null));
    }
    name_loc_fix(&mut errs);
    if !errs.0.is_empty() {
        return Err(report(&errs));
    }
    let allowed: &[&str] = match role.as_str() {
        "user" => &["text", "data"],
        "system" => &["text"],
        _ => &[],
    };
    if !allowed.is_empty() {
        let bad = blocks.iter().any(|b| {
            let t = match b {
                Block::Text(_) => "text",
                Block::Data(_) => "data",
                _ => "other",
            };
            !allowed.contains(&t)
        });
        if bad {
            let text = if role == "user" {
                "User message can only contain text blocks or data blocks."
            } else {
                "System message can only contain text blocks."
            };
            errs.add(
                "",
                format!(
                    "Value error, {text} [type=value_error, input_value={}, input_type=dict]",
                    py_repr(v)
                ),
            );
            return Err(report(&errs));
        }
    }
    Ok((
        Msg {
            name,
            role,
            content: blocks,
        },
        Value::Object(dump),
    ))
}
