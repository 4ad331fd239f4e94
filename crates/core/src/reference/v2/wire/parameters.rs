//! Each 2.0.11 model class's `Parameters` (a pydantic model): the fields it
//! has, their defaults and range checks. Unknown fields are ignored, as
//! pydantic's default `extra="ignore"` does; a value out of range or of the
//! wrong type is the `ValidationError` the constructor raises.

use super::super::Family;
use crate::py::{py_repr, PyErr};
use serde_json::{Map, Value};

/// What a field holds, with pydantic's bounds.
#[derive(Clone, Copy)]
enum Kind {
    /// `int | None`, `gt=0` (and `le` when given).
    Count(Option<i64>),
    /// `bool` with its default (`None`: `bool | None = None`).
    Switch(Option<bool>),
    /// `float | None` between bounds: (minimum, inclusive), (maximum, inclusive).
    Real((f64, bool), (f64, bool)),
    /// `Literal[...] | None`.
    OneOf(&'static [&'static str]),
    /// `str | None`.
    Text,
}

const TEMPERATURE: Kind = Kind::Real((0.0, true), (2.0, true));
const TOP_P: Kind = Kind::Real((0.0, false), (1.0, true));
const MAX_TOKENS: (&str, Kind) = ("max_tokens", Kind::Count(None));
const THINKING: (&str, Kind) = ("thinking_enable", Kind::Switch(Some(false)));
const OPENAI_EFFORT: Kind = Kind::OneOf(&["none", "minimal", "low", "medium", "high", "xhigh"]);

fn fields(family: Family) -> &'static [(&'static str, Kind)] {
    match family {
        Family::OpenAi => &[
            MAX_TOKENS,
            THINKING,
            ("reasoning_effort", OPENAI_EFFORT),
            ("temperature", TEMPERATURE),
            ("top_p", TOP_P),
            ("parallel_tool_calls", Kind::Switch(Some(true))),
            ("voice", Kind::Text),
        ],
        Family::Responses => &[
            MAX_TOKENS,
            THINKING,
            ("reasoning_effort", OPENAI_EFFORT),
            ("temperature", TEMPERATURE),
        ],
        Family::DashScope => &[
            MAX_TOKENS,
            THINKING,
            ("thinking_budget", Kind::Count(None)),
            ("temperature", Kind::Real((0.0, true), (2.0, false))),
            ("top_p", TOP_P),
            ("top_k", Kind::Count(Some(100))),
            ("parallel_tool_calls", Kind::Switch(Some(true))),
            ("voice", Kind::Text),
        ],
        Family::DeepSeek => &[
            MAX_TOKENS,
            THINKING,
            ("reasoning_effort", Kind::OneOf(&["high", "max"])),
            ("temperature", TEMPERATURE),
            ("top_p", TOP_P),
        ],
        Family::Moonshot => &[
            MAX_TOKENS,
            THINKING,
            ("reasoning_effort", Kind::OneOf(&["low", "high", "max"])),
            ("temperature", Kind::Real((0.0, true), (1.0, true))),
            ("top_p", TOP_P),
        ],
        Family::Volcengine => &[
            MAX_TOKENS,
            ("thinking_enable", Kind::Switch(None)),
            (
                "reasoning_effort",
                Kind::OneOf(&["minimal", "low", "medium", "high"]),
            ),
            ("temperature", TEMPERATURE),
            ("top_p", TOP_P),
        ],
        Family::Anthropic => &[
            MAX_TOKENS,
            THINKING,
            ("thinking_budget", Kind::Count(None)),
            (
                "thinking_mode",
                Kind::OneOf(&["adaptive", "enabled", "disabled"]),
            ),
            ("thinking_display", Kind::OneOf(&["summarized", "omitted"])),
            (
                "reasoning_effort",
                Kind::OneOf(&["low", "medium", "high", "xhigh", "max"]),
            ),
        ],
        Family::MiniMax => &[MAX_TOKENS, THINKING],
        Family::Gemini => &[
            MAX_TOKENS,
            THINKING,
            ("thinking_budget", Kind::Count(None)),
            ("temperature", TEMPERATURE),
            ("top_p", TOP_P),
        ],
        Family::Ollama => &[MAX_TOKENS, THINKING, ("temperature", TEMPERATURE)],
        Family::Xai => &[
            MAX_TOKENS,
            THINKING,
            ("reasoning_effort", Kind::OneOf(&["low", "medium", "high"])),
            ("temperature", TEMPERATURE),
            ("top_p", TOP_P),
        ],
    }
}

/// A validated `Parameters` object: every field of the class, set or at
/// its default (`null` for an unset optional).
#[derive(Debug, Clone, PartialEq)]
pub struct Parameters(Map<String, Value>);

