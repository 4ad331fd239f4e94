//! The error report of `Msg.model_validate` as pydantic 2.14 writes it for
//! AgentScope 2.0.11's message models: the same fields in the same order,
//! smart-mode unions reporting every member under its label, reprs cut to
//! 25 + 24 bytes past 50. Only the report lives here; `validate` builds the
//! typed messages once this finds nothing wrong.

use crate::py::{py_repr, type_name, PyErr};
use serde_json::Value;

/// One line of a report.
pub struct LineError {
    pub loc: Vec<String>,
    pub kind: &'static str,
    pub msg: String,
    pub input: Value,
}

enum T {
    Str,
    /// `int` in lax mode.
    Int,
    Dict,
    List(&'static T),
    Lit(&'static [&'static str]),
    Enum(&'static [&'static str]),
    Url,
    Model(&'static M),
    Union(&'static [(&'static str, T)]),
    /// `X | None`.
    Opt(&'static T),
}

struct F {
    name: &'static str,
    ty: T,
    required: bool,
}

struct M {
    name: &'static str,
    fields: &'static [F],
}

const fn req(name: &'static str, ty: T) -> F {
    F {
        name,
        ty,
        required: true,
    }
}

const fn opt(name: &'static str, ty: T) -> F {
    F {
        name,
        ty,
        required: false,
    }
}

const CREATED: F = opt("created_at", T::Str);
const FINISHED: F = opt("finished_at", T::Opt(&T::Str));

static TEXT: M = M {
    name: "TextBlock",
    fields: &[
        opt("type", T::Lit(&["text"])),
        req("text", T::Str),
        opt("id", T::Str),
        CREATED,
        FINISHED,
    ],
};
static THINKING: M = M {
    name: "ThinkingBlock",
    fields: &[
        opt("type", T::Lit(&["thinking"])),
        req("thinking", T::Str),
        opt("id", T::Str),
        CREATED,
        FINISHED,
    ],
};
static BASE64: M = M {
    name: "Base64Source",
    fields: &[
        opt("type", T::Lit(&["base64"])),
        req("data", T::Str),
        req("media_type", T::Str),
    ],
};
static URL: M = M {
    name: "URLSource",
    fields: &[
        opt("type", T::Lit(&["url"])),
        req("url", T::Url),
        req("media_type", T::Str),
    ],
};
static DATA: M = M {
    name: "DataBlock",
    fields: &[
        opt("type", T::Lit(&["data"])),
        opt("id", T::Str),
        req(
            "source",
            T::Union(&[
                ("Base64Source", T::Model(&BASE64)),
                ("URLSource", T::Model(&URL)),
            ]),
        ),
        opt("name", T::Opt(&T::Str)),
        CREATED,
        FINISHED,
    ],
};
const ITEMS: T = T::Union(&[
    ("str", T::Str),
    (
        "list[union[TextBlock,DataBlock]]",
        T::List(&T::Union(&[
            ("TextBlock", T::Model(&TEXT)),
            ("DataBlock", T::Model(&DATA)),
        ])),
    ),
]);
static HINT: M = M {
    name: "HintBlock",
    fields: &[
        opt("type", T::Lit(&["hint"])),
        req("hint", ITEMS),
        opt("id", T::Str),
        opt("source", T::Opt(&T::Str)),
        CREATED,
        FINISHED,
    ],
};
static PERMISSION_RULE: M = M {
    name: "PermissionRule",
    fields: &[
        req("tool_name", T::Str),
        req("rule_content", T::Opt(&T::Str)),
        req(
            "behavior",
            T::Enum(&["allow", "deny", "ask", "passthrough"]),
        ),
        req("source", T::Str),
    ],
};
static TOOL_CALL: M = M {
    name: "ToolCallBlock",
    fields: &[
        opt("type", T::Lit(&["tool_call"])),
        req("id", T::Str),
        req("name", T::Str),
        req("input", T::Str),
        opt(
            "state",
            T::Enum(&["pending", "asking", "allowed", "submitted", "finished"]),
        ),
        opt("suggested_rules", T::List(&T::Model(&PERMISSION_RULE))),
        CREATED,
        FINISHED,
    ],
};
static TOOL_RESULT: M = M {
    name: "ToolResultBlock",
    fields: &[
        opt("type", T::Lit(&["tool_result"])),
        req("id", T::Str),
        req("name", T::Str),
        req("output", ITEMS),
        opt(
            "state",
            T::Enum(&["success", "error", "interrupted", "denied", "running"]),
        ),
        opt("metadata", T::Dict),
        CREATED,
        FINISHED,
    ],
};
static USAGE: M = M {
    name: "Usage",
    fields: &[
        req("input_tokens", T::Int),
        req("output_tokens", T::Int),
        opt("cache_input_tokens", T::Int),
        opt("cache_creation_input_tokens", T::Int),
    ],
};
static ERROR_INFO: M = M {
    name: "ErrorInfo",
    fields: &[
        opt(
            "type",
            T::Enum(&[
                "authentication",
                "permission",
                "rate_limit",
                "invalid_request",
                "upstream",
                "connection",
                "internal",
                "setup",
                "unknown",
            ]),
        ),
        req("message", T::Str),
    ],
};
static MSG: M = M {
    name: "Msg",
    fields: &[
        req("name", T::Str),
        req(
            "content",
            T::List(&T::Union(&[
                ("TextBlock", T::Model(&TEXT)),
                ("ThinkingBlock", T::Model(&THINKING)),
                ("HintBlock", T::Model(&HINT)),
                ("ToolCallBlock", T::Model(&TOOL_CALL)),
                ("ToolResultBlock", T::Model(&TOOL_RESULT)),
                ("DataBlock", T::Model(&DATA)),
            ])),
        ),
        req("role", T::Lit(&["user", "assistant", "system"])),
        opt("id", T::Str),
        opt("metadata", T::Dict),
        opt("created_at", T::Str),
        opt("usage", T::Opt(&T::Model(&USAGE))),
        opt("finished_at", T::Opt(&T::Str)),
        opt(
            "finished_reason",
            T::Opt(&T::Enum(&[
                "completed",
                "interrupted",
                "exceed_max_iters",
                "error",
            ])),
        ),
        opt("structured_output", T::Opt(&T::Dict)),
        opt("error", T::Opt(&T::Model(&ERROR_INFO))),
    ],
};

