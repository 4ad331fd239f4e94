//! JSON text as session files need it: parsed into `serde_json::Value`
//! (key order and number text kept), with the byte span of every value
//! when asked (so a save can keep the bytes of what was not edited), and
//! with duplicate keys reported instead of silently collapsed.
//!
//! serde_json parses faster but forgets where things were and which keys
//! repeated; this parser does one pass and keeps both.

mod packed;
mod parse;
mod splice;
mod value_macro;
mod walk;

pub use packed::{packed_key, Items, Members, Packed, View};
pub use parse::{parse, Options, Parsed, SyntaxError};
pub use splice::{same, splice, Style};
pub use value_macro::{IntoJson, ToJson};
pub use walk::{Json, Kind};

use std::ops::Range;

/// Where a value is in the text it was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The value's bytes: `text[span]` is exactly the value.
    pub span: Range<usize>,
    pub kind: NodeKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    Scalar,
    Array(Vec<Node>),
    /// Members in file order, duplicates included.
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub key: String,
    /// The key's bytes, quotes included.
    pub key_span: Range<usize>,
    pub value: Node,
}

/// A key that appears twice in one object: the last one wins, as in
/// Python's `json` (and serde_json), so the earlier value is ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    /// Byte offset of the repeated key.
    pub offset: usize,
    /// JSON pointer of the object holding it.
    pub pointer: String,
}

/// An object's map from its members in order, sized once with room for
/// one more (an optional member): `json!` grows its map member by member
/// (a rehash at the fourth), which shows where formatting builds a map
/// per message.
pub fn object<const N: usize>(
    members: [(&str, serde_json::Value); N],
) -> serde_json::Map<String, serde_json::Value> {
    let mut map = serde_json::Map::with_capacity(N + 1);
    for (key, value) in members {
        map.insert(key.to_string(), value);
    }
    map
}

/// The members `keys` of an object, found in one pass over its members
/// (`None` for each when it is no object). A map's `get` hashes the key
/// with SipHash: counting a formatted message asked nine members of a map
/// of three to five, 2% of a cold count's instructions.
pub fn get_all<'a, const N: usize>(
    value: &'a serde_json::Value,
    keys: [&str; N],
) -> [Option<&'a serde_json::Value>; N] {
    let mut found = [None; N];
    if let serde_json::Value::Object(map) = value {
        for (key, member) in map {
            if let Some(i) = keys.iter().position(|k| *k == key) {
                found[i] = Some(member);
            }
        }
    }
    found
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    // Count characters, not bytes: continuation bytes do not start one.
    let column = before[line_start..]
        .iter()
        .filter(|b| (**b & 0xC0) != 0x80)
        .count()
        + 1;
    (line, column)
}

/// A rewrite of a number's text (`None` keeps it as written): how a
/// caller reads numbers, such as Python's round trip.
pub type NumberText = fn(&str) -> Option<String>;

/// Every number of `v` rewritten by `rewrite`.
pub fn rewrite_numbers(v: &mut serde_json::Value, rewrite: NumberText) {
    use serde_json::Value;
    match v {
        Value::Number(n) => {
            if let Some(text) = rewrite(n.as_str()) {
                *n = serde_json::Number::from_string_unchecked(text);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rewrite_numbers(item, rewrite)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| rewrite_numbers(item, rewrite)),
        _ => {}
    }
}

/// A JSON pointer token: `~` and `/` escaped.
pub fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
