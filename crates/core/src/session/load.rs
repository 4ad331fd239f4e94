//! Reading a session file in any of the accepted shapes.

use super::{locate_pointer, PackedMessage};
use crate::files::{self, ReadError};
use crate::json;
use crate::py::{normalize_numbers, python_number_text};
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

/// A session's messages: one list behind an `Arc`, so a job for the
/// worker takes the list, not 100,000 handles to its messages (each
/// clone and drop touched every message's count: most of a key's time at
/// 100,000 messages). An edit copies the list only while a job still holds
/// the old one (`Session::messages_mut`).
pub type Messages = std::sync::Arc<Vec<PackedMessage>>;

/// A loaded session: the MSG dictionaries the formatters read, the tools
/// and the session's own settings. The file's text is not kept here:
/// saving writes over the text it was loaded from (`render_saved`), so
/// whatever was not edited keeps its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub path: Option<PathBuf>,
    pub shape: InputShape,
    /// Packed, and shared with the worker's jobs and the budget model, so
    /// a session is held once however many views read it, at about its
    /// text's size.
    pub messages: Messages,
    pub tools: Option<Value>,
    /// The session's own settings: every top-level key but `messages`
    /// (absent in the other shapes).
    pub settings: Map<String, Value>,
    /// What the user should know about the file (`file:line:col: ...`),
    /// such as a duplicate key whose first value is ignored.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: String,
        #[source]
        source: ReadError,
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

impl SessionError {
    /// The file does not exist (it may have been deleted while open).
    pub fn is_not_found(&self) -> bool {
        matches!(self, SessionError::Io { source, .. } if source.is_not_found())
    }
}

