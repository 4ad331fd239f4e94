//! Replies under AgentScope 2.0.11: what its model classes make of a
//! provider's answer, whole or streamed (`../../../../tests/responses_v2`
//! holds the vectors, made by running the real classes).
//!
//! 2.x's `ChatResponse` holds typed blocks (`text`, `thinking`,
//! `tool_call` with its arguments as the raw string, `data`) and a
//! `ChatUsage`. A stream yields deltas, not snapshots: each chunk holds
//! only what it adds, empty ones are absorbed, and the base class ends
//! with one accumulated response (`_StreamAccumulator`). A module per
//! protocol: `chat` (chat completions: OpenAI, DashScope, DeepSeek,
//! Moonshot, Volcengine), `messages` (Anthropic, MiniMax), `genai`
//! (Gemini), `ollama` and `responses` (the Responses API). xAI answers
//! over gRPC, which formatscope does not speak.

mod audio;
mod chat;
mod genai;
mod messages;
mod ollama;
mod responses;

use super::Family;
use crate::json;
use crate::py::PyErr;
use serde_json::{Map, Value};

/// One content block of a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text {
        id: String,
        text: String,
    },
    /// Provider extras (`signature`, `redacted_thinking_data`,
    /// `reasoning_item_id`, ...) beside the thinking.
    Thinking {
        id: String,
        thinking: String,
        extra: Map<String, Value>,
    },
    ToolCall {
        id: String,
        name: String,
        input: String,
    },
    /// Base64 media (audio the model spoke).
    Data {
        id: String,
        media_type: String,
        bytes: Vec<u8>,
    },
}

impl Block {
    pub fn id(&self) -> &str {
        match self {
            Block::Text { id, .. }
            | Block::Thinking { id, .. }
            | Block::ToolCall { id, .. }
            | Block::Data { id, .. } => id,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Block::Text { .. } => "text",
            Block::Thinking { .. } => "thinking",
            Block::ToolCall { .. } => "tool_call",
            Block::Data { .. } => "data",
        }
    }

    /// The block as 2.x dumps it (`model_dump(mode="json")`); `stamp` is
    /// its `created_at`.
    pub fn dump(&self, stamp: &str) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!(self.kind()));
        match self {
            Block::Text { id, text } => {
                m.insert("text".into(), json!(text));
                m.insert("id".into(), json!(id));
            }
            Block::Thinking {
                id,
                thinking,
                extra,
            } => {
                m.insert("thinking".into(), json!(thinking));
                m.insert("id".into(), json!(id));
                m.insert("created_at".into(), json!(stamp));
                m.insert("finished_at".into(), Value::Null);
                m.extend(extra.clone());
                return Value::Object(m);
            }
            Block::ToolCall { id, name, input } => {
                m.insert("id".into(), json!(id));
                m.insert("name".into(), json!(name));
                m.insert("input".into(), json!(input));
                m.insert("state".into(), json!("pending"));
                m.insert("suggested_rules".into(), json!([]));
            }
            Block::Data {
                id,
                media_type,
                bytes,
            } => {
                m.insert("id".into(), json!(id));
                m.insert(
                    "source".into(),
                    json!({"type": "base64", "data": crate::py::b64encode(bytes), "media_type": media_type}),
                );
                m.insert("name".into(), Value::Null);
            }
        }
        m.insert("created_at".into(), json!(stamp));
        m.insert("finished_at".into(), Value::Null);
        Value::Object(m)
    }
}

/// `ChatUsage`: tokens in and out, the two cache counts, and the seconds
/// since the request was sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    pub input: Value,
    pub output: Value,
    pub cache_creation: Value,
    pub cache_input: Value,
    pub time: f64,
}

impl Usage {
    fn new(input: Value, output: Value, time: f64) -> Usage {
        Usage {
            input,
            output,
            cache_creation: json!(0),
            cache_input: json!(0),
            time,
        }
    }

    pub fn dump(&self) -> Value {
        json!({
            "input_tokens": &self.input,
            "output_tokens": &self.output,
            "time": Value::Number(serde_json::Number::from_string_unchecked(
                crate::py::python_float_repr(self.time),
            )),
            "cache_creation_input_tokens": &self.cache_creation,
            "cache_input_tokens": &self.cache_input,
            "type": "chat",
            "metadata": null,
        })
    }
}

/// A `ChatResponse`: a stream's delta or the whole reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub content: Vec<Block>,
    pub is_last: bool,
    pub id: String,
    pub usage: Option<Usage>,
}

