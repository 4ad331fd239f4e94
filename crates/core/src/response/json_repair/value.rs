//! The Python values `json_repair` returns (`JSONReturnType`: dict, list,
//! str, int, float, bool, None) and `json.dumps` of them with its defaults
//! (`ensure_ascii=True`, separators `", "` and `": "`).

use rustc_hash::FxHashMap;

/// A Python `str`: a sequence of code points, lone surrogates included
/// (`"\ud83d"` from an escape is a valid Python string).
pub type PyStr = Vec<u32>;

/// A Python `str` from Rust text.
pub fn pystr(s: &str) -> PyStr {
    s.chars().map(u32::from).collect()
}

/// A Python `str` from a slice of the parser's input.
pub fn pystr_of(chars: &[char]) -> PyStr {
    chars.iter().map(|&c| u32::from(c)).collect()
}

/// A Python value as `json.loads` or the repair parser builds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An `int` of any size: its canonical decimal text (`-12`, `0`).
    Int(String),
    Float(f64),
    Str(PyStr),
    List(Vec<Value>),
    Dict(Dict),
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(pystr(s))
    }

    pub fn empty_str() -> Value {
        Value::Str(Vec::new())
    }

    /// `value == ""`.
    pub fn is_empty_str(&self) -> bool {
        matches!(self, Value::Str(s) if s.is_empty())
    }

    /// `value == text` for a Python str.
    pub fn eq_str(&self, text: &str) -> bool {
        matches!(self, Value::Str(s) if s.iter().copied().eq(text.chars().map(u32::from)))
    }

    /// Python truthiness: `bool(value)`.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(t) => t != "0",
            // NaN is true.
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Dict(d) => !d.is_empty(),
        }
    }

    /// `int(text)` for text Python's `int()` accepts, made canonical.
    pub(crate) fn int_from_digits(negative: bool, digits: &str) -> Value {
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            Value::Int("0".into())
        } else if negative {
            Value::Int(format!("-{trimmed}"))
        } else {
            Value::Int(trimmed.into())
        }
    }

    /// `json.dumps(value)`.
    pub fn dumps(&self) -> String {
        let mut out = String::new();
        dump(self, &mut out);
        out
    }
}

fn dump(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(t) => out.push_str(t),
        // `float.__repr__`, and NaN / Infinity / -Infinity as json writes them.
        Value::Float(f) => out.push_str(&float_repr(*f)),
        Value::Str(s) => dump_str(s, out),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dump(item, out);
            }
            out.push(']');
        }
        Value::Dict(d) => {
            out.push('{');
            for (i, (k, item)) in d.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dump_str(k, out);
                out.push_str(": ");
                dump(item, out);
            }
            out.push('}');
        }
    }
}

/// Python's `repr(float)` (`json.dumps` writes floats so): the shortest
/// digits that read back as the same float, in fixed notation for exponents
/// -4..16. Where two shortest digit strings are equally near (the float is
/// exactly halfway, e.g. `2345351608740.53125` at 17 digits), Python's dtoa
/// takes the even one (`...0.5312`): `crate::py::python_float_repr` does.
pub fn float_repr(f: f64) -> String {
    crate::py::python_float_repr(f)
}

/// `py_encode_basestring_ascii`: everything outside `' '..='~'` escaped.
fn dump_str(s: &[u32], out: &mut String) {
    out.push('"');
    for &cp in s {
        match cp {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            0x20..=0x7E => out.push(char::from(cp as u8)),
            0x10000.. => {
                let v = cp - 0x10000;
                let hi = 0xD800 | ((v >> 10) & 0x3FF);
                let lo = 0xDC00 | (v & 0x3FF);
                out.push_str(&format!("\\u{hi:04x}\\u{lo:04x}"));
            }
            _ => out.push_str(&format!("\\u{cp:04x}")),
        }
    }
    out.push('"');
}

/// A Python `dict` with `str` keys: insertion order, and assigning to an
/// existing key replaces its value in place.
#[derive(Debug, Clone, Default)]
pub struct Dict {
    entries: Vec<(PyStr, Value)>,
    index: FxHashMap<PyStr, usize>,
}

impl PartialEq for Dict {
    fn eq(&self, other: &Dict) -> bool {
        self.entries == other.entries
    }
}

impl Dict {
    pub fn new() -> Dict {
        Dict::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `d[key] = value`.
    pub fn insert(&mut self, key: PyStr, value: Value) {
        match self.index.get(&key) {
            Some(&i) => {
                if let Some(e) = self.entries.get_mut(i) {
                    e.1 = value;
                }
            }
            None => {
                self.index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
        }
    }

    /// `key in d`.
    pub fn contains_key(&self, key: &[u32]) -> bool {
        self.index.contains_key(key)
    }

    pub fn get(&self, key: &[u32]) -> Option<&Value> {
        self.index
            .get(key)
            .and_then(|&i| self.entries.get(i))
            .map(|e| &e.1)
    }

    /// `list(d.keys())[-1]` and its value.
    pub fn last_mut(&mut self) -> Option<(&PyStr, &mut Value)> {
        self.entries.last_mut().map(|(k, v)| (&*k, v))
    }

    /// `d.update(other)`.
    pub fn update(&mut self, other: Dict) {
        for (k, v) in other.entries {
            self.insert(k, v);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&PyStr, &Value)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_like_python() {
        for (text, want) in [
            // Exactly halfway between two 17-digit strings: the even one.
            ("-2345351608740.53125", "-2345351608740.5312"),
            ("1603805800971978.25", "1603805800971978.2"),
            ("149564678587243.125", "149564678587243.12"),
            ("0.1", "0.1"),
            ("1e16", "1e+16"),
            ("1e-5", "1e-05"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("123456789", "123456789.0"),
            ("2.5", "2.5"),
        ] {
            let f: f64 = text.parse().expect("a float");
            assert_eq!(float_repr(f), want, "{text}");
        }
    }

    #[test]
    fn dumps_like_python() {
        let mut d = Dict::new();
        d.insert(pystr("a"), Value::Int("1".into()));
        d.insert(
            pystr("b"),
            Value::List(vec![Value::Null, Value::Bool(true)]),
        );
        d.insert(
            pystr("a"),
            Value::Str(vec![0xD83D, 0x1F600, 0xE9, 0x7F, 0x1F, 0x22]),
        );
        assert_eq!(
            Value::Dict(d).dumps(),
            r#"{"a": "\ud83d\ud83d\ude00\u00e9\u007f\u001f\"", "b": [null, true]}"#
        );
        assert_eq!(Value::Float(f64::NAN).dumps(), "NaN");
        assert_eq!(Value::Float(f64::NEG_INFINITY).dumps(), "-Infinity");
    }
}