impl Session {
    /// The directory relative media paths resolve against (`.` for a bare
    /// file name: `Path::parent` gives the empty path there, which names no
    /// folder, so every read looked outside the session's folder).
    pub fn base_dir(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .filter(|p| !p.as_os_str().is_empty())
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
    /// The counter truncation runs with (`openai:gpt-4o`, `char`, ...).
    pub fn token_counter(&self) -> Option<&str> {
        self.settings.get("token_counter").and_then(Value::as_str)
    }
}

/// Reads a session file: a regular file of at most `SESSION_LIMIT` bytes
/// (a FIFO or a device is refused before it is read).
pub fn read_session(path: &Path) -> Result<Session, SessionError> {
    let bytes = read_session_bytes(path)?;
    let mut session = parse_session_bytes(&bytes, &path.display().to_string())?;
    session.path = Some(path.to_path_buf());
    Ok(session)
}

/// A session file's bytes, read with the session limits.
pub fn read_session_bytes(path: &Path) -> Result<Vec<u8>, SessionError> {
    files::read_regular(path, files::SESSION_LIMIT, "session files").map_err(|source| {
        SessionError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

/// Parses session text; `origin` names it in error messages.
pub fn parse_session(text: &str, origin: &str) -> Result<Session, SessionError> {
    parse_session_bytes(text.as_bytes(), origin)
}

/// Parses a session file's bytes (UTF-8 JSON); `origin` names it in
/// error messages.
pub fn parse_session_bytes(bytes: &[u8], origin: &str) -> Result<Session, SessionError> {
    // The messages are packed as they are parsed (numbers normalised as
    // Python reads them first): a large session is never one whole tree.
    let options = json::Options {
        pack_messages: Some(python_number_text),
        ..Default::default()
    };
    let parsed = json::parse(bytes, options).map_err(|e| SessionError::Invalid {
        path: origin.to_string(),
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    let invalid = |pointer: &str, message: String| {
        // The parse succeeded, so the bytes are UTF-8 (read again only for
        // an error: 30 MB at 100,000 messages).
        let text = String::from_utf8_lossy(bytes);
        let (line, column) = locate_pointer(&text, pointer).unwrap_or((1, 1));
        SessionError::Invalid {
            path: origin.to_string(),
            line,
            column,
            message,
        }
    };
    let warnings = duplicate_warning(origin, bytes, &parsed.duplicates)
        .into_iter()
        .chain(parsed.lone_surrogates.iter().map(|offset| {
            let (line, column) = json::line_col(bytes, *offset);
            let escape = String::from_utf8_lossy(&bytes[*offset..(*offset + 6).min(bytes.len())]);
            format!(
                "{origin}:{line}:{column}: {escape} is half of a surrogate pair with no other half: \
                 Python's json keeps it, but it cannot be written as UTF-8 (AgentScope's output \
                 fails to print); it is read here as U+FFFD"
            )
        }))
        .collect();
    let doc = parsed.value;
    // Each message's key is hashed here, on every core.
    let packed = crate::parallel::map(&parsed.packed.unwrap_or_default(), |_, p| {
        PackedMessage::from_packed(p.clone())
    });
    let mut session = match doc {
        Value::Array(_) => Session {
            path: None,
            shape: InputShape::BareArray,
            messages: packed.into(),
            tools: None,
            settings: Map::new(),
            warnings: Vec::new(),
        },
        Value::Object(mut map) if map.contains_key("messages") => {
            if !map.get("messages").is_some_and(Value::is_array) {
                return Err(invalid(
                    "/messages",
                    "\"messages\" must be an array of messages".into(),
                ));
            }
            // The parser packed the list unless its key was escaped.
            let messages = match map.get_mut("messages") {
                Some(Value::Array(list)) if !list.is_empty() => pack_messages(std::mem::take(list)),
                _ => packed,
            };
            if super::openai_body::looks_like_openai_request(
                &map,
                messages.iter().map(PackedMessage::value),
            ) {
                map.insert(
                    "messages".into(),
                    Value::Array(messages.iter().map(PackedMessage::value).collect()),
                );
                let body = super::openai_body::convert(&Value::Object(map))
                    .map_err(|(pointer, msg)| invalid(&pointer, msg))?;
                Session {
                    path: None,
                    shape: InputShape::OpenAiRequest,
                    messages: pack_messages(body.messages).into(),
                    tools: body.tools,
                    settings: body.settings,
                    warnings: Vec::new(),
                }
            } else {
                let mut settings = map;
                settings.shift_remove("messages");
                super::settings::check(&settings)
                    .map_err(|(pointer, msg)| invalid(&pointer, msg))?;
                Session {
                    path: None,
                    shape: InputShape::Session,
                    messages: messages.into(),
                    tools: settings.get("tools").cloned(),
                    settings,
                    warnings: Vec::new(),
                }
            }
        }
        Value::Object(map) => {
            let doc = Value::Object(map);
            match find_memory_state(&doc, 0) {
                Some(state) => Session {
                    path: None,
                    shape: InputShape::MemoryState,
                    messages: pack_messages(
                        state
                            .iter()
                            .map(|item| match item {
                                Value::Array(pair) => pair.first().cloned().unwrap_or(Value::Null),
                                other => other.clone(),
                            })
                            .collect(),
                    )
                    .into(),
                    tools: None,
                    settings: Map::new(),
                    warnings: Vec::new(),
                },
                None => return Err(invalid(
                    "",
                    "expected a session object with a \"messages\" array, a JSON array of messages, \
                     an OpenAI chat-completions request, or an AgentScope memory state"
                        .into(),
                )),
            }
        }
        _ => {
            return Err(invalid(
                "",
                "expected a JSON object or array at the top level".into(),
            ))
        }
    };
    session.warnings = warnings;
    if let Some(tools) = &mut session.tools {
        normalize_numbers(tools);
    }
    Ok(session)
}

/// Messages as the session holds them: numbers normalised as Python reads
/// them, packed (each tree is freed as soon as it is packed).
pub(crate) fn pack_messages(items: Vec<Value>) -> Vec<PackedMessage> {
    items
        .into_iter()
        .map(|mut m| {
            normalize_numbers(&mut m);
            PackedMessage::new(&m)
        })
        .collect()
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

/// The same list as `find_memory_state`, to write it back (a save keeps a
/// memory state's own shape).
pub(super) fn find_memory_state_mut(obj: &mut Value, depth: usize) -> Option<&mut Vec<Value>> {
    let map = obj.as_object_mut()?;
    if depth > 2 {
        return None;
    }
    if map.get("content").is_some_and(Value::is_array) {
        return map.get_mut("content").and_then(Value::as_array_mut);
    }
    map.values_mut()
        .find_map(|v| find_memory_state_mut(v, depth + 1))
}

/// How many duplicate keys a summary names by position.
const DUPLICATES_SHOWN: usize = 3;

/// One warning for all duplicate keys, however many (one line per key
/// flooded the terminal, and locating each one rescanned the file: 200,000
/// of them never finished): the first few by position, then a count.
fn duplicate_warning(origin: &str, bytes: &[u8], dups: &[json::DuplicateKey]) -> Option<String> {
    let first = dups.first()?;
    let place = |d: &json::DuplicateKey| {
        let within = if d.pointer.is_empty() {
            "the top-level object"
        } else {
            &d.pointer
        };
        format!("{} in {within}", Value::String(d.key.clone()))
    };
    let (line, column) = json::line_col(bytes, first.offset);
    if dups.len() == 1 {
        return Some(format!(
            "{origin}:{line}:{column}: duplicate key {}: the last value is used, as in Python's json; this one is ignored",
            place(first)
        ));
    }
    let mut shown: Vec<String> = Vec::new();
    for d in dups.iter().take(DUPLICATES_SHOWN) {
        let (l, c) = json::line_col(bytes, d.offset);
        shown.push(format!("{} at {l}:{c}", place(d)));
    }
    let more = dups.len().saturating_sub(DUPLICATES_SHOWN);
    let tail = if more > 0 {
        format!(" … and {} more", crate::text::thousands(more as u64))
    } else {
        String::new()
    };
    Some(format!(
        "{origin}:{line}:{column}: {} duplicate keys: the last value of each is used, as in Python's json, the others are ignored: duplicate key {}{tail}",
        crate::text::thousands(dups.len() as u64),
        shown.join(", "),
    ))
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
        assert_eq!(s.messages[0].value()["name"], "a");
    }

    #[test]
    fn messages_are_the_same_however_the_list_is_written() {
        let plain = parse_session(
            r#"{"title": "t", "messages": [{"name": "a", "role": "user", "content": "1e400"}, {"x": 1e400}]}"#,
            "x",
        )
        .unwrap();
        let escaped = parse_session(
            r#"{"title": "t", "messag\u0065s": [{"name": "a", "role": "user", "content": "1e400"}, {"x": 1e400}]}"#,
            "x",
        )
        .unwrap();
        assert_eq!(plain.messages, escaped.messages);
        assert_eq!(plain.settings, escaped.settings);
        // Numbers are normalised as Python reads them.
        assert_eq!(plain.messages[1].value()["x"].to_string(), "Infinity");
        assert_eq!(plain.settings.keys().collect::<Vec<_>>(), ["title"]);
    }

    #[test]
    fn messages_must_be_an_array() {
        let err = parse_session("{\"title\": 1,\n \"messages\": {}}", "f.json").unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.json:2:14: \"messages\" must be an array of messages"
        );
    }

    #[test]
    fn many_duplicate_keys_are_one_summarised_warning() {
        let keys = vec!["\"k\": 1"; 10_000].join(",\n");
        let text = format!("{{\"messages\": [{{\"name\": \"a\", \"role\": \"user\", \"content\": \"hi\", \"x\": {{{keys}}}}}]}}");
        let s = parse_session(&text, "d.json").unwrap();
        assert_eq!(s.warnings.len(), 1, "{:?}", &s.warnings[..2]);
        let w = &s.warnings[0];
        assert!(w.starts_with("d.json:2:1: 9,999 duplicate keys"), "{w}");
        assert!(
            w.contains("\"k\" in /messages/0/x at 2:1, \"k\" in /messages/0/x at 3:1"),
            "{w}"
        );
        assert!(w.ends_with("… and 9,996 more"), "{w}");
        // One duplicate keeps its own line.
        let s = parse_session("{\"messages\": [], \"a\": 1,\n \"a\": 2}", "o.json").unwrap();
        assert_eq!(
            s.warnings,
            ["o.json:2:2: duplicate key \"a\" in the top-level object: the last value is used, as in Python's json; this one is ignored"]
        );
    }
}
