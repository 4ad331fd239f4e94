//! `AnthropicChatModel` (`_parse_anthropic_completion_response`,
//! `_parse_anthropic_stream_completion_response`).

use super::openai::final_tool_response;
use super::{
    get, str_of, text_block, thinking_block, tool_use_block, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings,
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
    last_content: Option<Vec<Value>>,
    last: Option<(ChatResponse, u32)>,
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
            last_content: None,
            last: None,
        }
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

impl StreamParse for Stream {
    fn push(
        &mut self,
        event: &Event,
        warnings: &mut Warnings,
    ) -> Result<Option<Vec<ChatResponse>>, ParseError> {
        let Event::Json(ev) = event else {
            return Err(ParseError::new("JSONDecodeError", "not a JSON payload"));
        };
        let mut changed = false;
        match str_of(ev, "type") {
            // The SDK skips pings and raises on error events.
            Some("ping") => return Ok(Some(Vec::new())),
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
                    if let Some((last, gen)) = self.last.as_mut() {
                        if *gen == self.usage_gen {
                            last.usage = Some(usage.clone());
                        }
                    }
                }
            }
            _ => {}
        }
        let mut out = Vec::new();
        if changed && self.usage.is_some() {
            let mut contents = Vec::new();
            if !self.thinking.is_empty() {
                let mut b = thinking_block(&self.thinking);
                b["signature"] = Value::String(self.signature.clone());
                contents.push(b);
            }
            if !self.text.is_empty() {
                contents.push(text_block(&self.text));
            }
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
                contents.push(tool_use_block(
                    call.id.clone(),
                    call.name.clone(),
                    input,
                    Some(Value::String(call.args.clone())),
                ));
            }
            if !contents.is_empty() {
                let r = ChatResponse::new(
                    &self.id,
                    contents.clone(),
                    self.usage.clone(),
                    self.metadata.clone(),
                );
                self.last = Some((r.clone(), self.usage_gen));
                self.last_content = Some(contents);
                out.push(r);
            }
        }
        Ok(Some(out))
    }

    fn finish(&mut self, warnings: &mut Warnings) -> Result<Vec<ChatResponse>, ParseError> {
        let extra = final_tool_response(
            &self.opts,
            !self.calls.is_empty(),
            self.last_content.take(),
            &self.id,
            &self.usage,
            None,
            warnings,
        );
        if let Some(r) = &extra {
            self.last = Some((r.clone(), self.usage_gen));
        }
        Ok(extra.into_iter().collect())
    }

    fn final_response(&self) -> Option<ChatResponse> {
        self.last.as_ref().map(|(r, _)| r.clone())
    }
}
