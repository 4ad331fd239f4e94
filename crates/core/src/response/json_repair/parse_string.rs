//! `parse_string.py`, for `stream_stable=True` (the branches guarded by
//! `not self.stream_stable` are left out).

use super::context::ContextValue;
use super::parser::{in_list, is_delim, JsonParser, R, STRING_DELIMITERS};
use super::pystr::{isalnum, isalpha, isspace};
use super::value::{pystr_of, PyStr, Value};

/// `INLINE_CONTAINER_CLOSING_DELIMITERS`.
pub(super) fn inline_closer(c: char) -> Option<char> {
    match c {
        '[' => Some(']'),
        '{' => Some('}'),
        '(' => Some(')'),
        _ => None,
    }
}

/// `INLINE_CONTAINER_OPENERS`.
pub(super) const INLINE_CONTAINER_OPENERS: [char; 3] = ['[', '{', '('];

/// `StringParseState`.
pub struct StringParseState {
    pub missing_quotes: bool,
    pub doubled_quotes: bool,
    pub lstring_delimiter: char,
    pub rstring_delimiter: char,
    pub string_acc: PyStr,
    pub unmatched_delimiter: bool,
    pub pending_inline_container: bool,
    pub inline_container_stack: Vec<char>,
}

impl StringParseState {
    fn new() -> StringParseState {
        StringParseState {
            missing_quotes: false,
            doubled_quotes: false,
            lstring_delimiter: '"',
            rstring_delimiter: '"',
            string_acc: PyStr::new(),
            unmatched_delimiter: false,
            pending_inline_container: false,
            inline_container_stack: Vec::new(),
        }
    }

    /// `string_acc[-1] == c`.
    fn last_is(&self, c: char) -> bool {
        self.string_acc.last() == Some(&u32::from(c))
    }

    fn push(&mut self, c: char) {
        self.string_acc.push(u32::from(c));
    }

    /// `string_acc = string_acc[:-1] + c`.
    fn replace_last(&mut self, c: u32) {
        self.string_acc.pop();
        self.string_acc.push(c);
    }
}

/// `_matching_string_delimiter`.
pub(super) fn matching_string_delimiter(delimiter: char) -> char {
    if delimiter == '“' {
        '”'
    } else {
        delimiter
    }
}

impl JsonParser {
    /// `parse_string`.
    pub fn parse_string(&mut self) -> R<Value> {
        // The `JSONParser.parse_string` wrapper and `parse_string`.
        self.enter(2)?;
        let r = self.parse_string_inner();
        self.leave(2);
        r
    }

    fn parse_string_inner(&mut self) -> R<Value> {
        let mut state = match self.prepare_string_entry()? {
            Err(direct) => return Ok(direct),
            Ok(state) => state,
        };
        let ch = self.scan_string_body(&mut state);
        Ok(self.finalize_string_result(state, ch))
    }

    /// `_try_parse_simple_quoted_string`: a plain `"..."` (no backslash or
    /// line break) followed by what the context expects.
    fn try_parse_simple_quoted_string(&mut self) -> Option<PyStr> {
        if self.get_char_at(0) != Some('"') {
            return None;
        }
        let n = self.json_str.len();
        let (start, _) = super::pystr::slice_bounds(Some(self.index + 1), None, n);
        let end = start + self.json_str[start..].iter().position(|&c| c == '"')?;
        let value = &self.json_str[start..end];
        if value.iter().any(|&c| c == '\\' || c == '\n' || c == '\r') {
            return None;
        }
        let mut next_index = end + 1;
        while next_index < n && isspace(self.json_str[next_index]) {
            next_index += 1;
        }
        let next_char = self.json_str.get(next_index).copied();

        match self.context.current {
            Some(ContextValue::ObjectKey) => {
                if next_char != Some(':') {
                    return None;
                }
            }
            Some(ContextValue::ObjectValue) => {
                if !matches!(next_char, Some(',' | '}') | None) {
                    return None;
                }
            }
            Some(ContextValue::Array) => {
                if !matches!(next_char, Some(',' | ']') | None) {
                    return None;
                }
            }
            None => {
                if next_char.is_some() {
                    return None;
                }
            }
        }
        let value = pystr_of(value);
        self.index = end as isize + 1;
        Some(value)
    }

