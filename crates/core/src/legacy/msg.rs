//! AgentScope 0.1.6's `Msg` as the legacy formatters receive it
//! (formatters-v0.md §1): built from a v0 session's entries, validated and
//! rebuilt as pydantic does, and the positional arguments of
//! `format_chat(*args)` they form.

use crate::json;
use crate::media::MediaEnv;
use crate::py::{py_repr, py_str, PyErr};
use serde_json::{Map, Value};

/// A validated 0.1.6 `Msg`: only what the formatters read.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg0 {
    pub name: String,
    pub role: String,
    pub content: Content,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    /// Rebuilt blocks: only the keys of their shape, in the shape's order.
    Blocks(Vec<Value>),
}

/// One positional argument of `format_chat(*args)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Msg(Msg0),
    None,
    List(Vec<Arg>),
    /// A string, number or bool, passed as is.
    Other(Value),
}

impl Arg {
    /// Python's type name of the argument.
    pub fn type_name(&self) -> &'static str {
        match self {
            Arg::Msg(_) => "Msg",
            Arg::None => "NoneType",
            Arg::List(_) => "list",
            Arg::Other(v) => crate::py::type_name(v),
        }
    }
}

pub(crate) fn validation(n: usize, report: String) -> PyErr {
    PyErr::new(
        "ValidationError",
        format!(
            "{n} validation error{} for Msg\n{report}",
            if n == 1 { "" } else { "s" }
        ),
    )
}

/// Builds the arguments from the session's `messages` entries.
pub fn build_args(entries: &[Value], env: &MediaEnv) -> Result<Vec<Arg>, PyErr> {
    entries.iter().map(|e| build_arg(e, env)).collect()
}

fn build_arg(v: &Value, env: &MediaEnv) -> Result<Arg, PyErr> {
    Ok(match v {
        Value::Object(m) => Arg::Msg(build_msg(m, env)?),
        Value::Null => Arg::None,
        Value::Array(items) => Arg::List(
            items
                .iter()
                .map(|x| build_arg(x, env))
                .collect::<Result<_, _>>()?,
        ),
        other => Arg::Other(other.clone()),
    })
}

const INIT_KEYS: [&str; 5] = ["name", "content", "role", "metadata", "url"];