/// `'A', 'B' or 'C'`.
fn or_list(members: &[&str]) -> String {
    let quoted: Vec<String> = members.iter().map(|m| format!("'{m}'")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// pydantic's `AnyUrl` check (the `url` crate's parse): a scheme is needed.
pub fn url_error(s: &str) -> Option<&'static str> {
    let t = s.trim();
    let Some((scheme, rest)) = t.split_once(':') else {
        return Some(if t.is_empty() {
            "input is empty"
        } else {
            "relative URL without a base"
        });
    };
    let mut chars = scheme.chars();
    let ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    if !ok {
        return Some("relative URL without a base");
    }
    let special = matches!(
        scheme.to_ascii_lowercase().as_str(),
        "http" | "https" | "ws" | "wss" | "ftp"
    );
    let host = rest.trim_start_matches(['/', '\\']);
    if special && host.split(['/', '?', '#']).next().unwrap_or("").is_empty() {
        return Some("empty host");
    }
    None
}

fn check(ty: &T, v: &Value, loc: &mut Vec<String>, out: &mut Vec<LineError>) {
    let mut fail = |kind: &'static str, msg: String| {
        out.push(LineError {
            loc: loc.clone(),
            kind,
            msg,
            input: v.clone(),
        })
    };
    match ty {
        T::Str => {
            if !v.is_string() {
                fail("string_type", "Input should be a valid string".into());
            }
        }
        T::Int => {
            if let Some((kind, msg)) = int_error(v) {
                fail(kind, msg.into());
            }
        }
        T::Dict => {
            if !v.is_object() {
                fail("dict_type", "Input should be a valid dictionary".into());
            }
        }
        T::List(item) => match v {
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    loc.push(i.to_string());
                    check(item, x, loc, out);
                    loc.pop();
                }
            }
            _ => fail("list_type", "Input should be a valid list".into()),
        },
        T::Lit(values) => {
            if !values.iter().any(|x| v.as_str() == Some(*x)) {
                fail(
                    "literal_error",
                    format!("Input should be {}", or_list(values)),
                );
            }
        }
        T::Enum(values) => {
            if !values.iter().any(|x| v.as_str() == Some(*x)) {
                fail("enum", format!("Input should be {}", or_list(values)));
            }
        }
        T::Url => match v {
            Value::String(s) => {
                if let Some(why) = url_error(s) {
                    fail("url_parsing", format!("Input should be a valid URL, {why}"));
                }
            }
            _ => fail("url_type", "URL input should be a string or URL".into()),
        },
        T::Model(m) => match v {
            Value::Object(map) => {
                for f in m.fields {
                    match map.get(f.name) {
                        None if f.required => {
                            let mut at = loc.clone();
                            at.push(f.name.into());
                            out.push(LineError {
                                loc: at,
                                kind: "missing",
                                msg: "Field required".into(),
                                input: v.clone(),
                            });
                        }
                        None => {}
                        Some(x) => {
                            loc.push(f.name.into());
                            check(&f.ty, x, loc, out);
                            loc.pop();
                        }
                    }
                }
            }
            _ => fail(
                "model_type",
                format!(
                    "Input should be a valid dictionary or instance of {}",
                    m.name
                ),
            ),
        },
        T::Union(members) => {
            let start = out.len();
            for (label, member) in members.iter() {
                let before = out.len();
                loc.push(label.to_string());
                check(member, v, loc, out);
                loc.pop();
                if out.len() == before {
                    out.truncate(start);
                    return;
                }
            }
        }
        T::Opt(inner) => {
            if !v.is_null() {
                check(inner, v, loc, out);
            }
        }
    }
}