    /// `_append_literal_char`.
    fn append_literal_char(&mut self, state: &mut StringParseState, c: char) -> Option<char> {
        state.push(c);
        self.index += 1;
        self.get_char_at(0)
    }

    /// `_prepare_string_entry`: `Err(value)` when the value is known without
    /// scanning a string body.
    fn prepare_string_entry(&mut self) -> R<Result<StringParseState, Value>> {
        self.enter(1)?;
        let r = self.prepare_string_entry_inner();
        self.leave(1);
        r
    }

    fn prepare_string_entry_inner(&mut self) -> R<Result<StringParseState, Value>> {
        let mut char = self.get_char_at(0);
        if in_list(char, &['#', '/']) {
            return Ok(Err(self.parse_comment()?));
        }

        while let Some(c) = char {
            if STRING_DELIMITERS.contains(&c) || isalnum(c) {
                break;
            }
            self.index += 1;
            char = self.get_char_at(0);
        }

        let Some(ch) = char else {
            return Ok(Err(Value::empty_str()));
        };

        if let Some(v) = self.try_parse_simple_quoted_string() {
            return Ok(Err(Value::Str(v)));
        }

        let mut state = StringParseState::new();

        if ch == '\'' {
            state.lstring_delimiter = '\'';
            state.rstring_delimiter = '\'';
        } else if ch == '“' {
            state.lstring_delimiter = '“';
            state.rstring_delimiter = '”';
        } else if isalnum(ch) {
            if matches!(ch.to_ascii_lowercase(), 't' | 'f' | 'n')
                && self.context.current != Some(ContextValue::ObjectKey)
            {
                if let Some(value) = self.parse_boolean_or_null() {
                    return Ok(Err(value));
                }
            }
            // A literal instead of a quote.
            state.missing_quotes = true;
        }

        if !state.missing_quotes {
            self.index += 1;
        }
        if self.get_char_at(0) == Some('`') {
            if let Some(ret_val) = self.parse_json_llm_block()? {
                return Ok(Err(ret_val));
            }
            // Code fences that did not enclose valid JSON: go on.
        }

        if self.get_char_at(0) == Some(state.lstring_delimiter) {
            let current = self.context.current;
            let next = self.get_char_at(1);
            if (current == Some(ContextValue::ObjectKey) && next == Some(':'))
                || (current == Some(ContextValue::ObjectValue) && in_list(next, &[',', '}']))
                || (current == Some(ContextValue::Array) && in_list(next, &[',', ']']))
            {
                self.index += 1;
                return Ok(Err(Value::empty_str()));
            }
            if next == Some(state.lstring_delimiter) {
                // A doubled quote and then a quote again.
                return Ok(Err(Value::empty_str()));
            }
            let i = self.skip_to_character(&[state.rstring_delimiter], 1);
            if self.get_char_at(i + 1) == Some(state.rstring_delimiter) {
                // A valid starting doubled quote.
                state.doubled_quotes = true;
                self.index += 1;
            } else {
                let i = self.scroll_whitespaces(1);
                let next_c = self.get_char_at(i);
                if is_delim(next_c) || in_list(next_c, &['{', '[']) {
                    // A doubled quote but also another quote afterwards.
                    self.index += 1;
                    return Ok(Err(Value::empty_str()));
                }
                if !in_list(next_c, &[',', ']', '}']) {
                    // A doubled quote that was a mistake: drop one.
                    self.index += 1;
                }
            }
        }

        Ok(Ok(state))
    }

