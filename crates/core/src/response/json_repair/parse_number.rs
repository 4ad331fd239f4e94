//! `parse_number.py`, with Python's `float()` and `int()` conversions.

use super::context::ContextValue;
use super::loads::INT_MAX_STR_DIGITS;
use super::parser::{JsonParser, R};
use super::pystr::isalpha;
use super::value::Value;

/// `NUMBER_CHARS`.
fn is_number_char(c: char) -> bool {
    matches!(c, '0'..='9' | '-' | '.' | 'e' | 'E' | '/' | ',' | '_')
}

/// Python's `float(text)` for text made of `0-9 - . e E /`: None for a
/// ValueError.
fn py_float(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let mut mantissa_digits = i - int_start;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let frac_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        mantissa_digits += i - frac_start;
    }
    if mantissa_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp_start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == exp_start {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse().ok()
}

/// Python's `int(text)` for text made of `0-9 - /`: None for a ValueError
/// (including more than 4300 digits).
fn py_int(text: &str) -> Option<Value> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || digits.len() > INT_MAX_STR_DIGITS
    {
        return None;
    }
    Some(Value::int_from_digits(negative, digits))
}

impl JsonParser {
    /// `parse_number`: a number, or the text as a string when it is not
    /// one (`1,000`, `1/2`), or a string when letters follow.
    pub fn parse_number(&mut self) -> R<Value> {
        // The `JSONParser.parse_number` wrapper and `parse_number`.
        self.enter(2)?;
        let r = self.parse_number_inner();
        self.leave(2);
        r
    }

    fn parse_number_inner(&mut self) -> R<Value> {
        let mut number_str = String::new();
        let mut ch = self.get_char_at(0);
        let is_array = self.context.current == Some(ContextValue::Array);
        while let Some(c) = ch {
            let plus = self.v0_64 && c == '+' && number_str.ends_with(['e', 'E']);
            if !(is_number_char(c) || plus) || (is_array && c == ',') {
                break;
            }
            if c != '_' {
                number_str.push(c);
            }
            self.index += 1;
            ch = self.get_char_at(0);
        }
        if self.get_char_at(0).is_some_and(isalpha) {
            // this was a string instead, sorry
            self.index -= number_str.len() as isize;
            return self.parse_string();
        }
        if number_str.ends_with(['-', 'e', 'E', '/', ','])
            || (self.v0_64 && number_str.ends_with('+'))
        {
            // Ends with a character not valid for a number: roll back one.
            number_str.pop();
            self.index -= 1;
        }
        if number_str.contains(',') {
            return Ok(Value::str(&number_str));
        }
        if number_str.contains(['.', 'e', 'E']) {
            return Ok(match py_float(&number_str) {
                Some(f) => Value::Float(f),
                None => Value::str(&number_str),
            });
        }
        Ok(py_int(&number_str).unwrap_or_else(|| Value::str(&number_str)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_and_int_like_python() {
        assert_eq!(py_float("1."), Some(1.0));
        assert_eq!(py_float(".5"), Some(0.5));
        assert_eq!(py_float("-.5e1"), Some(-5.0));
        assert_eq!(py_float("1.e3"), Some(1000.0));
        for bad in [".", "-", "e5", "1e", "1e-", "1.2.3", "1/2", "--1", ""] {
            assert_eq!(py_float(bad), None, "{bad}");
        }
        assert_eq!(py_int("-0"), Some(Value::Int("0".into())));
        assert_eq!(py_int("007"), Some(Value::Int("7".into())));
        assert_eq!(py_int("1/2"), None);
        assert_eq!(py_int("-"), None);
    }
}
