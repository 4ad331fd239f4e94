//! Python's `repr()` and `str()` of JSON values (dicts, lists, str, numbers).

use super::printable::is_printable;
use serde_json::Value;
use std::fmt::Write;

/// `str(x)`: a string is itself, anything else its repr.
pub fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Appends `str(x)` to `out`, a string without copying it first.
pub fn push_py_str(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => out.push_str(s),
        other => write_repr(out, other),
    }
}

/// `repr(x)`, as Python prints dicts and lists (`{'k': 'v'}`, `None`, `True`).
pub fn py_repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v);
    out
}

fn write_repr(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => {
            let s = n.to_string();
            match s.as_str() {
                "Infinity" => out.push_str("inf"),
                "-Infinity" => out.push_str("-inf"),
                "NaN" => out.push_str("nan"),
                _ => out.push_str(&s),
            }
        }
        Value::String(s) => write_str_repr(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(out, item);
            }
            out.push(']');
        }
        // Bytes travel as `{"$bytes": base64}` (Gemini's thought_signature).
        Value::Object(map) if bytes_of(map).is_some() => {
            write_bytes_repr(out, &bytes_of(map).unwrap_or_default())
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str_repr(out, k);
                out.push_str(": ");
                write_repr(out, item);
            }
            out.push('}');
        }
    }
}

fn bytes_of(map: &serde_json::Map<String, Value>) -> Option<Vec<u8>> {
    match (map.len(), map.get("$bytes")) {
        (1, Some(Value::String(b64))) => {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.decode(b64).ok()
        }
        _ => None,
    }
}

/// A Python bytes literal (`b'...'`): quotes as for strings, printable
/// ASCII as is, `\t` `\n` `\r`, anything else `\xNN`.
fn write_bytes_repr(out: &mut String, bytes: &[u8]) {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push('b');
    out.push(quote as char);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push(quote as char);
}

/// A Python string literal: single quotes unless the text has `'` and no `"`.
pub fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = c as u32;
                if code < 0x100 {
                    let _ = write!(out, "\\x{code:02x}");
                } else if code < 0x10000 {
                    let _ = write!(out, "\\u{code:04x}");
                } else {
                    let _ = write!(out, "\\U{code:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repr_matches_python() {
        assert_eq!(
            py_repr(&json!({"role": "user", "content": "it's \"q\" é\n"})),
            r#"{'role': 'user', 'content': 'it\'s "q" é\n'}"#
        );
        assert_eq!(py_repr(&json!(["it's"])), r#"["it's"]"#);
        assert_eq!(py_repr(&json!([null, true, 1])), "[None, True, 1]");
        assert_eq!(py_repr(&json!("a\u{1}b\u{200d}")), r"'a\x01b\u200d'");
        // Unicode 15's emoji and unassigned code points, as Python 3.11
        // (Unicode 14) escapes them.
        assert_eq!(
            py_repr(&json!(["\u{1fae8}", "\u{378}", "é😀"])),
            r"['\U0001fae8', '\u0378', 'é😀']"
        );
    }
}
