//! A list of JSON values kept as bytes: what a large request's formatted
//! units are held as between uses. A `serde_json::Value` with ordered maps
//! and number text is 80 bytes before its contents, and every key and
//! string is an allocation of its own; packed, a formatted message costs
//! its text plus a few bytes, about a third of its tree. Unpacking gives
//! back equal values (same key order, same number text), so what is made
//! from them is byte for byte what the tree would have made.
//!
//! The encoding is ours and private to the process: a count, then each
//! value as a tag byte, with LEB128 lengths before strings, numbers'
//! text, arrays and objects. A string is always written the same way, so
//! equal values pack to equal bytes.

use serde_json::{Map, Number, Value};
use std::sync::Arc;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const ARRAY: u8 = 5;
const OBJECT: u8 = 6;
/// Values packed into one shared buffer (cloning shares it).
#[derive(Clone, PartialEq, Eq)]
pub struct Packed {
    bytes: Arc<[u8]>,
}

impl std::fmt::Debug for Packed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.unpack()).finish()
    }
}

impl Packed {
    pub fn pack(values: &[Value]) -> Packed {
        let mut out = Vec::with_capacity(values.iter().map(estimate).sum::<usize>() + 4);
        put_len(&mut out, values.len());
        for v in values {
            put_value(&mut out, v);
        }
        Packed {
            bytes: Arc::from(out),
        }
    }

    /// The values, equal to those packed.
    pub fn unpack(&self) -> Vec<Value> {
        let mut r = Reader::new(&self.bytes);
        let n = r.len();
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(r.value());
        }
        debug_assert!(r.at_end(), "packed values read to their end");
        out
    }

    /// One value packed (see [`Packed::unpack_one`]).
    pub fn pack_one(value: &Value) -> Packed {
        Self::pack(std::slice::from_ref(value))
    }

    /// The first value (`null` when none was packed).
    pub fn unpack_one(&self) -> Value {
        let mut r = Reader::new(&self.bytes);
        if r.len() == 0 {
            return Value::Null;
        }
        r.value()
    }

    /// The first value read in place, its strings borrowed (`Null` when
    /// none was packed): for a look at a few fields without unpacking.
    pub fn view_one(&self) -> View<'_> {
        let mut r = Reader::new(&self.bytes);
        if r.len() == 0 {
            return View::Null;
        }
        r.view()
    }

    /// The same buffer (a clone of this one), not only equal bytes.
    pub fn same(&self, other: &Packed) -> bool {
        Arc::ptr_eq(&self.bytes, &other.bytes)
    }

    /// The encoding itself: equal values, equal bytes (key order and
    /// number text included), so it can be hashed as the content.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// An upper guess of a value's packed size, so packing allocates once.
fn estimate(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) => 1,
        Value::Number(n) => 2 + n.as_str().len(),
        Value::String(s) => 5 + s.len(),
        Value::Array(a) => 5 + a.iter().map(estimate).sum::<usize>(),
        Value::Object(m) => {
            5 + m
                .iter()
                .map(|(k, v)| 5 + k.len() + estimate(v))
                .sum::<usize>()
        }
    }
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            out.push(NUMBER);
            put_str(out, n.as_str());
        }
        Value::String(s) => {
            out.push(STRING);
            put_str(out, s);
        }
        Value::Array(a) => {
            out.push(ARRAY);
            put_len(out, a.len());
            for item in a {
                put_value(out, item);
            }
        }
        Value::Object(m) => {
            out.push(OBJECT);
            put_len(out, m.len());
            for (k, item) in m {
                put_str(out, k);
                put_value(out, item);
            }
        }
    }
}

/// An object key as it is packed (its length, then its bytes): a packed
/// value holds a key only if its bytes hold these.
pub fn packed_key(key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(key.len() + 2);
    put_str(&mut out, key);
    out
}

