//! What a provider's prompt cache can reuse between two versions of a
//! request: the prompt up to its first change, in prompt tokens counted
//! as the budget meter counts the request (so never more than its total),
//! and the identical prefix of the two bodies' bytes.
//!
//! Prompt order, as providers cache it: the model (no provider reuses a
//! cache across models), the tool schemas, then the formatted messages in
//! order (the system prompt first). The body's key order is not the
//! prompt's: Anthropic's body puts `messages` before `system`.

use crate::budget::TokenReport;
use crate::formatter::Span;
use serde_json::Value;

/// One version of a request as the prompt cache sees it.
#[derive(Debug, Clone, Copy)]
pub struct Version<'a> {
    /// The model the body names.
    pub model: &'a str,
    /// The session's tool schemas.
    pub tools: Option<&'a Value>,
    /// The formatter's messages, and the input messages each came from.
    pub messages: &'a [Value],
    pub spans: &'a [Span],
}

/// Where the reusable prompt ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Break {
    /// Another model: nothing is reused.
    Model { before: String, now: String },
    /// Other tool schemas: they come before every message.
    Tools,
    /// Formatted message `output` differs first (at `pointer`, into
    /// `{"messages": [...]}`), from input message `message`.
    PackedMessage {
        output: usize,
        message: usize,
        pointer: String,
    },
}

impl Break {
    /// A JSON pointer for `--json` (`/model`, `/tools`, into the messages).
    pub fn pointer(&self) -> String {
        match self {
            Break::Model { .. } => "/model".into(),
            Break::Tools => "/tools".into(),
            Break::PackedMessage { pointer, .. } => pointer.clone(),
        }
    }

    pub fn message(&self) -> Option<usize> {
        match self {
            Break::PackedMessage { message, .. } => Some(*message),
            _ => None,
        }
    }
}

/// The reusable prompt: `tokens` of the request's `of` (the meter's
/// total), up to `breaks` (`None`: nothing changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptPrefix {
    pub tokens: i64,
    pub of: i64,
    /// The meter's figures are exact counts, not estimates.
    pub exact: bool,
    pub breaks: Option<Break>,
}

/// The prompt `now` shares with `before`, counted with `report`, the
/// budget meter's report of `now`: the tool schemas when they are
/// unchanged, and every input message whose formatted output comes before
/// the first formatted message that differs. The message the change is in
/// counts for nothing (a part of it cannot be counted as the meter counts
/// whole messages), nor does the request's own framing unless nothing
/// changed.
pub fn prompt_prefix(before: &Version, now: &Version, report: &TokenReport) -> PromptPrefix {
    let of = report.total;
    let out = |tokens: i64, breaks| PromptPrefix {
        tokens: tokens.clamp(0, of.max(0)),
        of,
        exact: report.exact,
        breaks,
    };
    if before.model != now.model {
        return out(
            0,
            Some(Break::Model {
                before: before.model.to_string(),
                now: now.model.to_string(),
            }),
        );
    }
    if before.tools.filter(|t| crate::py::truthy(t)) != now.tools.filter(|t| crate::py::truthy(t)) {
        return out(0, Some(Break::Tools));
    }
    let k = before
        .messages
        .iter()
        .zip(now.messages)
        .take_while(|(a, b)| a == b)
        .count();
    if k == before.messages.len() && k == now.messages.len() {
        return out(of, None);
    }
    // The input message the first differing output came from (past the
    // end: every input message is in the prefix).
    let message = now
        .spans
        .iter()
        .find(|(_, output)| output.contains(&k) || (output.is_empty() && output.start == k))
        .map(|(input, _)| input.start)
        .unwrap_or_else(|| {
            report
                .messages
                .iter()
                .map(|m| m.index + 1)
                .max()
                .unwrap_or(0)
        });
    let pointer = match (before.messages.get(k), now.messages.get(k)) {
        (Some(a), Some(b)) => format!("/messages/{k}{}", first_difference(a, b)),
        _ => format!("/messages/{k}"),
    };
    let tokens = report.tool_schemas
        + report
            .messages
            .iter()
            .filter(|m| m.index < message)
            .map(|m| m.tokens)
            .sum::<i64>();
    out(
        tokens,
        Some(Break::PackedMessage {
            output: k,
            message,
            pointer,
        }),
    )
}

/// The pointer (inside both) where `a` and `b` first differ, in `b`'s
/// order of keys.
pub fn first_difference(a: &Value, b: &Value) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, w) in y {
                match x.get(k) {
                    Some(v) if v == w => continue,
                    Some(v) => return format!("/{}{}", super::token(k), first_difference(v, w)),
                    None => return format!("/{}", super::token(k)),
                }
            }
            String::new()
        }
        (Value::Array(x), Value::Array(y)) => match x.iter().zip(y).position(|(v, w)| v != w) {
            Some(i) => format!("/{i}{}", first_difference(&x[i], &y[i])),
            None if x.len() != y.len() => format!("/{}", x.len().min(y.len())),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// The longest identical prefix of two serialised requests: what a
/// provider's prompt cache can reuse between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachePrefix {
    /// Bytes in common (on a character boundary).
    pub bytes: usize,
    /// The right request's length.
    pub of: usize,
    /// Where the right request stops matching: the deepest value holding
    /// that byte, as a JSON pointer (`None` when one is a prefix of the
    /// other).
    pub breaks_at: Option<String>,
}

pub fn cache_prefix(left: &str, right: &str) -> CachePrefix {
    let mut n = left
        .bytes()
        .zip(right.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !right.is_char_boundary(n) {
        n -= 1;
    }
    let breaks_at = (n < left.len() && n < right.len()).then(|| {
        crate::json::parse(right.as_bytes(), crate::json::Options::with_spans())
            .ok()
            .and_then(|p| p.tree)
            .map(|tree| pointer_at(&tree, n, String::new()))
            .unwrap_or_default()
    });
    CachePrefix {
        bytes: n,
        of: right.len(),
        breaks_at,
    }
}

/// The pointer of the deepest value whose bytes hold `offset`.
fn pointer_at(node: &crate::json::Node, offset: usize, at: String) -> String {
    use crate::json::NodeKind;
    match &node.kind {
        NodeKind::Object(members) => members
            .iter()
            .find(|m| m.key_span.start <= offset && offset < m.value.span.end)
            .map(|m| pointer_at(&m.value, offset, format!("{at}/{}", super::token(&m.key))))
            .unwrap_or(at),
        NodeKind::Array(items) => items
            .iter()
            .enumerate()
            .find(|(_, x)| x.span.contains(&offset))
            .map(|(i, x)| pointer_at(x, offset, format!("{at}/{i}")))
            .unwrap_or(at),
        NodeKind::Scalar => at,
    }
}
