//! Ollama replies under 2.0.11 (`OllamaChatModel`, NDJSON when streamed):
//! `thinking` and `content`, tool calls with fresh ids (Ollama gives
//! none) and their arguments as JSON text, and every streamed line's
//! usage (its counts, or 0).

use super::{dumps, field, generate_id, text, Clock, Reply, Usage};
use crate::json;
use crate::py::PyErr;
use serde_json::Value;

fn calls(reply: &mut Reply, message: &Value) {
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let args = call
            .pointer("/function/arguments")
            .cloned()
            .unwrap_or(Value::Null);
        reply.append_tool_call(&generate_id(), name, &dumps(&args));
    }
}

/// `_parse_completion_response`.
pub(super) fn whole(body: &Value, clock: Clock) -> Result<Reply, PyErr> {
    let message = body.get("message").cloned().unwrap_or(Value::Null);
    let mut reply = Reply::delta(&generate_id());
    if let Some(t) = text(&message, "thinking") {
        reply.append_thinking(&generate_id(), t, Default::default());
    }
    if let Some(t) = text(&message, "content") {
        reply.append_text(&generate_id(), t);
    }
    calls(&mut reply, &message);
    if let (Some(i), Some(o)) = (field(body, "prompt_eval_count"), field(body, "eval_count")) {
        reply.usage = Some(Usage::new(i.clone(), o.clone(), clock.seconds()));
    }
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
        // The SDK raises on a line that carries an error.
        if let Some(e) = field(chunk, "error") {
            return Err(PyErr::new(
                "ResponseError",
                format!("{} (status code: -1)", crate::py::py_str(e)),
            ));
        }
        let mut delta = Reply::delta(&self.response_id);
        let message = chunk.get("message").cloned().unwrap_or(Value::Null);
        if let Some(t) = text(&message, "thinking") {
            delta.append_thinking(&self.thinking_id, t, Default::default());
        }
        if let Some(t) = text(&message, "content") {
            delta.append_text(&self.text_id, t);
        }
        calls(&mut delta, &message);
        let tokens = |k: &str| field(chunk, k).cloned().unwrap_or(json!(0));
        delta.usage = Some(Usage::new(
            tokens("prompt_eval_count"),
            tokens("eval_count"),
            self.clock.seconds(),
        ));
        Ok(Some(delta))
    }
}
