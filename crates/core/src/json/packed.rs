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

use super::walk::{Json, Kind};
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
#[derive(Clone)]
pub struct Packed {
    bytes: Buffer,
}

impl PartialEq for Packed {
    fn eq(&self, other: &Packed) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Packed {}

/// A packed buffer, shared: a small one copied into one allocation with
/// its count; a large one kept in the vector it was written into (copying
/// a one-group session's 18 MB into a fresh allocation was half of
/// packing it, twice an edit).
#[derive(Clone)]
enum Buffer {
    Copied(Arc<[u8]>),
    Kept(Arc<Vec<u8>>),
}

/// From this many bytes a buffer is kept where it was written.
const KEPT_FROM: usize = 64 << 10;

impl std::ops::Deref for Buffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buffer::Copied(bytes) => bytes,
            Buffer::Kept(bytes) => bytes,
        }
    }
}

impl Buffer {
    fn of(bytes: Vec<u8>) -> Buffer {
        if bytes.len() >= KEPT_FROM {
            Buffer::Kept(Arc::new(bytes))
        } else {
            Buffer::Copied(Arc::from(bytes))
        }
    }
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
            bytes: Buffer::of(out),
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

    /// Each value read in place, in order: to print or walk them without
    /// unpacking (a one-group session's request is one string of 18 MB).
    pub fn views(&self) -> Items<'_> {
        let mut r = Reader::new(&self.bytes);
        let left = r.len().min(self.bytes.len());
        Items { r, left }
    }

    /// The first value read in place (`None` when none was packed): for
    /// a look at a few fields without unpacking.
    pub fn view_one(&self) -> Option<View<'_>> {
        let mut r = Reader::new(&self.bytes);
        (r.len() != 0).then(|| r.here())
    }

    /// The string whose bytes are at `span` ([`View::str_span`]); `None`
    /// where they are not a string's (not UTF-8, or past the end).
    pub fn str_at(&self, span: std::ops::Range<usize>) -> Option<&str> {
        simdutf8::basic::from_utf8(self.bytes.get(span)?).ok()
    }

    /// The members `keys` of the first value, an object, unpacked, and
    /// nothing else of it: formatting a message wants two of its members,
    /// and unpacking the whole dict (a map hashed key by key) was a sixth
    /// of a cold count. `None` when the first value is not an object.
    pub fn members_of_first<const N: usize>(&self, keys: [&str; N]) -> Option<[Option<Value>; N]> {
        let mut r = Reader::new(&self.bytes);
        if r.len() == 0 || r.byte() != OBJECT {
            return None;
        }
        let mut members: [Option<Value>; N] = std::array::from_fn(|_| None);
        let n = r.len().min(self.bytes.len());
        for _ in 0..n {
            let key = r.bytes_ref();
            match keys.iter().position(|k| k.as_bytes() == key) {
                Some(i) => members[i] = Some(r.value()),
                None => r.skip(),
            }
        }
        Some(members)
    }

    /// The same buffer (a clone of this one), not only equal bytes.
    pub fn same(&self, other: &Packed) -> bool {
        // A buffer is never empty (it starts with its count): two live
        // ones at one address are one.
        std::ptr::eq(self.bytes.as_ptr(), other.bytes.as_ptr())
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

/// One value packed as a parser reads it, with no tree in between: the
/// bytes [`Packed::pack_one`] writes for the value read. An array's or
/// object's length is known only at its end, so [`Writer::open`] leaves
/// it one byte, which [`Writer::close`] fills (and widens past 127).
pub(super) struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// Ready for one value.
    pub(super) fn new() -> Writer {
        let mut w = Writer { bytes: Vec::new() };
        w.reset();
        w
    }

    /// Empty again, for the next value.
    pub(super) fn reset(&mut self) {
        self.bytes.clear();
        put_len(&mut self.bytes, 1);
    }

    pub(super) fn scalar(&mut self, v: &Value) {
        put_value(&mut self.bytes, v);
    }

    pub(super) fn string(&mut self, s: &str) {
        self.bytes.push(STRING);
        put_str(&mut self.bytes, s);
    }

    pub(super) fn number(&mut self, text: &str) {
        self.bytes.push(NUMBER);
        put_str(&mut self.bytes, text);
    }

    /// An array (or an object) begins: where its length goes.
    pub(super) fn open(&mut self, object: bool) -> usize {
        self.bytes.push(if object { OBJECT } else { ARRAY });
        self.bytes.push(0);
        self.bytes.len() - 1
    }

    /// The array or object opened at `at` ends, with `n` items or members.
    pub(super) fn close(&mut self, at: usize, n: usize) {
        match u8::try_from(n) {
            Ok(short) if short < 0x80 => self.bytes[at] = short,
            _ => {
                let mut len = Vec::with_capacity(4);
                put_len(&mut len, n);
                self.bytes.splice(at..at + 1, len);
            }
        }
    }

    /// An object's key: where its bytes are (equal keys, equal bytes).
    pub(super) fn key(&mut self, key: &str) -> std::ops::Range<usize> {
        let start = self.bytes.len();
        put_str(&mut self.bytes, key);
        start..self.bytes.len()
    }

    pub(super) fn written(&self, range: std::ops::Range<usize>) -> &[u8] {
        &self.bytes[range]
    }

    pub(super) fn packed(&self) -> Packed {
        Packed {
            bytes: Buffer::Copied(Arc::from(&self.bytes[..])),
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

/// A packed value read in place, lazily: where it starts in the bytes.
/// Nothing of it is read, allocated or checked as UTF-8 until asked for,
/// so a look at a message's name and block types never reads its text
/// (checking the messages of a large session read all of it as a tree of
/// lists, every string validated).
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> View<'a> {
    fn reader(&self) -> Reader<'a> {
        Reader {
            bytes: self.bytes,
            at: self.at,
        }
    }

    /// Past the tag `tag` (an array's or object's) and the length after
    /// it, with that length; `None` for a value of another kind.
    fn open(&self, tag: u8) -> Option<(Reader<'a>, usize)> {
        let mut r = self.reader();
        if r.byte() != tag {
            return None;
        }
        let left = r.len().min(self.bytes.len());
        Some((r, left))
    }

    fn tag(&self) -> u8 {
        self.bytes.get(self.at).copied().unwrap_or(NULL)
    }

    /// The member `key` of an object (keys compared as bytes: only the
    /// one found is ever read as text).
    pub fn get(&self, key: &str) -> Option<View<'a>> {
        let (mut r, left) = self.open(OBJECT)?;
        for _ in 0..left {
            if r.bytes_ref() == key.as_bytes() {
                return Some(r.here());
            }
            r.skip();
        }
        None
    }

    /// The members `keys` of an object (each the first of its name, as
    /// [`View::get`] finds it), read in one pass: asking for each in turn
    /// read the members before it again, a sixth of checking a message.
    pub fn get_all<const N: usize>(&self, keys: [&str; N]) -> Option<[Option<View<'a>>; N]> {
        let (mut r, left) = self.open(OBJECT)?;
        let mut found = [None; N];
        let mut missing = N;
        for _ in 0..left {
            let key = r.bytes_ref();
            if let Some(i) = keys.iter().position(|k| k.as_bytes() == key) {
                if found[i].is_none() {
                    found[i] = Some(r.here());
                    missing -= 1;
                    if missing == 0 {
                        break;
                    }
                }
            }
            r.skip();
        }
        Some(found)
    }

    /// A string's bytes, not checked as UTF-8: to compare with a known
    /// string (equal bytes are that string).
    pub fn str_bytes(&self) -> Option<&'a [u8]> {
        let mut r = self.reader();
        (r.byte() == STRING).then(|| r.bytes_ref())
    }

    /// An object's members in order.
    pub fn members(&self) -> Option<Members<'a>> {
        let (r, left) = self.open(OBJECT)?;
        Some(Members { r, left })
    }

    /// An array's items in order.
    pub fn items(&self) -> Option<Items<'a>> {
        let (r, left) = self.open(ARRAY)?;
        Some(Items { r, left })
    }

    pub fn as_str(&self) -> Option<&'a str> {
        let mut r = self.reader();
        (r.byte() == STRING).then(|| r.str_ref())
    }

    /// Where a string's bytes are in its buffer (`None` for a value of
    /// another kind): kept, they are read again with [`Packed::str_at`]
    /// without looking for them.
    pub fn str_span(&self) -> Option<std::ops::Range<usize>> {
        let mut r = self.reader();
        if r.byte() != STRING {
            return None;
        }
        let n = r.len();
        let end = (r.at + n).min(self.bytes.len());
        Some(r.at.min(end)..end)
    }

    pub fn is_string(&self) -> bool {
        self.tag() == STRING
    }

    /// The value unpacked.
    pub fn value(&self) -> Value {
        self.reader().value()
    }
}

