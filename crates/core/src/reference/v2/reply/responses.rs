//! Responses API replies under 2.0.11 (`OpenAIResponseModel`): reasoning
//! items become thinking blocks that carry the item (`reasoning_item_id`,
//! `reasoning_item_raw`: the SDK's dump of it, for replay); message parts
//! and refusals are text; function calls keep their `call_id`. A stream's
//! response id is always a generated one.

use super::{count, field, generate_id, text, Block, Clock, Reply, Usage};
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// `model_dump(mode="json", exclude_none=True)` of an openai SDK model:
/// its declared fields in order, then the extra keys it was given (the
/// SDK's models keep them), `null`s left out.
fn dump(v: &Value, fields: &[&str], lists: &[&str]) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    let mut out = Map::new();
    let keys = fields
        .iter()
        .map(|k| k.to_string())
        .chain(m.keys().filter(|k| !fields.contains(&k.as_str())).cloned());
    for key in keys {
        let Some(value) = m.get(&key).filter(|x| !x.is_null()) else {
            continue;
        };
        let value = match value {
            Value::Array(items) if lists.contains(&key.as_str()) => Value::Array(
                items
                    .iter()
                    .map(|i| dump(i, &["text", "type"], &[]))
                    .collect(),
            ),
            other => other.clone(),
        };
        out.insert(key, value);
    }
    Value::Object(out)
}

/// `_dump_reasoning_item`.
fn reasoning_raw(item: &Value) -> Value {
    dump(
        item,
        &[
            "id",
            "summary",
            "type",
            "content",
            "encrypted_content",
            "status",
        ],
        &["summary", "content"],
    )
}

fn usage(u: &Value, clock: Clock) -> Usage {
    let mut usage = Usage::new(
        u.get("input_tokens").cloned().unwrap_or(Value::Null),
        u.get("output_tokens").cloned().unwrap_or(Value::Null),
        clock.seconds(),
    );
    usage.cache_input = field(u, "input_tokens_details")
        .map(|d| count(d, "cached_tokens"))
        .unwrap_or(json!(0));
    usage
}

/// `_parse_completion_response`.
pub(super) fn whole(body: &Value, clock: Clock) -> Result<Reply, PyErr> {
    let mut content = Vec::new();
    for item in body
        .get("output")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => {
                let raw = reasoning_raw(item);
                let id = field(item, "id").cloned();
                let texts = |key: &str, kind: Option<&str>| -> Vec<String> {
                    raw.get(key)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|p| {
                            kind.is_none_or(|k| p.get("type").and_then(Value::as_str) == Some(k))
                        })
                        .filter_map(|p| text(p, "text").map(str::to_string))
                        .collect()
                };
                let mut thinking = texts("summary", None);
                thinking.extend(texts("content", Some("reasoning_text")));
                if thinking.is_empty() && id.is_some() {
                    thinking.push(String::new());
                }
                for t in thinking {
                    let mut extra = Map::new();
                    extra.insert(
                        "reasoning_item_id".into(),
                        id.clone().unwrap_or(Value::Null),
                    );
                    extra.insert("reasoning_item_raw".into(), raw.clone());
                    content.push(Block::Thinking {
                        id: generate_id(),
                        thinking: t,
                        extra,
                    });
                }
            }
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let said = match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => part.get("text"),
                        Some("refusal") => part.get("refusal"),
                        _ => None,
                    };
                    if let Some(t) = said {
                        content.push(Block::Text {
                            id: generate_id(),
                            text: t.as_str().unwrap_or_default().into(),
                        });
                    }
                }
            }
            Some("function_call") => content.push(Block::ToolCall {
                id: item
                    .get("call_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                name: item
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                input: text(item, "arguments").unwrap_or("{}").into(),
            }),
            _ => {}
        }
    }
    Ok(Reply {
        content,
        is_last: true,
        id: text(body, "id").map_or_else(generate_id, str::to_string),
        usage: field(body, "usage").map(|u| usage(u, clock)),
    })
}

/// A reasoning item's thinking blocks: ((event type, part index), block
/// id), in order of arrival.
type PartIds = Vec<((String, i64), String)>;

/// `_parse_stream_response`'s state.
pub(super) struct Stream {
    clock: Clock,
    response_id: String,
    usage: Option<Usage>,
    /// (item id, content index) → text block id.
    texts: Vec<((String, i64), String)>,
    /// Reasoning item id → its ((event type, part index), block id)s.
    reasoning: Vec<(String, PartIds)>,
    /// Function-call item id → (call id, name).
    calls: Vec<(String, String, String)>,
    with_input: Vec<String>,
}

