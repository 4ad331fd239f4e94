//! `parse_object.py` (without the schema and strict paths).

use super::context::ContextValue;
use super::parser::{in_list, is_delim, JsonParser, R, STRING_DELIMITERS};
use super::pystr::{self, isspace};
use super::value::{Dict, PyStr, Value};
use super::RepairError;

/// What `_classify_empty_object_repair` decides for `{...}` that parsed to
/// an empty dict.
enum EmptyObjectRepair {
    Keep,
    /// Reparse the normalised text (escaped quotes unescaped) as an object.
    Object(Vec<char>),
    /// Reparse it as an array.
    Array,
}

/// `_strip_comments_for_empty_object_classification`.
fn strip_comments_for_empty_object_classification(body: &[char]) -> Vec<char> {
    let mut stripped = Vec::with_capacity(body.len());
    let mut in_quote: Option<char> = None;
    let mut backslashes = 0usize;
    let mut index = 0usize;
    let n = body.len();
    while index < n {
        let ch = body[index];
        let next_char = body.get(index + 1).copied();

        if ch == '\\' {
            backslashes += 1;
            stripped.push(ch);
            index += 1;
            continue;
        }
        if let Some(q) = in_quote {
            stripped.push(ch);
            if ch == q && backslashes.is_multiple_of(2) {
                in_quote = None;
            }
            backslashes = 0;
            index += 1;
            continue;
        }
        if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
            in_quote = Some(ch);
            stripped.push(ch);
            backslashes = 0;
            index += 1;
            continue;
        }
        backslashes = 0;

        if ch == '#' || (ch == '/' && next_char == Some('/')) {
            index += if ch == '/' { 2 } else { 1 };
            while index < n && body[index] != '\n' && body[index] != '\r' {
                index += 1;
            }
            continue;
        }
        if ch == '/' && next_char == Some('*') {
            index += 2;
            while index + 1 < n && !(body[index] == '*' && body[index + 1] == '/') {
                index += 1;
            }
            index = (index + 2).min(n);
            continue;
        }

        stripped.push(ch);
        index += 1;
    }
    stripped
}

impl JsonParser {
    /// `parse_object`, after the opening brace.
    pub fn parse_object(&mut self) -> R<Value> {
        // The `JSONParser.parse_object` wrapper and `parse_object`.
        self.enter(2)?;
        let r = self.parse_object_inner();
        self.leave(2);
        r
    }

    fn parse_object_inner(&mut self) -> R<Value> {
        let mut obj = Dict::new();
        let start_index = self.index;

        let parsing_object_value = self.context.current == Some(ContextValue::ObjectValue);

        while self.get_char_at(0).unwrap_or('}') != '}' {
            self.skip_whitespaces();

            if self.get_char_at(0) == Some(':') {
                // "a : before a key, ignoring"
                self.index += 1;
            }

            let (key, rollback_index) = self.parse_object_key(&mut obj)?;
            if self.context.contains(ContextValue::Array)
                && obj.contains_key(&key)
                && !parsing_object_value
                && self.should_split_duplicate_object(rollback_index)
            {
                // A duplicate key: close the object here and roll back.
                self.split_object_on_duplicate_key(rollback_index);
                break;
            }

            self.skip_whitespaces();
            if self.get_char_at(0).unwrap_or('}') == '}' {
                continue;
            }

            self.skip_whitespaces();
            // (A missing ':' after the key is only logged.)
            self.index += 1;
            let value = self.parse_object_value()?;
            obj.insert(key, value);

            if in_list(self.get_char_at(0), &[',', '\'', '"']) {
                self.index += 1;
            }
            if self.get_char_at(0) == Some(']') && self.context.contains(ContextValue::Array) {
                // A closing array bracket: close the object here.
                self.index -= 1;
                break;
            }
            self.skip_whitespaces();
        }

        self.index += 1;

        if let Some(repaired) = self.repair_empty_object_result(&obj, start_index)? {
            return Ok(repaired);
        }
        self.complete_object_parse(obj)
    }

