//! Chat completions replies under 2.0.11: `OpenAIChatModel`,
//! `DashScopeChatModel`, `DeepSeekChatModel`, `MoonshotChatModel` and
//! `VolcengineChatModel` parse them with five near-copies of one loop;
//! where they differ is said at each place: which reasoning field is
//! read, where the cached tokens come from, and the spoken audio (OpenAI
//! and DashScope, in different orders).

use super::{audio, count, field, generate_id, text, Block, Clock, Reply, Usage};
use crate::py::PyErr;
use crate::reference::v2::Family;
use serde_json::Value;

/// The thinking of a message or delta: `reasoning_content`, and for
/// OpenAI's class `reasoning` when that is not a string.
fn reasoning(family: Family, v: &Value) -> Option<&str> {
    match v.get("reasoning_content") {
        Some(Value::String(s)) => Some(s.as_str()),
        _ if family == Family::OpenAi => v.get("reasoning").and_then(Value::as_str),
        _ => None,
    }
    .filter(|s| !s.is_empty())
}

/// `ChatUsage` from a `usage` object.
fn usage(family: Family, u: &Value, clock: Clock) -> Usage {
    let tokens = |key: &str| match family {
        // `u.prompt_tokens or 0`.
        Family::DashScope => count(u, key),
        _ => u.get(key).cloned().unwrap_or(Value::Null),
    };
    let mut usage = Usage::new(
        tokens("prompt_tokens"),
        tokens("completion_tokens"),
        clock.seconds(),
    );
    usage.cache_input = match family {
        Family::DeepSeek => count(u, "prompt_cache_hit_tokens"),
        _ => field(u, "prompt_tokens_details")
            .map(|d| count(d, "cached_tokens"))
            .unwrap_or(serde_json::json!(0)),
    };
    usage
}

/// `_parse_completion_response`.
pub(super) fn whole(
    family: Family,
    body: &Value,
    clock: Clock,
    spoken: bool,
) -> Result<Reply, PyErr> {
    let mut content = Vec::new();
    if let Some(choice) = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    {
        let message = choice.get("message").cloned().unwrap_or(Value::Null);
        if let Some(r) = reasoning(family, &message) {
            content.push(Block::Thinking {
                id: generate_id(),
                thinking: r.into(),
                extra: Default::default(),
            });
        }
        let said = text(&message, "content");
        if let Some(t) = said {
            content.push(Block::Text {
                id: generate_id(),
                text: t.into(),
            });
        }
        if family == Family::OpenAi {
            if let Some(a) = field(&message, "audio") {
                let transcript = text(a, "transcript");
                if let (None, Some(t)) = (said, transcript) {
                    content.push(Block::Text {
                        id: generate_id(),
                        text: t.into(),
                    });
                }
                if let Some(data) = text(a, "data") {
                    // Asked for with a voice, the audio is pcm16: wrapped
                    // as WAV; otherwise it is taken as WAV already.
                    let pcm = crate::py::b64decode(&Value::String(data.to_string()))?;
                    let mut wav = if spoken {
                        audio::whole_header(pcm.len())
                    } else {
                        Vec::new()
                    };
                    wav.extend_from_slice(&pcm);
                    content.push(Block::Data {
                        id: generate_id(),
                        media_type: "audio/wav".into(),
                        bytes: wav,
                    });
                }
            }
        }
        for call in message
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            content.push(Block::ToolCall {
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                name: call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                input: call
                    .pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
            });
        }
    }
    Ok(Reply {
        content,
        is_last: true,
        id: text(body, "id").map_or_else(generate_id, str::to_string),
        usage: field(body, "usage").map(|u| usage(family, u, clock)),
    })
}

/// `_parse_stream_response`'s state.
pub(super) struct Stream {
    family: Family,
    clock: Clock,
    response_id: String,
    text_id: String,
    thinking_id: String,
    audio_id: String,
    audio_started: bool,
    usage: Option<Usage>,
    /// Tool-call index → (id, name) as first seen.
    calls: Vec<(i64, Option<String>, String)>,
    /// The SDK read `[DONE]` and stopped.
    pub(super) done: bool,
}

