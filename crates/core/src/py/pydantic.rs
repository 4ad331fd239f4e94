//! pydantic 2.13 (pydantic-core 2.46) validation in Python (lax) mode, for
//! the SDK models a request passes through, and its `ValidationError`
//! report, byte for byte: every line error with its location, message,
//! type, the input's repr (cut to 25 + 24 bytes past 50) and type, and the
//! documentation link.
//!
//! Models are described by static tables ([`Model`], [`Ty`]); a smart-mode
//! union that fails reports every member's errors, each under the member's
//! label, as pydantic does.

use super::{py_repr, type_name, PyErr};
use base64::engine::general_purpose::GeneralPurpose;
use base64::engine::{DecodePaddingMode, GeneralPurposeConfig};
use base64::{alphabet, DecodeError, Engine};
use serde_json::{Map, Value};

/// One line of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct LineError {
    pub loc: Vec<String>,
    pub kind: &'static str,
    pub msg: String,
    pub input: Value,
}

/// What a validation found: its errors, and the warnings it emitted on the
/// way (google-genai's enums warn about a value they do not know).
#[derive(Debug, Default)]
pub struct Outcome {
    pub errors: Vec<LineError>,
    pub warnings: Vec<String>,
}

/// A field type.
pub enum Ty {
    Any,
    Str,
    Bool,
    Int,
    Float,
    /// `bytes` under `val_json_bytes='base64'`: a string must be base64.
    Bytes,
    /// A case-insensitive string enum (google-genai's `CaseInSensitiveEnum`,
    /// named): any string passes, an unknown one with a `UserWarning`;
    /// anything else lists the members.
    Enum(&'static str, &'static [&'static str]),
    List(&'static Ty),
    /// `dict[str, T]`.
    Dict(&'static Ty),
    Model(&'static Model),
    /// A smart-mode union: the members with their labels.
    Union(&'static [(&'static str, Ty)]),
    /// `is-instance[Class]`: no JSON value is one.
    IsInstance(&'static str),
    /// `Literal['a', 'b']` of strings.
    Literal(&'static [&'static str]),
    /// A `BaseModel` class taken whole from a dict (its fields not
    /// checked here): anything else is a `model_type` error naming it.
    DictModel(&'static str),
    Callable,
}

/// A model: its fields in definition order, and whether unknown keys are
/// errors (`extra='forbid'`) or kept.
pub struct Model {
    pub fields: &'static [Field],
    pub forbid_extra: bool,
}

pub struct Field {
    pub name: &'static str,
    /// The validation alias (google-genai's camelCase), tried first.
    pub alias: Option<&'static str>,
    pub ty: Ty,
    /// Required fields have no default; the others also take `None`.
    pub required: bool,
}

impl Field {
    pub const fn opt(name: &'static str, alias: Option<&'static str>, ty: Ty) -> Field {
        Field {
            name,
            alias,
            ty,
            required: false,
        }
    }
}

/// Validates `v` as `ty`, appending every error under `loc`.
pub fn validate(ty: &Ty, v: &Value, loc: &mut Vec<String>, out: &mut Outcome) {
    let mut fail = |kind: &'static str, msg: &str| {
        out.errors.push(LineError {
            loc: loc.clone(),
            kind,
            msg: msg.to_string(),
            input: v.clone(),
        })
    };
    match ty {
        Ty::Any => {}
        Ty::Str => {
            if !v.is_string() {
                fail("string_type", "Input should be a valid string");
            }
        }
        Ty::Bool => {
            if let Some((kind, msg)) = bool_error(v) {
                fail(kind, msg);
            }
        }
        Ty::Int => {
            if let Some((kind, msg)) = int_error(v) {
                fail(kind, msg);
            }
        }
        Ty::Float => {
            if let Some((kind, msg)) = float_error(v) {
                fail(kind, msg);
            }
        }
        Ty::Bytes => match v {
            Value::String(s) => {
                if let Err(e) = base64_bytes(s) {
                    fail(
                        "bytes_invalid_encoding",
                        &format!("Data should be valid base64: {e}"),
                    );
                }
            }
            _ if is_bytes(v) => {}
            _ => fail("bytes_type", "Input should be a valid bytes"),
        },
        Ty::Enum(name, members) => match v {
            Value::String(s) => {
                let known = [s.clone(), s.to_uppercase(), s.to_lowercase()]
                    .iter()
                    .any(|x| members.contains(&x.as_str()));
                if !known {
                    out.warnings
                        .push(format!("UserWarning: {s} is not a valid {name}"));
                }
            }
            _ => fail("enum", &format!("Input should be {}", or_list(members))),
        },
        Ty::List(item) => match v {
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    loc.push(i.to_string());
                    validate(item, x, loc, out);
                    loc.pop();
                }
            }
            _ => fail("list_type", "Input should be a valid list"),
        },
        Ty::Dict(value) => match v {
            Value::Object(map) if !is_bytes(v) => {
                for (k, x) in map {
                    loc.push(k.clone());
                    validate(value, x, loc, out);
                    loc.pop();
                }
            }
            _ => fail("dict_type", "Input should be a valid dictionary"),
        },
        Ty::Model(model) => match v {
            Value::Object(map) if !is_bytes(v) => validate_model(model, map, v, loc, out),
            _ => fail(
                "model_attributes_type",
                "Input should be a valid dictionary or object to extract fields from",
            ),
        },
        Ty::Union(members) => {
            // Every member's errors stay when none succeeds.
            let start = out.errors.len();
            for (label, member) in members.iter() {
                let before = out.errors.len();
                loc.push(label.to_string());
                validate(member, v, loc, out);
                loc.pop();
                if out.errors.len() == before {
                    out.errors.truncate(start);
                    return;
                }
            }
        }
        Ty::Literal(members) => {
            if !v.as_str().is_some_and(|s| members.contains(&s)) {
                fail(
                    "literal_error",
                    &format!("Input should be {}", or_list(members)),
                );
            }
        }
        Ty::DictModel(class) => {
            if !v.is_object() || is_bytes(v) {
                fail(
                    "model_type",
                    &format!("Input should be a valid dictionary or instance of {class}"),
                );
            }
        }
        Ty::IsInstance(class) => fail(
            "is_instance_of",
            &format!("Input should be an instance of {class}"),
        ),
        Ty::Callable => fail("callable_type", "Input should be callable"),
    }
}

/// The fields in order (alias first, then name), then unknown keys.
fn validate_model(
    model: &Model,
    map: &Map<String, Value>,
    whole: &Value,
    loc: &mut Vec<String>,
    out: &mut Outcome,
) {
    for field in model.fields {
        let found = field
            .alias
            .and_then(|a| map.get_key_value(a))
            .or_else(|| map.get_key_value(field.name));
        match found {
            None if field.required => {
                let mut at = loc.clone();
                at.push(field.name.to_string());
                out.errors.push(LineError {
                    loc: at,
                    kind: "missing",
                    msg: "Field required".into(),
                    input: whole.clone(),
                });
            }
            None => {}
            Some((_, Value::Null)) if !field.required => {}
            Some((key, value)) => {
                loc.push(key.clone());
                validate(&field.ty, value, loc, out);
                loc.pop();
            }
        }
    }
    if model.forbid_extra {
        for (key, value) in map {
            let known = model
                .fields
                .iter()
                .any(|f| f.name == key || f.alias == Some(key.as_str()));
            if !known {
                let mut at = loc.clone();
                at.push(key.clone());
                out.errors.push(LineError {
                    loc: at,
                    kind: "extra_forbidden",
                    msg: "Extra inputs are not permitted".into(),
                    input: value.clone(),
                });
            }
        }
    }
}

/// `str(ValidationError)`, as pydantic 2.13 writes it.
pub fn report(title: &str, errors: &[LineError]) -> String {
    report_as(title, errors, "2.13")
}

/// `str(ValidationError)` as pydantic `version` ("2.14") writes it: its
/// links name the release.
pub fn report_as(title: &str, errors: &[LineError], version: &str) -> String {
    let mut out = format!(
        "{} validation error{} for {title}",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    for e in errors {
        let repr = py_repr(&e.input);
        out.push_str(&format!(
            "\n{}\n  {} [type={}, input_value={}, input_type={}]\n    For further information visit https://errors.pydantic.dev/{version}/v/{}",
            e.loc.join("."),
            e.msg,
            e.kind,
            truncated(&repr),
            if is_bytes(&e.input) { "bytes" } else { type_name(&e.input) },
            e.kind
        ));
    }
    out
}

/// The `ValidationError` for `errors` (none: `Ok`).
pub fn check(title: &str, errors: &[LineError]) -> Result<(), PyErr> {
    check_as(title, errors, "2.13")
}

/// [`check`] under pydantic `version`.
pub fn check_as(title: &str, errors: &[LineError], version: &str) -> Result<(), PyErr> {
    match errors.is_empty() {
        true => Ok(()),
        false => Err(PyErr::new(
            "ValidationError",
            report_as(title, errors, version),
        )),
    }
}

/// A repr longer than 50 bytes: its first 25 and last 24, on character
/// boundaries (down for the head, up for the tail).
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

/// `'A', 'B' or 'C'`.
fn or_list(members: &[&str]) -> String {
    let quoted: Vec<String> = members.iter().map(|m| format!("'{m}'")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Python bytes as the formatters carry them (`{"$bytes": base64}`).
fn is_bytes(v: &Value) -> bool {
    matches!(v, Value::Object(m) if m.len() == 1 && m.get("$bytes").is_some_and(Value::is_string))
}

const URL_SAFE_OPTIONAL_PADDING: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);
const STANDARD_OPTIONAL_PADDING: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// pydantic-core's base64 bytes: the URL-safe alphabet, padding optional;
/// the standard alphabet when the URL-safe one stops at `+` or `/`. The
/// error is the last engine's.
pub fn base64_bytes(s: &str) -> Result<Vec<u8>, DecodeError> {
    URL_SAFE_OPTIONAL_PADDING.decode(s).or_else(|e| match e {
        DecodeError::InvalidByte(_, b'/' | b'+') => STANDARD_OPTIONAL_PADDING.decode(s),
        _ => Err(e),
    })
}

/// A valid lax `bool` as pydantic makes it (`"yes"`, `1`, `1.0`: true).
pub fn lax_bool(v: &Value) -> Option<bool> {
    if bool_error(v).is_some() {
        return None;
    }
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => n.as_f64().map(|f| f == 1.0),
        Value::String(s) => Some(matches!(
            s.trim().to_lowercase().as_str(),
            "1" | "on" | "t" | "true" | "y" | "yes"
        )),
        _ => None,
    }
}

/// A valid lax `int` as pydantic makes it (`" 3 "`, `"3.0"`, `2.0`,
/// `true`: 3, 3, 2, 1).
pub fn lax_int(v: &Value) -> Option<i64> {
    if int_error(v).is_some() {
        return None;
    }
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => float_text(s).map(|f| f as i64),
        _ => None,
    }
}

fn bool_error(v: &Value) -> Option<(&'static str, &'static str)> {
    const PARSING: (&str, &str) = (
        "bool_parsing",
        "Input should be a valid boolean, unable to interpret input",
    );
    const TYPE: (&str, &str) = ("bool_type", "Input should be a valid boolean");
    match v {
        Value::Bool(_) => None,
        Value::Number(n) if n.is_i64() || n.is_u64() => match n.as_i64() {
            Some(0 | 1) => None,
            _ => Some(PARSING),
        },
        Value::Number(n) => match n.as_f64() {
            Some(f) if f == 0.0 || f == 1.0 => None,
            _ => Some(TYPE),
        },
        Value::String(s) => {
            let words = [
                "0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes",
            ];
            (!words.contains(&s.trim().to_lowercase().as_str())).then_some(PARSING)
        }
        _ => Some(TYPE),
    }
}

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
        Value::String(s) => (!int_text(s)).then_some((
            "int_parsing",
            "Input should be a valid integer, unable to parse string as an integer",
        )),
        _ => Some(("int_type", "Input should be a valid integer")),
    }
}

