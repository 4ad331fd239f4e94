//! Python's `json.loads` (the C scanner of CPython 3.11, default options):
//! strict JSON plus `NaN`, `Infinity` and `-Infinity`; ints of any size
//! (up to Python's 4300-digit limit); lone surrogate escapes kept; a
//! duplicate key keeps its first position and its last value.

use super::value::{Dict, PyStr, Value};

/// How deep `json.loads` nests before Python's `RecursionError` (measured:
/// 993 nested arrays or objects load from a shallow caller, 994 do not).
pub const MAX_DEPTH: usize = 993;

/// `sys.get_int_max_str_digits()`: `int()` of more digits is a ValueError.
pub const INT_MAX_STR_DIGITS: usize = 4300;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadError {
    /// `JSONDecodeError` / `ValueError`: repair_json falls back to the parser.
    Invalid,
    /// `RecursionError`: repair_json raises.
    Recursion,
}

type R<T> = Result<T, LoadError>;

/// `json.loads(s)`.
pub fn loads(s: &[char]) -> R<Value> {
    let sc = Scanner { s };
    let (v, end) = sc.scan_value(sc.ws(0))?;
    if sc.ws(end) != s.len() {
        // "Extra data"
        return Err(LoadError::Invalid);
    }
    Ok(v)
}

struct Scanner<'a> {
    s: &'a [char],
}

/// An open container of `scan_value` (an explicit stack: the C scanner
/// recurses, but a deep input must not overflow the Rust stack).
enum Open {
    List(Vec<Value>),
    /// The dict and the key whose value is being scanned.
    Dict(Dict, PyStr),
}

