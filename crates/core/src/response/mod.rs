//! AgentScope's response parsing: what its model classes
//! (`OpenAIChatModel`, `AnthropicChatModel`, ...) build from a provider's
//! reply, whole or streamed. Pure core: JSON events in, `ChatResponse`s out;
//! the HTTP client that reads the events lives in the CLI.
//!
//! A stream parser takes one event at a time (an SSE `data:` payload or an
//! NDJSON line, parsed) and says whether AgentScope yields a response for
//! it: a cumulative snapshot, not a delta, built only when asked (see
//! `stream`: building every one would be quadratic).

pub mod anthropic;
pub mod args;
pub mod dashscope;
pub mod framing;
pub mod gemini;
pub mod json_repair;
pub mod ollama;
pub mod openai;
pub mod openai_responses;
pub mod stream;
pub mod structured;
pub mod think;

pub use stream::{StreamParse, StreamParser, Yield, Yielded};

use crate::json;
use serde_json::{Map, Value};
use std::time::Instant;

/// Which model class parses: the six providers, plus OpenAI's Responses API
/// (`OpenAIResponseModel`), which no formatter targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    OpenAi,
    DeepSeek,
    Anthropic,
    DashScope,
    Gemini,
    Ollama,
    OpenAiResponses,
}

impl Api {
    pub const ALL: [Api; 7] = [
        Api::OpenAi,
        Api::DeepSeek,
        Api::Anthropic,
        Api::DashScope,
        Api::Gemini,
        Api::Ollama,
        Api::OpenAiResponses,
    ];

    /// The oracle's `--provider` name.
    pub fn id(self) -> &'static str {
        match self {
            Api::OpenAi => "openai",
            Api::DeepSeek => "deepseek",
            Api::Anthropic => "anthropic",
            Api::DashScope => "dashscope",
            Api::Gemini => "gemini",
            Api::Ollama => "ollama",
            Api::OpenAiResponses => "openai-responses",
        }
    }

    pub fn from_id(name: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.id() == name)
    }

    pub fn from_provider(p: crate::provider::Provider) -> Api {
        use crate::provider::Provider as P;
        match p {
            P::OpenAi => Api::OpenAi,
            P::DeepSeek => Api::DeepSeek,
            P::Anthropic => Api::Anthropic,
            P::DashScope => Api::DashScope,
            P::Gemini => Api::Gemini,
            P::Ollama => Api::Ollama,
        }
    }

    pub fn model_class(self) -> &'static str {
        match self {
            Api::OpenAi | Api::DeepSeek => "OpenAIChatModel",
            Api::Anthropic => "AnthropicChatModel",
            Api::DashScope => "DashScopeChatModel",
            Api::Gemini => "GeminiChatModel",
            Api::Ollama => "OllamaChatModel",
            Api::OpenAiResponses => "OpenAIResponseModel",
        }
    }

    /// The response oracle's default model name.
    pub fn default_model(self) -> &'static str {
        match self {
            Api::OpenAi => "gpt-4o",
            Api::DeepSeek => "deepseek-chat",
            Api::Anthropic => "claude-sonnet-4-5",
            Api::DashScope => "qwen-plus",
            Api::Gemini => "gemini-2.5-flash",
            Api::Ollama => "qwen3:8b",
            Api::OpenAiResponses => "o4-mini",
        }
    }

    /// Whether the model class has the `stream_tool_parsing` option.
    pub fn has_stream_tool_parsing(self) -> bool {
        !matches!(self, Api::Gemini | Api::Ollama)
    }
}

/// The model class's constructor options that change parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub model_name: String,
    pub stream_tool_parsing: bool,
    /// A `structured_model` was passed (the oracle's `WeatherReport`).
    pub structured: bool,
    /// OpenAI `generate_kwargs.audio.format`.
    pub audio_format: Option<String>,
    /// DashScope's `multimodality` flag.
    pub multimodality: Option<bool>,
    /// Beyond the reference: split `<think>…</think>` in DashScope and
    /// Ollama text into a thinking block (off by default).
    pub split_think_tags: bool,
}

impl Options {
    pub fn new(api: Api) -> Options {
        Options {
            model_name: api.default_model().to_string(),
            stream_tool_parsing: true,
            structured: false,
            audio_format: None,
            multimodality: None,
            split_think_tags: false,
        }
    }
}

