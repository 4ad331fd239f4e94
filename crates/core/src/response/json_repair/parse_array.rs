//! `parse_array.py` (without the schema paths).

use super::context::ContextValue;
use super::object_comparer::is_strictly_empty;
use super::parser::{in_list, JsonParser, R, STRING_DELIMITERS};
use super::pystr::isspace;
use super::value::Value;

impl JsonParser {
    /// `parse_array`, after the opening bracket (or parenthesis, with
    /// `closing_delimiter` `)`).
    pub fn parse_array(&mut self, closing_delimiter: char) -> R<Vec<Value>> {
        // The `JSONParser.parse_array` wrapper and `_parse_array`.
        self.enter(2)?;
        let r = self.parse_array_inner(closing_delimiter);
        self.leave(2);
        r
    }

    fn parse_array_inner(&mut self, closing_delimiter: char) -> R<Vec<Value>> {
        let mut arr: Vec<Value> = Vec::new();
        // 0.64.2: an array that is an object's value and holds only
        // scalars closes before a `"key":` (a member of the parent object).
        let array_is_object_value = self.context.current == Some(ContextValue::ObjectValue);
        let mut closed_before_parent_member = false;
        self.context.set(ContextValue::Array);
        self.skip_whitespaces();
        let mut char = self.get_char_at(0);
        while let Some(ch) = char.filter(|&c| c != closing_delimiter && c != '}') {
            let value = if STRING_DELIMITERS.contains(&ch) {
                // A string followed by ':' is often a missing object start;
                // treat it as an object.
                let i = self.skip_to_character(&[ch], 1);
                let i = self.scroll_whitespaces(i + 1);
                if self.get_char_at(i) == Some(':') {
                    if self.v0_64
                        && array_is_object_value
                        && !arr.is_empty()
                        && arr
                            .iter()
                            .all(|v| !matches!(v, Value::Dict(_) | Value::List(_)))
                    {
                        closed_before_parent_member = true;
                        break;
                    }
                    self.parse_object()?
                } else {
                    self.parse_string()?
                }
            } else {
                self.parse_json()?
            };

            if is_strictly_empty(&value) && !in_list(self.get_char_at(0), &[closing_delimiter, ','])
            {
                self.index += 1;
            } else if value.eq_str("...") && self.get_char_at(-1) == Some('.') {
                // "While parsing an array, found a stray '...'; ignoring it"
            } else {
                arr.push(value);
            }

            char = self.get_char_at(0);
            while let Some(c) = char.filter(|&c| c != closing_delimiter) {
                if !(isspace(c) || c == ',') {
                    break;
                }
                self.index += 1;
                char = self.get_char_at(0);
            }
        }
        // (A missing closing delimiter is only logged.)
        if !closed_before_parent_member {
            self.index += 1;
        }
        self.context.reset();
        Ok(arr)
    }
}
