//! `json_parser.py`: `JSONParser`, its cursor helpers and the top level.

use super::context::{ContextValue, JsonContext};
use super::object_comparer::is_same_object;
use super::pystr::{isalpha, isdigit, isspace};
use super::value::Value;
use super::RepairError;

/// `STRING_DELIMITERS`.
pub const STRING_DELIMITERS: [char; 4] = ['"', '\'', '“', '”'];

/// Python frames the recursive parse may stack before Python's recursion
/// limit (1000) is hit, counting the frames of the functions that recurse
/// (`parse_json` 1, `parse_object` and `parse_array` 2 each with their
/// `JSONParser` wrapper, `_parse_object_value` 1, ...). Calibrated on a
/// shallow caller: 330 nested arrays parse and 331 raise, 247 nested
/// objects parse and 248 raise, as in Python.
pub const MAX_FRAMES: usize = 992;

/// Python's exceptions, propagating to `repair_json`.
pub type R<T> = Result<T, RepairError>;

/// `char in STRING_DELIMITERS` for an optional char.
pub fn is_delim(c: Option<char>) -> bool {
    c.is_some_and(|c| STRING_DELIMITERS.contains(&c))
}

/// `char in [..]` for an optional char (`None in [..]` is False).
pub fn in_list(c: Option<char>, list: &[char]) -> bool {
    c.is_some_and(|c| list.contains(&c))
}

/// `JSONParser`.
pub struct JsonParser {
    /// The string to parse (mutable: some repairs rewrite it).
    pub json_str: Vec<char>,
    /// The cursor. Python indexes may go negative (and wrap).
    pub index: isize,
    pub context: JsonContext,
    pub deferred_contexts: Vec<ContextValue>,
    pub stream_stable: bool,
    /// json_repair 0.64.2's rules where they differ from 0.59.10's (what
    /// AgentScope 2.0.11 pins): a `+` after an exponent's `e`, and the
    /// literals `none` and a delimiter after a literal.
    pub v0_64: bool,
    /// Python frames on the recursive chain (see [`MAX_FRAMES`]).
    frames: usize,
}

impl JsonParser {
    pub fn new(json_str: Vec<char>, stream_stable: bool) -> JsonParser {
        JsonParser {
            json_str,
            index: 0,
            context: JsonContext::new(),
            deferred_contexts: Vec::new(),
            stream_stable,
            v0_64: false,
            frames: 0,
        }
    }

    /// Enters `n` Python frames; a `RecursionError` past the limit.
    pub fn enter(&mut self, n: usize) -> R<()> {
        self.frames += n;
        if self.frames > MAX_FRAMES {
            return Err(RepairError::Recursion);
        }
        Ok(())
    }

    pub fn leave(&mut self, n: usize) {
        self.frames = self.frames.saturating_sub(n);
    }

    /// `len(self.json_str)`.
    pub fn len(&self) -> isize {
        self.json_str.len() as isize
    }

    /// `self.json_str[i]` with Python's wrapping of negative indexes;
    /// None for an IndexError.
    pub fn char_at_abs(&self, i: isize) -> Option<char> {
        let n = self.len();
        let j = if i < 0 { i + n } else { i };
        if (0..n).contains(&j) {
            self.json_str.get(j as usize).copied()
        } else {
            None
        }
    }

    /// `get_char_at(count)`.
    pub fn get_char_at(&self, count: isize) -> Option<char> {
        self.char_at_abs(self.index + count)
    }

    /// `self.json_str[start:stop]`, absolute Python bounds.
    pub fn slice(&self, start: isize, stop: isize) -> &[char] {
        super::pystr::slice(&self.json_str, Some(start), Some(stop))
    }

    /// `skip_whitespaces`.
    pub fn skip_whitespaces(&mut self) {
        while self.char_at_abs(self.index).is_some_and(isspace) {
            self.index += 1;
        }
    }

    /// `scroll_whitespaces(idx)`: the offset of the first non-space from
    /// `self.index + idx`.
    pub fn scroll_whitespaces(&self, mut idx: isize) -> isize {
        while self.char_at_abs(self.index + idx).is_some_and(isspace) {
            idx += 1;
        }
        idx
    }

    /// `skip_to_character(character, idx)`: the offset of the next
    /// unescaped target (an even run of backslashes before it), or the
    /// distance to the end.
    pub fn skip_to_character(&self, targets: &[char], idx: isize) -> isize {
        let mut i = self.index + idx;
        let n = self.len();
        let mut backslashes = 0usize;
        while i < n {
            // `self.json_str[i]`: negative indexes wrap; below -n Python
            // raises IndexError, which no index reached here can be.
            let Some(ch) = self.char_at_abs(i) else {
                return n - self.index;
            };
            if ch == '\\' {
                backslashes += 1;
                i += 1;
                continue;
            }
            if targets.contains(&ch) && backslashes.is_multiple_of(2) {
                return i - self.index;
            }
            backslashes = 0;
            i += 1;
        }
        n - self.index
    }

