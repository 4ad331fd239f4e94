//! Reading a session file in any of the accepted shapes.

use super::locate_pointer;
use crate::py::normalize_numbers;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// What shape the file had; saving writes the same shape back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputShape {
    /// Our session object (`{"messages": [...], ...}`).
    Session,
    /// A bare JSON array of MSG objects.
    BareArray,
    /// An OpenAI chat-completions request body, converted to MSGs.
    OpenAiRequest,
    /// An AgentScope memory / JSONSession state file.
    MemoryState,
}

/// A loaded session. `doc` is the file as parsed (key order and unknown
/// fields kept) so that saving loses nothing; `messages` are the MSG
/// dictionaries the formatters read.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub path: Option<PathBuf>,
    pub shape: InputShape,
    pub doc: Value,
    pub messages: Vec<Value>,
    pub tools: Option<Value>,
    /// The session's own settings (absent in the other shapes).
    pub settings: Map<String, Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A syntax or shape error, at a position in the file.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

impl Session {
    /// The directory relative media paths resolve against.
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    }

    pub fn provider(&self) -> Option<&str> {
        self.settings.get("provider").and_then(Value::as_str)
    }
    pub fn mode(&self) -> Option<&str> {
        self.settings.get("mode").and_then(Value::as_str)
    }
    pub fn model(&self) -> Option<&str> {
        self.settings.get("model").and_then(Value::as_str)
    }
    pub fn title(&self) -> Option<&str> {
        self.settings.get("title").and_then(Value::as_str)
    }
    pub fn max_tokens(&self) -> Option<i64> {
        self.settings.get("max_tokens").and_then(Value::as_i64)
    }
}

/// Reads and parses a session file.
pub fn read_session(path: &Path) -> Result<Session, SessionError> {
    let text = std::fs::read_to_string(path).map_err(|source| SessionError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut session = parse_session(&text, &path.display().to_string())?;
    session.path = Some(path.to_path_buf());
    Ok(session)
}

/// Parses session text; `origin` names it in error messages.
pub fn parse_session(text: &str, origin: &str) -> Result<Session, SessionError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| SessionError::Invalid {
        path: origin.to_string(),
        line: e.line().max(1),
        column: e.column().max(1),
        message: syntax_message(&e),
    })?;
    let invalid = |pointer: &str, message: String| {
        let (line, column) = locate_pointer(text, pointer).unwrap_or((1, 1));
        SessionError::Invalid {
            path: origin.to_string(),
            line,
            column,
            message,
        }
    };
    let mut session = match &doc {
        Value::Array(items) => Session {
            path: None,
            shape: InputShape::BareArray,
            doc: doc.clone(),
            messages: items.clone(),
            tools: None,
            settings: Map::new(),
        },
        Value::Object(map) if map.contains_key("messages") => {
            let Some(messages) = map.get("messages").and_then(Value::as_array) else {
                return Err(invalid(
                    "/messages",
                    "\"messages\" must be an array of messages".into(),
                ));
            };
            if super::openai_body::looks_like_openai_request(map) {
                super::openai_body::convert(&doc)
                    .map_err(|(pointer, msg)| invalid(&pointer, msg))?
            } else {
                let mut settings = map.clone();
                settings.remove("messages");
                Session {
                    path: None,
                    shape: InputShape::Session,
                    doc: doc.clone(),
                    messages: messages.clone(),
                    tools: map.get("tools").cloned(),
                    settings,
                }
            }
        }
        Value::Object(_) => match find_memory_state(&doc, 0) {
            Some(items) => Session {
                path: None,
                shape: InputShape::MemoryState,
                doc: doc.clone(),
                messages: items
                    .iter()
                    .map(|item| match item {
                        Value::Array(pair) => pair.first().cloned().unwrap_or(Value::Null),
                        other => other.clone(),
                    })
                    .collect(),
                tools: None,
                settings: Map::new(),
            },
            None => return Err(invalid(
                "",
                "expected a session object with a \"messages\" array, a JSON array of messages, \
                     an OpenAI chat-completions request, or an AgentScope memory state"
                    .into(),
            )),
        },
        _ => {
            return Err(invalid(
                "",
                "expected a JSON object or array at the top level".into(),
            ))
        }
    };
    for m in &mut session.messages {
        normalize_numbers(m);
    }
    if let Some(tools) = &mut session.tools {
        normalize_numbers(tools);
    }
    Ok(session)
}

/// serde_json's message without its trailing " at line L column C".
fn syntax_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// `{"content": [...]}` at the top or nested up to two levels (a JSONSession
/// file: `{"agent": {"memory": {"content": ...}}}`), as the oracle finds it.
fn find_memory_state(obj: &Value, depth: usize) -> Option<&Vec<Value>> {
    let map = obj.as_object()?;
    if depth > 2 {
        return None;
    }
    if let Some(Value::Array(items)) = map.get("content") {
        return Some(items);
    }
    map.values().find_map(|v| find_memory_state(v, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_name_line_and_column() {
        let err = parse_session("{\n  \"messages\": [\n    {,}\n  ]\n}", "s.json").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("s.json:3:6: "), "{text}");
    }

    #[test]
    fn shapes_are_recognised() {
        let s = parse_session(r#"[{"name":"a","role":"user","content":"hi"}]"#, "x").unwrap();
        assert_eq!(s.shape, InputShape::BareArray);
        let s = parse_session(
            r#"{"friday": {"memory": {"content": [[{"name":"a","role":"user","content":"hi"}, []]]}}}"#,
            "x",
        )
        .unwrap();
        assert_eq!(s.shape, InputShape::MemoryState);
        assert_eq!(s.messages[0]["name"], "a");
    }

    #[test]
    fn messages_must_be_an_array() {
        let err = parse_session("{\"title\": 1,\n \"messages\": {}}", "f.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.json:2:14: \"messages\" must be an array of messages"
        );
    }
}