impl Parameters {
    /// `CLASS.Parameters(**given)` (`None`: `CLASS.Parameters()`).
    pub fn new(family: Family, given: Option<&Value>) -> Result<Parameters, PyErr> {
        let given = match given {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => {
                return Err(PyErr::new(
                    "ValidationError",
                    format!(
                        "1 validation error for Parameters\n  Input should be a valid dictionary or instance of Parameters [type=model_type, input_value={}]",
                        py_repr(other)
                    ),
                ))
            }
        };
        let mut values = Map::new();
        let mut errors = Vec::new();
        for (name, kind) in fields(family) {
            let value = match given.get(*name) {
                None => default(*kind),
                Some(v) => match check(*kind, v) {
                    Ok(v) => v,
                    Err(why) => {
                        errors.push(format!("{name}\n  {why} [input_value={}]", py_repr(v)));
                        continue;
                    }
                },
            };
            values.insert(name.to_string(), value);
        }
        if !errors.is_empty() {
            let n = errors.len();
            let s = if n == 1 { "" } else { "s" };
            return Err(PyErr::new(
                "ValidationError",
                format!(
                    "{n} validation error{s} for Parameters\n{}",
                    errors.join("\n")
                ),
            ));
        }
        Ok(Parameters(values))
    }

    /// A field's value when set (not `None`).
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    /// A boolean field (`false` when unset).
    pub fn on(&self, name: &str) -> bool {
        self.get(name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// An integer field.
    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(Value::as_i64)
    }

    /// A string field.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(Value::as_str)
    }
}

fn default(kind: Kind) -> Value {
    match kind {
        Kind::Switch(Some(b)) => Value::Bool(b),
        _ => Value::Null,
    }
}

/// pydantic's lax check of one value: the value kept, or why not.
fn check(kind: Kind, v: &Value) -> Result<Value, String> {
    if v.is_null() {
        return match kind {
            Kind::Switch(Some(_)) => Err("Input should be a valid boolean".into()),
            _ => Ok(Value::Null),
        };
    }
    match kind {
        Kind::Count(max) => {
            let n = match v {
                Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
                Value::Number(n) => n
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64),
                Value::Bool(b) => Some(i64::from(*b)),
                Value::String(s) => s.trim().parse().ok(),
                _ => None,
            };
            let Some(n) = n else {
                return Err("Input should be a valid integer".into());
            };
            if n <= 0 {
                return Err("Input should be greater than 0".into());
            }
            if let Some(max) = max.filter(|m| n > *m) {
                return Err(format!("Input should be less than or equal to {max}"));
            }
            Ok(Value::from(n))
        }
        Kind::Switch(_) => match v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::Number(n) if n.as_i64() == Some(0) => Ok(Value::Bool(false)),
            Value::Number(n) if n.as_i64() == Some(1) => Ok(Value::Bool(true)),
            Value::String(s) => match s.to_lowercase().as_str() {
                "true" | "1" | "yes" | "on" | "t" | "y" => Ok(Value::Bool(true)),
                "false" | "0" | "no" | "off" | "f" | "n" => Ok(Value::Bool(false)),
                _ => Err("Input should be a valid boolean".into()),
            },
            _ => Err("Input should be a valid boolean".into()),
        },
        Kind::Real((lo, lo_in), (hi, hi_in)) => {
            let x = match v {
                Value::Number(n) => n.as_f64(),
                Value::Bool(b) => Some(f64::from(u8::from(*b))),
                Value::String(s) => s.trim().parse().ok(),
                _ => None,
            };
            let Some(x) = x.filter(|x| x.is_finite()) else {
                return Err("Input should be a finite number".into());
            };
            let bound = |b: f64| crate::py::python_float_repr(b);
            if (lo_in && x < lo) || (!lo_in && x <= lo) {
                let how = if lo_in {
                    "greater than or equal to"
                } else {
                    "greater than"
                };
                return Err(format!("Input should be {how} {}", bound(lo)));
            }
            if (hi_in && x > hi) || (!hi_in && x >= hi) {
                let how = if hi_in {
                    "less than or equal to"
                } else {
                    "less than"
                };
                return Err(format!("Input should be {how} {}", bound(hi)));
            }
            Ok(float_value(x))
        }
        Kind::OneOf(allowed) => match v.as_str() {
            Some(s) if allowed.contains(&s) => Ok(v.clone()),
            _ => {
                let names: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
                let (last, rest) = names
                    .split_last()
                    .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
                Err(format!("Input should be {} or {last}", rest.join(", ")))
            }
        },
        Kind::Text => match v {
            Value::String(_) => Ok(v.clone()),
            _ => Err("Input should be a valid string".into()),
        },
    }
}

/// A `float` field's value: pydantic turns `1` into `1.0`, which the SDK
/// then writes as `1.0`.
fn float_value(x: f64) -> Value {
    Value::Number(serde_json::Number::from_string_unchecked(
        crate::py::python_float_repr(x),
    ))
}
