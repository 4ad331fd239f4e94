//! `utils/object_comparer.py`.

use super::value::Value;

/// `ObjectComparer.is_same_object`: same types and the same keys and
/// structure, recursively (atomic values of one type are "the same").
pub fn is_same_object(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Dict(x), Value::Dict(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| match y.get(k) {
                    Some(w) => is_same_object(v, w),
                    None => false,
                })
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| is_same_object(v, w))
        }
        (Value::Null, Value::Null)
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Int(_), Value::Int(_))
        | (Value::Float(_), Value::Float(_))
        | (Value::Str(_), Value::Str(_)) => true,
        _ => false,
    }
}

/// `ObjectComparer.is_strictly_empty`: an empty str, list or dict.
pub fn is_strictly_empty(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Dict(d) => d.is_empty(),
        _ => false,
    }
}