    /// `_normalize_escape_sequence`: `(handled, char)`.
    fn normalize_escape_sequence(
        &mut self,
        state: &mut StringParseState,
        ch: char,
    ) -> (bool, Option<char>) {
        if ch == state.rstring_delimiter || matches!(ch, 't' | 'n' | 'r' | 'b' | '\\') {
            let mapped = match ch {
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'b' => '\u{8}',
                other => other,
            };
            state.replace_last(u32::from(mapped));
            self.index += 1;
            let mut next_char = self.get_char_at(0);
            while let Some(nc) = next_char {
                if !(state.last_is('\\') && (nc == state.rstring_delimiter || nc == '\\')) {
                    break;
                }
                state.replace_last(u32::from(nc));
                self.index += 1;
                next_char = self.get_char_at(0);
            }
            return (true, next_char);
        }
        if ch == 'u' || ch == 'x' {
            let num_chars: isize = if ch == 'u' { 4 } else { 2 };
            let next_chars = self.slice(self.index + 1, self.index + 1 + num_chars);
            if next_chars.len() == num_chars as usize
                && next_chars.iter().all(|c| c.is_ascii_hexdigit())
            {
                // A unicode escape sequence: decode it.
                let cp = next_chars
                    .iter()
                    .fold(0u32, |acc, c| acc * 16 + c.to_digit(16).unwrap_or(0));
                state.replace_last(cp);
                self.index += 1 + num_chars;
                return (true, self.get_char_at(0));
            }
        } else if STRING_DELIMITERS.contains(&ch) && ch != state.rstring_delimiter {
            // An escaped delimiter that needs no escape.
            state.replace_last(u32::from(ch));
            self.index += 1;
            return (true, self.get_char_at(0));
        }
        (false, Some(ch))
    }

