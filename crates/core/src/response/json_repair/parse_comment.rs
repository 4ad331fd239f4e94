//! `parse_comment.py`: `#`, `//` and `/* */` comments are skipped.

use super::context::ContextValue;
use super::parser::{in_list, JsonParser, R};
use super::value::Value;

impl JsonParser {
    /// `parse_comment`: skips the comment; at the top level, the value
    /// after the comments, else `""`.
    pub fn parse_comment(&mut self) -> R<Value> {
        // The `JSONParser.parse_comment` wrapper and `parse_comment`.
        self.enter(2)?;
        let r = self.parse_comment_inner();
        self.leave(2);
        r
    }

    fn parse_comment_inner(&mut self) -> R<Value> {
        loop {
            let mut ch = self.get_char_at(0);
            let mut termination_characters = vec!['\n', '\r'];
            if self.context.contains(ContextValue::Array) {
                termination_characters.push(']');
            }
            if self.context.contains(ContextValue::ObjectValue) {
                termination_characters.push('}');
            }
            if self.context.contains(ContextValue::ObjectKey) {
                termination_characters.push(':');
            }
            if ch == Some('#') {
                // Line comment starting with #
                while ch.is_some() && !in_list(ch, &termination_characters) {
                    self.index += 1;
                    ch = self.get_char_at(0);
                }
            } else if ch == Some('/') {
                let next_char = self.get_char_at(1);
                if next_char == Some('/') {
                    // Line comment starting with //
                    self.index += 2;
                    ch = self.get_char_at(0);
                    while ch.is_some_and(|c| c != '\n' && c != '\r') {
                        self.index += 1;
                        ch = self.get_char_at(0);
                    }
                } else if next_char == Some('*') {
                    // Block comment: `comment` starts as "/*" and ends at
                    // the first point it ends with "*/" (so "/*/" is whole).
                    self.index += 2;
                    let mut prev = '*';
                    while let Some(c) = self.get_char_at(0) {
                        self.index += 1;
                        if prev == '*' && c == '/' {
                            break;
                        }
                        prev = c;
                    }
                } else {
                    // A standalone '/': skip it.
                    self.index += 1;
                }
            }
            if self.context.empty {
                self.skip_whitespaces();
                if in_list(self.get_char_at(0), &['#', '/']) {
                    continue;
                }
                return self.parse_json();
            }
            break;
        }
        Ok(Value::empty_str())
    }
}