impl Reply {
    fn delta(id: &str) -> Reply {
        Reply {
            content: Vec::new(),
            is_last: false,
            id: id.to_string(),
            usage: None,
        }
    }

    /// `append_text`: into the block of that id in this response, else a
    /// new one.
    fn append_text(&mut self, id: &str, text: &str) {
        for b in &mut self.content {
            if let Block::Text { id: bid, text: t } = b {
                if bid == id {
                    t.push_str(text);
                    return;
                }
            }
        }
        self.content.push(Block::Text {
            id: id.into(),
            text: text.into(),
        });
    }

    /// `append_thinking`, with extras set where not null.
    fn append_thinking(&mut self, id: &str, thinking: &str, extra: Map<String, Value>) {
        let extra: Map<String, Value> = extra.into_iter().filter(|(_, v)| !v.is_null()).collect();
        for b in &mut self.content {
            if let Block::Thinking {
                id: bid,
                thinking: t,
                extra: e,
            } = b
            {
                if bid == id {
                    t.push_str(thinking);
                    e.extend(extra);
                    return;
                }
            }
        }
        self.content.push(Block::Thinking {
            id: id.into(),
            thinking: thinking.into(),
            extra,
        });
    }

    /// `append_tool_call`.
    fn append_tool_call(&mut self, id: &str, name: &str, input: &str) {
        for b in &mut self.content {
            if let Block::ToolCall {
                id: bid, input: i, ..
            } = b
            {
                if bid == id {
                    i.push_str(input);
                    return;
                }
            }
        }
        self.content.push(Block::ToolCall {
            id: id.into(),
            name: name.into(),
            input: input.into(),
        });
    }

    /// `append_data_block`.
    fn append_data(&mut self, id: &str, data: &[u8], media_type: &str) {
        for b in &mut self.content {
            if let Block::Data {
                id: bid,
                media_type: m,
                bytes,
            } = b
            {
                if bid == id && m == media_type {
                    bytes.extend_from_slice(data);
                    return;
                }
            }
        }
        self.content.push(Block::Data {
            id: id.into(),
            media_type: media_type.into(),
            bytes: data.to_vec(),
        });
    }

    /// The response as 2.x dumps it; `stamp` is every `created_at`.
    pub fn dump(&self, stamp: &str) -> Value {
        json!({
            "content": self.content.iter().map(|b| b.dump(stamp)).collect::<Vec<_>>(),
            "is_last": self.is_last,
            "id": &self.id,
            "created_at": stamp,
            "type": "chat_response",
            "usage": self.usage.as_ref().map(Usage::dump),
            "finished_reason": "completed",
            "metadata": {},
        })
    }
}

