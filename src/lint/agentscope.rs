//! AgentScope 1.0.21's own behaviour that surprises: blocks it drops,
//! media types it spells its own way, tool-result media it turns into
//! paths, Gemini's history tag (formatters.md §1.9, §2.3, §1.4).

use super::{source_of, Input, Sink};
use crate::formatter::FormattedRequest;
use crate::formatter::{FormatterId, Mode, Provider};
use crate::session::Msg;
use serde_json::Value;
use std::sync::Arc;

pub(super) fn checks(
    id: FormatterId,
    msgs: &[Arc<Msg>],
    formatted: &FormattedRequest,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    dropped_blocks(id, input, sink);
    jpg_media_type(id, formatted, input, sink);
    tool_result_media(id, msgs, formatted, sink);
    if id.provider == Provider::Gemini && id.mode == Mode::MultiAgent {
        for (k, m) in formatted.messages.iter().enumerate() {
            if strings(m).any(|s| {
                s.match_indices("<history>")
                    .any(|(i, _)| !s[i + 9..].starts_with('\n'))
            }) {
                sink.add(
                    "agentscope.gemini-history-no-newline",
                    (source_of(&formatted.spans, k), None),
                    Some(id),
                    "Gemini's history group opens with \"<history>\" and the first line right after it (other providers: \"<history>\\n\")".into(),
                );
                break;
            }
        }
    }
}

/// Session-level: system messages after the first that carry no tool
/// result (AgentScope's tool results come in system messages).
pub(super) fn system_not_first(input: &Input<'_>, sink: &mut Sink<'_>) {
    for (i, m) in input.messages().iter().enumerate().skip(1) {
        if m.get("role").and_then(Value::as_str) != Some("system") {
            continue;
        }
        let carries_result = m
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(|b| block_type(b) == Some("tool_result")));
        if !carries_result {
            sink.add(
                "agentscope.system-not-first",
                (Some(i), None),
                None,
                format!("message {i} is a system message after the first: only message 0 is the system prompt"),
            );
        }
    }
}

fn block_type(b: &Value) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

/// Every string inside a value.
fn strings(v: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match v {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(a) => Box::new(a.iter().flat_map(strings)),
        Value::Object(m) => Box::new(m.values().flat_map(strings)),
        _ => Box::new(std::iter::empty()),
    }
}

/// A block is dropped when the message formats the same without it.
fn dropped_blocks(id: FormatterId, input: &Input<'_>, sink: &mut Sink<'_>) {
    let options = super::options();
    for (i, m) in input.messages().iter().enumerate() {
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            continue;
        };
        for (j, b) in blocks.iter().enumerate() {
            // Text always goes; tool calls and results pair across
            // messages and are checked by the provider rules.
            let kind = block_type(b).unwrap_or("?");
            if matches!(kind, "text" | "tool_use" | "tool_result") {
                continue;
            }
            let mut without = Value::clone(m);
            if let Some(Value::Array(list)) = without.get_mut("content") {
                list.remove(j);
            }
            let (Ok(with), Ok(without)) = (Msg::from_dict(m), Msg::from_dict(&without)) else {
                continue;
            };
            let format = |msg: Msg| {
                crate::formatter::format(id, &options, &[Arc::new(msg)], input.env, None)
            };
            if let (Ok(a), Ok(b)) = (format(with), format(without)) {
                if a == b {
                    sink.add(
                        "agentscope.block-dropped",
                        (Some(i), Some(j)),
                        Some(id),
                        format!("the {kind} block is not in the request: AgentScope skips it"),
                    );
                }
            }
        }
    }
}

/// `data:image/jpg;base64,` in the request, traced to its image block.
fn jpg_media_type(
    id: FormatterId,
    formatted: &FormattedRequest,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    for (k, m) in formatted.messages.iter().enumerate() {
        if !strings(m).any(|s| s.starts_with("data:image/jpg;")) {
            continue;
        }
        let source = source_of(&formatted.spans, k);
        let block = source.and_then(|i| {
            input
                .messages()
                .get(i)?
                .get("content")?
                .as_array()?
                .iter()
                .position(|b| strings(b).any(|s| s.ends_with(".jpg")))
        });
        sink.add(
            "agentscope.image-jpg-media-type",
            (source, block),
            Some(id),
            "a .jpg file is sent as data:image/jpg (the registered type is image/jpeg)".into(),
        );
    }
}

/// Media inside a tool result that the request carries only as text.
fn tool_result_media(
    id: FormatterId,
    msgs: &[Arc<Msg>],
    formatted: &FormattedRequest,
    sink: &mut Sink<'_>,
) {
    for (i, msg) in msgs.iter().enumerate() {
        for (j, b) in msg.blocks().iter().enumerate() {
            if block_type(b) != Some("tool_result") {
                continue;
            }
            let media: Vec<&str> = b
                .get("output")
                .and_then(Value::as_array)
                .map(|o| {
                    o.iter()
                        .filter_map(block_type)
                        .filter(|t| matches!(*t, "image" | "audio" | "video"))
                        .collect()
                })
                .unwrap_or_default();
            if media.is_empty() {
                continue;
            }
            // The output messages of this message's unit.
            let out: Vec<&Value> = formatted
                .spans
                .iter()
                .filter(|(input, _)| input.contains(&i))
                .flat_map(|(_, o)| formatted.messages[o.clone()].iter())
                .collect();
            if !out.iter().any(|v| has_media(v)) {
                sink.add(
                    "agentscope.tool-result-media-as-path",
                    (Some(i), Some(j)),
                    Some(id),
                    format!(
                        "the tool result's {} reach{} the model as a path in the tool's text, not as media",
                        media.join(" and "),
                        if media.len() == 1 { "es" } else { "" }
                    ),
                );
            }
        }
    }
}

/// A media node in a formatted message, in any provider's shape.
fn has_media(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            let typed = m.get("type").and_then(Value::as_str).is_some_and(|t| {
                matches!(
                    t,
                    "image_url" | "image" | "input_audio" | "audio" | "video" | "video_url"
                )
            });
            let keyed = ["inline_data", "image", "audio", "video", "images"]
                .iter()
                .any(|k| {
                    m.get(*k)
                        .is_some_and(|x| !x.is_null() && x != &Value::Array(Vec::new()))
                });
            typed || keyed || m.values().any(has_media)
        }
        Value::Array(a) => a.iter().any(has_media),
        _ => false,
    }
}
