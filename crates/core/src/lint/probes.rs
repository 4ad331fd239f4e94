//! The probes of the block checks ("is block j of this message sent?"):
//! the message with block j and some context, formatted against the same
//! context without it. The context stands for the rest of the message,
//! which a formatter may send a block only beside:
//! - anchors: the message's first text block, tool call and tool result
//!   (DeepSeek sends thinking as `reasoning_content` only with text or
//!   tool calls; a tool result makes a multi-agent formatter send its
//!   message as a chat turn, where thinking goes);
//! - a sibling: the first other block of j's type (blocks of a type are
//!   joined: two empty thinking blocks send "\n", one sends nothing).
//!
//! Context blocks are cut down when large, so a probe costs about its
//! block, and the context without j is the same for every block of a type:
//! formatted once per type, the checks are linear in the blocks. Formatting
//! the whole message without each block was quadratic (4,000 blocks: 32 s
//! and 3.8 GB; 2,000 hint blocks under 2.0.11: 165 s).

use serde_json::{Map, Value};
use std::collections::HashMap;

pub(crate) struct Probes<'m> {
    message: &'m Value,
    /// The anchors, (index, block cut down).
    anchors: Vec<(usize, Value)>,
    /// The first two blocks of each type, by index.
    firsts: HashMap<&'m str, (usize, Option<usize>)>,
    blocks: &'m [Value],
}

/// Block types a probe keeps as anchors (the first of each group).
const ANCHORS: [&[&str]; 3] = [&["text"], &["tool_use", "tool_call"], &["tool_result"]];
/// A context block larger than this (as JSON) is cut down: strings to
/// their first [`CUT`] bytes, objects and arrays emptied; still larger, it
/// is left out.
const CONTEXT_BYTES: usize = 1024;
const CUT: usize = 64;

/// Which context a probe of a block has without it: blocks whose keys are
/// equal share it (a caller formats it once).
pub(crate) type Key = (Option<usize>, Option<usize>);

