//! `parse_string_helpers/`: `parse_boolean_or_null.py` and
//! `parse_json_llm_block.py` (`object_value_context.py`'s
//! `update_inline_container_stack` is in `parse_string.rs`; its
//! `classify_object_value_comma` serves only `stream_stable=False`).

use super::parser::{JsonParser, R};
use super::pystr;
use super::value::Value;

impl JsonParser {
    /// `parse_boolean_or_null`: `true`, `false` or `null` (any case) at
    /// the cursor, else None (Python's `""`) with the cursor unmoved.
    pub fn parse_boolean_or_null(&mut self) -> Option<Value> {
        if self.v0_64 {
            return self.parse_literal_v0_64();
        }
        // `(get_char_at() or "").lower()`: only ASCII letters lower to the
        // letters compared below.
        let lower = |c: Option<char>| c.map(|c| c.to_ascii_lowercase());
        let mut ch = lower(self.get_char_at(0));
        let (word, value) = match ch {
            Some('t') => ("true", Value::Bool(true)),
            Some('f') => ("false", Value::Bool(false)),
            Some('n') => ("null", Value::Null),
            _ => return None,
        };
        let word: Vec<char> = word.chars().collect();
        let mut i = 0;
        let starting_index = self.index;
        while let Some(c) = ch {
            if i >= word.len() || c != word[i] {
                break;
            }
            i += 1;
            self.index += 1;
            ch = lower(self.get_char_at(0));
        }
        if i == word.len() {
            return Some(value);
        }
        // If nothing works reset the index before returning
        self.index = starting_index;
        None
    }

    /// 0.64.2's `parse_boolean_or_null`: `true`, `false`, `null` or
    /// `none` (any case), and only when a delimiter, a space or the end
    /// follows.
    fn parse_literal_v0_64(&mut self) -> Option<Value> {
        let lower = |c: Option<char>| c.map(|c| c.to_ascii_lowercase());
        let first = lower(self.get_char_at(0));
        let start = self.index;
        let literals = [
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("null", Value::Null),
            ("none", Value::Null),
        ];
        for (word, value) in literals {
            if first != word.chars().next() {
                continue;
            }
            self.index = start;
            let mut whole = true;
            for expected in word.chars() {
                if lower(self.get_char_at(0)) != Some(expected) {
                    whole = false;
                    break;
                }
                self.index += 1;
            }
            if whole {
                let next = self.get_char_at(0);
                if next.is_none_or(|c| c.is_whitespace() || [',', ')', ']', '}'].contains(&c)) {
                    return Some(value);
                }
            }
        }
        self.index = start;
        None
    }

    /// `parse_json_llm_block`: a ```` ```json ... ``` ```` block; None for
    /// Python's `False` (no block, or the block parsed to `false`).
    pub fn parse_json_llm_block(&mut self) -> R<Option<Value>> {
        if !pystr::eq(self.slice(self.index, self.index + 7), "```json") {
            return Ok(None);
        }
        let i = self.skip_to_character(&['`'], 7);
        let at = self.index + i;
        if !pystr::eq(self.slice(at, at + 3), "```") {
            return Ok(None);
        }
        self.enter(1)?;
        self.index += 7; // Move past ```json
        let r = self.parse_json();
        self.leave(1);
        Ok(match r? {
            // `ret_val is not False`
            Value::Bool(false) => None,
            v => Some(v),
        })
    }
}