    /// `_handle_right_delimiter_candidate`: `(handled, char, should_break)`
    /// for a closing delimiter that may or may not end the string.
    fn handle_right_delimiter_candidate(
        &mut self,
        state: &mut StringParseState,
        ch: char,
    ) -> (bool, Option<char>, bool) {
        let r = state.rstring_delimiter;
        let l = state.lstring_delimiter;
        let current = self.context.current;
        if state.doubled_quotes && self.get_char_at(1) == Some(r) {
            // A doubled quote: skip it.
            self.index += 1;
            return (true, Some(ch), false);
        }

        if state.missing_quotes && current == Some(ContextValue::ObjectValue) {
            let mut i = 1;
            let mut next_c = self.get_char_at(i);
            while next_c.is_some_and(|c| c != r && c != l) {
                i += 1;
                next_c = self.get_char_at(i);
            }
            if next_c.is_some() {
                i += 1;
                i = self.scroll_whitespaces(i);
                if self.get_char_at(i) == Some(':') {
                    // The delimiter starts the next key: stop here.
                    self.index -= 1;
                    let next_char = self.get_char_at(0);
                    return (false, next_char, true);
                }
            }
            return (false, Some(ch), false);
        }

        if state.unmatched_delimiter {
            state.unmatched_delimiter = false;
            let next_char = self.append_literal_char(state, ch);
            return (true, next_char, false);
        }

        let mut i = 1;
        let mut next_c = self.get_char_at(i);
        let mut check_comma_in_object_value = true;
        while let Some(c) = next_c {
            if c == r || c == l {
                break;
            }
            if check_comma_in_object_value && isalpha(c) {
                check_comma_in_object_value = false;
            }
            if (self.context.contains(ContextValue::ObjectKey) && (c == ':' || c == '}'))
                || (self.context.contains(ContextValue::ObjectValue) && c == '}')
                || (self.context.contains(ContextValue::Array) && (c == ']' || c == ','))
                || (check_comma_in_object_value
                    && current == Some(ContextValue::ObjectValue)
                    && c == ',')
            {
                break;
            }
            i += 1;
            next_c = self.get_char_at(i);
        }
        if next_c == Some(',') && current == Some(ContextValue::ObjectValue) {
            i += 1;
            i = self.skip_to_character(&[r], i);
            i += 1;
            i = self.scroll_whitespaces(i);
            next_c = self.get_char_at(i);
            if in_list(next_c, &['}', ',']) {
                // A misplaced quote: keep it in the string.
                let next_char = self.append_literal_char(state, ch);
                return (true, next_char, false);
            }
        } else if next_c == Some(r) && self.get_char_at(i - 1) != Some('\\') {
            if self.only_whitespace_until(i)
                && !(current == Some(ContextValue::ObjectValue)
                    && self.quoted_object_member_follows(i))
            {
                return (false, Some(ch), true);
            }
            match current {
                Some(ContextValue::ObjectValue) => {
                    if self.quoted_object_member_follows(i) {
                        let next_char = self.append_literal_char(state, ch);
                        return (true, next_char, false);
                    }
                    i = self.skip_to_character(&[r], i + 1);
                    i += 1;
                    next_c = self.get_char_at(i);
                    while let Some(c) = next_c {
                        if c == ':' {
                            break;
                        }
                        if matches!(c, ',' | ']' | '}')
                            || (c == r && self.get_char_at(i - 1) != Some('\\'))
                        {
                            break;
                        }
                        i += 1;
                        next_c = self.get_char_at(i);
                    }
                    if next_c != Some(':') {
                        state.unmatched_delimiter = !state.unmatched_delimiter;
                        let next_char = self.append_literal_char(state, ch);
                        return (true, next_char, false);
                    }
                }
                Some(ContextValue::Array) => {
                    let mut even_delimiters = next_c == Some(r);
                    while next_c == Some(r) {
                        i = self.skip_to_character(&[r, ']'], i + 1);
                        next_c = self.get_char_at(i);
                        if next_c != Some(r) {
                            even_delimiters = false;
                            break;
                        }
                        i = self.skip_to_character(&[r, ']'], i + 1);
                        next_c = self.get_char_at(i);
                    }
                    if even_delimiters {
                        state.unmatched_delimiter = !state.unmatched_delimiter;
                        let next_char = self.append_literal_char(state, ch);
                        return (true, next_char, false);
                    }
                    return (false, Some(ch), true);
                }
                Some(ContextValue::ObjectKey) => {
                    let next_char = self.append_literal_char(state, ch);
                    return (true, next_char, false);
                }
                None => {}
            }
        }
        (false, Some(ch), false)
    }

