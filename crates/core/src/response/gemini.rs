//! `GeminiChatModel` (`_parse_gemini_generation_response`,
//! `_parse_gemini_stream_generation_response`). google-genai reads the
//! camelCase JSON and decodes thought signatures to bytes; AgentScope
//! re-encodes them with standard, padded base64.

use super::args::repair_load;
use super::stream::prefix;
use super::{
    get, str_of, text_block, thinking_block, tool_use_block, truthy, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings, Yield,
};
use base64::Engine;
use serde_json::{Map, Value};
use std::time::Instant;

/// The SDK's bytes validation then `base64.b64encode`: padding may be
/// missing, the URL-safe alphabet is rejected.
fn signature(part: &Value) -> Result<Option<String>, ParseError> {
    let Some(sig) = get(part, "thoughtSignature") else {
        return Ok(None);
    };
    let Some(text) = sig.as_str() else {
        return Err(ParseError::new(
            "ValidationError",
            "1 validation error for Part\nthought_signature\n  Input should be a valid bytes",
        ));
    };
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let bytes = engine.decode(text.trim_end_matches('\n')).map_err(|e| {
        ParseError::new(
            "ValidationError",
            format!(
                "1 validation error for Part\nthought_signature\n  Base64 decoding error: '{e}'"
            ),
        )
    })?;
    if bytes.is_empty() {
        // `if part.thought_signature:` is false for b"".
        return Ok(None);
    }
    Ok(Some(
        base64::engine::general_purpose::STANDARD.encode(bytes),
    ))
}

fn parts(body: &Value) -> &[Value] {
    get(body, "candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .and_then(|c| get(c, "content"))
        .and_then(|c| get(c, "parts"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn usage_of(body: &Value, start: Instant) -> Option<Usage> {
    let u = get(body, "usageMetadata")?;
    let prompt = get(u, "promptTokenCount")?;
    let total = get(u, "totalTokenCount")?;
    let output = match (prompt.as_i64(), total.as_i64()) {
        (Some(p), Some(t)) => Value::from(t - p),
        _ => Value::Null,
    };
    Some(Usage::new(prompt.clone(), output, start, Value::Null))
}

/// A `functionCall` part as AgentScope's tool_use block; `n` counts the
/// calls collected so far.
fn tool_call(part: &Value, call: &Value, n: usize) -> Result<Value, ParseError> {
    let args = match get(call, "args") {
        Some(a) if truthy(Some(a)) => a.clone(),
        _ => Value::Object(Map::new()),
    };
    let sig = signature(part)?;
    let id = match (&sig, get(call, "id").filter(|i| truthy(Some(i)))) {
        (Some(s), _) => Value::String(s.clone()),
        (None, Some(id)) => id.clone(),
        (None, None) => Value::String(format!("call_{n}")),
    };
    let raw = crate::py::dumps(&args);
    let mut block = tool_use_block(
        id,
        call.get("name").cloned().unwrap_or(Value::Null),
        args,
        Some(Value::String(raw)),
    );
    if let Some(s) = sig {
        block["thought_signature"] = Value::String(s);
    }
    Ok(block)
}

/// `response.text`: the non-thought text parts joined, or None.
fn response_text(body: &Value) -> Option<String> {
    let mut any = false;
    let mut out = String::new();
    for part in parts(body) {
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            any = true;
            out.push_str(t);
        }
    }
    any.then_some(out)
}

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let mut content = Vec::new();
    let mut calls = Vec::new();
    let mut text_signature = None;
    for part in parts(body) {
        if let Some(t) = part.get("text").filter(|t| truthy(Some(t))) {
            let text = crate::py::py_str(t);
            if truthy(part.get("thought")) {
                content.push(thinking_block(&text));
            } else {
                content.push(text_block(&text));
            }
        }
        if let Some(call) = get(part, "functionCall") {
            calls.push(tool_call(part, call, calls.len())?);
        } else if let Some(sig) = signature(part)? {
            text_signature = Some(sig);
        }
    }
    if let Some(sig) = text_signature {
        if let Some(block) = content
            .iter_mut()
            .rev()
            .find(|b| str_of(b, "type") == Some("text"))
        {
            block["thought_signature"] = Value::String(sig);
        }
    }
    let mut metadata = Value::Null;
    if opts.structured {
        if let Some(text) = response_text(body).filter(|t| !t.is_empty()) {
            metadata = repair_load(&text, warnings);
        }
    }
    content.extend(calls);
    let id = str_of(body, "responseId").map(str::to_string);
    Ok(ChatResponse::new(
        &id,
        content,
        usage_of(body, start),
        metadata,
    ))
}

pub struct Stream {
    opts: Options,
    start: Instant,
    text: String,
    thinking: String,
    calls: Vec<Value>,
    text_signature: Option<String>,
    id: Option<String>,
    metadata: Value,
    last: Option<Yield>,
}

impl Stream {
    pub fn new(opts: &Options, start: Instant) -> Stream {
        Stream {
            opts: opts.clone(),
            start,
            text: String::new(),
            thinking: String::new(),
            calls: Vec::new(),
            text_signature: None,
            id: None,
            metadata: Value::Null,
            last: None,
        }
    }

    /// The blocks a yield holds.
    fn content(&self, y: &Yield) -> Vec<Value> {
        let mut content = Vec::new();
        if y.thinking > 0 {
            content.push(thinking_block(prefix(&self.thinking, y.thinking)));
        }
        if y.text > 0 {
            let mut b = text_block(prefix(&self.text, y.text));
            if let Some(sig) = &y.signature {
                b["thought_signature"] = Value::String(sig.clone());
            }
            content.push(b);
        }
        content.extend(y.tools.iter().cloned());
        content
    }
}

impl StreamParse for Stream {
    fn push(&mut self, event: &Event, warnings: &mut Warnings) -> Result<Option<bool>, ParseError> {
        let Event::Json(chunk) = event else {
            return Err(ParseError::new("JSONDecodeError", "not a JSON payload"));
        };
        for part in parts(chunk) {
            if let Some(t) = part.get("text").filter(|t| truthy(Some(t))) {
                let t = crate::py::py_str(t);
                if truthy(part.get("thought")) {
                    self.thinking.push_str(&t);
                } else {
                    self.text.push_str(&t);
                }
            }
            if let Some(call) = get(part, "functionCall") {
                let block = tool_call(part, call, self.calls.len())?;
                self.calls.push(block);
            } else if let Some(sig) = signature(part)? {
                self.text_signature = Some(sig);
            }
        }
        if !self.text.is_empty() && self.opts.structured {
            self.metadata = repair_load(&self.text, warnings);
        }
        let usage = usage_of(chunk, self.start);
        if self.id.is_none() {
            self.id = str_of(chunk, "responseId").map(str::to_string);
        }
        // Every chunk yields, even one that changed nothing: marks into the
        // text (see `stream`) and the calls.
        self.last = Some(Yield {
            id: self.id.clone(),
            usage,
            metadata: self.metadata.clone(),
            thinking: self.thinking.len(),
            text: self.text.len(),
            signature: self
                .text_signature
                .clone()
                .filter(|_| !self.text.is_empty()),
            tools: self.calls.clone(),
            ..Yield::default()
        });
        Ok(Some(true))
    }

    fn finish(&mut self, _: &mut Warnings) -> Result<bool, ParseError> {
        Ok(false)
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