/// `ChatUsage`.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    pub input_tokens: Value,
    pub output_tokens: Value,
    /// Seconds since the request started.
    pub time: f64,
    /// The provider's usage object where AgentScope keeps it, else null.
    pub metadata: Value,
}

impl Usage {
    pub fn new(input: Value, output: Value, start: Instant, metadata: Value) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            time: start.elapsed().as_secs_f64(),
            metadata,
        }
    }

    pub fn input(&self) -> Option<u64> {
        self.input_tokens.as_u64()
    }

    pub fn output(&self) -> Option<u64> {
        self.output_tokens.as_u64()
    }

    /// The prompt tokens read from the provider's cache, where the usage
    /// AgentScope keeps reports them (OpenAI and DashScope:
    /// `prompt_tokens_details.cached_tokens`; DeepSeek:
    /// `prompt_cache_hit_tokens`), all counted in `input_tokens`. None:
    /// not reported (AgentScope keeps no usage object of Anthropic, Gemini
    /// or Ollama).
    pub fn cached(&self) -> Option<u64> {
        let m = &self.metadata;
        m.get("prompt_tokens_details")
            .and_then(|d| d.get("cached_tokens"))
            .and_then(Value::as_u64)
            .or_else(|| m.get("prompt_cache_hit_tokens").and_then(Value::as_u64))
    }
}

/// One `ChatResponse` AgentScope returns or yields.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The provider's id; `None` when AgentScope generates one (a timestamp
    /// and random digits).
    pub id: Option<String>,
    /// AgentScope's blocks, as plain JSON in its key order.
    pub content: Vec<Value>,
    pub usage: Option<Usage>,
    /// The structured-output object, else null.
    pub metadata: Value,
}

impl ChatResponse {
    pub fn new(
        id: &Option<String>,
        content: Vec<Value>,
        usage: Option<Usage>,
        metadata: Value,
    ) -> Self {
        ChatResponse {
            // `if response_id: kwargs["id"] = response_id`: an empty id is
            // replaced by a generated one.
            id: id.clone().filter(|s| !s.is_empty()),
            content,
            usage,
            metadata,
        }
    }

    /// The concatenated text blocks.
    pub fn text(&self) -> String {
        self.blocks_of("text", "text")
    }

    pub fn thinking(&self) -> String {
        self.blocks_of("thinking", "thinking")
    }

