//! What the providers' APIs reject or change. Limits, with their sources:
//! - tool names: OpenAI function.name `^[a-zA-Z0-9_-]{1,64}$` (API reference,
//!   Chat Completions `tools`); Anthropic tool name `^[a-zA-Z0-9_-]{1,64}$`
//!   (Messages API `tools.name`); Gemini FunctionDeclaration.name "must start
//!   with a letter or an underscore; a-z, A-Z, 0-9, underscores, dots, colons
//!   and dashes, at most 64" (Gemini API reference).
//! - OpenAI message `name`: no whitespace or `<|\/>`, at most 64 characters
//!   (the API answers 400 "does not match pattern '^[^\s<|\\/>]+$'").
//! - Anthropic: empty text content blocks are rejected ("text content blocks
//!   must be non-empty"); consecutive same-role turns are combined; at most
//!   100 images per request, 5 MB per image, 32 MB per request (Messages API
//!   docs, "Vision" and "Request size limits").
//! - OpenAI: at most 500 images per request, 20 MB per image, 50 MB of
//!   images per request (Images and vision guide).
//! - Gemini: at most 3,600 images per request; inline data keeps a request
//!   under 20 MB (Gemini API "Image understanding").

use super::{source_of, Input, Sink};
use crate::formatter::FormattedRequest;
use crate::formatter::{FormatterId, Provider};
use serde_json::Value;
use std::collections::HashSet;

fn block_type(b: &Value) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

