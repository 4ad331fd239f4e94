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

/// A block is dropped when it changes nothing: its message with that block
/// and some context formats as the context alone ([`super::Probes`]: a
/// probe costs about its block, the message formatted whole without each
/// block was quadratic: 1,000 blocks took 2 s, 4,000 32 s).
fn dropped_blocks(id: FormatterId, input: &Input<'_>, sink: &mut Sink<'_>) {
    let options = super::options();
    let format = |m: Value| {
        let msg = Msg::from_value(m).ok()?;
        crate::formatter::format(id, &options, &[Arc::new(msg)], input.env, None).ok()
    };
    for (i, m) in input.messages().iter().enumerate() {
        let Some(probes) = super::Probes::new(m) else {
            continue;
        };
        let blocks = m.get("content").and_then(Value::as_array);
        // Each context without its block, formatted once.
        let mut without = std::collections::HashMap::new();
        for (j, b) in blocks.into_iter().flatten().enumerate() {
            // Text always goes; tool calls and results pair across
            // messages and are checked by the provider rules.
            let kind = block_type(b).unwrap_or("?");
            if matches!(kind, "text" | "tool_use" | "tool_result") {
                continue;
            }
            let Some(with) = format(probes.with_block(j, b)) else {
                continue;
            };
            let without = without
                .entry(probes.key(j))
                .or_insert_with(|| format(probes.without_block(j)));
            if without.as_ref() == Some(&with) {
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

/// `data:image/jpg;base64,` in the request, traced to its image block.
fn jpg_media_type(
    id: FormatterId,
    formatted: &FormattedRequest,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    // The .jpg block of each source message, found once: many output
    // messages of one source each scanned its blocks again.
    let mut blocks: std::collections::HashMap<usize, Option<usize>> = Default::default();
    for (k, m) in formatted.messages.iter().enumerate() {
        if !strings(m).any(|s| s.starts_with("data:image/jpg;")) {
            continue;
        }
        let source = source_of(&formatted.spans, k);
        let block = source.and_then(|i| {
            *blocks.entry(i).or_insert_with(|| {
                input
                    .messages()
                    .get(i)?
                    .get("content")?
                    .as_array()?
                    .iter()
                    .position(|b| strings(b).any(|s| s.ends_with(".jpg")))
            })
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
    // Whether the output of each input message's unit holds media, found
    // once for all (a scan of the spans and the unit's output per tool
    // result was quadratic).
    let mut sent: Option<Vec<bool>> = None;
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
            let sent = sent.get_or_insert_with(|| media_sent(msgs.len(), formatted));
            if !sent.get(i).copied().unwrap_or(false) {
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

/// For each of `n` input messages: whether the output messages of a unit
/// (span) holding it carry media.
fn media_sent(n: usize, formatted: &FormattedRequest) -> Vec<bool> {
    let mut sent = vec![false; n];
    for (input, out) in &formatted.spans {
        let media = formatted
            .messages
            .get(out.clone())
            .is_some_and(|o| o.iter().any(has_media));
        if media {
            let held = input.start.min(n)..input.end.min(n);
            for s in sent.get_mut(held).into_iter().flatten() {
                *s = true;
            }
        }
    }
    sent
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