    /// `_scan_string_body`: returns the char it stopped at.
    fn scan_string_body(&mut self, state: &mut StringParseState) -> Option<char> {
        let mut char = self.get_char_at(0);
        while let Some(ch) = char {
            if ch == state.rstring_delimiter {
                break;
            }
            let current = self.context.current;
            if state.missing_quotes {
                if current == Some(ContextValue::ObjectKey) && (ch == ':' || isspace(ch)) {
                    break;
                }
                if current == Some(ContextValue::Array) && (ch == ']' || ch == ',') {
                    break;
                }
            }
            if state.pending_inline_container
                && INLINE_CONTAINER_OPENERS.contains(&ch)
                && !state.last_is('\\')
            {
                if let Some(container_end_idx) = self.skip_inline_container(0) {
                    // A balanced inline container that belongs to the string.
                    state.pending_inline_container = false;
                    state.inline_container_stack.clear();
                    let chunk = pystr_of(self.slice(self.index, self.index + container_end_idx));
                    state.string_acc.extend(chunk);
                    self.index += container_end_idx;
                    char = self.get_char_at(0);
                    continue;
                }
            }
            let (pending, keep_inline_container_char) = update_inline_container_stack(
                ch,
                state.pending_inline_container,
                &mut state.inline_container_stack,
            );
            state.pending_inline_container = pending;
            if keep_inline_container_char {
                char = self.append_literal_char(state, ch);
                continue;
            }
            if current == Some(ContextValue::ObjectValue) && ch == '}' {
                let i = self.scroll_whitespaces(1);
                let next_c = self.get_char_at(i);
                if next_c == Some('`')
                    && self.get_char_at(i + 1) == Some('`')
                    && self.get_char_at(i + 2) == Some('`')
                {
                    if self.brace_before_code_fence_belongs_to_string(state, i) {
                        char = self.append_literal_char(state, ch);
                        continue;
                    }
                    // A } that closes the object before code fences.
                    break;
                }
                if next_c.is_none() {
                    // A } that closes the object.
                    break;
                }
            }
            state.push(ch);
            self.index += 1;
            char = self.get_char_at(0);
            let Some(ch) = char else {
                if self.stream_stable && state.last_is('\\') {
                    state.string_acc.pop();
                }
                break;
            };
            if state.last_is('\\') {
                let (handled_escape, next) = self.normalize_escape_sequence(state, ch);
                char = next;
                if handled_escape {
                    continue;
                }
            }
            let Some(ch) = char else {
                break;
            };
            if ch == ':'
                && !state.missing_quotes
                && self.context.current == Some(ContextValue::ObjectKey)
            {
                let mut i = self.skip_to_character(&[state.lstring_delimiter], 1);
                let next_c = self.get_char_at(i);
                if next_c.is_some() {
                    i += 1;
                    i = self.skip_to_character(&[state.rstring_delimiter], i);
                    let next_c = self.get_char_at(i);
                    if next_c.is_some() {
                        i += 1;
                        i = self.scroll_whitespaces(i);
                        if in_list(self.get_char_at(i), &[',', '}']) {
                            // A missing right delimiter in a key.
                            break;
                        }
                    }
                } else {
                    // A missing right delimiter in a key, before a ':'.
                    break;
                }
            }
            if ch == state.rstring_delimiter && !state.string_acc.is_empty() && !state.last_is('\\')
            {
                let (handled_delimiter, next, should_break) =
                    self.handle_right_delimiter_candidate(state, ch);
                char = next;
                if should_break {
                    break;
                }
                if handled_delimiter {
                    continue;
                }
            }
        }
        char
    }

    /// `_finalize_string_result`.
    fn finalize_string_result(&mut self, state: StringParseState, ch: Option<char>) -> Value {
        if let Some(c) = ch {
            if state.missing_quotes
                && self.context.current == Some(ContextValue::ObjectKey)
                && isspace(c)
            {
                // A comment instead of a valid string: an empty value.
                self.skip_whitespaces();
                if !in_list(self.get_char_at(0), &[':', ',']) {
                    return Value::empty_str();
                }
            }
        }
        // (Without stream_stable, a missing closing quote rstrips.)
        if ch == Some(state.rstring_delimiter) {
            self.index += 1;
        }
        Value::Str(state.string_acc)
    }

    /// `_only_whitespace_until`.
    fn only_whitespace_until(&self, end: isize) -> bool {
        (1..end).all(|j| self.get_char_at(j).is_none_or(isspace))
    }
}

/// `update_inline_container_stack` (`parse_string_helpers/
/// object_value_context.py`): `(pending_inline_container, keep_char)`.
fn update_inline_container_stack(
    ch: char,
    pending_inline_container: bool,
    inline_container_stack: &mut Vec<char>,
) -> (bool, bool) {
    if ch == '{' || ch == '[' {
        if pending_inline_container {
            inline_container_stack.push(ch);
            return (false, false);
        }
        if !inline_container_stack.is_empty() {
            inline_container_stack.push(ch);
        }
    }
    if let Some(&top) = inline_container_stack.last() {
        if (ch == '}' && top == '{') || (ch == ']' && top == '[') {
            inline_container_stack.pop();
            return (pending_inline_container, true);
        }
    }
    (pending_inline_container, false)
}
