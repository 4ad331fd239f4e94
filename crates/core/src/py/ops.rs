//! Dict/list/str operations with the exceptions Python raises on the wrong type.

use super::PyErr;
use serde_json::Value;

/// Python's `type(x).__name__` for a JSON value.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) => {
            let s = n.to_string();
            if s.contains(['.', 'e', 'E'])
                || s.contains("inf")
                || s.contains("Infinity")
                || s.contains("NaN")
            {
                "float"
            } else {
                "int"
            }
        }
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python truthiness.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => {
            let s = n.to_string();
            !(s.trim_start_matches('-').trim_start_matches('0').is_empty()
                || s.parse::<f64>().map(|f| f == 0.0).unwrap_or(false))
        }
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// `map[key]`, looked up as a dict would find it. serde_json's maps keep
/// key order in an `IndexMap` whose hasher is SipHash with a random key:
/// hashing "type" or "text" cost more than comparing the few keys a
/// content block or message has (a sixth of formatting a long session was
/// these lookups). Keys are unique, so a scan finds what the hash finds.
#[inline]
pub fn field<'a>(map: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= SCAN_UP_TO {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// Maps up to this many keys are scanned, not hashed (see [`field`]).
const SCAN_UP_TO: usize = 8;

/// `obj[key]` with a string key.
pub fn get_item<'a>(obj: &'a Value, key: &str) -> Result<&'a Value, PyErr> {
    match obj {
        Value::Object(map) => field(map, key).ok_or_else(|| PyErr::key(key)),
        Value::Array(_) => Err(PyErr::type_error(
            "list indices must be integers or slices, not str",
        )),
        Value::String(_) => Err(PyErr::type_error(
            "string indices must be integers, not 'str'",
        )),
        other => Err(PyErr::type_error(format!(
            "'{}' object is not subscriptable",
            type_name(other)
        ))),
    }
}

/// `obj.get(key)`: `None` when absent; AttributeError when `obj` is no dict.
pub fn py_get<'a>(obj: &'a Value, key: &str) -> Result<Option<&'a Value>, PyErr> {
    match obj {
        Value::Object(map) => Ok(field(map, key)),
        other => Err(PyErr::attribute(type_name(other), "get")),
    }
}

/// The value a `str` method (`removeprefix`, `split`, ...) is called on.
pub fn get_str_method_target<'a>(v: &'a Value, method: &str) -> Result<&'a str, PyErr> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(PyErr::attribute(type_name(other), method)),
    }
}

/// `for x in obj`: list items, a string's characters, a dict's keys.
pub fn iterate(v: &Value) -> Result<Vec<Value>, PyErr> {
    match v {
        Value::Array(items) => Ok(items.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.to_string())).collect()),
        Value::Object(map) => Ok(map.keys().map(|k| Value::String(k.clone())).collect()),
        other => Err(PyErr::type_error(format!(
            "'{}' object is not iterable",
            type_name(other)
        ))),
    }
}

/// `sep.join(items)`: every item must be a str.
pub fn join_strs<'a>(
    sep: &str,
    items: impl IntoIterator<Item = &'a Value>,
) -> Result<String, PyErr> {
    // Python's join sizes the result before copying: one allocation, not
    // a doubling per long history group.
    let items: Vec<&Value> = items.into_iter().collect();
    let len: usize = items
        .iter()
        .map(|v| v.as_str().map_or(0, |s| s.len() + sep.len()))
        .sum();
    let mut out = String::with_capacity(len);
    for (i, item) in items.into_iter().enumerate() {
        match item {
            Value::String(s) => {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push_str(s);
            }
            other => {
                return Err(PyErr::type_error(format!(
                    "sequence item {i}: expected str instance, {} found",
                    type_name(other)
                )))
            }
        }
    }
    Ok(out)
}

/// `prefix + value` where `value` must be a str.
pub fn str_concat(prefix: &str, v: &Value) -> Result<String, PyErr> {
    match v {
        Value::String(s) => Ok(format!("{prefix}{s}")),
        other => Err(PyErr::type_error(format!(
            "can only concatenate str (not \"{}\") to str",
            type_name(other)
        ))),
    }
}
