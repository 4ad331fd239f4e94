//! GeminiFormatter (formatters-v0.md §6): parts are a string in chat, a
//! one-element list in multi-agent.

use super::common::system_and_lines;
use super::msg::{empty_error, flatten, Arg};
use crate::json;
use crate::py::PyErr;
use serde_json::Value;

/// GeminiFormatter.format_chat (§6.1).
pub(super) fn gemini_chat(args: &[Arg]) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for m in msgs {
        let role = if m.role == "assistant" {
            "model"
        } else {
            "user"
        };
        out.push(json!({"role": role, "parts": m.text()?}));
    }
    Ok(Value::Array(out))
}

/// GeminiFormatter.format_multi_agent (§6.2).
pub(super) fn gemini_multi(args: &[Arg]) -> Result<Value, PyErr> {
    if args.is_empty() {
        return Err(empty_error());
    }
    let msgs = flatten(args)?;
    let (system, lines) = system_and_lines(&msgs)?;
    let mut pieces = Vec::new();
    if let Some(s) = system {
        pieces.push(if s.ends_with('\n') {
            s
        } else {
            format!("{s}\n")
        });
    }
    if !lines.is_empty() {
        pieces.push("## Conversation History".to_string());
        pieces.extend(lines);
    }
    Ok(json!([{"role": "user", "parts": [pieces.join("\n")]}]))
}
