//! `OpenAIResponseModel`: OpenAI's Responses API (`_parse_response`,
//! `_parse_stream_response`). No formatter targets it; replies can still be
//! parsed and sent.

use super::args::repair_load;
use super::openai::{final_tool_response, sdk_order};
use super::stream::{keep_whole, prefix};
use super::{
    get, str_of, text_block, thinking_block, tool_use_block, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings, Yield,
};
use serde_json::{Map, Value};
use std::time::Instant;

/// `ResponseUsage`'s fields in the SDK's order.
const USAGE_FIELDS: &[(&str, &[&str])] = &[
    ("input_tokens", &[]),
    ("input_tokens_details", &["cached_tokens"]),
    ("output_tokens", &[]),
    ("output_tokens_details", &["reasoning_tokens"]),
    ("total_tokens", &[]),
];

fn usage_of(u: &Value, start: Instant) -> Usage {
    Usage::new(
        u.get("input_tokens").cloned().unwrap_or(Value::Null),
        u.get("output_tokens").cloned().unwrap_or(Value::Null),
        start,
        sdk_order(u, USAGE_FIELDS),
    )
}

/// `getattr(item, "call_id", None) or getattr(item, "id", "")`.
fn call_id(item: &Value) -> Value {
    match get(item, "call_id") {
        Some(v) if crate::py::truthy(v) => v.clone(),
        _ => item.get("id").cloned().unwrap_or(Value::from("")),
    }
}

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let mut content = Vec::new();
    let mut metadata = Value::Null;
    let output = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| ParseError::attribute("Response", "output"))?;
    for item in output {
        match str_of(item, "type") {
            Some("reasoning") => {
                for summary in get(item, "summary")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if let Some(t) = str_of(summary, "text").filter(|t| !t.is_empty()) {
                        content.push(thinking_block(t));
                    }
                }
            }
            Some("message") => {
                for part in get(item, "content")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if str_of(part, "type") == Some("output_text") {
                        let text = crate::py::py_str(part.get("text").unwrap_or(&Value::Null));
                        content.push(text_block(&text));
                        if opts.structured {
                            metadata = repair_load(&text, warnings);
                        }
                    }
                }
            }
            Some("function_call") => {
                let args = match get(item, "arguments") {
                    Some(Value::String(s)) if !s.is_empty() => s.clone(),
                    _ => "{}".to_string(),
                };
                content.push(tool_use_block(
                    call_id(item),
                    item.get("name").cloned().unwrap_or(Value::Null),
                    repair_load(&args, warnings),
                    None,
                ));
            }
            _ => {}
        }
    }
    let usage = get(body, "usage").map(|u| usage_of(u, start));
    let id = str_of(body, "id").map(str::to_string);
    Ok(ChatResponse::new(&id, content, usage, metadata))
}

struct ToolCall {
    item_id: Value,
    id: Value,
    name: Value,
    args: String,
}

pub struct Stream {
    opts: Options,
    start: Instant,
    id: Option<String>,
    usage: Option<Usage>,
    text: String,
    thinking: String,
    calls: Vec<ToolCall>,
    last_inputs: super::args::LastInputs,
    metadata: Value,
    last: Option<Yield>,
}

impl Stream {
    pub fn new(opts: &Options, start: Instant) -> Stream {
        Stream {
            opts: opts.clone(),
            start,
            id: None,
            usage: None,
            text: String::new(),
            thinking: String::new(),
            calls: Vec::new(),
            last_inputs: Default::default(),
            metadata: Value::Null,
            last: None,
        }
    }

    /// The blocks a yield holds.
    fn content(&self, y: &Yield) -> Vec<Value> {
        let mut contents = Vec::new();
        if y.thinking > 0 {
            contents.push(thinking_block(prefix(&self.thinking, y.thinking)));
        }
        if y.text > 0 {
            contents.push(text_block(prefix(&self.text, y.text)));
        }
        contents.extend(y.tools.iter().cloned());
        contents
    }
}