    fn blocks_of(&self, kind: &str, field: &str) -> String {
        let mut out = String::new();
        for b in &self.content {
            if b.get("type").and_then(Value::as_str) == Some(kind) {
                if let Some(t) = b.get(field).and_then(Value::as_str) {
                    out.push_str(t);
                }
            }
        }
        out
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &Value> {
        self.content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
    }

    /// In the oracle's shape. `neutral` writes `"<generated>"` for a
    /// generated id and `"<elapsed>"` for the time, as the golden files do;
    /// otherwise a generated id is made now and the time is the real one.
    pub fn to_json(&self, neutral: bool) -> Value {
        let id = match (&self.id, neutral) {
            (Some(id), _) => Value::String(id.clone()),
            (None, true) => Value::String("<generated>".into()),
            (None, false) => Value::String(generated_id()),
        };
        let usage = match &self.usage {
            None => Value::Null,
            Some(u) => json!({
                "input_tokens": &u.input_tokens,
                "output_tokens": &u.output_tokens,
                "time": if neutral { Value::String("<elapsed>".into()) } else { float(u.time) },
                "type": "chat",
                "metadata": &u.metadata,
            }),
        };
        json!({
            "id": id,
            "content": &self.content,
            "usage": usage,
            "metadata": &self.metadata,
        })
    }

    /// The assistant message an agent keeps: `Msg(name, content, "assistant")`
    /// (named with [`reply_speaker`] when it joins a session).
    pub fn to_message(&self, name: &str) -> Value {
        json!({"name": name, "role": "assistant", "content": &self.content})
    }

    /// Whether an agent would have something to hold of this response: at
    /// least one [`usable_block`]. Every parser reads any JSON it is given,
    /// so another API's body parses too, to no blocks or to blocks of nulls
    /// (Anthropic's parser reads an OpenAI body as `content: []` with
    /// `null` token counts): such a reply is not the provider's.
    pub fn holds_something(&self) -> bool {
        holds_something(&self.content)
    }
}

/// The last `most` bytes or so of `s` (from a char boundary), after a
/// line that says how much is left out: a view shows the end of a reply
/// that may be 64 MB without laying all of it out.
pub fn tail(s: &str, most: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= most {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut cut = s.len() - most;
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    std::borrow::Cow::Owned(format!(
        "[… {} KB above, not shown]\n{}",
        cut.div_ceil(1024),
        &s[cut..]
    ))
}

/// Whether any of `blocks` is a [`usable_block`].
pub fn holds_something(blocks: &[Value]) -> bool {
    blocks.iter().any(usable_block)
}

/// A block an agent can use: text or thinking that is not empty, a tool
/// call with a name, media with data or a URL (1.x's blocks and 2.x's:
/// `tool_use` / `tool_call`, `image` / `audio` / `video` / `data`).
pub fn usable_block(block: &Value) -> bool {
    let filled = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|s| !s.is_empty());
    match block.get("type").and_then(Value::as_str) {
        Some("text") => filled(block.get("text")),
        Some("thinking") => filled(block.get("thinking")),
        Some("tool_use" | "tool_call") => filled(block.get("name")),
        Some("image" | "audio" | "video" | "data") => block
            .get("source")
            .is_some_and(|s| filled(s.get("data")) || filled(s.get("url"))),
        _ => false,
    }
}

/// Who speaks a reply added to `messages`: the last assistant's name, else
/// "assistant".
pub fn reply_speaker<M: std::borrow::Borrow<Value>>(
    messages: impl DoubleEndedIterator<Item = M>,
) -> String {
    messages
        .rev()
        .find(|m| m.borrow().get("role").and_then(Value::as_str) == Some("assistant"))
        .and_then(|m| {
            m.borrow()
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "assistant".to_string())
}

fn float(f: f64) -> Value {
    serde_json::Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// AgentScope's generated id: `"%Y-%m-%d %H:%M:%S.%f"[:-3]` and six random
/// hex digits (UTC here: the core reads no time zone).
pub fn generated_id() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    let mut rnd = [0u8; 3];
    for (i, b) in rnd.iter_mut().enumerate() {
        *b = (now.subsec_nanos() >> (i * 8)) as u8 ^ (std::process::id() >> (i * 4)) as u8;
    }
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:03}_{:02x}{:02x}{:02x}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis(),
        rnd[0],
        rnd[1],
        rnd[2]
    )
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// What the SDK or AgentScope raised while parsing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The Python class name (`APIError`, `RuntimeError`, ...).
    pub error_type: String,
    pub message: String,
    /// `parse`, or `structured` when OpenAI's response_format parse failed
    /// and AgentScope would send a second, tool-call request.
    pub stage: &'static str,
}

impl ParseError {
    pub fn new(error_type: &str, message: impl Into<String>) -> Self {
        ParseError {
            error_type: error_type.into(),
            message: message.into(),
            stage: "parse",
        }
    }

    pub fn structured_fallback(reason: impl Into<String>) -> Self {
        ParseError {
            error_type: "StructuredOutputFallback".into(),
            message: format!(
                "response_format structured output failed; AgentScope would send a second \
                 request (tool-call fallback): {}",
                reason.into()
            ),
            stage: "structured",
        }
    }

    /// Python's AttributeError for a missing SDK attribute.
    pub fn attribute(object: &str, attr: &str) -> Self {
        ParseError::new(
            "AttributeError",
            format!("'{object}' object has no attribute '{attr}'"),
        )
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error_type, self.message)
    }
}

/// The input is not what a provider sends (not an AgentScope error): the
/// oracle exits 2 on these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Warnings AgentScope logs while parsing, in order.
pub type Warnings = Vec<String>;

/// Parses one whole (non-streamed) response body.
pub fn parse_whole(
    api: Api,
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let mut resp = match api {
        Api::OpenAi | Api::DeepSeek => openai::parse_whole(body, opts, start, warnings)?,
        Api::Anthropic => anthropic::parse_whole(body, opts, start)?,
        Api::DashScope => dashscope::parse_whole(body, opts, start, warnings)?,
        Api::Gemini => gemini::parse_whole(body, opts, start, warnings)?,
        Api::Ollama => ollama::parse_whole(body, opts, start, warnings)?,
        Api::OpenAiResponses => openai_responses::parse_whole(body, opts, start, warnings)?,
    };
    if opts.split_think_tags && matches!(api, Api::DashScope | Api::Ollama) {
        think::split(&mut resp);
    }
    Ok(resp)
}