/// A packed value read in place: strings and number text borrowed from
/// the bytes, only the lists allocated.
#[derive(Debug, Clone, PartialEq)]
pub enum View<'a> {
    Null,
    Bool(bool),
    Number(&'a str),
    String(&'a str),
    Array(Vec<View<'a>>),
    Object(Vec<(&'a str, View<'a>)>),
}

impl<'a> View<'a> {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&View<'a>> {
        match self {
            View::Object(members) => members.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            View::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Reads what `put_value` wrote. The bytes are only ever ours, so a short
/// read is a bug; it still yields `null`s and empty strings, never a panic.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    fn at_end(&self) -> bool {
        self.at == self.bytes.len()
    }

    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(NULL);
        self.at += 1;
        b
    }

    fn len(&mut self) -> usize {
        let mut n = 0usize;
        let mut shift = 0;
        loop {
            let b = self.byte();
            n |= usize::from(b & 0x7f) << shift;
            if b & 0x80 == 0 || shift > 56 {
                return n;
            }
            shift += 7;
        }
    }

    fn str(&mut self) -> String {
        let n = self.len();
        self.bytes_of(n)
    }

    fn bytes_of(&mut self, n: usize) -> String {
        let end = (self.at + n).min(self.bytes.len());
        let s = simdutf8::basic::from_utf8(&self.bytes[self.at.min(end)..end])
            .unwrap_or_default()
            .to_owned();
        self.at = end;
        s
    }

    fn str_ref(&mut self) -> &'a str {
        let n = self.len();
        let end = (self.at + n).min(self.bytes.len());
        let s = simdutf8::basic::from_utf8(&self.bytes[self.at.min(end)..end]).unwrap_or_default();
        self.at = end;
        s
    }

    fn view(&mut self) -> View<'a> {
        match self.byte() {
            FALSE => View::Bool(false),
            TRUE => View::Bool(true),
            NUMBER => View::Number(self.str_ref()),
            STRING => View::String(self.str_ref()),
            ARRAY => {
                let n = self.len().min(self.bytes.len());
                View::Array((0..n).map(|_| self.view()).collect())
            }
            OBJECT => {
                let n = self.len().min(self.bytes.len());
                View::Object(
                    (0..n)
                        .map(|_| {
                            let k = self.str_ref();
                            (k, self.view())
                        })
                        .collect(),
                )
            }
            _ => View::Null,
        }
    }

    fn value(&mut self) -> Value {
        match self.byte() {
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            NUMBER => Value::Number(Number::from_string_unchecked(self.str())),
            STRING => Value::String(self.str()),
            ARRAY => {
                let n = self.len().min(self.bytes.len());
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value());
                }
                Value::Array(items)
            }
            OBJECT => {
                let n = self.len().min(self.bytes.len());
                let mut map = Map::with_capacity(n);
                for _ in 0..n {
                    let k = self.str();
                    let v = self.value();
                    map.insert(k, v);
                }
                Value::Object(map)
            }
            _ => Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) {
        let parsed = crate::json::parse(text.as_bytes(), Default::default()).expect("parses");
        let values = vec![parsed.value.clone(), Value::Null, parsed.value];
        let packed = Packed::pack(&values);
        let back = packed.unpack();
        assert_eq!(back, values);
        // Same text out: key order and number text kept.
        assert_eq!(
            serde_json::to_string(&back).expect("prints"),
            serde_json::to_string(&values).expect("prints")
        );
    }

    #[test]
    fn a_view_reads_what_unpacking_reads() {
        let value = serde_json::json!({"name": "Bob", "n": 1.50, "content": [
            {"type": "text", "text": "hi \u{e9}"}, null, true, []
        ]});
        let packed = Packed::pack_one(&value);
        let view = packed.view_one();
        assert_eq!(view.get("name").and_then(View::as_str), Some("Bob"));
        assert_eq!(view.get("n"), Some(&View::Number("1.5")));
        let Some(View::Array(blocks)) = view.get("content") else {
            panic!("a list: {view:?}");
        };
        assert_eq!(
            blocks[0].get("text").and_then(View::as_str),
            Some("hi \u{e9}")
        );
        assert_eq!(
            &blocks[1..],
            [View::Null, View::Bool(true), View::Array(vec![])]
        );
        assert_eq!(view.get("missing"), None);
    }

    #[test]
    fn unpacking_gives_back_the_same_values_in_the_same_order() {
        round_trip(
            r#"{"z": 1, "a": [1.50, -0, 1e400, true, false, null], "m": {"b": "x", "a": ""}}"#,
        );
        round_trip(r#"[NaN, Infinity, -Infinity, 12345678901234567890123]"#);
        round_trip(r#""a long string \u00e9 \ud83d\ude00 with \"quotes\" and \n newlines""#);
        let long = format!(
            r#"{{"text": "{}", "k{}": []}}"#,
            "x".repeat(70_000),
            "y".repeat(200)
        );
        round_trip(&long);
        round_trip("[]");
    }

    #[test]
    fn packed_is_much_smaller_than_the_tree() {
        let message = serde_json::json!({"role": "user", "name": "Bob", "content": [{"type": "text", "text": "Hello there."}]});
        let packed = Packed::pack(std::slice::from_ref(&message));
        // The tree is 80+ bytes per value before any contents.
        assert!(
            packed.as_bytes().len() < 90,
            "{} bytes",
            packed.as_bytes().len()
        );
    }
}