impl Stream {
    pub(super) fn new(clock: Clock) -> Stream {
        Stream {
            clock,
            response_id: generate_id(),
            usage: None,
            texts: Vec::new(),
            reasoning: Vec::new(),
            calls: Vec::new(),
            with_input: Vec::new(),
        }
    }

    /// The block ids of a reasoning item, created on first sight.
    fn reasoning_ids(&mut self, item: &str) -> &mut PartIds {
        let at = match self.reasoning.iter().position(|(i, _)| i == item) {
            Some(at) => at,
            None => {
                self.reasoning.push((item.to_string(), Vec::new()));
                self.reasoning.len() - 1
            }
        };
        &mut self.reasoning[at].1
    }

    fn call(&self, item: &str) -> Option<(String, String)> {
        self.calls
            .iter()
            .find(|(i, _, _)| i == item)
            .map(|(_, c, n)| (c.clone(), n.clone()))
    }

    pub(super) fn push(&mut self, event: &Value) -> Result<Option<Reply>, PyErr> {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let s = |k: &str| {
            event
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        if kind == "response.failed" || kind == "error" {
            let error = if kind == "error" {
                Some(event.clone())
            } else {
                event
                    .pointer("/response/error")
                    .filter(|e| !e.is_null())
                    .cloned()
            };
            let message = error
                .as_ref()
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("Response failed")
                .to_string();
            return Err(PyErr::new("APIError", message));
        }
        let mut delta = Reply::delta(&self.response_id);
        let index = |k: &str| event.get(k).and_then(Value::as_i64).unwrap_or(0);
        match kind {
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                let part = if kind == "response.reasoning_summary_text.delta" {
                    index("summary_index")
                } else {
                    index("content_index")
                };
                let ids = self.reasoning_ids(&s("item_id"));
                let key = (kind.to_string(), part);
                let id = match ids.iter().find(|(k, _)| *k == key) {
                    Some((_, id)) => id.clone(),
                    None => {
                        let id = generate_id();
                        ids.push((key, id.clone()));
                        id
                    }
                };
                delta.append_thinking(&id, &s("delta"), Map::new());
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let key = (s("item_id"), index("content_index"));
                let id = match self.texts.iter().find(|(k, _)| *k == key) {
                    Some((_, id)) => id.clone(),
                    None => {
                        let id = generate_id();
                        self.texts.push((key, id.clone()));
                        id
                    }
                };
                delta.append_text(&id, &s("delta"));
            }
            "response.output_item.added" => {
                let item = event.get("item").cloned().unwrap_or(Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let g = |k: &str| {
                        item.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string()
                    };
                    let name = text(&item, "name").unwrap_or("unknown").to_string();
                    self.calls.push((g("id"), g("call_id"), name));
                }
            }
            "response.function_call_arguments.delta" => {
                let item = s("item_id");
                let piece = s("delta");
                if let (Some((call, name)), false) = (self.call(&item), piece.is_empty()) {
                    self.with_input.push(item);
                    delta.append_tool_call(&call, &name, &piece);
                }
            }
            "response.function_call_arguments.done" => {
                let item = s("item_id");
                if let (Some((call, name)), false) =
                    (self.call(&item), self.with_input.contains(&item))
                {
                    let args = text(event, "arguments").unwrap_or("{}").to_string();
                    delta.append_tool_call(&call, &name, &args);
                }
            }
            "response.completed" => {
                let resp = event.get("response").cloned().unwrap_or(Value::Null);
                if let Some(u) = field(&resp, "usage") {
                    self.usage = Some(usage(u, self.clock));
                }
                for item in resp
                    .get("output")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if item.get("type").and_then(Value::as_str) != Some("reasoning") {
                        continue;
                    }
                    let Some(rid) = text(item, "id").map(str::to_string) else {
                        continue;
                    };
                    let raw = reasoning_raw(item);
                    let ids = self.reasoning_ids(&rid);
                    if ids.is_empty() {
                        ids.push((("metadata".into(), 0), generate_id()));
                    }
                    let ids: Vec<String> = ids.iter().map(|(_, id)| id.clone()).collect();
                    for id in ids {
                        let mut extra = Map::new();
                        extra.insert("reasoning_item_id".into(), json!(&rid));
                        extra.insert("reasoning_item_raw".into(), raw.clone());
                        delta.append_thinking(&id, "", extra);
                    }
                }
            }
            _ => {}
        }
        if delta.content.is_empty() && self.usage.is_none() {
            return Ok(None);
        }
        delta.usage = self.usage.clone();
        Ok(Some(delta))
    }
}