/// Checks on the session itself, once for every formatter.
pub(super) fn session_checks(input: &Input<'_>, sink: &mut Sink<'_>) {
    super::agentscope::system_not_first(input, sink);
    let messages = input.messages();
    // Tool calls and results paired by id, in order; the ids in sets (a
    // search of the lists for each block was quadratic).
    let mut calls: Vec<(String, usize, usize)> = Vec::new();
    let mut called: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            continue;
        };
        for (j, b) in blocks.iter().enumerate() {
            let id = b.get("id").map(crate::py::py_str).unwrap_or_default();
            match block_type(b) {
                Some("tool_use") => {
                    called.insert(id.clone());
                    calls.push((id, i, j));
                    if let Some(name) = b.get("name").and_then(Value::as_str) {
                        if let Some(text) = bad_tool_name(name) {
                            sink.add("provider.tool-name", (Some(i), Some(j)), None, text);
                        }
                    }
                }
                Some("tool_result") => {
                    if called.contains(&id) {
                        answered.insert(id);
                    } else {
                        sink.add(
                            "provider.tool-result-without-call",
                            (Some(i), Some(j)),
                            None,
                            format!("tool result {id:?} answers no earlier tool call"),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    for (id, i, j) in calls {
        if !answered.contains(&id) {
            sink.add(
                "provider.tool-call-without-result",
                (Some(i), Some(j)),
                None,
                format!("tool call {id:?} has no tool result after it"),
            );
        }
    }
    if let Some(Value::Array(tools)) = &input.session.tools {
        for (k, t) in tools.iter().enumerate() {
            let name = t.pointer("/function/name").and_then(Value::as_str);
            if let Some(text) = name.and_then(bad_tool_name) {
                sink.add_at(
                    "provider.tool-name",
                    format!("/tools/{k}/function/name"),
                    None,
                    text,
                );
            }
        }
    }
}

/// A tool name against each provider's pattern: who rejects it.
fn bad_tool_name(name: &str) -> Option<String> {
    let n = name.chars().count();
    let strict = (1..=64).contains(&n)
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let gemini = (1..=64).contains(&n)
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    let mut who = Vec::new();
    if !strict {
        who.push("OpenAI, Anthropic, DeepSeek");
    }
    if !gemini {
        who.push("Gemini");
    }
    (!who.is_empty()).then(|| format!("tool name {name:?} is rejected by {}", who.join(" and ")))
}

/// Checks on the request a formatter makes.
pub(super) fn request_checks(
    id: FormatterId,
    formatted: &FormattedRequest,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let p = id.provider;
    let out = &formatted.messages;
    let role = |m: &Value| m.get("role").and_then(Value::as_str).map(str::to_string);
    if p == Provider::OpenAi {
        for (k, m) in out.iter().enumerate() {
            if let Some(name) = m.get("name").and_then(Value::as_str) {
                let bad = name.is_empty()
                    || name.chars().count() > 64
                    || name
                        .chars()
                        .any(|c| c.is_whitespace() || "<|\\/>".contains(c));
                if bad {
                    sink.add(
                        "provider.speaker-name",
                        (source_of(&formatted.spans, k), None),
                        Some(id),
                        format!("OpenAI rejects the name {name:?}"),
                    );
                }
            }
        }
    }
    if matches!(p, Provider::Anthropic | Provider::Gemini) {
        let turns: Vec<(usize, String)> = out
            .iter()
            .enumerate()
            .filter_map(|(k, m)| role(m).map(|r| (k, r)))
            .filter(|(_, r)| r != "system")
            .collect();
        if let Some((k, r)) = turns.first() {
            if r == "assistant" || r == "model" {
                sink.add(
                    "provider.first-turn-user",
                    (source_of(&formatted.spans, *k), None),
                    Some(id),
                    format!("{p}'s request starts with a {r} turn"),
                );
            }
        }
        if p == Provider::Anthropic {
            for w in turns.windows(2) {
                if w[0].1 == w[1].1 {
                    sink.add(
                        "provider.consecutive-roles",
                        (source_of(&formatted.spans, w[1].0), None),
                        Some(id),
                        format!(
                            "two {} turns in a row: Anthropic merges them into one",
                            w[1].1
                        ),
                    );
                }
            }
            for (k, m) in out.iter().enumerate() {
                let empty = m.get("content").and_then(Value::as_array).is_some_and(|c| {
                    c.iter().any(|b| {
                        block_type(b) == Some("text")
                            && b.get("text").and_then(Value::as_str) == Some("")
                    })
                });
                if empty {
                    sink.add(
                        "provider.empty-text",
                        (source_of(&formatted.spans, k), None),
                        Some(id),
                        "an empty text block in Anthropic's request".into(),
                    );
                }
            }
        }
    }
    media_limits(id, formatted, sink);
    request_size(id, formatted, input, sink);
}

/// Inline images: how many, and how large each.
fn media_limits(id: FormatterId, formatted: &FormattedRequest, sink: &mut Sink<'_>) {
    let (count_limit, size_limit) = match id.provider {
        Provider::Anthropic => (100, Some(5 * 1024 * 1024)),
        Provider::OpenAi => (500, Some(20 * 1024 * 1024)),
        Provider::Gemini => (3600, None),
        _ => return,
    };
    let mut count = 0usize;
    for (k, m) in formatted.messages.iter().enumerate() {
        let mut images = Vec::new();
        collect_images(m, &mut images);
        count += images.len();
        if let Some(limit) = size_limit {
            for bytes in images.into_iter().flatten() {
                if bytes > limit {
                    sink.add(
                        "provider.image-size",
                        (source_of(&formatted.spans, k), None),
                        Some(id),
                        format!(
                            "an inline image of {:.1} MB: {} takes at most {} MB",
                            bytes as f64 / 1048576.0,
                            id.provider,
                            limit / 1048576
                        ),
                    );
                }
            }
        }
    }
    if count > count_limit {
        sink.add(
            "provider.image-count",
            (None, None),
            Some(id),
            format!(
                "{count} images in one request: {} takes at most {count_limit}",
                id.provider
            ),
        );
    }
}

/// Each image in a formatted message, with its decoded size when inline.
fn collect_images(v: &Value, out: &mut Vec<Option<usize>>) {
    match v {
        Value::Object(m) => {
            let kind = m.get("type").and_then(Value::as_str);
            if matches!(kind, Some("image_url" | "image")) || m.contains_key("inline_data") {
                let data = strings_of(v).find_map(|s| {
                    s.strip_prefix("data:")
                        .and_then(|r| r.split_once(','))
                        .map(|(_, d)| d.len() * 3 / 4)
                        .or_else(|| (s.len() > 1000).then_some(s.len() * 3 / 4))
                });
                out.push(data);
                return;
            }
            m.values().for_each(|x| collect_images(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_images(x, out)),
        _ => {}
    }
}

fn strings_of(v: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match v {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(a) => Box::new(a.iter().flat_map(strings_of)),
        Value::Object(m) => Box::new(m.values().flat_map(strings_of)),
        _ => Box::new(std::iter::empty()),
    }
}

/// The wire body's size against the provider's request limit.
fn request_size(
    id: FormatterId,
    formatted: &FormattedRequest,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let limit: usize = match id.provider {
        Provider::Anthropic => 32,
        Provider::Gemini => 20,
        Provider::OpenAi => 50,
        _ => return,
    } * 1024
        * 1024;
    // Cheap first: the formatted messages alone under the limit means the
    // body is too (the body adds little around them).
    let rough: usize = formatted
        .messages
        .iter()
        .map(|m| strings_of(m).map(str::len).sum::<usize>())
        .sum();
    if rough < limit / 2 {
        return;
    }
    let Ok(settings) = crate::model_choice::request_settings(input.session, id.provider, None)
    else {
        return;
    };
    let built = crate::wire::build(
        id,
        formatted.messages.clone(),
        input.session.tools.as_ref(),
        &settings,
        &mut |_| {},
    );
    if let Ok(w) = built {
        let bytes = crate::wire::export::body_bytes(id.provider, &w.body).len();
        if bytes > limit {
            sink.add(
                "provider.request-size",
                (None, None),
                Some(id),
                format!(
                    "the request body is {:.1} MB: {} takes at most {} MB",
                    bytes as f64 / 1048576.0,
                    id.provider,
                    limit / 1048576
                ),
            );
        }
    }
}
