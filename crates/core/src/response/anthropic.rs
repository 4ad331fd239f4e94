//! `AnthropicChatModel` (`_parse_anthropic_completion_response`,
//! `_parse_anthropic_stream_completion_response`).

use super::openai::final_tool_response;
use super::stream::{keep_whole, prefix};
use super::{
    get, str_of, text_block, thinking_block, tool_use_block, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings, Yield,
};
use serde_json::{Map, Value};
use std::time::Instant;

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
) -> Result<ChatResponse, ParseError> {
    let mut content = Vec::new();
    let mut metadata = Value::Null;
    for block in get(body, "content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        match str_of(block, "type") {
            Some("thinking") => {
                let mut b = thinking_block("");
                b["thinking"] = block.get("thinking").cloned().unwrap_or(Value::Null);
                b["signature"] = block.get("signature").cloned().unwrap_or(Value::Null);
                content.push(b);
            }
            Some("text") => {
                let mut b = text_block("");
                b["text"] = block.get("text").cloned().unwrap_or(Value::Null);
                content.push(b);
            }
            Some("tool_use") => {
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                if opts.structured {
                    metadata = input.clone();
                }
                content.push(tool_use_block(
                    block.get("id").cloned().unwrap_or(Value::Null),
                    block.get("name").cloned().unwrap_or(Value::Null),
                    input,
                    None,
                ));
            }
            // redacted_thinking, server tools, web search results: dropped.
            _ => {}
        }
    }
    let usage = get(body, "usage").map(|u| {
        Usage::new(
            u.get("input_tokens").cloned().unwrap_or(Value::Null),
            u.get("output_tokens").cloned().unwrap_or(Value::Null),
            start,
            Value::Null,
        )
    });
    let id = str_of(body, "id").map(str::to_string);
    Ok(ChatResponse::new(&id, content, usage, metadata))
}

struct ToolCall {
    index: Value,
    id: Value,
    name: Value,
    args: String,
}

pub struct Stream {
    opts: Options,
    start: Instant,
    id: Option<String>,
    usage: Option<Usage>,
    /// Which `message_start` made the usage object: the one already handed
    /// out is updated in place by `message_delta`.
    usage_gen: u32,
    text: String,
    thinking: String,
    signature: String,
    calls: Vec<ToolCall>,
    last_inputs: super::args::LastInputs,
    metadata: Value,
    /// The last yield, and the `usage_gen` of its usage.
    last: Option<(Yield, u32)>,
    /// Its usage as `message_delta` updated it since (the agent's final
    /// response holds that object).
    last_usage: Option<Usage>,
}

impl Stream {
    pub fn new(opts: &Options, start: Instant) -> Stream {
        Stream {
            opts: opts.clone(),
            start,
            id: None,
            usage: None,
            usage_gen: 0,
            text: String::new(),
            thinking: String::new(),
            signature: String::new(),
            calls: Vec::new(),
            last_inputs: Default::default(),
            metadata: Value::Null,
            last: None,
            last_usage: None,
        }
    }

