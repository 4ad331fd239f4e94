//! CommonFormatter (formatters-v0.md §9): the backend for other chat models,
//! with require_alternative / require_user_last falling back to multi-agent.

use super::msg::{empty_error, flatten, Arg, Msg0};
use crate::json;
use crate::media::MediaEnv;
use crate::py::PyErr;
use serde_json::Value;

/// The system prompt (a first system message's text) and the
/// `NAME: TEXT` lines of the others whose text is not `None`.
pub(super) fn system_and_lines(msgs: &[&Msg0]) -> Result<(Option<String>, Vec<String>), PyErr> {
    let mut system = None;
    let mut lines = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if i == 0 && m.role == "system" {
            system = m.text()?;
            continue;
        }
        if let Some(t) = m.text()? {
            lines.push(format!("{}: {t}", m.name));
        }
    }
    Ok((system, lines))
}

/// CommonFormatter.format_chat (§9.1).
pub(super) fn common_chat(
    args: &[Arg],
    require_alternative: bool,
    require_user_last: bool,
    env: &MediaEnv,
) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let fallback = || {
        let list: Vec<Arg> = msgs.iter().map(|m| Arg::Msg((*m).clone())).collect();
        common_multi(&[Arg::List(list)])
    };
    if require_alternative && msgs.windows(2).any(|w| w[0].role == w[1].role) {
        return fallback();
    }
    if require_user_last {
        match msgs.last() {
            None => return Err(PyErr::new("IndexError", "list index out of range")),
            Some(m) if m.role != "user" => return fallback(),
            Some(_) => {}
        }
    }
    let _ = env;
    let mut out = Vec::new();
    for m in &msgs {
        out.push(json!({"role": &m.role, "content": m.text()?}));
    }
    Ok(Value::Array(out))
}

/// CommonFormatter.format_multi_agent (§9.2).
pub(super) fn common_multi(args: &[Arg]) -> Result<Value, PyErr> {
    if args.is_empty() {
        return Err(empty_error());
    }
    let msgs = flatten(args)?;
    let (system, lines) = system_and_lines(&msgs)?;
    let mut out = Vec::new();
    if let Some(s) = system {
        out.push(json!({"role": "system", "content": s}));
    }
    let history = if lines.is_empty() {
        String::new()
    } else {
        format!("## Conversation History\n{}", lines.join("\n"))
    };
    out.push(json!({"role": "user", "content": history}));
    Ok(Value::Array(out))
}
