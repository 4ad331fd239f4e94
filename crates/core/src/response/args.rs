//! Tool-argument strings to objects, as AgentScope's two helpers do it:
//! `_json_loads_with_repair` (whole responses and the final pass) and
//! `_parse_streaming_json_dict` (after every stream chunk, "never shrink").

use super::json_repair::repair_json;
use super::Warnings;
use crate::json::{parse, Options};
use crate::py::{dumps, normalize_numbers};
use serde_json::{Map, Value};

/// Python's `json.loads`: NaN, Infinity, big ints and duplicate keys (last
/// wins) included; numbers as Python would print them.
pub fn py_loads(s: &str) -> Option<Value> {
    let mut v = parse(s.as_bytes(), Options::default()).ok()?.value;
    normalize_numbers(&mut v);
    Some(v)
}

/// `_json_loads_with_repair(s)`: `json_repair.repair_json(s,
/// stream_stable=True)` then `json.loads`; an object comes back, anything
/// else is `{}` (with AgentScope's warning when loading failed).
pub fn repair_load(s: &str, warnings: &mut Warnings) -> Value {
    let repaired = repair_json(s);
    match py_loads(&repaired) {
        Some(v @ Value::Object(_)) => v,
        Some(_) => Value::Object(Map::new()),
        None => {
            let shown: String = if s.chars().count() > 100 {
                s.chars().take(100).chain("...".chars()).collect()
            } else {
                s.to_string()
            };
            warnings.push(format!(
                "Failed to load JSON dict from string: {shown}. Returning empty dict instead."
            ));
            Value::Object(Map::new())
        }
    }
}

/// `_parse_streaming_json_dict(s, last)`: strict JSON first, else the
/// repaired value unless it is shorter (serialised) than the last one.
pub fn streaming_parse(s: &str, last: Option<&Value>, warnings: &mut Warnings) -> Value {
    let s = if s.is_empty() { "{}" } else { s };
    if let Some(v @ Value::Object(_)) = py_loads(s) {
        return v;
    }
    let repaired = repair_load(s, warnings);
    keep_longer(repaired, last)
}

/// "Never shrink": keep `last` when `json.dumps(last)` is longer than
/// `json.dumps(new)`.
pub fn keep_longer(new: Value, last: Option<&Value>) -> Value {
    let empty = Value::Object(Map::new());
    // `last_input or {}`: an empty or missing last value counts as `{}`.
    let last = last.filter(|l| crate::py::truthy(l)).unwrap_or(&empty);
    if ascii_dumps_len(last) > ascii_dumps_len(&new) {
        last.clone()
    } else {
        new
    }
}

/// `len(json.dumps(v))` with Python's defaults (ASCII escapes): a non-ASCII
/// character is `\uXXXX` (6), one outside the BMP a surrogate pair (12).
pub fn ascii_dumps_len(v: &Value) -> usize {
    dumps(v)
        .chars()
        .map(|c| match c as u32 {
            0..=0x7f => 1,
            0x80..=0xffff => 6,
            _ => 12,
        })
        .sum()
}

/// `json.dumps(v)` with ASCII escapes (Ollama's `raw_input`).
pub fn ascii_dumps(v: &Value) -> String {
    let mut out = String::new();
    for c in dumps(v).chars() {
        let n = c as u32;
        if n < 0x80 {
            out.push(c);
        } else if n <= 0xffff {
            out.push_str(&format!("\\u{n:04x}"));
        } else {
            let m = n - 0x10000;
            out.push_str(&format!(
                "\\u{:04x}\\u{:04x}",
                0xd800 + (m >> 10),
                0xdc00 + (m & 0x3ff)
            ));
        }
    }
    out
}

/// What each tool call's input was after the previous chunk, by tool id
/// (AgentScope's `last_input_objs`): the memory behind "never shrink".
#[derive(Debug, Default)]
pub struct LastInputs(Vec<(String, Value)>);

impl LastInputs {
    /// `_parse_streaming_json_dict(args, last)`, remembered for the next
    /// chunk.
    pub fn streaming(&mut self, key: String, args: &str, warnings: &mut Warnings) -> Value {
        let input = streaming_parse(args, self.get(&key), warnings);
        self.set(key, input.clone());
        input
    }

    /// The Responses API's variant: repair-load (no strict parse first),
    /// then never shrink.
    pub fn repaired(&mut self, key: String, args: &str, warnings: &mut Warnings) -> Value {
        let repaired = repair_load(if args.is_empty() { "{}" } else { args }, warnings);
        let input = keep_longer(repaired, self.get(&key));
        self.set(key, input.clone());
        input
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    fn set(&mut self, key: String, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }
}