/// pydantic's lax `int`: the error for `v`, if any.
fn int_error(v: &Value) -> Option<(&'static str, &'static str)> {
    match v {
        Value::Bool(_) => None,
        Value::Number(_) if type_name(v) == "int" => None,
        Value::Number(n) => match n.as_f64() {
            Some(f) if !f.is_finite() => Some(("finite_number", "Input should be a finite number")),
            Some(f) if f.fract() == 0.0 => None,
            _ => Some((
                "int_from_float",
                "Input should be a valid integer, got a number with a fractional part",
            )),
        },
        Value::String(s) if lax_int(s).is_some() => None,
        Value::String(_) => Some((
            "int_parsing",
            "Input should be a valid integer, unable to parse string as an integer",
        )),
        _ => Some(("int_type", "Input should be a valid integer")),
    }
}

/// An integer's text as pydantic reads it (spaces, a sign, digits with
/// single underscores, a fraction of zeros).
pub fn lax_int(s: &str) -> Option<i128> {
    let t = s.trim();
    let (whole, fraction) = t.split_once('.').unwrap_or((t, ""));
    if !fraction.chars().all(|c| c == '0') {
        return None;
    }
    let digits = whole.strip_prefix(['+', '-']).unwrap_or(whole);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    whole.replace('_', "").parse().ok()
}

/// The `int` pydantic makes of a value [`int_error`] accepts.
pub fn as_int(v: &Value) -> Value {
    match v {
        Value::Bool(b) => Value::from(i64::from(*b)),
        Value::Number(_) if type_name(v) == "int" => v.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.abs() < 9.0e15 => Value::from(f as i64),
            _ => v.clone(),
        },
        Value::String(s) => match lax_int(s) {
            Some(i) => serde_json::Number::from_string_unchecked(i.to_string()).into(),
            None => v.clone(),
        },
        _ => v.clone(),
    }
}

/// A repr longer than 50 bytes: its first 25 and last 24.
fn truncated(repr: &str) -> String {
    if repr.len() <= 50 {
        return repr.to_string();
    }
    let mut head = 25;
    while !repr.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = repr.len() - 24;
    while !repr.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}...{}", &repr[..head], &repr[tail..])
}

/// `str(ValidationError)` for `Msg`.
pub fn report(errors: &[LineError]) -> PyErr {
    let n = errors.len();
    let mut text = format!(
        "{n} validation error{} for Msg",
        if n == 1 { "" } else { "s" }
    );
    for e in errors {
        if !e.loc.is_empty() {
            text.push('\n');
            text.push_str(&e.loc.join("."));
        }
        text.push_str(&format!(
            "\n  {} [type={}, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/2.14/v/{}",
            e.msg,
            e.kind,
            truncated(&py_repr(&e.input)),
            type_name(&e.input),
            e.kind
        ));
    }
    PyErr::new("ValidationError", text)
}

/// Every field error of `Msg.model_validate(v)` (the model validator, which
/// runs after, is `validate`'s).
pub fn msg_errors(v: &Value) -> Vec<LineError> {
    let mut out = Vec::new();
    check(&T::Model(&MSG), v, &mut Vec::new(), &mut out);
    out
}
