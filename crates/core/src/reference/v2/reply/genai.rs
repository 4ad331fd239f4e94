//! Gemini replies under 2.0.11 (`GeminiChatModel`, through google-genai,
//! which reads the REST body's camelCase names): thought parts are
//! thinking, a function call signed with a thought signature is named
//! `gemini_ts:` and the signature, and the usage adds tool-use prompt
//! tokens to the input and thoughts to the output.

use super::{count, dumps, field, generate_id, text, Clock, Reply, Usage};
use crate::json;
use crate::py::PyErr;
use serde_json::Value;

/// `part.x` of a REST part, by its camelCase or snake_case name.
fn part_field<'a>(p: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    field(p, camel).or_else(|| field(p, snake))
}

/// The parts of the first candidate's content.
fn parts(chunk: &Value) -> Vec<Value> {
    chunk
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// A function call's block id: the thought signature when signed (its
/// bytes as standard base64), else the call's id, else a fresh one.
fn call_id(part: &Value, call: &Value) -> Result<String, PyErr> {
    if let Some(sig) = part_field(part, "thoughtSignature", "thought_signature") {
        let bytes = crate::py::pydantic::base64_bytes(sig.as_str().unwrap_or_default())
            .map_err(|e| PyErr::value(format!("thought_signature: {e}")))?;
        if !bytes.is_empty() {
            return Ok(format!("gemini_ts:{}", crate::py::b64encode(&bytes)));
        }
    }
    Ok(text(call, "id").map_or_else(generate_id, str::to_string))
}

/// `_extract_usage`.
fn usage(meta: Option<&Value>, clock: Clock) -> Option<Usage> {
    let meta = meta.filter(|m| crate::py::truthy(m))?;
    let get = |camel: &str, snake: &str| part_field(meta, camel, snake);
    let prompt = get("promptTokenCount", "prompt_token_count")?.as_i64()?;
    let total = get("totalTokenCount", "total_token_count")?.as_i64()?;
    let tool = get("toolUsePromptTokenCount", "tool_use_prompt_token_count")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    let input = prompt + tool;
    let output = match get("candidatesTokenCount", "candidates_token_count").and_then(Value::as_i64)
    {
        Some(c) => {
            c + get("thoughtsTokenCount", "thoughts_token_count")
                .and_then(Value::as_i64)
                .unwrap_or(0)
        }
        None => total - input,
    };
    let mut usage = Usage::new(json!(input), json!(output), clock.seconds());
    usage.cache_input = get("cachedContentTokenCount", "cached_content_token_count")
        .cloned()
        .unwrap_or_else(|| count(meta, "cachedContentTokenCount"));
    Some(usage)
}

fn meta(chunk: &Value) -> Option<&Value> {
    part_field(chunk, "usageMetadata", "usage_metadata")
}

/// `_parse_completion_response`.
pub(super) fn whole(body: &Value, clock: Clock) -> Result<Reply, PyErr> {
    let mut reply = Reply::delta(
        &part_field(body, "responseId", "response_id")
            .and_then(Value::as_str)
            .map_or_else(generate_id, str::to_string),
    );
    for part in parts(body) {
        if let Some(t) = text(&part, "text") {
            let thought = part.get("thought").is_some_and(crate::py::truthy);
            let id = generate_id();
            if thought {
                reply.append_thinking(&id, t, Default::default());
            } else {
                reply.append_text(&id, t);
            }
        }
        if let Some(call) = part_field(&part, "functionCall", "function_call") {
            let args = call
                .get("args")
                .filter(|a| crate::py::truthy(a))
                .cloned()
                .unwrap_or(json!({}));
            let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
            reply.append_tool_call(&call_id(&part, call)?, name, &dumps(&args));
        }
    }
    reply.usage = usage(meta(body), clock);
    Ok(reply)
}

/// `_parse_stream_response`'s state.
pub(super) struct Stream {
    clock: Clock,
    response_id: String,
    text_id: String,
    thinking_id: String,
}

impl Stream {
    pub(super) fn new(clock: Clock) -> Stream {
        Stream {
            clock,
            response_id: generate_id(),
            text_id: generate_id(),
            thinking_id: generate_id(),
        }
    }

    pub(super) fn push(&mut self, chunk: &Value) -> Result<Option<Reply>, PyErr> {
        if let Some(id) = part_field(chunk, "responseId", "response_id").and_then(Value::as_str) {
            if !id.is_empty() {
                self.response_id = id.to_string();
            }
        }
        let mut delta = Reply::delta(&self.response_id);
        for part in parts(chunk) {
            if let Some(t) = text(&part, "text") {
                if part.get("thought").is_some_and(crate::py::truthy) {
                    delta.append_thinking(&self.thinking_id, t, Default::default());
                } else {
                    delta.append_text(&self.text_id, t);
                }
            }
            if let Some(call) = part_field(&part, "functionCall", "function_call") {
                let args = call
                    .get("args")
                    .filter(|a| crate::py::truthy(a))
                    .cloned()
                    .unwrap_or(json!({}));
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                delta.append_tool_call(&call_id(&part, call)?, name, &dumps(&args));
            }
        }
        let usage = usage(meta(chunk), self.clock);
        if delta.content.is_empty() && usage.is_none() {
            return Ok(None);
        }
        delta.usage = usage;
        Ok(Some(delta))
    }
}