    /// `JSONParser.parse` / `_parse_top_level`: several values in a row
    /// become a list (a repeated object of the same shape replaces the
    /// previous one, as a streaming update).
    pub fn parse(&mut self) -> R<Value> {
        let first = self.parse_json()?;
        if self.index >= self.len() {
            return Ok(first);
        }
        let mut json = vec![first];
        while self.index < self.len() {
            self.context.clear();
            self.deferred_contexts.clear();
            let is_comma_separated = self.next_top_level_value_is_comma_separated();
            let j = self.parse_json()?;
            if j.truthy() {
                let last_same = json.last().is_some_and(|l| is_same_object(l, &j));
                if !is_comma_separated && last_same {
                    // Treat repeated objects as updates: keep the newest value.
                    json.pop();
                } else if json.last().is_some_and(|l| !l.truthy()) {
                    json.pop();
                }
                json.push(j);
            } else {
                self.index += 1;
            }
        }
        if json.len() == 1 {
            if let Some(v) = json.pop() {
                return Ok(v);
            }
        }
        Ok(Value::List(json))
    }

    /// `_next_top_level_value_is_comma_separated`.
    fn next_top_level_value_is_comma_separated(&self) -> bool {
        let idx = self.scroll_whitespaces(0);
        if self.get_char_at(idx) == Some(',') {
            return true;
        }
        let mut idx = self.index - 1;
        while idx >= 0 && self.char_at_abs(idx).is_some_and(isspace) {
            idx -= 1;
        }
        idx >= 0 && self.char_at_abs(idx) == Some(',')
    }

    /// `parse_json`.
    pub fn parse_json(&mut self) -> R<Value> {
        self.enter(1)?;
        let r = self.parse_json_inner();
        self.leave(1);
        r
    }

    fn parse_json_inner(&mut self) -> R<Value> {
        if !self.deferred_contexts.is_empty() {
            let deferred = std::mem::take(&mut self.deferred_contexts);
            for &c in &deferred {
                self.context.set(c);
            }
            let r = self.parse_json()?;
            for _ in &deferred {
                self.context.reset();
            }
            return Ok(r);
        }
        // 0.64.2: only the first quote may start a missing-brace object.
        let mut check_initial_quote = self.v0_64 && self.index == 0 && self.context.empty;
        loop {
            let Some(ch) = self.get_char_at(0) else {
                // None means that we are at the end of the string provided
                return Ok(Value::empty_str());
            };
            match ch {
                '{' => {
                    self.index += 1;
                    return self.parse_object();
                }
                '[' => {
                    self.index += 1;
                    return Ok(Value::List(self.parse_array(']')?));
                }
                '(' => {
                    // Python tuple literals and grouped values.
                    if !self.context.empty || self.top_level_parenthesized_can_start_value() {
                        return self.parse_parenthesized();
                    }
                    self.index += 1;
                    continue;
                }
                _ => {}
            }
            if !self.context.empty && (STRING_DELIMITERS.contains(&ch) || isalpha(ch)) {
                return self.parse_string();
            }
            if !self.context.empty && (isdigit(ch) || ch == '-' || ch == '.') {
                return self.parse_number();
            }
            if ch == '#' || ch == '/' {
                return self.parse_comment();
            }
            if check_initial_quote && STRING_DELIMITERS.contains(&ch) {
                check_initial_quote = false;
                if let Some(value) = self.missing_opening_object(ch) {
                    return Ok(value);
                }
            }
            // If everything else fails, we just ignore and move on
            self.index += 1;
        }
    }

    /// 0.64.2's `_try_parse_missing_opening_object`: `"key": ...}` that
    /// one `{` in front makes valid JSON (only whitespace before the quote).
    fn missing_opening_object(&mut self, delimiter: char) -> Option<Value> {
        if self.scroll_whitespaces(-self.index) != 0 {
            return None;
        }
        let offset = self.skip_to_character(&[delimiter], 1);
        self.get_char_at(offset)?;
        let offset = self.scroll_whitespaces(offset + 1);
        if self.get_char_at(offset) != Some(':') {
            return None;
        }
        let last = self.json_str.iter().rev().find(|c| !isspace(**c));
        if last != Some(&'}') {
            return None;
        }
        let mut candidate = Vec::with_capacity(self.json_str.len() + 1);
        candidate.push('{');
        candidate.extend_from_slice(&self.json_str);
        let value = super::loads::loads(&candidate).ok()?;
        self.index = self.len();
        Some(value)
    }

    /// `JSONParser.parse_parenthesized`: a tuple is a list; `(x)` is `x`.
    pub fn parse_parenthesized(&mut self) -> R<Value> {
        self.enter(1)?;
        let explicit_tuple = self.parenthesized_is_explicit_tuple();
        self.index += 1;
        let r = self.parse_array(')');
        self.leave(1);
        let mut values = r?;
        if explicit_tuple || values.len() != 1 {
            return Ok(Value::List(values));
        }
        Ok(values.pop().unwrap_or(Value::Null))
    }
}
