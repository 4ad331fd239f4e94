//! AgentScope's `Msg`: what `Msg.from_dict` accepts and the two accessors the
//! formatters use (content blocks, text content).

use crate::json;
use crate::py::{self, get_item, py_get, PyErr};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    User,
    Assistant,
    System,
}

impl Role {
    /// The role `Msg.from_dict` takes by this name.
    pub fn named(name: &str) -> Option<Role> {
        match name {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            "system" => Some(Role::System),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
        }
    }
}

/// One message, validated as `Msg.from_dict` validates it. Blocks stay plain
/// JSON values (as in AgentScope), so any block type and extra key survives.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub role: Role,
    /// Any JSON value: AgentScope does not check it.
    name: Value,
    blocks: Vec<Value>,
    /// The content was a string, held as the one text block
    /// `get_content_blocks()` gives (`{"type": "text", "text": ...}`).
    text: bool,
    /// [`Msg::may_read_media`], found when it is made (it never changes):
    /// every formatting run asks it of every message before it starts,
    /// on one core.
    media: bool,
    /// [`Msg::has_tool_blocks`] when it does not raise, found when it is
    /// made: multi-agent formatting asks it of every message, on one core,
    /// to cut the tool runs.
    tools: Option<bool>,
}

/// `has_content_blocks("tool_use") or has_content_blocks("tool_result")`:
/// each filter reads every block's `"type"`, so a block without one
/// raises whatever the others are.
fn tool_blocks(blocks: &[Value]) -> Result<bool, PyErr> {
    let mut tools = false;
    for block in blocks {
        tools |= matches!(
            get_item(block, "type")?.as_str(),
            Some("tool_use" | "tool_result")
        );
    }
    Ok(tools)
}

impl Msg {
    /// Whether formatting it may read, fetch or save media: every media
    /// block (a tool result's too) names its media under a `"source"` key.
    pub fn may_read_media(&self) -> bool {
        self.media
    }

    /// `Msg.from_dict`: `name`, `content` and `role` are required (KeyError),
    /// content must be a str or list, role one of the three (AssertionError).
    pub fn from_dict(v: &Value) -> Result<Msg, PyErr> {
        Self::from_value(v.clone()).map_err(|(e, _)| e)
    }

    /// `Msg.from_dict` taking the dict: its name and blocks move out and the
    /// rest of it is freed. A rejection says why in plain words too
    /// ([`Msg::explain_rejection`]).
    pub fn from_value(v: Value) -> Result<Msg, (PyErr, Option<String>)> {
        let role = Self::checked_role(&v).map_err(|e| (e, Self::explain_rejection(&v)))?;
        let Value::Object(mut map) = v else {
            // `checked_role` read keys from it: it is a dict.
            return Err((PyErr::type_error("a message must be a dict"), None));
        };
        let name = map.swap_remove("name").unwrap_or(Value::Null);
        Ok(match map.swap_remove("content") {
            Some(Value::String(s)) => Msg::text(name, role, s),
            Some(Value::Array(blocks)) => Msg::with_blocks(name, role, blocks),
            _ => Msg::with_blocks(name, role, Vec::new()),
        })
    }

    /// `Msg.from_dict` of a dict with these three members, when it takes
    /// it (content a string or a list, a role it knows); `None` when it
    /// raises ([`Msg::from_value`] says how).
    pub fn from_members(name: Value, content: Value, role: &Value) -> Option<Msg> {
        let role = Role::named(role.as_str()?)?;
        match content {
            Value::String(s) => Some(Msg::text(name, role, s)),
            Value::Array(blocks) => Some(Msg::with_blocks(name, role, blocks)),
            _ => None,
        }
    }

    /// `Msg.from_dict`'s checks: `name`, `content` and `role` are required
    /// (KeyError), content must be a str or list, role one of the three
    /// (AssertionError).
    fn checked_role(v: &Value) -> Result<Role, PyErr> {
        get_item(v, "name")?;
        let content = get_item(v, "content")?;
        let role = get_item(v, "role")?;
        let content_is_valid = matches!(content, Value::String(_) | Value::Array(_));
        if !content_is_valid {
            return Err(PyErr::assertion(
                "The content must be a string or a list of content blocks.",
            ));
        }
        role.as_str()
            .and_then(Role::named)
            .ok_or_else(|| PyErr::assertion(""))
    }

