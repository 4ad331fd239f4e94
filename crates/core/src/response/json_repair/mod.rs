//! A port of the Python library `json_repair` 0.59.10 (MIT licence), for the
//! one call AgentScope makes on tool-call arguments:
//!
//! ```python
//! json_repair.repair_json(s, stream_stable=True)
//! ```
//!
//! with every other argument at its default (no schema, not strict, no
//! logging, a `str` result written by `json.dumps` with its defaults).
//!
//! The files follow the Python modules, and the functions keep the Python
//! names (a comment on each says which one it mirrors):
//!
//! | Python                                         | Rust                |
//! |------------------------------------------------|---------------------|
//! | `json_repair.py` (`repair_json`)               | this file           |
//! | `json_parser.py` (`JSONParser`)                | `parser.rs`         |
//! | `parse_object.py`                              | `parse_object.rs`   |
//! | `parse_array.py`                               | `parse_array.rs`    |
//! | `parse_string.py`                              | `parse_string.rs`   |
//! | `parse_string_helpers/*.py`                    | `string_helpers.rs` |
//! | `parse_number.py`                              | `parse_number.rs`   |
//! | `parse_comment.py`                             | `parse_comment.rs`  |
//! | `parser_parenthesized.py`                      | `parenthesized.rs`  |
//! | `utils/json_context.py`                        | `context.rs`        |
//! | `utils/object_comparer.py`                     | `object_comparer.rs`|
//! | Python's `json.loads`                          | `loads.rs`          |
//! | Python values and `json.dumps`                 | `value.rs`          |
//! | `str.isspace` / `isalpha` / `isdigit` / `isalnum` | `pystr.rs`, `unicode_tables.rs` |
//!
//! Left out, as AgentScope never reaches them: schema-guided repair
//! (`schema`, `schema_repair.py`, `parser_schema.py`), `strict`, `logging`
//! (the repair log), `return_objects`, `skip_json_loads`, reading from a
//! file (`StringFileWrapper`), the command line, and the branches taken only
//! when `stream_stable` is False (`classify_object_value_comma` and the
//! "closing quote missing" heuristics of `_scan_string_body`, the `rstrip`s
//! of `_finalize_string_result`).
//!
//! Errors. Python's `repair_json` raises in a few cases: a `RecursionError`
//! from `json.loads` on deeply nested valid JSON, a `ValueError` ("Input
//! nesting exceeds the supported parser recursion depth") when the repair
//! parser recurses too deep, and an `AssertionError` when an object key
//! parses to something other than a string (a fenced ```` ```json ````
//! block in key position). [`try_repair_json`] returns [`RepairError`] for
//! these; [`repair_json`] returns `""` instead, which AgentScope's
//! `json.loads` then rejects exactly as it rejects the exception (both end in
//! its "Failed to load JSON dict" warning and `{}`). Python's recursion
//! limit depends on the caller's stack; this port uses fixed limits
//! calibrated on a shallow caller (`parser::MAX_FRAMES`: 330 nested arrays,
//! 247 nested objects or 248 nested tuples are repaired, one more level
//! raises; `loads::MAX_DEPTH`: valid JSON loads up to 993 levels), so
//! nesting within a few levels of those limits may disagree (AgentScope
//! calls from a deeper stack, where Python gives up a few levels earlier).
//! The Rust stack stays small: `json.loads` is scanned with an explicit
//! stack, and the repair parser at its deepest needs under 1 MiB in debug
//! builds (about 300 KiB in release).

mod context;
mod loads;
mod object_comparer;
mod parenthesized;
mod parse_array;
mod parse_comment;
mod parse_number;
mod parse_object;
mod parse_string;
mod parser;
mod pystr;
mod string_helpers;
mod string_lookahead;
mod unicode_tables;
mod value;

pub use value::{Dict, PyStr, Value};

/// Why Python's `repair_json` would have raised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairError {
    /// `RecursionError` (from `json.loads`) or the parser's `ValueError`
    /// for too deep a nesting.
    Recursion,
    /// An `AssertionError` inside the parser.
    Assertion,
}

impl std::fmt::Display for RepairError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RepairError::Recursion => {
                f.write_str("Input nesting exceeds the supported parser recursion depth.")
            }
            RepairError::Assertion => f.write_str("AssertionError"),
        }
    }
}

impl std::error::Error for RepairError {}

/// `json_repair.repair_json(s, stream_stable=True)`; `""` where Python
/// raises (see the module documentation).
pub fn repair_json(s: &str) -> String {
    try_repair_json(s).unwrap_or_default()
}

/// `json_repair.repair_json(s, stream_stable=True)`, with Python's
/// exceptions as errors.
pub fn try_repair_json(s: &str) -> Result<String, RepairError> {
    let value = repair_value(s)?;
    // "Avoid returning only a pair of quotes if it's an empty string"
    if value.is_empty_str() {
        return Ok(String::new());
    }
    Ok(value.dumps())
}

/// `json_repair.loads(s, stream_stable=True)`: the repaired value itself.
pub fn repair_value(s: &str) -> Result<Value, RepairError> {
    repair_value_as(s, false)
}

/// [`repair_value`] with json_repair 0.64.2's rules where the port knows
/// them to differ from 0.59.10 (see `JsonParser::v0_64`).
pub fn repair_value_v0_64(s: &str) -> Result<Value, RepairError> {
    repair_value_as(s, true)
}

/// [`try_repair_json`] with json_repair 0.64.2's known differences.
pub fn try_repair_json_v0_64(s: &str) -> Result<String, RepairError> {
    let value = repair_value_v0_64(s)?;
    if value.is_empty_str() {
        return Ok(String::new());
    }
    Ok(value.dumps())
}

fn repair_value_as(s: &str, v0_64: bool) -> Result<Value, RepairError> {
    let chars: Vec<char> = s.chars().collect();
    // Fast path for valid JSON: `json.loads(json_str)`.
    match loads::loads(&chars) {
        Ok(v) => return Ok(v),
        Err(loads::LoadError::Recursion) => return Err(RepairError::Recursion),
        Err(loads::LoadError::Invalid) => {}
    }
    let mut p = parser::JsonParser::new(chars, true);
    p.v0_64 = v0_64;
    p.parse()
}