/// `_generate_id()`: a fresh `uuid4().hex`-shaped id.
pub fn generate_id() -> String {
    use sha2::Digest;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let digest = sha2::Sha256::digest(format!("{now}:{n}:{}", std::process::id()).as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The protocol a 2.x model class's reply comes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Chat(Family),
    Responses,
    Messages,
    Genai,
    Ollama,
}

impl Protocol {
    /// The protocol of a family's model class; `None`: xAI's gRPC.
    pub fn of(family: Family) -> Option<Protocol> {
        Some(match family {
            Family::OpenAi
            | Family::DashScope
            | Family::DeepSeek
            | Family::Moonshot
            | Family::Volcengine => Protocol::Chat(family),
            Family::Responses => Protocol::Responses,
            Family::Anthropic | Family::MiniMax => Protocol::Messages,
            Family::Gemini => Protocol::Genai,
            Family::Ollama => Protocol::Ollama,
            Family::Xai => return None,
        })
    }
}

/// What the model class sent (the seconds since are the usage's time).
#[derive(Debug, Clone, Copy)]
pub struct Clock(pub std::time::Instant);

impl Clock {
    fn seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

/// A whole (non-streamed) reply parsed as the model class does;
/// `spoken` when the request asked for audio (`voice`: raw pcm16, wrapped
/// as WAV).
pub fn parse_whole(
    protocol: Protocol,
    body: &Value,
    clock: Clock,
    spoken: bool,
) -> Result<Reply, PyErr> {
    let mut reply = match protocol {
        Protocol::Chat(family) => chat::whole(family, body, clock, spoken)?,
        Protocol::Responses => responses::whole(body, clock)?,
        Protocol::Messages => messages::whole(body, clock)?,
        Protocol::Genai => genai::whole(body, clock)?,
        Protocol::Ollama => ollama::whole(body, clock)?,
    };
    reply.is_last = true;
    Ok(reply)
}

/// A stream parsed as the model class does, then accumulated as the base
/// class does.
pub struct Stream {
    parser: Parser,
    acc: Accumulator,
    /// What AgentScope logged.
    pub warnings: Vec<String>,
}

enum Parser {
    Chat(chat::Stream),
    Responses(responses::Stream),
    Messages(messages::Stream),
    Genai(genai::Stream),
    Ollama(ollama::Stream),
}

impl Stream {
    pub fn new(protocol: Protocol, clock: Clock) -> Stream {
        let parser = match protocol {
            Protocol::Chat(family) => Parser::Chat(chat::Stream::new(family, clock)),
            Protocol::Responses => Parser::Responses(responses::Stream::new(clock)),
            Protocol::Messages => Parser::Messages(messages::Stream::new(clock)),
            Protocol::Genai => Parser::Genai(genai::Stream::new(clock)),
            Protocol::Ollama => Parser::Ollama(ollama::Stream::new(clock)),
        };
        Stream {
            parser,
            acc: Accumulator::default(),
            warnings: Vec::new(),
        }
    }

    /// One event of the stream (an SSE frame's JSON, an NDJSON line;
    /// OpenAI's `[DONE]` as the string): the delta the agent receives,
    /// when it has content, or the error the SDK or the class raises.
    pub fn push(&mut self, event: &Value) -> Result<Option<Reply>, PyErr> {
        let delta = match &mut self.parser {
            Parser::Chat(p) => p.push(event)?,
            Parser::Responses(p) => p.push(event)?,
            Parser::Messages(p) => p.push(event)?,
            Parser::Genai(p) => p.push(event)?,
            Parser::Ollama(p) => p.push(event)?,
        };
        let Some(delta) = delta else { return Ok(None) };
        self.acc.append(&delta, &mut self.warnings);
        Ok((!delta.content.is_empty()).then_some(delta))
    }

    /// Whether the SDK stopped reading (OpenAI's `[DONE]`).
    pub fn done(&self) -> bool {
        matches!(&self.parser, Parser::Chat(p) if p.done)
    }

    /// The accumulated response so far (what the final one would be if
    /// the stream ended here).
    pub fn snapshot(&self) -> Reply {
        let acc = Accumulator {
            blocks: self.acc.blocks.clone(),
            id: self.acc.id.clone(),
            usage: self.acc.usage.clone(),
        };
        self.built(acc)
    }

    /// The accumulated final response.
    pub fn finish(mut self) -> Reply {
        let acc = std::mem::take(&mut self.acc);
        self.built(acc)
    }

    fn built(&self, acc: Accumulator) -> Reply {
        let shared = match &self.parser {
            // Anthropic's parser updates one usage object in place: the
            // accumulator holds it, so its state now is the final's.
            Parser::Messages(p) => p.usage(),
            _ => None,
        };
        let mut reply = acc.build();
        if reply.usage.is_some() && shared.is_some() {
            reply.usage = shared;
        }
        reply
    }
}

/// `_StreamAccumulator`: blocks by id in order of arrival, each joined
/// once; the latest usage; the latest chunk's id.
#[derive(Default)]
struct Accumulator {
    blocks: Vec<Block>,
    id: Option<String>,
    usage: Option<Usage>,
}

impl Accumulator {
    fn append(&mut self, delta: &Reply, warnings: &mut Vec<String>) {
        self.id = Some(delta.id.clone());
        for block in &delta.content {
            let at = self.blocks.iter().position(|b| b.id() == block.id());
            let Some(i) = at else {
                self.blocks.push(block.clone());
                continue;
            };
            if self.blocks[i].kind() != block.kind() {
                warnings.push(format!(
                    "Block {} changed its type from {} to {} during streaming, dropping the accumulated fragments.",
                    block.id(),
                    self.blocks[i].kind(),
                    block.kind()
                ));
                self.blocks[i] = block.clone();
                continue;
            }
            match (&mut self.blocks[i], block) {
                (Block::Text { text, .. }, Block::Text { text: more, .. }) => text.push_str(more),
                (
                    Block::Thinking {
                        thinking, extra, ..
                    },
                    Block::Thinking {
                        thinking: more,
                        extra: more_extra,
                        ..
                    },
                ) => {
                    thinking.push_str(more);
                    extra.extend(more_extra.clone());
                }
                (
                    Block::ToolCall { name, input, .. },
                    Block::ToolCall {
                        name: more_name,
                        input: more,
                        ..
                    },
                ) => {
                    input.push_str(more);
                    if name.is_empty() && !more_name.is_empty() {
                        *name = more_name.clone();
                    }
                }
                (
                    Block::Data {
                        media_type, bytes, ..
                    },
                    Block::Data {
                        media_type: more_type,
                        bytes: more,
                        ..
                    },
                ) => {
                    if media_type == more_type && media_type.starts_with("audio/") {
                        bytes.extend_from_slice(more);
                    } else {
                        *media_type = more_type.clone();
                        *bytes = more.clone();
                    }
                }
                _ => {}
            }
        }
        if delta.usage.is_some() {
            self.usage = delta.usage.clone();
        }
    }

    fn build(self) -> Reply {
        let content = self
            .blocks
            .into_iter()
            .map(|b| match b {
                Block::Data {
                    id,
                    media_type,
                    bytes,
                } if media_type == "audio/wav" => Block::Data {
                    id,
                    bytes: audio::finalize_streaming_wav(bytes),
                    media_type,
                },
                other => other,
            })
            .collect();
        Reply {
            content,
            is_last: true,
            id: self.id.unwrap_or_else(generate_id),
            usage: self.usage,
        }
    }
}

/// `getattr(obj, key, None)` of an SDK object parsed from JSON: absent and
/// `null` are the same.
fn field<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// A string field, when it is a non-empty string (Python's truthiness).
fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    field(v, key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// `json.dumps(value, ensure_ascii=False)`.
fn dumps(v: &Value) -> String {
    crate::py::dumps(v)
}

/// A number field, or 0.
fn count(v: &Value, key: &str) -> Value {
    field(v, key).cloned().unwrap_or(json!(0))
}

/// `datetime.now().isoformat()` (UTC here: the core reads no time zone).
pub fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = crate::response::civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_micros()
    )
}

/// A reply parsed for `send`: the release interface's side of this module.
pub struct Parsing {
    protocol: Protocol,
    clock: Clock,
    spoken: bool,
    stream: Option<Stream>,
}

impl Parsing {
    /// The parsing of a reply to a request sent now; `spoken` when it asked
    /// for audio.
    pub fn new(protocol: Protocol, spoken: bool) -> Parsing {
        let clock = Clock(std::time::Instant::now());
        Parsing {
            protocol,
            clock,
            spoken,
            stream: None,
        }
    }
}

impl crate::reference::Replies for Parsing {
    fn push(&mut self, event: &Value) -> Result<Option<Value>, crate::reference::Raised> {
        let (protocol, clock) = (self.protocol, self.clock);
        let stream = self
            .stream
            .get_or_insert_with(|| Stream::new(protocol, clock));
        Ok(stream.push(event)?.map(|r| r.dump(&timestamp())))
    }

    fn done(&self) -> bool {
        self.stream.as_ref().is_some_and(Stream::done)
    }

    fn snapshot(&self) -> Value {
        match &self.stream {
            Some(s) => s.snapshot().dump(&timestamp()),
            None => Value::Null,
        }
    }

    fn held(&self, reply: &Value, name: &str) -> Value {
        assistant_msg(name, reply)
    }

    fn finish(self: Box<Self>) -> Value {
        let stream = self
            .stream
            .unwrap_or_else(|| Stream::new(self.protocol, self.clock));
        stream.finish().dump(&timestamp())
    }

    fn whole(&mut self, body: &Value) -> Result<Value, crate::reference::Raised> {
        Ok(parse_whole(self.protocol, body, self.clock, self.spoken)?.dump(&timestamp()))
    }

    fn warnings(&self) -> Vec<String> {
        self.stream
            .as_ref()
            .map(|s| s.warnings.clone())
            .unwrap_or_default()
    }
}

/// The reply as a 2.x agent holds it: an `AssistantMsg` of the response's
/// blocks, its usage, `completed` (`ReActAgent` yields it so).
pub fn assistant_msg(name: &str, reply: &Value) -> Value {
    let stamp = timestamp();
    json!({
        "name": name,
        "content": reply.get("content").cloned().unwrap_or(json!([])),
        "role": "assistant",
        "id": generate_id(),
        "metadata": {},
        "created_at": stamp,
        "usage": reply.get("usage").cloned().unwrap_or(Value::Null),
        "finished_at": null,
        "finished_reason": "completed",
        "structured_output": null,
        "error": null,
    })
}