    /// `_parse_object_key`: the key and the index it started at.
    fn parse_object_key(&mut self, obj: &mut Dict) -> R<(PyStr, isize)> {
        self.enter(1)?;
        let mut key = PyStr::new();
        let mut rollback_index = self.index;
        self.context.set(ContextValue::ObjectKey);
        while self.get_char_at(0).is_some() {
            rollback_index = self.index;
            if self.get_char_at(0) == Some('[')
                && key.is_empty()
                && self.merge_object_array_continuation(obj)?
            {
                continue;
            }
            key = match self.parse_string()? {
                Value::Str(s) => s,
                // `assert isinstance(raw_key, str)`
                _ => return Err(RepairError::Assertion),
            };
            if key.is_empty() {
                self.skip_whitespaces();
            }
            if !key.is_empty() || in_list(self.get_char_at(0), &[':', '}']) {
                break;
            }
        }
        self.context.reset();
        self.leave(1);
        Ok((key, rollback_index))
    }

    /// `_merge_object_array_continuation`: `{"rows": [..], [..]}` appends
    /// the stray array to the previous list value.
    fn merge_object_array_continuation(&mut self, obj: &mut Dict) -> R<bool> {
        match obj.last_mut() {
            Some((k, Value::List(_))) if !k.is_empty() => {}
            _ => return Ok(false),
        }
        self.enter(1)?;
        self.index += 1;
        let new_array = self.parse_array(']');
        self.leave(1);
        let mut new_array = new_array?;
        if let Some((_, Value::List(prev_value))) = obj.last_mut() {
            let list_lengths: Vec<usize> = prev_value
                .iter()
                .filter_map(|item| match item {
                    Value::List(l) => Some(l.len()),
                    _ => None,
                })
                .collect();
            let expected_len = match list_lengths.first() {
                Some(&first) if list_lengths.iter().all(|&l| l == first) => first,
                _ => 0,
            };
            if expected_len > 0 {
                let mut tail = Vec::new();
                while prev_value
                    .last()
                    .is_some_and(|v| !matches!(v, Value::List(_)))
                {
                    if let Some(v) = prev_value.pop() {
                        tail.push(v);
                    }
                }
                if !tail.is_empty() {
                    tail.reverse();
                    if tail.len() % expected_len == 0 {
                        // Row values without an inner array: group them.
                        for chunk in tail.chunks(expected_len) {
                            prev_value.push(Value::List(chunk.to_vec()));
                        }
                    } else {
                        prev_value.extend(tail);
                    }
                }
                if !new_array.is_empty() {
                    if new_array.iter().all(|v| matches!(v, Value::List(_))) {
                        prev_value.extend(new_array);
                    } else {
                        prev_value.push(Value::List(new_array));
                    }
                }
            } else if new_array.len() == 1 && matches!(new_array[0], Value::List(_)) {
                if let Some(Value::List(inner)) = new_array.pop() {
                    prev_value.extend(inner);
                }
            } else {
                prev_value.extend(new_array);
            }
        }

        self.skip_whitespaces();
        if self.get_char_at(0) == Some(',') {
            self.index += 1;
        }
        self.skip_whitespaces();
        Ok(true)
    }

    /// `_should_split_duplicate_object`: not when the key follows a normal
    /// comma and is quoted and followed by a colon.
    fn should_split_duplicate_object(&self, rollback_index: isize) -> bool {
        let mut lookback_idx = rollback_index - self.index - 1;
        let mut prev_non_whitespace = self.get_char_at(lookback_idx);
        while prev_non_whitespace.is_some_and(isspace) {
            lookback_idx -= 1;
            prev_non_whitespace = self.get_char_at(lookback_idx);
        }
        let key_start_char = self.get_char_at(rollback_index - self.index);
        let next_non_whitespace = self.get_char_at(self.scroll_whitespaces(0));
        !(is_delim(key_start_char)
            && prev_non_whitespace == Some(',')
            && next_non_whitespace == Some(':'))
    }

    /// `_split_object_on_duplicate_key`: insert a `{` before the key.
    fn split_object_on_duplicate_key(&mut self, rollback_index: isize) {
        self.index = rollback_index - 1;

        let (_, at) = pystr::slice_bounds(None, Some(self.index + 1), self.json_str.len());
        self.json_str.insert(at, '{');
    }

    /// `_parse_object_value`.
    fn parse_object_value(&mut self) -> R<Value> {
        self.enter(1)?;
        self.context.set(ContextValue::ObjectValue);
        self.skip_whitespaces();
        let r = if in_list(self.get_char_at(0), &[',', '}']) {
            // A stray , or }: the value is missing.
            Ok(Value::empty_str())
        } else {
            self.parse_json()
        };
        let v = r?;
        self.context.reset();
        self.leave(1);
        Ok(v)
    }