/// An integer's text as pydantic reads it: spaces around, a sign, digits
/// (single underscores between them), and a fraction of zeros.
fn int_text(s: &str) -> bool {
    let s = s.trim();
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (whole, fraction) = match s.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (s, None),
    };
    let digits_ok = !whole.is_empty()
        && !whole.starts_with('_')
        && !whole.ends_with('_')
        && !whole.contains("__")
        && whole.chars().all(|c| c.is_ascii_digit() || c == '_');
    digits_ok && fraction.is_none_or(|f| f.chars().all(|c| c == '0'))
}

fn float_error(v: &Value) -> Option<(&'static str, &'static str)> {
    match v {
        Value::Bool(_) | Value::Number(_) => None,
        Value::String(s) => float_text(s).is_none().then_some((
            "float_parsing",
            "Input should be a valid number, unable to parse string as a number",
        )),
        _ => Some(("float_type", "Input should be a valid number")),
    }
}

/// A float's text as pydantic reads it (spaces around, underscores
/// between digits, `inf` and `nan`).
pub fn float_text(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.contains("__") || s.starts_with('_') || s.ends_with('_') {
        return None;
    }
    s.replace('_', "").parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reprs_past_50_bytes_keep_25_and_24() {
        let long = "x".repeat(60);
        assert_eq!(
            truncated(&long),
            format!("{}...{}", "x".repeat(25), "x".repeat(24))
        );
        // A two-byte character across the cut moves the head down.
        let s = format!("{}é{}", "a".repeat(24), "b".repeat(40));
        assert!(truncated(&s).starts_with(&"a".repeat(24)));
        assert!(truncated(&s).contains("..."));
    }

    #[test]
    fn base64_as_pydantic_core_decodes_it() {
        assert!(base64_bytes("abc").is_ok());
        assert!(base64_bytes("QUJD").is_ok());
        assert!(base64_bytes("a+/b").is_ok());
        assert_eq!(
            base64_bytes("not base64!").unwrap_err().to_string(),
            "Invalid symbol 32, offset 3."
        );
        assert_eq!(
            base64_bytes("a").unwrap_err().to_string(),
            "Invalid input length: 1"
        );
    }

    #[test]
    fn lax_scalars() {
        assert!(int_text(" 3 ") && int_text("3.0") && int_text("1_000") && int_text("+3"));
        assert!(!int_text("3.5") && !int_text("0x10") && !int_text(""));
        assert_eq!(float_text("1e3"), Some(1000.0));
        assert!(float_text("x").is_none());
        assert!(bool_error(&Value::from(1)).is_none());
        assert!(bool_error(&Value::from(2)).is_some());
        assert!(bool_error(&Value::from("YES")).is_none());
    }
}