    /// The blocks a yield holds.
    fn content(&self, y: &Yield) -> Vec<Value> {
        let mut contents = Vec::new();
        if y.thinking > 0 {
            let mut b = thinking_block(prefix(&self.thinking, y.thinking));
            b["signature"] = Value::String(y.signature.clone().unwrap_or_default());
            contents.push(b);
        }
        if y.text > 0 {
            contents.push(text_block(prefix(&self.text, y.text)));
        }
        contents.extend(y.tools.iter().cloned());
        contents
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

impl StreamParse for Stream {
    fn push(&mut self, event: &Event, warnings: &mut Warnings) -> Result<Option<bool>, ParseError> {
        let Event::Json(ev) = event else {
            return Err(ParseError::new("JSONDecodeError", "not a JSON payload"));
        };
        let mut changed = false;
        match str_of(ev, "type") {
            // The SDK skips pings and raises on error events.
            Some("ping") => return Ok(Some(false)),
            Some("error") => {
                return Err(ParseError::new("APIStatusError", crate::py::py_repr(ev)));
            }
            Some("message_start") => {
                let message = ev.get("message").cloned().unwrap_or(Value::Null);
                if self.id.is_none() {
                    self.id = str_of(&message, "id").map(str::to_string);
                }
                if let Some(u) = get(&message, "usage") {
                    self.usage_gen += 1;
                    self.usage = Some(Usage::new(
                        u.get("input_tokens").cloned().unwrap_or(Value::Null),
                        u.get("output_tokens").cloned().unwrap_or(Value::from(0)),
                        self.start,
                        Value::Null,
                    ));
                }
            }
            Some("content_block_start") => {
                let block = ev.get("content_block").cloned().unwrap_or(Value::Null);
                if str_of(&block, "type") == Some("tool_use") {
                    let index = ev.get("index").cloned().unwrap_or(Value::Null);
                    let call = ToolCall {
                        index: index.clone(),
                        id: block.get("id").cloned().unwrap_or(Value::Null),
                        name: block.get("name").cloned().unwrap_or(Value::Null),
                        args: String::new(),
                    };
                    match self.calls.iter_mut().find(|c| c.index == index) {
                        Some(slot) => *slot = call,
                        None => self.calls.push(call),
                    }
                    changed = true;
                }
            }
            Some("content_block_delta") => {
                let index = ev.get("index").cloned().unwrap_or(Value::Null);
                let delta = ev.get("delta").cloned().unwrap_or(Value::Null);
                match str_of(&delta, "type") {
                    Some("text_delta") => {
                        self.text.push_str(str_of(&delta, "text").unwrap_or(""));
                        changed = true;
                    }
                    Some("thinking_delta") => {
                        self.thinking
                            .push_str(str_of(&delta, "thinking").unwrap_or(""));
                        changed = true;
                    }
                    Some("signature_delta") => {
                        // Replaces the signature, and is no change.
                        self.signature = str_of(&delta, "signature").unwrap_or("").to_string();
                    }
                    Some("input_json_delta") => {
                        if let Some(call) = self.calls.iter_mut().find(|c| c.index == index) {
                            call.args
                                .push_str(str_of(&delta, "partial_json").unwrap_or(""));
                            changed = true;
                        }
                    }
                    _ => {}
                }
            }
            Some("message_delta") => {
                if let (Some(u), Some(usage)) = (get(ev, "usage"), self.usage.as_mut()) {
                    let input = u.get("input_tokens").filter(|v| num(v) != 0.0);
                    if let Some(input) = input {
                        if num(input) > num(&usage.input_tokens) {
                            usage.input_tokens = input.clone();
                        }
                    }
                    usage.output_tokens = u.get("output_tokens").cloned().unwrap_or(Value::Null);
                    // The same object the last response holds.
                    if let Some((_, gen)) = self.last.as_ref() {
                        if *gen == self.usage_gen {
                            self.last_usage = Some(usage.clone());
                        }
                    }
                }
            }
            _ => {}
        }
        let mut yields = false;
        if changed && self.usage.is_some() {
            // Marks into the text (see `stream`); tool blocks built now.
            let mut tools = Vec::new();
            for call in &self.calls {
                let input = if self.opts.stream_tool_parsing {
                    self.last_inputs
                        .streaming(call.id.to_string(), &call.args, warnings)
                } else {
                    Value::Object(Map::new())
                };
                if self.opts.structured {
                    self.metadata = input.clone();
                }
                tools.push(tool_use_block(
                    call.id.clone(),
                    call.name.clone(),
                    input,
                    Some(Value::String(call.args.clone())),
                ));
            }
            let y = Yield {
                id: self.id.clone(),
                usage: self.usage.clone(),
                metadata: self.metadata.clone(),
                thinking: self.thinking.len(),
                text: self.text.len(),
                signature: (!self.thinking.is_empty()).then(|| self.signature.clone()),
                tools,
                ..Yield::default()
            };
            yields = y.has_content();
            if yields {
                self.last = Some((y, self.usage_gen));
                self.last_usage = None;
            }
        }
        Ok(Some(yields))
    }

    fn finish(&mut self, warnings: &mut Warnings) -> Result<bool, ParseError> {
        let last_content = self.last.as_ref().map(|(y, _)| self.content(y));
        let extra = final_tool_response(
            &self.opts,
            !self.calls.is_empty(),
            last_content,
            &self.id,
            &self.usage,
            None,
            warnings,
        );
        let mut last = None;
        if !keep_whole(&mut last, extra) {
            return Ok(false);
        }
        self.last = last.map(|y| (y, self.usage_gen));
        self.last_usage = None;
        Ok(true)
    }

    fn latest(&self) -> Option<ChatResponse> {
        let (y, _) = self.last.as_ref()?;
        Some(y.build(|y| self.content(y)))
    }

    fn last_yield(&self) -> Option<&Yield> {
        self.last.as_ref().map(|(y, _)| y)
    }

    fn texts(&self) -> (&str, &str) {
        (&self.thinking, &self.text)
    }

    fn final_response(&self) -> Option<ChatResponse> {
        let mut r = self.latest()?;
        if let Some(u) = &self.last_usage {
            r.usage = Some(u.clone());
        }
        Some(r)
    }
}