/// One stream event, as the SSE or NDJSON reader hands it over.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A parsed `data:` payload or NDJSON line.
    Json(Value),
    /// A payload that is not JSON (OpenAI's `[DONE]`).
    Text(String),
}

impl From<Value> for Event {
    fn from(v: Value) -> Event {
        match v {
            Value::String(s) => Event::Text(s),
            other => Event::Json(other),
        }
    }
}

/// The model class's stream parser (the hub picks it, as for
/// [`parse_whole`]; `stream` wraps it).
fn stream_parser(api: Api, opts: &Options, start: Instant) -> Box<dyn StreamParse + Send> {
    match api {
        Api::OpenAi | Api::DeepSeek => Box::new(openai::Stream::new(opts, start)),
        Api::Anthropic => Box::new(anthropic::Stream::new(opts, start)),
        Api::DashScope => Box::new(dashscope::Stream::new(opts, start)),
        Api::Gemini => Box::new(gemini::Stream::new(opts, start)),
        Api::Ollama => Box::new(ollama::Stream::new(opts, start)),
        Api::OpenAiResponses => Box::new(openai_responses::Stream::new(opts, start)),
    }
}

/// What the response oracle prints for a recorded response.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub chunks: Option<Vec<ChatResponse>>,
    pub final_response: Option<ChatResponse>,
    pub warnings: Warnings,
    pub error: Option<ParseError>,
}

/// Parses a recorded response: one body, or (`stream`) the JSON array of
/// the stream's events.
pub fn parse_recorded(
    api: Api,
    data: &Value,
    stream: bool,
    opts: &Options,
) -> Result<Recorded, InputError> {
    let mut chunks = Vec::new();
    let mut recorded =
        parse_recorded_each(api, data, stream, opts, &mut |c| chunks.push(c.clone()))?;
    if stream {
        recorded.chunks = Some(chunks);
    }
    Ok(recorded)
}

