//! Whether a file looks like a session, from its first bytes only: a
//! folder is listed by shape, not by extension (a `package.json` or a
//! `tsconfig.json` is JSON but no session), and listing must never read a
//! large file whole. The shapes are the ones `parse_session` accepts: an
//! object with a `"messages"` array (a session, or an OpenAI request
//! body), an array whose first item is a message object, or an AgentScope
//! memory state (`"content": [...]` up to two objects deep).

/// How many bytes of a file are looked at.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// Whether `prefix` (a file's first bytes) starts a session. A prefix that
/// ends before the shape shows is not one: listing is a guess that must
/// not open what cannot be a session, and such a file still opens by name.
pub fn looks_like_session(prefix: &[u8]) -> bool {
    session_shape(prefix).unwrap_or(false)
}

/// Whether `prefix` starts a session, or `None` when it ends before the
/// shape shows (more bytes would tell): a listing reads a few KB first
/// and more only then.
pub fn session_shape(prefix: &[u8]) -> Option<bool> {
    let mut s = Scan::default();
    let bytes = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    bytes.iter().find_map(|&b| s.step(b))
}

/// A JSON scanner that keeps only what the decision needs: the open
/// containers, the last key of each object, and where a value starts.
#[derive(Default)]
struct Scan {
    /// `{` or `[` for each open container.
    stack: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// The string being read is an object key.
    reading_key: bool,
    /// The key's text, while it is short enough to matter.
    key: Vec<u8>,
    /// The next string in the current object is a key.
    expect_key: bool,
    /// A key was read and its `:` seen: the next byte that is not space
    /// starts its value.
    value_of: Option<Vec<u8>>,
    after_key: Option<Vec<u8>>,
    started: bool,
}

impl Scan {
    fn step(&mut self, b: u8) -> Option<bool> {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.after_key = Some(std::mem::take(&mut self.key));
                }
            } else if self.reading_key && self.key.len() < 16 {
                self.key.push(b);
            }
            return None;
        }
        if b.is_ascii_whitespace() {
            return None;
        }
        if !self.started {
            self.started = true;
            return match b {
                b'{' | b'[' => {
                    self.open(b);
                    None
                }
                _ => Some(false),
            };
        }
        let depth = self.stack.len();
        if let Some(key) = self.value_of.take() {
            // `depth` objects deep: 1 is the top level.
            let starts_list = b == b'[';
            if starts_list && depth == 1 && key == b"messages" {
                return Some(true);
            }
            if starts_list && depth <= 3 && key == b"content" && self.all_objects() {
                return Some(true);
            }
            // A message object as the first item of a top-level array.
            if depth == 2
                && self.stack[0] == b'['
                && matches!(key.as_slice(), b"role" | b"content" | b"name")
            {
                return Some(true);
            }
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.reading_key = self.expect_key;
                self.expect_key = false;
            }
            b':' => self.value_of = self.after_key.take(),
            b',' => self.expect_key = self.stack.last() == Some(&b'{'),
            b'{' | b'[' => {
                // A top-level array's first item must be a message.
                if depth == 1 && self.stack[0] == b'[' && b != b'{' {
                    return Some(false);
                }
                self.open(b);
            }
            b'}' | b']' => {
                self.stack.pop();
                // The top-level value (or the first message) ended
                // without the shape showing.
                if self.stack.is_empty() || (self.stack == [b'['] && b == b'}') {
                    return Some(false);
                }
                self.expect_key = false;
            }
            _ => {
                // A scalar as a top-level array's first item.
                if depth == 1 && self.stack[0] == b'[' {
                    return Some(false);
                }
            }
        }
        None
    }

    fn open(&mut self, b: u8) {
        self.stack.push(b);
        self.expect_key = b == b'{';
    }

    /// Every open container is an object (a memory state's `content`
    /// is nested in objects only).
    fn all_objects(&self) -> bool {
        self.stack.iter().all(|c| *c == b'{')
    }
}

#[cfg(test)]
mod tests {
    use super::looks_like_session;

    #[test]
    fn sessions_are_recognised_by_shape() {
        let yes = [
            r#"{"title": "x", "messages": [{"role": "user"}]}"#,
            r#"{"model": "gpt-4o", "messages": []}"#,
            r#"[{"name": "user", "role": "user", "content": "hi"}]"#,
            r#"  [ { "content": [] } ]"#,
            r#"{"content": [[{"role": "user"}, []]]}"#,
            r#"{"agent": {"memory": {"content": []}}}"#,
            "\u{feff}{\"messages\": []}",
            // Cut short after the shape showed: still a session.
            r#"{"messages": [{"role": "user", "content": "a very long"#,
        ];
        for text in yes {
            assert!(looks_like_session(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn other_json_is_not_a_session() {
        let no = [
            r#"{"name": "app", "version": "1.0.0", "dependencies": {"a": "1"}}"#,
            r#"{"compilerOptions": {"target": "es2020", "strict": true}}"#,
            r#"{"name": "x", "messages": "not a list"}"#,
            r#"{"config": {"messages": []}}"#,
            r#"{"a": {"b": {"c": {"content": []}}}}"#,
            r#"{"description": "a \"messages\": [ inside a string"}"#,
            r#"[1, 2, 3]"#,
            r#"[]"#,
            r#"[{"id": 1}, {"role": "user"}]"#,
            r#"[["role"]]"#,
            "plain text",
            "",
            // Cut short before the shape showed.
            r#"{"title": "a long title that goes on"#,
        ];
        for text in no {
            assert!(!looks_like_session(text.as_bytes()), "{text}");
        }
    }
}
