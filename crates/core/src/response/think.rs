//! Beyond the reference (off by default): `<think>…</think>` in the text of
//! DashScope and Ollama replies (QwQ and R1 served without a reasoning
//! field) moved into a thinking block, as the Java port's users expect.
//! AgentScope 1.0.21 leaves the tags inside the text.

use super::{text_block, thinking_block, ChatResponse};
use serde_json::Value;

/// Splits the first text block's leading `<think>…</think>` (or an
/// unclosed `<think>` while it streams) into a thinking block before it.
pub fn split(resp: &mut ChatResponse) {
    let Some(pos) = resp
        .content
        .iter()
        .position(|b| b.get("type").and_then(Value::as_str) == Some("text"))
    else {
        return;
    };
    let Some(text) = resp.content[pos].get("text").and_then(Value::as_str) else {
        return;
    };
    let trimmed = text.trim_start();
    let Some(rest) = trimmed.strip_prefix("<think>") else {
        return;
    };
    let (thought, after) = match rest.find("</think>") {
        Some(end) => (&rest[..end], rest[end + "</think>".len()..].trim_start()),
        None => (rest, ""),
    };
    let thought = thought.trim().to_string();
    let after = after.to_string();
    let mut replacement = Vec::new();
    if !thought.is_empty() {
        replacement.push(thinking_block(&thought));
    }
    if !after.is_empty() {
        replacement.push(text_block(&after));
    }
    resp.content.splice(pos..=pos, replacement);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(text: &str) -> ChatResponse {
        ChatResponse::new(&None, vec![text_block(text)], None, Value::Null)
    }

    #[test]
    fn think_tags_become_a_thinking_block() {
        let mut r = resp("<think>\nPlan it.\n</think>\n\nThe answer.");
        split(&mut r);
        assert_eq!(r.thinking(), "Plan it.");
        assert_eq!(r.text(), "The answer.");
        let mut open = resp("<think>still going");
        split(&mut open);
        assert_eq!(open.thinking(), "still going");
        assert_eq!(open.text(), "");
        let mut plain = resp("no tags <think>x</think>");
        split(&mut plain);
        assert_eq!(plain.text(), "no tags <think>x</think>");
    }
}