/// As [`parse_recorded`], but each stream chunk goes to `on_chunk` as it
/// is made and is not kept (`chunks` stays `None`): a caller that writes
/// them out holds one chunk at a time, not every cumulative snapshot.
pub fn parse_recorded_each(
    api: Api,
    data: &Value,
    stream: bool,
    opts: &Options,
    on_chunk: &mut dyn FnMut(&ChatResponse),
) -> Result<Recorded, InputError> {
    let start = Instant::now();
    if !opts.stream_tool_parsing && !api.has_stream_tool_parsing() {
        return Err(InputError(format!(
            "{} has no stream_tool_parsing option",
            api.model_class()
        )));
    }
    if !stream {
        if !data.is_object() {
            return Err(InputError(
                "a non-streamed response must be a JSON object (use --stream for an event list)"
                    .into(),
            ));
        }
        let mut warnings = Vec::new();
        return Ok(match parse_whole(api, data, opts, start, &mut warnings) {
            Ok(r) => Recorded {
                chunks: None,
                final_response: Some(r),
                warnings,
                error: None,
            },
            Err(e) => Recorded {
                chunks: None,
                final_response: None,
                warnings,
                error: Some(e),
            },
        });
    }
    let Some(events) = data.as_array() else {
        return Err(InputError(
            "with --stream the file must hold a JSON array of events".into(),
        ));
    };
    check_events(api, events)?;
    let mut parser = StreamParser::new(api, opts, start);
    // Every yield is built: the output holds them all.
    let mut emit = |yielded: bool, parser: &StreamParser| {
        if let Some(c) = parser.latest().filter(|_| yielded) {
            on_chunk(&c);
        }
    };
    let mut error = None;
    for ev in events {
        match parser.push(&Event::from(ev.clone())) {
            Ok(y) => emit(y, &parser),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
        if parser.stopped() {
            break;
        }
    }
    if error.is_none() {
        match parser.finish() {
            Ok(y) => emit(y, &parser),
            Err(e) => error = Some(e),
        }
    }
    // When parsing failed, the agent's response is the last one yielded.
    let final_response = if error.is_some() {
        parser.latest()
    } else {
        parser.final_response()
    };
    Ok(Recorded {
        chunks: None,
        final_response,
        warnings: std::mem::take(&mut parser.warnings),
        error,
    })
}

/// The oracle's input checks on a recorded event list.
fn check_events(api: Api, events: &[Value]) -> Result<(), InputError> {
    for ev in events {
        match (api, ev) {
            (Api::OpenAi | Api::DeepSeek | Api::OpenAiResponses, Value::String(s)) => {
                if s.starts_with("[DONE]") {
                    return Ok(());
                }
                return Err(InputError(format!(
                    "unexpected string event {} (only \"[DONE]\" is allowed)",
                    crate::py::py_repr(ev)
                )));
            }
            (Api::OpenAi | Api::DeepSeek | Api::OpenAiResponses, _) => {}
            (_, Value::Object(_)) => {}
            (api, other) => {
                let what = match api {
                    Api::Anthropic => "anthropic stream events must be objects",
                    Api::DashScope => "dashscope stream events must be objects",
                    Api::Gemini => "gemini stream events must be objects",
                    _ => "ollama stream lines must be objects",
                };
                return Err(InputError(format!(
                    "{what}, got {}",
                    crate::py::py_repr(other)
                )));
            }
        }
    }
    Ok(())
}

impl Recorded {
    /// The oracle's output object.
    pub fn to_json(&self, api: Api, stream: bool, opts: &Options) -> Value {
        let mut out = Recorded::json_head(api, stream, opts);
        if let Some(chunks) = &self.chunks {
            out.insert(
                "chunks".into(),
                Value::Array(chunks.iter().map(|c| c.to_json(true)).collect()),
            );
        }
        out.extend(self.json_tail());
        Value::Object(out)
    }

    /// The output object's members before `chunks`.
    pub fn json_head(api: Api, stream: bool, opts: &Options) -> Map<String, Value> {
        let mut options = Map::new();
        options.insert("model_name".into(), opts.model_name.clone().into());
        if api.has_stream_tool_parsing() {
            options.insert(
                "stream_tool_parsing".into(),
                opts.stream_tool_parsing.into(),
            );
        }
        if opts.structured {
            options.insert("structured_model".into(), "WeatherReport".into());
        }
        if let Some(f) = &opts.audio_format {
            options.insert("audio_format".into(), f.clone().into());
        }
        if let Some(m) = opts.multimodality {
            options.insert("multimodality".into(), m.into());
        }
        if opts.split_think_tags {
            options.insert("split_think_tags".into(), true.into());
        }
        let mut out = Map::new();
        out.insert("provider".into(), api.id().into());
        out.insert("model_class".into(), api.model_class().into());
        out.insert("stream".into(), stream.into());
        out.insert("options".into(), Value::Object(options));
        out
    }

    /// The output object's members after `chunks`.
    pub fn json_tail(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert(
            "final".into(),
            self.final_response
                .as_ref()
                .map(|r| r.to_json(true))
                .unwrap_or(Value::Null),
        );
        if !self.warnings.is_empty() {
            out.insert("warnings".into(), self.warnings.clone().into());
        }
        if let Some(e) = &self.error {
            out.insert("error".into(), e.message.clone().into());
            out.insert("error_type".into(), e.error_type.clone().into());
            out.insert("stage".into(), e.stage.into());
        }
        out
    }
}

/// `getattr(obj, key, None)` on a JSON object: missing and null alike.
pub(crate) fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key).filter(|x| !x.is_null())
}

/// Python truthiness of a JSON value.
pub(crate) fn truthy(v: Option<&Value>) -> bool {
    v.is_some_and(crate::py::truthy)
}

pub(crate) fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

pub(crate) fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

pub(crate) fn thinking_block(text: &str) -> Value {
    json!({"type": "thinking", "thinking": text})
}

pub(crate) fn tool_use_block(id: Value, name: Value, input: Value, raw: Option<Value>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "tool_use".into());
    m.insert("id".into(), id);
    m.insert("name".into(), name);
    m.insert("input".into(), input);
    if let Some(raw) = raw {
        m.insert("raw_input".into(), raw);
    }
    Value::Object(m)
}