impl Stream {
    pub(super) fn new(family: Family, clock: Clock) -> Stream {
        Stream {
            family,
            clock,
            response_id: generate_id(),
            text_id: generate_id(),
            thinking_id: generate_id(),
            audio_id: generate_id(),
            audio_started: false,
            usage: None,
            calls: Vec::new(),
            done: false,
        }
    }

    pub(super) fn push(&mut self, chunk: &Value) -> Result<Option<Reply>, PyErr> {
        if self.done {
            return Ok(None);
        }
        if chunk.as_str().is_some_and(|s| s.starts_with("[DONE]")) {
            self.done = true;
            return Ok(None);
        }
        // The openai SDK raises on a chunk that carries an error.
        if let Some(error) = field(chunk, "error") {
            let message = match error {
                Value::Object(_) => error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("An error occurred during streaming")
                    .to_string(),
                _ => "An error occurred during streaming".into(),
            };
            return Err(PyErr::new("APIError", message));
        }
        let family = self.family;
        if let Some(id) = text(chunk, "id") {
            self.response_id = id.to_string();
        }
        let mut delta = Reply::delta(&self.response_id);
        if let Some(u) = field(chunk, "usage") {
            self.usage = Some(usage(family, u, self.clock));
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        let Some(choice) = choices.and_then(|c| c.first()) else {
            if self.usage.is_some() {
                delta.usage = self.usage.clone();
                return Ok(Some(delta));
            }
            return Ok(None);
        };
        let d = choice.get("delta").cloned().unwrap_or(Value::Null);
        if let Some(r) = reasoning(family, &d) {
            delta.append_thinking(&self.thinking_id, r, Default::default());
        }
        let said = text(&d, "content").unwrap_or_default();
        let spoken =
            field(&d, "audio").filter(|_| matches!(family, Family::OpenAi | Family::DashScope));
        match family {
            // OpenAI: the transcript joins the text, the audio comes first.
            Family::OpenAi => {
                let mut said = said.to_string();
                if let Some(a) = spoken {
                    if let Some(t) = text(a, "transcript") {
                        said.push_str(t);
                    }
                    self.audio(&mut delta, a)?;
                }
                if !said.is_empty() {
                    delta.append_text(&self.text_id, &said);
                }
                self.tool_calls(&mut delta, &d);
            }
            // DashScope: text, tool calls, then the audio and its
            // transcript.
            _ => {
                if !said.is_empty() {
                    delta.append_text(&self.text_id, said);
                }
                self.tool_calls(&mut delta, &d);
                if let Some(a) = spoken.filter(|a| crate::py::truthy(a)) {
                    if let Some(t) = text(a, "transcript") {
                        delta.append_text(&self.text_id, t);
                    }
                    self.audio(&mut delta, a)?;
                }
            }
        }
        if !delta.content.is_empty() || self.usage.is_some() {
            delta.usage = self.usage.clone();
            return Ok(Some(delta));
        }
        Ok(None)
    }

    /// A spoken piece: raw PCM, the first behind a streaming WAV header.
    fn audio(&mut self, delta: &mut Reply, a: &Value) -> Result<(), PyErr> {
        let Some(data) = text(a, "data") else {
            return Ok(());
        };
        let pcm = crate::py::b64decode(&Value::String(data.to_string()))?;
        let mut payload = Vec::new();
        if !self.audio_started {
            payload = audio::streaming_header();
            self.audio_started = true;
        }
        payload.extend_from_slice(&pcm);
        delta.append_data(&self.audio_id, &payload, "audio/wav");
        Ok(())
    }

    /// Tool-call deltas: the first delta of an index names its id and
    /// name; later ones carry arguments.
    fn tool_calls(&mut self, delta: &mut Reply, d: &Value) {
        for call in d
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call.get("index").and_then(Value::as_i64).unwrap_or(0);
            let id = text(call, "id").map(str::to_string);
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            let args = call
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !self.calls.iter().any(|(i, _, _)| *i == index) {
                self.calls
                    .push((index, id.clone(), name.unwrap_or("unknown").to_string()));
            }
            let (stored_id, stored_name) = self
                .calls
                .iter()
                .find(|(i, _, _)| *i == index)
                .map(|(_, id, name)| (id.clone(), name.clone()))
                .unwrap_or_default();
            let block = id.or(stored_id).unwrap_or_default();
            delta.append_tool_call(&block, name.unwrap_or(&stored_name), args);
        }
    }
}