    /// `_classify_empty_object_repair`.
    fn classify_empty_object_repair(&self, start_index: isize) -> EmptyObjectRepair {
        let attempted_object = self.slice(start_index - 1, self.index + 1);
        let mut body = pystr::slice(attempted_object, Some(1), None);
        if body.last() == Some(&'}') {
            body = &body[..body.len() - 1];
        }
        let body = pystr::lstrip(body);
        if body.is_empty() {
            return EmptyObjectRepair::Keep;
        }
        if (pystr::starts_with(body, "\\\"") && pystr::contains(body, "\\\":"))
            || (pystr::starts_with(body, "\\'") && pystr::contains(body, "\\':"))
        {
            let normalized = pystr::replace(attempted_object, "\\\"", "\"");
            let normalized = pystr::replace(&normalized, "\\'", "'");
            return EmptyObjectRepair::Object(normalized);
        }
        let stripped = strip_comments_for_empty_object_classification(body);
        let body = pystr::lstrip(&stripped);
        if body.is_empty() {
            return EmptyObjectRepair::Keep;
        }

        let mut in_quote: Option<char> = None;
        let mut backslashes = 0usize;
        for &ch in body {
            if ch == '\\' {
                backslashes += 1;
                continue;
            }
            if let Some(q) = in_quote {
                if ch == q && backslashes.is_multiple_of(2) {
                    in_quote = None;
                }
            } else if STRING_DELIMITERS.contains(&ch) && backslashes.is_multiple_of(2) {
                in_quote = Some(ch);
            } else if ch == ':' && backslashes.is_multiple_of(2) {
                // Still an object-style separator: keep the object.
                return EmptyObjectRepair::Keep;
            }
            backslashes = 0;
        }
        EmptyObjectRepair::Array
    }

    /// `_repair_empty_object_result`: `{...}` with content but no members
    /// is reparsed (as an object with unescaped quotes, or as an array).
    fn repair_empty_object_result(&mut self, obj: &Dict, start_index: isize) -> R<Option<Value>> {
        if !obj.is_empty() || self.index - start_index <= 2 {
            return Ok(None);
        }
        match self.classify_empty_object_repair(start_index) {
            EmptyObjectRepair::Keep => Ok(None),
            EmptyObjectRepair::Object(normalized) => {
                self.enter(1)?;
                let end_index = self.index + 1;
                let n = self.json_str.len();
                let (_, head_end) = pystr::slice_bounds(None, Some(start_index - 1), n);
                let (tail_start, _) = pystr::slice_bounds(Some(end_index), None, n);
                let mut new_str: Vec<char> = self.json_str[..head_end].to_vec();
                new_str.extend_from_slice(&normalized);
                new_str.extend_from_slice(&self.json_str[tail_start..]);
                self.json_str = new_str;
                self.index = start_index;
                self.context.set(ContextValue::ObjectKey);
                let repaired = self.parse_object()?;
                self.context.reset();
                self.deferred_contexts.push(ContextValue::ObjectKey);
                self.leave(1);
                Ok(Some(repaired))
            }
            EmptyObjectRepair::Array => {
                self.enter(1)?;
                self.index = start_index;
                self.context.set(ContextValue::ObjectKey);
                let repaired = self.parse_array(']')?;
                self.context.reset();
                self.deferred_contexts.push(ContextValue::ObjectKey);
                self.leave(1);
                Ok(Some(Value::List(repaired)))
            }
        }
    }

    /// `_complete_object_parse`.
    fn complete_object_parse(&mut self, mut obj: Dict) -> R<Value> {
        if !self.context.empty {
            if self.get_char_at(0) == Some('}')
                && !matches!(
                    self.context.current,
                    Some(ContextValue::ObjectKey | ContextValue::ObjectValue)
                )
            {
                // An extra closing brace that shouldn't be there: skip it.
                self.index += 1;
            }
            return Ok(Value::Dict(obj));
        }

        self.skip_whitespaces();
        if self.get_char_at(0) == Some(',') {
            self.index += 1;
            self.skip_whitespaces();
            if is_delim(self.get_char_at(0)) {
                // More key-value pairs after the closing brace.
                self.enter(1)?;
                let additional = self.parse_object();
                self.leave(1);
                if let Value::Dict(additional) = additional? {
                    obj.update(additional);
                }
            }
        }
        Ok(Value::Dict(obj))
    }
}
