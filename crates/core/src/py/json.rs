//! `json.dumps(obj, ensure_ascii=False)` and Python's float repr.
//!
//! Numbers are normalised once, when a session is loaded, to the text Python
//! would print for them (`36.30` → `36.3`, `1e20` → `1e+20`, `-0` → `0`,
//! `1e400` → `Infinity`);
//! with serde_json's `arbitrary_precision` that text is then what every
//! serialisation writes, so big integers stay exact.

use serde_json::ser::Formatter;
use serde_json::Value;
use std::io;

/// Python's `repr(float)`: the shortest round-trip digits, fixed notation
/// for exponents -4..16, else `d.ddde+XX`.
pub fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. "3.63e1".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mantissa.bytes().filter(|b| *b != b'.').collect();
    // Exactly halfway between two shortest digit strings, Python's dtoa
    // takes the even one; Rust's `{:e}` the upper one.
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
    if (last - b'0').is_multiple_of(2) {
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

/// Rewrites every number to the text Python's `json.loads` + `json.dumps`
/// round trip gives it.
pub fn normalize_numbers(v: &mut Value) {
    crate::json::rewrite_numbers(v, python_number_text);
}

/// A number's text after Python's `json.loads` + `json.dumps` round trip,
/// or `None` when it is the same.
pub fn python_number_text(text: &str) -> Option<String> {
    let normal = if text.contains(['.', 'e', 'E']) {
        python_float_repr(text.parse::<f64>().ok()?)
    } else if text == "-0" {
        "0".to_string()
    } else {
        return None;
    };
    // `Infinity` (from `1e400`) is not JSON, so it is not parsed back: it
    // is Python's text, kept as the number's text.
    (normal != text).then_some(normal)
}

/// `json.dumps(v, ensure_ascii=False)`: `", "` and `": "` separators.
pub fn dumps(v: &Value) -> String {
    // Room for a tool call's arguments at once, not grown from nothing.
    let mut buf = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, PythonFormatter);
    // Serialising a Value into memory cannot fail.
    let _ = serde::Serialize::serialize(v, &mut ser);
    String::from_utf8(buf).unwrap_or_default()
}

/// serde_json's compact formatter with Python's default separators.
struct PythonFormatter;

impl Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> String {
        let mut v: Value = serde_json::from_str(text).expect("valid json");
        normalize_numbers(&mut v);
        dumps(&v)
    }

    #[test]
    fn exact_ties_take_the_even_digits_as_python_does() {
        for (text, want) in [
            ("-2345351608740.53125", "-2345351608740.5312"),
            ("1603805800971978.25", "1603805800971978.2"),
            ("149564678587243.125", "149564678587243.12"),
        ] {
            let f: f64 = text.parse().expect("a float");
            assert_eq!(python_float_repr(f), want, "{text}");
        }
    }

    #[test]
    fn floats_print_like_python() {
        for (f, want) in [
            (36.3, "36.3"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.5e-7, "1.5e-07"),
            (-0.0, "-0.0"),
            (1e20, "1e+20"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            assert_eq!(python_float_repr(f), want, "{f}");
        }
    }

    #[test]
    fn dumps_matches_python() {
        assert_eq!(
            norm(
                r#"{"city": "Paris", "n": 1.0, "x": 36.30, "big": 123456789012345678901234567890, "u": "é\u0001", "l": [1, -0, 1E2]}"#
            ),
            r#"{"city": "Paris", "n": 1.0, "x": 36.3, "big": 123456789012345678901234567890, "u": "é\u0001", "l": [1, 0, 100.0]}"#
        );
        assert_eq!(norm("{}"), "{}");
        assert_eq!(norm("[]"), "[]");
    }

    #[test]
    fn out_of_range_and_non_finite_numbers_print_as_python_prints_them() {
        let mut v = crate::json::parse(
            b"[1e400, -1e400, NaN, Infinity, -Infinity, 1e-400]",
            Default::default(),
        )
        .unwrap()
        .value;
        normalize_numbers(&mut v);
        assert_eq!(
            dumps(&v),
            "[Infinity, -Infinity, NaN, Infinity, -Infinity, 0.0]"
        );
    }
}