    /// Why `Msg.from_dict` rejects `v`, in plain words: AgentScope's own
    /// error for a bad role or content is an `AssertionError` with no text.
    /// `None` when it does not.
    pub fn explain_rejection(v: &Value) -> Option<String> {
        const ROLES: &str = "\"system\", \"user\" or \"assistant\"";
        let Value::Object(map) = v else {
            return Some(format!(
                "a message must be a JSON object with \"name\", \"role\" and \"content\"; this one is {}",
                crate::py::type_name(v)
            ));
        };
        let missing: Vec<&str> = ["name", "content", "role"]
            .into_iter()
            .filter(|k| !map.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            return Some(format!(
                "the message has no {}: Msg.from_dict needs \"name\", \"role\" and \"content\"",
                missing
                    .iter()
                    .map(|k| format!("\"{k}\""))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        if !matches!(map.get("content"), Some(Value::String(_) | Value::Array(_))) {
            return Some(format!(
                "\"content\" is {}; it must be a string or a list of content blocks",
                map.get("content").map_or("missing", crate::py::type_name)
            ));
        }
        match map.get("role") {
            Some(Value::String(r)) if matches!(r.as_str(), "system" | "user" | "assistant") => None,
            Some(Value::String(r)) if r == "tool" || r == "function" => Some(format!(
                "role \"{r}\" is not one of AgentScope's roles ({ROLES}): a tool's output is a \
                 tool_result block, usually in a \"system\" message"
            )),
            Some(Value::String(r)) => Some(format!(
                "role \"{r}\" is not one of AgentScope's roles ({ROLES})"
            )),
            other => Some(format!(
                "\"role\" is {}; it must be one of the strings {ROLES}",
                other.map_or("missing", crate::py::type_name)
            )),
        }
    }

    pub fn text(name: Value, role: Role, text: String) -> Msg {
        Msg {
            role,
            name,
            blocks: vec![json!({"type": "text", "text": text})],
            text: true,
            media: false,
            tools: Some(false),
        }
    }

    pub fn with_blocks(name: Value, role: Role, blocks: Vec<Value>) -> Msg {
        fn has_source(v: &Value) -> bool {
            match v {
                Value::Object(map) => map.iter().any(|(k, v)| k == "source" || has_source(v)),
                Value::Array(items) => items.iter().any(has_source),
                _ => false,
            }
        }
        Msg {
            role,
            name,
            media: blocks.iter().any(has_source),
            tools: tool_blocks(&blocks).ok(),
            blocks,
            text: false,
        }
    }

    /// `msg.name`: any JSON value (AgentScope does not check it).
    pub fn name(&self) -> &Value {
        &self.name
    }

    /// `get_content_blocks()`.
    pub fn blocks(&self) -> &[Value] {
        &self.blocks
    }

    /// The string, when the content was a string.
    fn string_content(&self) -> Option<&str> {
        if !self.text {
            return None;
        }
        self.blocks
            .first()
            .and_then(|b| b.get("text"))
            .and_then(Value::as_str)
    }

    /// `get_content_blocks(typ)`: filtering reads `block["type"]`, which
    /// raises on a block without one.
    pub fn blocks_of(&self, typ: &str) -> Result<Vec<&Value>, PyErr> {
        let mut out = Vec::new();
        for block in self.blocks() {
            if get_item(block, "type")?.as_str() == Some(typ) {
                out.push(block);
            }
        }
        Ok(out)
    }

    /// `has_content_blocks("tool_use") or has_content_blocks("tool_result")`.
    pub fn has_tool_blocks(&self) -> Result<bool, PyErr> {
        match self.tools {
            Some(tools) => Ok(tools),
            None => tool_blocks(&self.blocks),
        }
    }

    /// `get_text_content()`: the string content, or the text blocks joined
    /// with `"\n"`; `None` when there are none.
    pub fn text_content(&self) -> Result<Option<String>, PyErr> {
        if let Some(text) = self.string_content() {
            return Ok(Some(text.to_string()));
        }
        let mut texts = Vec::new();
        for block in self.blocks() {
            if py_get(block, "type")?.and_then(Value::as_str) == Some("text") {
                texts.push(get_item(block, "text")?);
            }
        }
        if texts.is_empty() {
            return Ok(None);
        }
        py::join_strs("\n", texts).map(Some)
    }

    /// The content as AgentScope stores it (a string or the block list).
    pub fn content(&self) -> Value {
        match self.string_content() {
            Some(t) => Value::String(t.to_string()),
            None => Value::Array(self.blocks().to_vec()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_explained_in_plain_words() {
        let explain = |v: Value| Msg::explain_rejection(&v).unwrap_or_default();
        assert_eq!(
            explain(json!({"name": "calc", "role": "tool", "content": "x"})),
            "role \"tool\" is not one of AgentScope's roles (\"system\", \"user\" or \"assistant\"): a tool's output is a tool_result block, usually in a \"system\" message"
        );
        assert!(
            explain(json!({"name": "a", "role": "robot", "content": "x"}))
                .starts_with("role \"robot\" is not")
        );
        assert!(
            explain(json!({"name": "a", "role": 3, "content": "x"})).starts_with("\"role\" is int")
        );
        assert_eq!(
            explain(json!({"role": "user"})),
            "the message has no \"name\" or \"content\": Msg.from_dict needs \"name\", \"role\" and \"content\""
        );
        assert!(explain(json!({"name": "a", "role": "user", "content": 5}))
            .starts_with("\"content\" is int"));
        assert!(explain(json!("hi")).contains("this one is str"));
        assert_eq!(
            Msg::explain_rejection(&json!({"name": "a", "role": "user", "content": []})),
            None
        );
    }

    #[test]
    fn from_dict_checks_like_agentscope() {
        let err = Msg::from_dict(&json!({"name": "a", "role": "user"})).unwrap_err();
        assert_eq!((err.kind, err.message.as_str()), ("KeyError", "'content'"));
        let err =
            Msg::from_dict(&json!({"name": "a", "role": "tool", "content": "x"})).unwrap_err();
        assert_eq!((err.kind, err.message.as_str()), ("AssertionError", ""));
        let err =
            Msg::from_dict(&json!({"name": "a", "role": "user", "content": null})).unwrap_err();
        assert_eq!(err.kind, "AssertionError");
        let msg = Msg::from_dict(&json!({"name": "a", "role": "user", "content": ""})).unwrap();
        assert_eq!(msg.blocks(), &[json!({"type": "text", "text": ""})]);
    }
}
