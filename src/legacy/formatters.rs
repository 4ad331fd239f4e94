//! The five 0.1.6 formatter classes (formatters-v0.md §3–§6, §9): chat and
//! multi-agent formatting over flattened `Msg`s.

use super::media;
use super::msg::{flatten, Arg, Msg0};
use super::Class;
use crate::media::MediaEnv;
use crate::py::{dumps, py_repr, py_str, PyErr};
use serde_json::{json, Map, Value};

fn btype(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

fn empty_error() -> PyErr {
    PyErr::value("At least one message should be provided. An empty message list is not allowed.")
}

/// `cls.format_chat(*args)` (CommonFormatter with its two options).
pub fn chat(
    class: Class,
    args: &[Arg],
    require_alternative: bool,
    require_user_last: bool,
    env: &MediaEnv,
) -> Result<Value, PyErr> {
    match class {
        Class::OpenAi => openai(args, env),
        Class::Anthropic => anthropic_chat(args, env),
        Class::DashScope => dashscope_chat(args, env),
        Class::Gemini => gemini_chat(args),
        Class::Common => common_chat(args, require_alternative, require_user_last, env),
    }
}

/// `cls.format_multi_agent(*args)`.
pub fn multi_agent(class: Class, args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    match class {
        Class::OpenAi => openai(args, env),
        Class::Anthropic => anthropic_multi(args, env),
        Class::DashScope => dashscope_multi(args, env),
        Class::Gemini => gemini_multi(args),
        Class::Common => common_multi(args),
    }
}

/// `cls.format_auto(msgs)` (§2.4): which branch, and its result.
pub fn auto(class: Class, args: &[Arg], env: &MediaEnv) -> Result<(&'static str, Value), PyErr> {
    let mut speakers = 0;
    for a in args {
        match a {
            Arg::Msg(m) => {
                if m.role == "user" || m.role == "assistant" {
                    speakers += 1;
                }
            }
            other => return Err(PyErr::attribute(other.type_name(), "role")),
        }
    }
    // The whole list goes as one argument.
    let one = [Arg::List(args.to_vec())];
    if speakers <= 2 {
        Ok(("chat", chat(class, &one, false, false, env)?))
    } else {
        Ok(("multi_agent", multi_agent(class, &one, env)?))
    }
}

fn tool_call(b: &Value) -> Value {
    json!({
        "id": b.get("id").cloned().unwrap_or(Value::Null),
        "type": "function",
        "function": {
            "name": b.get("name").cloned().unwrap_or(Value::Null),
            "arguments": dumps(b.get("input").unwrap_or(&Value::Null)),
        },
    })
}

fn tool_message(b: &Value) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": b.get("id").cloned().unwrap_or(Value::Null),
        "content": py_str(b.get("output").unwrap_or(&Value::Null)),
        "name": b.get("name").cloned().unwrap_or(Value::Null),
    })
}

/// The block's `url`, or Python's `str(None)` when absent.
fn url_of(b: &Value) -> String {
    b.get("url")
        .and_then(Value::as_str)
        .unwrap_or("None")
        .to_string()
}

/// OpenAIFormatter: chat and multi-agent are the same (§3).
fn openai(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for m in msgs {
        let mut content = Vec::new();
        let mut calls = Vec::new();
        for b in m.blocks() {
            match btype(&b) {
                "text" => content.push(b.clone()),
                "tool_use" => calls.push(tool_call(&b)),
                "tool_result" => out.push(tool_message(&b)),
                "image" => content.push(json!({
                    "type": "image_url",
                    "image_url": {"url": media::openai_image_url(&url_of(&b), env)?},
                })),
                other => env.warn(format!(
                    "Unsupported block type {other} in the message, skipped."
                )),
            }
        }
        if content.is_empty() && calls.is_empty() {
            continue;
        }
        let mut msg = Map::new();
        msg.insert("role".into(), Value::from(m.role.clone()));
        msg.insert("name".into(), Value::from(m.name.clone()));
        msg.insert(
            "content".into(),
            if content.is_empty() {
                Value::Null
            } else {
                Value::Array(content)
            },
        );
        if !calls.is_empty() {
            msg.insert("tool_calls".into(), Value::Array(calls));
        }
        out.push(Value::Object(msg));
    }
    Ok(Value::Array(out))
}

fn anthropic_item(b: &Value, env: &MediaEnv) -> Result<Option<Value>, PyErr> {
    Ok(Some(match btype(b) {
        "text" => json!({"type": "text", "text": b.get("text").cloned().unwrap_or(Value::Null)}),
        "image" => json!({"type": "image", "source": media::anthropic_source(&url_of(b), env)?}),
        "tool_use" => b.clone(),
        "tool_result" => json!({
            "type": "tool_result",
            "tool_use_id": b.get("id").cloned().unwrap_or(Value::Null),
            "content": b.get("output").cloned().unwrap_or(Value::Null),
        }),
        other => {
            env.warn(format!("Unsupported block type: {other}"));
            return Ok(None);
        }
    }))
}