fn build_msg(obj: &Map<String, Value>, env: &MediaEnv) -> Result<Msg0, PyErr> {
    let kwargs: Vec<(String, Value)> = if obj.contains_key("__module__") {
        // Msg.from_dict: checks and removes the class path, then id and
        // timestamp; every other key is a keyword argument.
        let mut rest = obj.clone();
        let module = rest.shift_remove("__module__");
        if module != Some(Value::from("agentscope.message.msg")) {
            return Err(PyErr::assertion(""));
        }
        match rest.shift_remove("__name__") {
            None => return Err(PyErr::key("__name__")),
            Some(n) if n != "Msg" => return Err(PyErr::assertion("")),
            Some(_) => {}
        }
        for key in ["id", "timestamp"] {
            if rest.shift_remove(key).is_none() {
                return Err(PyErr::key(key));
            }
        }
        if let Some(k) = rest
            .keys()
            .find(|k| !INIT_KEYS.contains(&k.as_str()) && k.as_str() != "echo")
        {
            return Err(PyErr::type_error(format!(
                "Msg.__init__() got an unexpected keyword argument '{k}'"
            )));
        }
        if rest.get("echo").is_some_and(crate::py::truthy) {
            return Err(PyErr::attribute("Logger", "chat"));
        }
        rest.into_iter().collect()
    } else {
        INIT_KEYS
            .iter()
            .filter_map(|k| obj.get(*k).map(|v| (k.to_string(), v.clone())))
            .collect()
    };
    let get =
        |k: &str, kw: &[(String, Value)]| kw.iter().find(|(x, _)| x == k).map(|(_, v)| v.clone());
    let missing: Vec<&str> = ["name", "content", "role"]
        .into_iter()
        .filter(|k| get(k, &kwargs).is_none())
        .collect();
    if !missing.is_empty() {
        let quoted: Vec<String> = missing.iter().map(|m| format!("'{m}'")).collect();
        let list = match quoted.len() {
            1 => quoted[0].clone(),
            2 => format!("{} and {}", quoted[0], quoted[1]),
            _ => format!("{}, {}, and {}", quoted[0], quoted[1], quoted[2]),
        };
        return Err(PyErr::type_error(format!(
            "Msg.__init__() missing {} required positional argument{}: {list}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" }
        )));
    }
    let name = get("name", &kwargs).unwrap_or(Value::Null);
    let role = get("role", &kwargs).unwrap_or(Value::Null);
    let mut content = match get("content", &kwargs).unwrap_or(Value::Null) {
        Value::Null => Value::Array(Vec::new()),
        c @ (Value::String(_) | Value::Array(_)) => c,
        other => {
            env.warn(format!(
                "The content should be a string or a list of content blocks.The input content <class '{}'> is converted to a string automatically.",
                crate::py::type_name(&other)
            ));
            Value::String(py_str(&other))
        }
    };
    if let Some(url) = get("url", &kwargs).filter(|u| !u.is_null()) {
        env.warn("The url argument will be deprecated in the future. Consider using the ContentBlock instead to attach files to the message".into());
        if let Value::String(s) = &content {
            content = json!([{"type": "text", "text": s}]);
        }
        let urls: Vec<Value> = match url {
            Value::String(s) => vec![Value::String(s)],
            Value::Array(a) => a,
            // Iterating a dict gives its keys.
            Value::Object(m) => m.keys().map(|k| Value::String(k.clone())).collect(),
            other => {
                return Err(PyErr::type_error(format!(
                    "'{}' object is not iterable",
                    crate::py::type_name(&other)
                )))
            }
        };
        let mut blocks = match content {
            Value::Array(b) => b,
            _ => Vec::new(),
        };
        for u in urls {
            let Value::String(u) = u else {
                return Err(PyErr::attribute(crate::py::type_name(&u), "split"));
            };
            blocks.push(json!({"type": kind_of_url(&u), "url": u}));
        }
        content = Value::Array(blocks);
    }
    validate(name, role, content)
}

/// The block type of a URL by its extension (§1.4): the text after the
/// last `.` of the whole string, lower-cased.
pub fn kind_of_url(url: &str) -> &'static str {
    let ext = url.rsplit('.').next().unwrap_or(url).to_lowercase();
    const IMAGE: &[&str] = &[
        "bmp", "dib", "icns", "ico", "jfif", "jpe", "jpeg", "jpg", "j2c", "j2k", "jp2", "jpc",
        "jpf", "jpx", "apng", "png", "bw", "rgb", "rgba", "sgi", "tif", "tiff", "webp",
    ];
    const AUDIO: &[&str] = &["amr", "wav", "3gp", "3gpp", "aac", "mp3", "flac", "ogg"];
    const VIDEO: &[&str] = &["mp4", "webm", "mkv", "flv", "avi", "mov", "wmv", "rmvb"];
    if IMAGE.contains(&ext.as_str()) {
        "image"
    } else if AUDIO.contains(&ext.as_str()) {
        "audio"
    } else if VIDEO.contains(&ext.as_str()) {
        "video"
    } else {
        "file"
    }
}

/// pydantic's validation of a Msg, and the rebuilt blocks.
fn validate(name: Value, role: Value, content: Value) -> Result<Msg0, PyErr> {
    let mut errors: Vec<String> = Vec::new();
    let name = match name {
        Value::String(s) => s,
        other => {
            errors.push(format!(
                "name\n  Input should be a valid string [type=string_type, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/2.11/v/string_type",
                py_repr(&other),
                crate::py::type_name(&other)
            ));
            String::new()
        }
    };
    let role = match role {
        Value::String(s) if matches!(s.as_str(), "system" | "user" | "assistant") => s,
        other => {
            errors.push(format!(
                "role\n  Input should be 'system', 'user' or 'assistant' [type=literal_error, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/2.11/v/literal_error",
                py_repr(&other),
                crate::py::type_name(&other)
            ));
            String::new()
        }
    };
    let content = match content {
        Value::String(s) => Content::Text(s),
        Value::Array(items) => {
            let mut blocks = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match rebuild(item) {
                    Some(b) => blocks.push(b),
                    None => errors.push(format!(
                        "content.list[union].{i}\n  Input does not match any content block shape [input_value={}]",
                        py_repr(item)
                    )),
                }
            }
            Content::Blocks(blocks)
        }
        other => {
            errors.push(format!(
                "content\n  Input should be a valid string [input_value={}]",
                py_repr(&other)
            ));
            Content::Blocks(Vec::new())
        }
    };
    if !errors.is_empty() {
        return Err(validation(errors.len(), errors.join("\n")));
    }
    Ok(Msg0 {
        name,
        role,
        content,
    })
}

