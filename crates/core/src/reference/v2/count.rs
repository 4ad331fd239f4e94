//! `ChatModelBase.count_tokens`, the one estimate every 2.x model uses: the
//! UTF-8 bytes of the messages' texts (and of the tools' JSON) over four,
//! rounded half up, plus a flat 2000 per data block.

use super::msgs::{Block, Item, Items, Msg};
use serde_json::Value;

const DATA_BLOCK_TOKENS: u64 = 2000;

pub fn count_tokens(msgs: &[Msg], tools: Option<&Value>) -> u64 {
    let mut text = String::new();
    let mut data = 0u64;
    let mut items = |list: &Items, text: &mut String| match list {
        Items::Str(s) => text.push_str(s),
        Items::List(list) => {
            for item in list {
                match item {
                    Item::Text(t) => text.push_str(t),
                    Item::Data(_) => data += 1,
                }
            }
        }
    };
    let mut top_data = 0u64;
    for msg in msgs {
        for block in &msg.content {
            match block {
                Block::Text(t) => text.push_str(t),
                Block::Thinking { thinking, .. } => text.push_str(thinking),
                Block::Hint(h) => items(h, &mut text),
                Block::ToolCall { input, .. } => text.push_str(input),
                Block::ToolResult { output, .. } => items(output, &mut text),
                Block::Data(_) => top_data += 1,
            }
        }
    }
    if let Some(tools) = tools {
        if crate::py::truthy(tools) {
            text.push_str(&crate::py::dumps(tools));
        }
    }
    let bytes = text.len() as f64;
    (data + top_data) * DATA_BLOCK_TOKENS + (bytes / 4.0 + 0.5) as u64
}
