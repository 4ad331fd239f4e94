//! Writing a session back: the document as loaded (key order, unknown
//! fields and the exact text of every number kept), replaced atomically.

use super::Session;
use std::io::Write;
use std::path::Path;

impl Session {
    /// Replaces the messages, in the document too (so a save writes them).
    /// OpenAI bodies and memory states were converted on load: their
    /// documents cannot take our messages back.
    pub fn set_messages(&mut self, messages: Vec<serde_json::Value>) -> Result<(), String> {
        use super::InputShape;
        match self.shape {
            InputShape::Session => {
                if let Some(doc) = self.doc.as_object_mut() {
                    doc.insert(
                        "messages".into(),
                        serde_json::Value::Array(messages.clone()),
                    );
                }
            }
            InputShape::BareArray => self.doc = serde_json::Value::Array(messages.clone()),
            _ => {
                self.messages = messages;
                return Err("this file was converted on load (an OpenAI request body or a memory state); save it as a session file instead".into());
            }
        }
        self.messages = messages;
        Ok(())
    }

    /// The messages as a session file of our own format (for "save as").
    pub fn to_session_text(&self) -> String {
        let mut doc = serde_json::Map::new();
        for (k, v) in &self.settings {
            doc.insert(k.clone(), v.clone());
        }
        if let Some(tools) = &self.tools {
            doc.insert("tools".into(), tools.clone());
        }
        doc.insert(
            "messages".into(),
            serde_json::Value::Array(self.messages.clone()),
        );
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The file text to save: the loaded document, pretty-printed.
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.doc).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// Writes `text` to `path` through a temporary file in the same folder and
/// a rename, so a crash never leaves a half-written session behind.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("session.json");
    let tmp = dir.join(format!(".{name}.formatscope-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{parse_session, read_session};

    #[test]
    fn a_save_keeps_key_order_unknown_fields_and_number_text() {
        let text = r#"{"zeta": {"b": 1, "a": [36.30, 1E2, 123456789012345678901234567890]},
            "messages": [{"role": "user", "name": "Bob", "content": "hi", "x-extra": {"keep": true}}],
            "alpha": null}"#;
        let session = parse_session(text, "s.json").unwrap();
        let saved = session.to_text();
        assert!(saved.find("\"zeta\"").unwrap() < saved.find("\"messages\"").unwrap());
        assert!(saved.find("\"messages\"").unwrap() < saved.find("\"alpha\"").unwrap());
        assert!(saved.contains("36.30") && saved.contains("123456789012345678901234567890"));
        assert!(saved.contains("\"x-extra\""));
        let again = parse_session(&saved, "s.json").unwrap();
        assert_eq!(again.doc, session.doc);
    }

    #[test]
    fn atomic_write_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        let session = parse_session(
            r#"[{"name": "a", "role": "user", "content": "x", "id": "keep"}]"#,
            "s",
        )
        .unwrap();
        write_atomic(&path, &session.to_text()).unwrap();
        let back = read_session(&path).unwrap();
        assert_eq!(back.doc, session.doc);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }
}