/// A block rebuilt to its shape (§1.3), or `None` when it fits none.
fn rebuild(b: &Value) -> Option<Value> {
    let m = b.as_object()?;
    let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    let mut out = Map::new();
    let t = m.get("type")?.as_str()?;
    out.insert("type".into(), Value::from(t));
    match t {
        "tool_use" => {
            out.insert("id".into(), Value::from(s("id")?));
            out.insert("name".into(), Value::from(s("name")?));
            let input = m.get("input")?;
            if !input.is_object() {
                return None;
            }
            out.insert("input".into(), input.clone());
        }
        "tool_result" => {
            out.insert("id".into(), Value::from(s("id")?));
            out.insert("output".into(), m.get("output")?.clone());
            match m.get("name") {
                None => {}
                Some(n @ (Value::String(_) | Value::Null)) => {
                    out.insert("name".into(), n.clone());
                }
                Some(_) => return None,
            }
        }
        "text" => match m.get("text") {
            None => {}
            Some(Value::String(t)) => {
                out.insert("text".into(), Value::from(t.clone()));
            }
            Some(_) => return None,
        },
        "image" | "audio" | "video" | "file" => match m.get("url") {
            None => {}
            Some(Value::String(u)) => {
                out.insert("url".into(), Value::from(u.clone()));
            }
            Some(_) => return None,
        },
        _ => return None,
    }
    Some(Value::Object(out))
}

impl Msg0 {
    /// `B(msg)`: the blocks (a string content is one text block).
    pub fn blocks(&self) -> Vec<Value> {
        match &self.content {
            Content::Text(s) => vec![json!({"type": "text", "text": s})],
            Content::Blocks(b) => b.clone(),
        }
    }

    /// `T(msg)` (§1.5): the text blocks' text concatenated, `None` without
    /// a text block; the first through `str()`, a later one without text
    /// raises as Python's `+` does.
    pub fn text(&self) -> Result<Option<String>, PyErr> {
        let blocks = match &self.content {
            Content::Text(s) => return Ok(Some(s.clone())),
            Content::Blocks(b) => b,
        };
        let mut out: Option<String> = None;
        for b in blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        {
            let text = b.get("text").and_then(Value::as_str);
            out = Some(match (out, text) {
                (None, Some(t)) => t.to_string(),
                (None, None) => "None".to_string(),
                (Some(acc), Some(t)) => acc + t,
                (Some(_), None) => {
                    return Err(PyErr::type_error(
                        "can only concatenate str (not \"NoneType\") to str",
                    ))
                }
            });
        }
        Ok(out)
    }
}

/// Flattening (§2.1, §2.2): `None` skipped, Msgs kept, lists of Msgs spliced.
pub fn flatten(args: &[Arg]) -> Result<Vec<&Msg0>, PyErr> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Arg::None => {}
            Arg::Msg(m) => out.push(m),
            Arg::List(items) if items.iter().all(|x| matches!(x, Arg::Msg(_))) => {
                out.extend(items.iter().filter_map(|x| match x {
                    Arg::Msg(m) => Some(m),
                    _ => None,
                }));
            }
            other => {
                return Err(PyErr::type_error(format!(
                    "The input should be a Msg object or a list of Msg objects, got <class '{}'>.",
                    other.type_name()
                )))
            }
        }
    }
    Ok(out)
}

/// A block's `"type"` (`""` when it has none).
pub(super) fn btype(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

/// What every 0.1.6 formatter raises for an empty message list.
pub(super) fn empty_error() -> PyErr {
    PyErr::value("At least one message should be provided. An empty message list is not allowed.")
}
