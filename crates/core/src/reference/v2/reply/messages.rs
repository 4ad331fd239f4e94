//! Anthropic's messages replies under 2.0.11 (`AnthropicChatModel`, and
//! `MiniMaxChatModel`, which inherits its parsing): content blocks in
//! order; a redacted thinking block kept as a thinking block with its
//! data; tool inputs as JSON text. A stream shares one usage object,
//! updated in place by `message_delta`.

use super::{count, dumps, field, generate_id, Block, Clock, Reply, Usage};
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// `getattr(obj, key, default)` of a parsed SDK object: a field present
/// as `null` is `None`, an absent one the default.
fn attr(v: &Value, key: &str, default: Value) -> Value {
    v.get(key).cloned().unwrap_or(default)
}

/// `_parse_anthropic_completion_response`.
pub(super) fn whole(body: &Value, clock: Clock) -> Result<Reply, PyErr> {
    let mut content = Vec::new();
    for block in body
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let s = |k: &str| {
            block
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        match block.get("type").and_then(Value::as_str) {
            Some("thinking") => content.push(Block::Thinking {
                id: generate_id(),
                thinking: s("thinking"),
                extra: crate::json::object([("signature", json!(s("signature")))]),
            }),
            Some("redacted_thinking") => content.push(Block::Thinking {
                id: generate_id(),
                thinking: String::new(),
                extra: crate::json::object([(
                    "redacted_thinking_data",
                    attr(block, "data", json!("")),
                )]),
            }),
            Some("text") => content.push(Block::Text {
                id: generate_id(),
                text: s("text"),
            }),
            Some("tool_use") => content.push(Block::ToolCall {
                id: s("id"),
                name: s("name"),
                input: dumps(block.get("input").unwrap_or(&Value::Null)),
            }),
            _ => {}
        }
    }
    let usage = field(body, "usage").map(|u| {
        let mut usage = Usage::new(
            attr(u, "input_tokens", Value::Null),
            attr(u, "output_tokens", Value::Null),
            clock.seconds(),
        );
        usage.cache_creation = count(u, "cache_creation_input_tokens");
        usage.cache_input = count(u, "cache_read_input_tokens");
        usage
    });
    Ok(Reply {
        content,
        is_last: true,
        id: super::text(body, "id").map_or_else(generate_id, str::to_string),
        usage,
    })
}

/// `_parse_anthropic_stream_completion_response`'s state.
pub(super) struct Stream {
    clock: Clock,
    response_id: String,
    usage: Option<Usage>,
    /// Content index → the text or thinking block's id.
    blocks: Vec<(i64, String)>,
    /// Content index → the tool call's (id, name).
    calls: Vec<(i64, String, String)>,
    /// Tool calls that received arguments.
    with_input: Vec<i64>,
}

impl Stream {
    pub(super) fn new(clock: Clock) -> Stream {
        Stream {
            clock,
            response_id: generate_id(),
            usage: None,
            blocks: Vec::new(),
            calls: Vec::new(),
            with_input: Vec::new(),
        }
    }

    /// The shared usage object as it stands.
    pub(super) fn usage(&self) -> Option<Usage> {
        self.usage.clone()
    }

    fn block_id(&self, index: i64) -> Result<String, PyErr> {
        self.blocks
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, id)| id.clone())
            .ok_or_else(|| PyErr::key(&index.to_string()))
    }

    fn call(&self, index: i64) -> Option<(String, String)> {
        self.calls
            .iter()
            .find(|(i, _, _)| *i == index)
            .map(|(_, id, name)| (id.clone(), name.clone()))
    }

    pub(super) fn push(&mut self, event: &Value) -> Result<Option<Reply>, PyErr> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        // The SDK raises on an error event, with the event as it came.
        if kind == "error" {
            return Err(PyErr::new("APIStatusError", crate::py::py_repr(event)));
        }
        let mut delta = Reply::delta(&self.response_id);
        let index = event.get("index").and_then(Value::as_i64).unwrap_or(0);
        match kind {
            "message_start" => {
                let message = event.get("message").cloned().unwrap_or(Value::Null);
                if let Some(id) = super::text(&message, "id") {
                    self.response_id = id.to_string();
                }
                delta.id = self.response_id.clone();
                if let Some(u) = field(&message, "usage") {
                    let mut usage = Usage::new(
                        attr(u, "input_tokens", Value::Null),
                        attr(u, "output_tokens", json!(0)),
                        self.clock.seconds(),
                    );
                    usage.cache_creation = attr(u, "cache_creation_input_tokens", json!(0));
                    usage.cache_input = attr(u, "cache_read_input_tokens", json!(0));
                    self.usage = Some(usage);
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("text" | "thinking") => self.blocks.push((index, generate_id())),
                    Some("tool_use") => {
                        let s = |k: &str| {
                            block
                                .get(k)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string()
                        };
                        self.calls.push((index, s("id"), s("name")));
                        delta.append_tool_call(&s("id"), &s("name"), "");
                    }
                    Some("redacted_thinking") => delta.append_thinking(
                        &generate_id(),
                        "",
                        crate::json::object([(
                            "redacted_thinking_data",
                            attr(&block, "data", json!("")),
                        )]),
                    ),
                    _ => {}
                }
            }
            "content_block_delta" => {
                let d = event.get("delta").cloned().unwrap_or(Value::Null);
                let s = |k: &str| {
                    d.get(k)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                match d.get("type").and_then(Value::as_str) {
                    Some("text_delta") => delta.append_text(&self.block_id(index)?, &s("text")),
                    Some("thinking_delta") => {
                        delta.append_thinking(&self.block_id(index)?, &s("thinking"), Map::new())
                    }
                    Some("signature_delta") => delta.append_thinking(
                        &self.block_id(index)?,
                        "",
                        crate::json::object([("signature", json!(s("signature")))]),
                    ),
                    Some("input_json_delta") => {
                        if let Some((id, name)) = self.call(index) {
                            let partial = s("partial_json");
                            if !partial.is_empty() {
                                self.with_input.push(index);
                            }
                            delta.append_tool_call(&id, &name, &partial);
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" if !self.with_input.contains(&index) => {
                // A tool call that got no arguments closes as `{}`.
                if let Some((id, name)) = self.call(index) {
                    delta.append_tool_call(&id, &name, "{}");
                }
            }
            "message_delta" => {
                if let (Some(u), Some(usage)) = (field(event, "usage"), self.usage.as_mut()) {
                    usage.output = attr(u, "output_tokens", Value::Null);
                    usage.time = self.clock.seconds();
                }
            }
            _ => {}
        }
        if delta.content.is_empty() {
            return Ok(None);
        }
        delta.usage = self.usage.clone();
        Ok(Some(delta))
    }
}
