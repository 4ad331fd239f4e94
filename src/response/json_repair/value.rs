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
/// takes the even one (`...0.5312`) and Rust's `{:e}` the upper one, so
/// that case is redone here; otherwise it is
/// `crate::py::python_float_repr`.
pub fn float_repr(f: f64) -> String {
    if !f.is_finite() || f == 0.0 {
        return crate::py::python_float_repr(f);
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa.bytes().filter(|b| *b != b'.').collect();
    if let Some(even) = even_tie_digits(f.abs(), &digits, exp) {
        digits = even;
    }
    let digits = String::from_utf8(digits).unwrap_or_default();
    let sign = if f < 0.0 { "-" } else { "" };
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                let zeros = "0".repeat(int_len - digits.len());
                format!("{sign}{digits}{zeros}.0")
            } else {
                format!("{sign}{}.{}", &digits[..int_len], &digits[int_len..])
            }
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let mant = if digits.len() == 1 {
            digits
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{mant}e{esign}{:02}", exp.abs())
    }
}

/// When `f` lies exactly halfway between the shortest `digits` (odd last
/// digit) and the neighbour with an even last digit, and that neighbour
/// also reads back as `f`: the neighbour.
fn even_tie_digits(f: f64, digits: &[u8], exp: i32) -> Option<Vec<u8>> {
    let n = digits.len();
    let last = *digits.last()?;
    if (last - b'0') % 2 == 0 {
        return None;
    }
    // The exact decimal value of `f` (a double has at most 767 significant
    // digits, so 800 places show it whole).
    let exact = format!("{:.800e}", f);
    let (m, e) = exact.split_once('e')?;
    if e.parse::<i32>().ok()? != exp {
        return None;
    }
    let exact_digits: Vec<u8> = m.bytes().filter(|b| *b != b'.').collect();
    let (head, rest) = exact_digits.split_at(n.min(exact_digits.len()));
    // Exactly halfway: the digits after the first n are 5000...
    if rest.first() != Some(&b'5') || rest[1..].iter().any(|&b| b != b'0') {
        return None;
    }
    let candidate: Vec<u8> = if head == digits {
        // `digits` is the lower neighbour: the upper one ends in last + 1.
        if last == b'9' {
            return None;
        }
        let mut c = digits.to_vec();
        c[n - 1] = last + 1;
        c
    } else {
        // `digits` is the upper neighbour: the lower one is `head`.
        let mut c = digits.to_vec();
        c[n - 1] = last - 1;
        if c != head {
            return None;
        }
        c
    };
    let text = format!(
        "{}.{}e{exp}",
        char::from(candidate[0]),
        String::from_utf8_lossy(&candidate[1..])
    );
    (text.parse::<f64>().ok()? == f).then_some(candidate)
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
