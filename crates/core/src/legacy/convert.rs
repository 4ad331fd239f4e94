//! A 1.0-shaped session shown under 0.1.6: its messages
//! converted as far as 0.1.6's `Msg` can hold them, and a list of what it
//! cannot (thinking blocks, base64 media, block types 0.1.6 lacks), never
//! dropped silently.

use crate::json;
use serde_json::{Map, Value};

/// The v0 messages, and what was left out (`message N block M: why`).
pub fn from_v1<M: std::borrow::Borrow<Value>>(messages: &[M]) -> (Vec<Value>, Vec<String>) {
    let mut out = Vec::with_capacity(messages.len());
    let mut lost = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let m: &Value = m.borrow();
        let Value::Object(map) = m else {
            out.push(m.clone());
            continue;
        };
        let mut v0 = Map::new();
        for key in ["name", "role"] {
            if let Some(x) = map.get(key) {
                v0.insert(key.into(), x.clone());
            }
        }
        let content = match map.get("content") {
            Some(Value::Array(blocks)) => {
                let mut kept = Vec::new();
                for (j, b) in blocks.iter().enumerate() {
                    match block(b) {
                        Ok(x) => kept.push(x),
                        Err(why) => lost.push(format!("message {i} block {j}: {why}")),
                    }
                }
                Value::Array(kept)
            }
            Some(other) => other.clone(),
            None => Value::Null,
        };
        if map.contains_key("content") {
            v0.insert("content".into(), content);
        }
        out.push(Value::Object(v0));
    }
    (out, lost)
}

/// One 1.0 block as a 0.1.6 block, or why it cannot be one.
fn block(b: &Value) -> Result<Value, String> {
    let kind = b.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" | "tool_use" | "tool_result" => Ok(b.clone()),
        "image" | "audio" | "video" => match b.pointer("/source/type").and_then(Value::as_str) {
            Some("url") => Ok(json!({
                "type": kind,
                "url": b.pointer("/source/url").cloned().unwrap_or(Value::Null),
            })),
            Some("base64") => Err(format!("a base64 {kind} (0.1.6 blocks hold a URL only)")),
            _ => Err(format!("an {kind} without a url source")),
        },
        "thinking" => Err("a thinking block (0.1.6 has no thinking blocks)".into()),
        other => Err(format!("a {other:?} block (not a 0.1.6 block type)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_0_1_6_cannot_hold_is_listed() {
        let (v0, lost) = from_v1(&[json!({"name": "F", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Hi"},
            {"type": "image", "source": {"type": "url", "url": "a.png"}},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
        ]})]);
        assert_eq!(
            v0[0]["content"],
            json!([{"type": "text", "text": "Hi"}, {"type": "image", "url": "a.png"}])
        );
        assert_eq!(lost.len(), 2);
        assert!(lost[0].starts_with("message 0 block 0: a thinking block"));
        assert!(lost[1].contains("base64 image"));
    }
}