impl<'a> Json<'a> for View<'a> {
    type Items = Items<'a>;
    type Members = Members<'a>;

    /// Its scalars read in place, its items and members to walk.
    fn kind(self) -> Kind<'a, Self> {
        let mut r = self.reader();
        match r.byte() {
            FALSE => Kind::Scalar("false"),
            TRUE => Kind::Scalar("true"),
            NUMBER => Kind::Scalar(r.str_ref()),
            STRING => Kind::String(r.str_ref()),
            ARRAY => {
                let left = r.len().min(self.bytes.len());
                Kind::Array(Items { r, left })
            }
            OBJECT => {
                let left = r.len().min(self.bytes.len());
                Kind::Object(Members { r, left })
            }
            _ => Kind::Scalar("null"),
        }
    }
}

/// [`View::members`].
pub struct Members<'a> {
    r: Reader<'a>,
    left: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, View<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.left = self.left.checked_sub(1)?;
        let key = self.r.str_ref();
        let value = self.r.here();
        self.r.skip();
        Some((key, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Members<'_> {}

/// [`View::items`].
pub struct Items<'a> {
    r: Reader<'a>,
    left: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = View<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.left = self.left.checked_sub(1)?;
        let item = self.r.here();
        self.r.skip();
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Items<'_> {}

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
        simdutf8::basic::from_utf8(self.bytes_ref()).unwrap_or_default()
    }

    /// A string's bytes, not checked as UTF-8.
    fn bytes_ref(&mut self) -> &'a [u8] {
        let n = self.len();
        let end = (self.at + n).min(self.bytes.len());
        let s = &self.bytes[self.at.min(end)..end];
        self.at = end;
        s
    }

    /// The value that starts here, viewed.
    fn here(&self) -> View<'a> {
        View {
            bytes: self.bytes,
            at: self.at,
        }
    }

    /// Past one value, reading nothing of it.
    fn skip(&mut self) {
        match self.byte() {
            NUMBER | STRING => {
                let n = self.len();
                self.at = (self.at + n).min(self.bytes.len());
            }
            ARRAY => {
                let n = self.len().min(self.bytes.len());
                for _ in 0..n {
                    self.skip();
                }
            }
            OBJECT => {
                let n = self.len().min(self.bytes.len());
                for _ in 0..n {
                    let k = self.len();
                    self.at = (self.at + k).min(self.bytes.len());
                    self.skip();
                }
            }
            _ => {}
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

    /// One pass finds what asking for each member finds: the first of a
    /// repeated key, nothing for a missing one, nothing of a non-object.
    #[test]
    fn members_found_at_once_are_those_found_one_by_one() {
        let texts = [
            r#"{"name": "Bob", "role": "user", "content": [{"type": "text", "text": "hi"}]}"#,
            r#"{"content": {"a": [1, {"b": 2}]}, "name": 3, "name": "second"}"#,
            r#"{"role": "user"}"#,
            r#"{}"#,
            r#"["name", "role"]"#,
            r#""name""#,
        ];
        for text in texts {
            let parsed = crate::json::parse(text.as_bytes(), Default::default()).expect("parses");
            let packed = Packed::pack_one(&parsed.value);
            let Some(view) = packed.view_one() else {
                continue;
            };
            let keys = ["name", "role", "content", "missing"];
            let one_by_one = keys.map(|k| view.get(k).map(|v| v.value()));
            let at_once = view
                .get_all(keys)
                .map(|found| found.map(|v| v.map(|v| v.value())));
            match at_once {
                Some(found) => assert_eq!(found, one_by_one, "{text}"),
                None => assert!(view.members().is_none(), "{text}"),
            }
            for key in keys {
                let bytes = view.get(key).and_then(|v| v.str_bytes());
                let text = view.get(key).and_then(|v| v.as_str());
                assert_eq!(bytes, text.map(str::as_bytes), "{key}");
            }
        }
    }

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
            {"type": "text", "text": "hi \u{e9}"}, null, true, [], "s"
        ]});
        let packed = Packed::pack_one(&value);
        let view = packed.view_one().expect("one value");
        assert_eq!(view.get("name").and_then(|v| v.as_str()), Some("Bob"));
        assert!(view.get("name").is_some_and(|v| v.is_string()));
        assert_eq!(
            view.get("n").map(|v| v.value()),
            Some(serde_json::json!(1.5))
        );
        assert_eq!(view.get("n").and_then(|v| v.as_str()), None);
        let keys: Vec<&str> = view.members().expect("an object").map(|(k, _)| k).collect();
        assert_eq!(keys, ["name", "n", "content"]);
        let content = view.get("content").expect("content");
        assert!(content.members().is_none());
        let blocks: Vec<Value> = content
            .items()
            .expect("a list")
            .map(|b| b.value())
            .collect();
        assert_eq!(
            &blocks[..],
            value["content"].as_array().expect("a list").as_slice()
        );
        let first = content.items().and_then(|mut i| i.next()).expect("a block");
        assert_eq!(
            first.get("text").and_then(|v| v.as_str()),
            Some("hi \u{e9}")
        );
        assert_eq!(view.get("missing").map(|v| v.value()), None);
        assert!(view.items().is_none());
        assert!(Packed::pack(&[]).view_one().is_none());
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
    fn members_are_those_unpacking_gives_whatever_lies_around_them() {
        let value = serde_json::json!({"skip": {"a": [1, "x", {"b": null}], "c": 2.50},
            "name": "Bob", "n": -1e3, "content": [{"type": "text", "text": "hi"}], "t": true});
        let packed = Packed::pack_one(&value);
        let [name, content, missing, t] = packed
            .members_of_first(["name", "content", "missing", "t"])
            .expect("an object");
        assert_eq!(name.as_ref(), value.get("name"));
        assert_eq!(content.as_ref(), value.get("content"));
        assert_eq!(missing, None);
        assert_eq!(t, Some(Value::Bool(true)));
        assert_eq!(
            Packed::pack_one(&serde_json::json!([1])).members_of_first(["a"]),
            None
        );
        assert_eq!(Packed::pack(&[]).members_of_first(["a"]), None);
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