/// AnthropicFormatter.format_chat (§4.1).
fn anthropic_chat(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let mut content = Vec::new();
        for b in m.blocks() {
            if let Some(item) = anthropic_item(&b, env)? {
                content.push(item);
            }
        }
        let role = if m.role == "system" && i != 0 {
            "user"
        } else {
            m.role.as_str()
        };
        out.push(json!({"role": role, "content": content}));
    }
    Ok(Value::Array(out))
}

/// AnthropicFormatter.format_multi_agent (§4.2).
fn anthropic_multi(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    if msgs.is_empty() {
        return Err(empty_error());
    }
    let mut system = None;
    let mut lines = Vec::new();
    let mut images = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        if i == 0 && m.role == "system" {
            system = m.text()?;
            continue;
        }
        for b in m.blocks() {
            match btype(&b) {
                "text" => lines.push(format!(
                    "{}: {}",
                    m.name,
                    b.get("text").and_then(Value::as_str).unwrap_or("None")
                )),
                "tool_use" => lines.push(format!("<tool_use>{}</tool_use>", py_repr(&b))),
                "tool_result" => lines.push(format!("<tool_result>{}</tool_result>", py_repr(&b))),
                "image" => images.push(
                    json!({"type": "image", "source": media::anthropic_source(&url_of(&b), env)?}),
                ),
                _ => {}
            }
        }
    }
    let history = if lines.is_empty() {
        String::new()
    } else {
        format!("## Conversation History\n{}", lines.join("\n"))
    };
    let mut out = Vec::new();
    if let Some(s) = system {
        out.push(json!({"role": "system", "content": s}));
    }
    let mut content = vec![json!({"type": "text", "text": history})];
    content.extend(images);
    out.push(json!({"role": "user", "content": content}));
    Ok(Value::Array(out))
}

/// DashScopeFormatter.format_chat (§5.1).
fn dashscope_chat(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    for m in msgs {
        let mut content = Vec::new();
        let mut calls = Vec::new();
        for b in m.blocks() {
            match btype(&b) {
                "text" => {
                    content.push(json!({"text": b.get("text").cloned().unwrap_or(Value::Null)}))
                }
                kind @ ("image" | "audio") => {
                    let mut item = Map::new();
                    item.insert(
                        kind.to_string(),
                        b.get("url").cloned().unwrap_or(Value::Null),
                    );
                    content.push(Value::Object(item));
                }
                "tool_use" => calls.push(tool_call(&b)),
                "tool_result" => out.push(tool_message(&b)),
                other => env.warn(format!(
                    "Unsupported block type {other} in the message, skipped."
                )),
            }
        }
        if content.is_empty() && calls.is_empty() {
            continue;
        }
        let mut msg = Map::new();
        msg.insert("role".into(), Value::from(m.role.clone()));
        msg.insert(
            "content".into(),
            if content.is_empty() {
                Value::Null
            } else {
                Value::Array(content)
            },
        );
        if !calls.is_empty() {
            msg.insert("tool_calls".into(), Value::Array(calls));
        }
        out.push(Value::Object(msg));
    }
    Ok(Value::Array(out))
}

/// DashScopeFormatter.format_multi_agent (§5.2).
fn dashscope_multi(args: &[Arg], env: &MediaEnv) -> Result<Value, PyErr> {
    let msgs = flatten(args)?;
    let mut out = Vec::new();
    let mut lines = Vec::new();
    let mut media_items = Vec::new();
    for (i, m) in msgs.iter().enumerate() {
        let text = m.text()?;
        if i == 0 && m.role == "system" {
            if let Some(t) = text.as_ref().filter(|t| !t.is_empty()) {
                out.push(json!({"role": "system", "content": [{"text": t}]}));
                continue;
            }
        }
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            lines.push(format!("{}: {t}", m.name));
        }
        for b in m.blocks() {
            if matches!(btype(&b), "image" | "audio") {
                if let Some(item) = media::dashscope_media(&url_of(&b), env) {
                    media_items.push(item);
                }
            }
        }
    }
    let mut content = media_items;
    content.push(json!({"text": format!("## Conversation History\n{}", lines.join("\n"))}));
    out.push(json!({"role": "user", "content": content}));
    Ok(Value::Array(out))
}

/// GeminiFormatter.format_chat (§6.1).
fn gemini_chat(args: &[Arg]) -> Result<Value, PyErr> {
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

/// The system prompt (a first system message's text) and the
/// `NAME: TEXT` lines of the others whose text is not `None`.
fn system_and_lines(msgs: &[&Msg0]) -> Result<(Option<String>, Vec<String>), PyErr> {
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

/// GeminiFormatter.format_multi_agent (§6.2).
fn gemini_multi(args: &[Arg]) -> Result<Value, PyErr> {
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

/// CommonFormatter.format_chat (§9.1).
fn common_chat(
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
        out.push(json!({"role": m.role, "content": m.text()?}));
    }
    Ok(Value::Array(out))
}

/// CommonFormatter.format_multi_agent (§9.2).
fn common_multi(args: &[Arg]) -> Result<Value, PyErr> {
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