impl StreamParse for Stream {
    fn push(&mut self, event: &Event, warnings: &mut Warnings) -> Result<Option<bool>, ParseError> {
        let ev = match event {
            Event::Text(s) if s.starts_with("[DONE]") => return Ok(None),
            Event::Text(s) => {
                return Err(ParseError::new(
                    "JSONDecodeError",
                    format!("not a JSON payload: {s}"),
                ))
            }
            Event::Json(v) => v,
        };
        if self.id.is_none() {
            if let Some(r) = get(ev, "response") {
                self.id = str_of(r, "id").map(str::to_string);
            }
        }
        match str_of(ev, "type") {
            Some("response.reasoning_summary_text.delta") => {
                self.thinking.push_str(str_of(ev, "delta").unwrap_or(""));
            }
            Some("response.output_text.delta") => {
                self.text.push_str(str_of(ev, "delta").unwrap_or(""));
            }
            Some("response.output_item.added") => {
                let item = ev.get("item").cloned().unwrap_or(Value::Null);
                if str_of(&item, "type") == Some("function_call") {
                    let item_id = item.get("id").cloned().unwrap_or(Value::Null);
                    let call = ToolCall {
                        item_id: item_id.clone(),
                        id: call_id(&item),
                        name: item.get("name").cloned().unwrap_or(Value::from("")),
                        args: String::new(),
                    };
                    match self.calls.iter_mut().find(|c| c.item_id == item_id) {
                        Some(slot) => *slot = call,
                        None => self.calls.push(call),
                    }
                }
            }
            Some("response.function_call_arguments.delta") => {
                let item_id = ev.get("item_id").cloned().unwrap_or(Value::Null);
                if let Some(call) = self.calls.iter_mut().find(|c| c.item_id == item_id) {
                    call.args.push_str(str_of(ev, "delta").unwrap_or(""));
                }
            }
            Some("response.completed") => {
                let resp = ev.get("response").cloned().unwrap_or(Value::Null);
                if self.id.is_none() {
                    self.id = str_of(&resp, "id").map(str::to_string);
                }
                if let Some(u) = get(&resp, "usage") {
                    self.usage = Some(usage_of(u, self.start));
                }
            }
            _ => {}
        }
        // Marks into the text (see `stream`); tool blocks built now.
        let mut tools = Vec::new();
        for call in &self.calls {
            let input = if self.opts.stream_tool_parsing {
                self.last_inputs
                    .repaired(call.id.to_string(), &call.args, warnings)
            } else {
                Value::Object(Map::new())
            };
            tools.push(tool_use_block(
                call.id.clone(),
                call.name.clone(),
                input,
                Some(Value::String(call.args.clone())),
            ));
        }
        if self.opts.structured && !self.text.is_empty() {
            self.metadata = repair_load(&self.text, warnings);
        }
        let y = Yield {
            id: self.id.clone(),
            usage: self.usage.clone(),
            metadata: self.metadata.clone(),
            thinking: self.thinking.len(),
            text: self.text.len(),
            tools,
            ..Yield::default()
        };
        let yields = y.has_content();
        if yields {
            self.last = Some(y);
        }
        Ok(Some(yields))
    }

    fn finish(&mut self, warnings: &mut Warnings) -> Result<bool, ParseError> {
        // The metadata stays what the stream left (no structured reset here).
        let extra = final_tool_response(
            &self.opts,
            !self.calls.is_empty(),
            self.last.as_ref().map(|y| self.content(y)),
            &self.id,
            &self.usage,
            Some(self.metadata.clone()),
            warnings,
        );
        Ok(keep_whole(&mut self.last, extra))
    }

    fn latest(&self) -> Option<ChatResponse> {
        let y = self.last.as_ref()?;
        Some(y.build(|y| self.content(y)))
    }

    fn last_yield(&self) -> Option<&Yield> {
        self.last.as_ref()
    }

    fn texts(&self) -> (&str, &str) {
        (&self.thinking, &self.text)
    }
}