impl Scanner<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.s.get(i).copied()
    }

    /// `WHITESPACE = r'[ \t\n\r]*'`.
    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(' ' | '\t' | '\n' | '\r')) {
            i += 1;
        }
        i
    }

    fn lit(&self, i: usize, word: &str) -> bool {
        word.chars()
            .enumerate()
            .all(|(k, c)| self.at(i + k) == Some(c))
    }

    /// `scan_once_unicode` with `_parse_object_unicode` and
    /// `_parse_array_unicode`: one value at `i`, and the index after it.
    fn scan_value(&self, mut i: usize) -> R<(Value, usize)> {
        let mut stack: Vec<Open> = Vec::new();
        loop {
            // A value starts at `i`.
            let (mut value, mut end) = match self.at(i) {
                Some(c @ ('{' | '[')) => {
                    // `Py_EnterRecursiveCall`
                    if stack.len() + 1 > MAX_DEPTH {
                        return Err(LoadError::Recursion);
                    }
                    let j = self.ws(i + 1);
                    if c == '{' && self.at(j) == Some('}') {
                        (Value::Dict(Dict::new()), j + 1)
                    } else if c == '[' && self.at(j) == Some(']') {
                        (Value::List(Vec::new()), j + 1)
                    } else if c == '{' {
                        let (key, after) = self.scan_key(j)?;
                        stack.push(Open::Dict(Dict::new(), key));
                        i = after;
                        continue;
                    } else {
                        stack.push(Open::List(Vec::new()));
                        i = j;
                        continue;
                    }
                }
                _ => self.scan_scalar(i)?,
            };
            // Hand the value to the open containers, closing those that end.
            loop {
                let j = self.ws(end);
                match stack.last_mut() {
                    None => return Ok((value, end)),
                    Some(Open::List(items)) => {
                        items.push(value);
                        match self.at(j) {
                            Some(',') => {
                                i = self.ws(j + 1);
                                break;
                            }
                            Some(']') => {}
                            _ => return Err(LoadError::Invalid),
                        }
                    }
                    Some(Open::Dict(d, key)) => {
                        d.insert(std::mem::take(key), value);
                        match self.at(j) {
                            Some(',') => {
                                let (next_key, after) = self.scan_key(self.ws(j + 1))?;
                                *key = next_key;
                                i = after;
                                break;
                            }
                            Some('}') => {}
                            _ => return Err(LoadError::Invalid),
                        }
                    }
                }
                value = match stack.pop() {
                    Some(Open::List(items)) => Value::List(items),
                    Some(Open::Dict(d, _)) => Value::Dict(d),
                    None => return Err(LoadError::Invalid),
                };
                end = j + 1;
            }
        }
    }

    /// A key, the colon and the whitespace after it: the key and the index
    /// where its value starts.
    fn scan_key(&self, i: usize) -> R<(PyStr, usize)> {
        if self.at(i) != Some('"') {
            // "Expecting property name enclosed in double quotes"
            return Err(LoadError::Invalid);
        }
        let (key, end) = self.scanstring(i + 1)?;
        let j = self.ws(end);
        if self.at(j) != Some(':') {
            return Err(LoadError::Invalid);
        }
        Ok((key, self.ws(j + 1)))
    }

    /// A string, constant or number at `i`.
    fn scan_scalar(&self, i: usize) -> R<(Value, usize)> {
        match self.at(i) {
            None => Err(LoadError::Invalid),
            Some('"') => {
                let (s, end) = self.scanstring(i + 1)?;
                Ok((Value::Str(s), end))
            }
            Some('n') if self.lit(i, "null") => Ok((Value::Null, i + 4)),
            Some('t') if self.lit(i, "true") => Ok((Value::Bool(true), i + 4)),
            Some('f') if self.lit(i, "false") => Ok((Value::Bool(false), i + 5)),
            Some('N') if self.lit(i, "NaN") => Ok((Value::Float(f64::NAN), i + 3)),
            Some('I') if self.lit(i, "Infinity") => Ok((Value::Float(f64::INFINITY), i + 8)),
            Some('-') if self.lit(i, "-Infinity") => Ok((Value::Float(f64::NEG_INFINITY), i + 9)),
            Some(_) => self.match_number(i),
        }
    }

    /// `scanstring_unicode` (strict), after the opening quote.
    fn scanstring(&self, mut i: usize) -> R<(PyStr, usize)> {
        let mut out = PyStr::new();
        loop {
            let c = self.at(i).ok_or(LoadError::Invalid)?;
            i += 1;
            match c {
                '"' => return Ok((out, i)),
                '\\' => {
                    let e = self.at(i).ok_or(LoadError::Invalid)?;
                    i += 1;
                    let mapped = match e {
                        '"' => '"',
                        '\\' => '\\',
                        '/' => '/',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        'u' => {
                            let mut cp = self.hex4(i)?;
                            i += 4;
                            if (0xD800..=0xDBFF).contains(&cp)
                                && self.at(i) == Some('\\')
                                && self.at(i + 1) == Some('u')
                            {
                                let lo = self.hex4(i + 2)?;
                                if (0xDC00..=0xDFFF).contains(&lo) {
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                    i += 6;
                                }
                            }
                            out.push(cp);
                            continue;
                        }
                        _ => return Err(LoadError::Invalid),
                    };
                    out.push(u32::from(mapped));
                }
                // "Invalid control character"
                c if u32::from(c) < 0x20 => return Err(LoadError::Invalid),
                c => out.push(u32::from(c)),
            }
        }
    }

    fn hex4(&self, i: usize) -> R<u32> {
        let mut v = 0;
        for k in 0..4 {
            let d = self
                .at(i + k)
                .and_then(|c| c.to_digit(16))
                .ok_or(LoadError::Invalid)?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// `_match_number_unicode`: `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`.
    fn match_number(&self, start: usize) -> R<(Value, usize)> {
        let digit = |i: usize| self.at(i).is_some_and(|c| c.is_ascii_digit());
        let mut i = start;
        let negative = self.at(i) == Some('-');
        if negative {
            i += 1;
        }
        match self.at(i) {
            Some('1'..='9') => {
                i += 1;
                while digit(i) {
                    i += 1;
                }
            }
            Some('0') => i += 1,
            _ => return Err(LoadError::Invalid),
        }
        let int_end = i;
        let mut is_float = false;
        if self.at(i) == Some('.') && digit(i + 1) {
            is_float = true;
            i += 2;
            while digit(i) {
                i += 1;
            }
        }
        if matches!(self.at(i), Some('e' | 'E')) {
            let e_start = i;
            i += 1;
            if matches!(self.at(i), Some('-' | '+')) {
                i += 1;
            }
            let digits_start = i;
            while digit(i) {
                i += 1;
            }
            if i > digits_start {
                is_float = true;
            } else {
                i = e_start;
            }
        }
        let text: String = self.s[start..i].iter().collect();
        if is_float {
            let f: f64 = text.parse().map_err(|_| LoadError::Invalid)?;
            return Ok((Value::Float(f), i));
        }
        let digits: String = self.s[start + usize::from(negative)..int_end]
            .iter()
            .collect();
        if digits.len() > INT_MAX_STR_DIGITS {
            return Err(LoadError::Invalid);
        }
        Ok((Value::int_from_digits(negative, &digits), i))
    }
}