impl<'m> Probes<'m> {
    /// None when the message has no content list.
    pub(crate) fn new(message: &'m Value) -> Option<Probes<'m>> {
        let blocks = message.get("content")?.as_array()?;
        let mut firsts: HashMap<&str, (usize, Option<usize>)> = HashMap::new();
        for (i, b) in blocks.iter().enumerate() {
            firsts
                .entry(kind(b))
                .and_modify(|(_, second)| {
                    second.get_or_insert(i);
                })
                .or_insert((i, None));
        }
        let anchors = ANCHORS
            .iter()
            .filter_map(|types| {
                types
                    .iter()
                    .filter_map(|t| firsts.get(t).map(|f| f.0))
                    .min()
            })
            .filter_map(|i| Some((i, small(blocks.get(i)?)?)))
            .collect();
        Some(Probes {
            message,
            anchors,
            firsts,
            blocks,
        })
    }

    /// The context of block `j` without it: its anchors other than `j` and
    /// its sibling. Keyed by (the anchor `j` is, the sibling).
    pub(crate) fn key(&self, j: usize) -> Key {
        let anchor = self.anchors.iter().find(|(i, _)| *i == j).map(|(i, _)| *i);
        let sibling = self.blocks.get(j).and_then(|b| {
            let (first, second) = self.firsts.get(kind(b))?;
            if *first == j {
                *second
            } else {
                Some(*first)
            }
        });
        (anchor, sibling)
    }

    /// The message with block `j` (`b`) and its context.
    pub(crate) fn with_block(&self, j: usize, b: &Value) -> Value {
        let mut blocks = self.context(j);
        blocks.push((j, b.clone()));
        self.message_of(blocks)
    }

    /// The message with the context of block `j`, without it.
    pub(crate) fn without_block(&self, j: usize) -> Value {
        self.message_of(self.context(j))
    }

    fn context(&self, j: usize) -> Vec<(usize, Value)> {
        let (_, sibling) = self.key(j);
        let mut blocks: Vec<(usize, Value)> = self
            .anchors
            .iter()
            .filter(|(i, _)| *i != j)
            .cloned()
            .collect();
        if let Some(s) = sibling.filter(|s| !blocks.iter().any(|(i, _)| i == s)) {
            if let Some(b) = self.blocks.get(s).and_then(small) {
                blocks.push((s, b));
            }
        }
        blocks
    }

    /// The message with `blocks` (in their order in it) as its content,
    /// the rest of it copied; its own content never is.
    fn message_of(&self, mut blocks: Vec<(usize, Value)>) -> Value {
        let Value::Object(fields) = self.message else {
            return self.message.clone();
        };
        blocks.sort_by_key(|(i, _)| *i);
        let mut content = Some(Value::Array(blocks.into_iter().map(|(_, b)| b).collect()));
        Value::Object(
            fields
                .iter()
                .map(|(k, v)| match k.as_str() {
                    // In its own place: the key order is the dict's.
                    "content" => (k.clone(), content.take().unwrap_or(Value::Null)),
                    _ => (k.clone(), v.clone()),
                })
                .collect(),
        )
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("?")
}

/// A context block of at most [`CONTEXT_BYTES`]: the block itself, or cut
/// down (None: still too large).
fn small(block: &Value) -> Option<Value> {
    let fits = |v: &Value| serde_json::to_writer(Bounded(0), v).is_ok();
    if fits(block) {
        return Some(block.clone());
    }
    let Value::Object(fields) = block else {
        return None;
    };
    let cut: Map<String, Value> = fields
        .iter()
        .map(|(k, v)| {
            let v = match v {
                // A tool call's input is JSON text in 2.x.
                Value::String(_) if k == "input" => Value::String("{}".into()),
                Value::String(s) => {
                    let mut end = s.len().min(CUT);
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    Value::String(s[..end].to_string())
                }
                Value::Object(_) => Value::Object(Map::new()),
                Value::Array(_) => Value::Array(Vec::new()),
                v => v.clone(),
            };
            (k.clone(), v)
        })
        .collect();
    let cut = Value::Object(cut);
    fits(&cut).then_some(cut)
}

/// Bytes of JSON written, failing past [`CONTEXT_BYTES`] (a large block is
/// not written whole to learn that it is large).
struct Bounded(usize);

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        if self.0 > CONTEXT_BYTES {
            return Err(std::io::ErrorKind::FileTooLarge.into());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_probe_holds_the_block_its_anchors_and_a_sibling_in_order() {
        let m = json!({"role": "assistant", "name": "a", "content": [
            {"type": "thinking", "thinking": "a"},
            {"type": "text", "text": "t"},
            {"type": "bogus", "n": 1},
            {"type": "thinking", "thinking": "b"},
            {"type": "tool_use", "id": "1", "name": "f", "input": {}},
        ]});
        let p = Probes::new(&m).expect("a list");
        let types = |v: Value| -> Vec<String> {
            v["content"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| b["type"].as_str().unwrap_or_default().to_string())
                .collect()
        };
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        assert_eq!(
            types(p.with_block(3, &blocks[3])),
            ["thinking", "text", "thinking", "tool_use"]
        );
        assert_eq!(types(p.without_block(3)), ["thinking", "text", "tool_use"]);
        assert_eq!(
            types(p.with_block(2, &blocks[2])),
            ["text", "bogus", "tool_use"]
        );
        // Each bogus block alone of its type shares the anchors' context.
        assert_eq!(p.key(2), (None, None));
        assert_eq!(p.key(0), (None, Some(3)));
        assert_eq!(p.key(1), (Some(1), None));
        assert_eq!(p.with_block(2, &blocks[2])["name"], "a");
    }

    #[test]
    fn large_context_is_cut_down() {
        let text = "x".repeat(100_000);
        let m = json!({"role": "user", "name": "u", "content": [
            {"type": "text", "text": text},
            {"type": "image", "source": {"type": "url", "url": "a.png"}},
        ]});
        let p = Probes::new(&m).expect("a list");
        let probe = p.with_block(1, &m["content"][1]);
        assert_eq!(
            probe["content"][0]["text"].as_str().map(str::len),
            Some(CUT)
        );
        assert_eq!(probe["content"][1], m["content"][1]);
    }
}
