//! `OpenAIChatModel`: chat completions from OpenAI, DeepSeek and every
//! OpenAI-compatible server (`_parse_openai_completion_response`,
//! `_parse_openai_stream_response`).

use super::args::repair_load;
use super::stream::{keep_whole, prefix};
use super::structured;
use super::{
    get, str_of, text_block, thinking_block, tool_use_block, truthy, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings, Yield,
};
use crate::json;
use serde_json::{Map, Value};
use std::time::Instant;

/// `CompletionUsage`'s fields in the SDK's order (`model_dump` writes them
/// so; extra fields such as DeepSeek's cache counts follow).
const USAGE_FIELDS: &[(&str, &[&str])] = &[
    ("completion_tokens", &[]),
    ("prompt_tokens", &[]),
    ("total_tokens", &[]),
    (
        "completion_tokens_details",
        &[
            "accepted_prediction_tokens",
            "audio_tokens",
            "reasoning_tokens",
            "rejected_prediction_tokens",
        ],
    ),
    ("prompt_tokens_details", &["audio_tokens", "cached_tokens"]),
];

/// A pydantic object dumped with `exclude_unset=True`: the fields sent, in
/// the model's field order, extras after.
pub(crate) fn sdk_order(v: &Value, fields: &[(&str, &[&str])]) -> Value {
    let Some(obj) = v.as_object() else {
        return v.clone();
    };
    let mut out = Map::new();
    for (name, sub) in fields {
        if let Some(x) = obj.get(*name) {
            let x = if sub.is_empty() {
                x.clone()
            } else {
                let subs: Vec<(&str, &[&str])> = sub.iter().map(|s| (*s, &[][..])).collect();
                sdk_order(x, &subs)
            };
            out.insert((*name).to_string(), x);
        }
    }
    for (k, x) in obj {
        if !out.contains_key(k) {
            out.insert(k.clone(), x.clone());
        }
    }
    Value::Object(out)
}

fn usage_of(u: &Value, start: Instant) -> Usage {
    Usage::new(
        u.get("prompt_tokens").cloned().unwrap_or(Value::Null),
        u.get("completion_tokens").cloned().unwrap_or(Value::Null),
        start,
        sdk_order(u, USAGE_FIELDS),
    )
}

/// `reasoning_content` if it is a string, else `reasoning` if that is.
fn reasoning(v: &Value) -> Option<&str> {
    str_of(v, "reasoning_content").or_else(|| str_of(v, "reasoning"))
}

fn audio_media_type(opts: &Options, default: &str) -> String {
    format!("audio/{}", opts.audio_format.as_deref().unwrap_or(default))
}

fn audio_block(data: Value, media_type: String) -> Value {
    // `Base64Source(data=..., media_type=..., type="base64")`: that order.
    json!({"type": "audio", "source": {"data": data, "media_type": media_type, "type": "base64"}})
}

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let choices = body
        .get("choices")
        .ok_or_else(|| ParseError::attribute("ChatCompletion", "choices"))?;
    let mut metadata = Value::Null;
    if opts.structured {
        metadata = structured::openai_parse_completion(body)?;
    }
    let mut content = Vec::new();
    if let Some(choice) = choices.as_array().and_then(|c| c.first()) {
        let message = choice
            .get("message")
            .ok_or_else(|| ParseError::attribute("Choice", "message"))?;
        if let Some(r) = reasoning(message) {
            content.push(thinking_block(r));
        }
        if truthy(message.get("content")) {
            content.push(json!({"type": "text", "text": &message["content"]}));
        }
        if let Some(audio) = get(message, "audio").filter(|a| truthy(Some(a))) {
            content.push(audio_block(
                audio.get("data").cloned().unwrap_or(Value::Null),
                audio_media_type(opts, "mp3"),
            ));
            if truthy(audio.get("transcript")) {
                content.push(json!({"type": "text", "text": &audio["transcript"]}));
            }
        }
        let calls = get(message, "tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for call in &calls {
            let function = get(call, "function").cloned().unwrap_or(Value::Null);
            let args = str_of(&function, "arguments").unwrap_or("");
            content.push(tool_use_block(
                call.get("id").cloned().unwrap_or(Value::Null),
                function.get("name").cloned().unwrap_or(Value::Null),
                repair_load(args, warnings),
                None,
            ));
        }
    }
    let usage = get(body, "usage").map(|u| usage_of(u, start));
    let id = str_of(body, "id").map(str::to_string);
    Ok(ChatResponse::new(&id, content, usage, metadata))
}

struct ToolCall {
    id: Value,
    name: Value,
    args: String,
}

/// The stream's state, as `_parse_openai_stream_response` keeps it.
pub struct Stream {
    opts: Options,
    start: Instant,
    id: Option<String>,
    usage: Option<Usage>,
    text: String,
    thinking: String,
    audio: String,
    /// Keyed by the delta's `index` (its JSON text), first-seen order.
    calls: Vec<(String, ToolCall)>,
    last_inputs: super::args::LastInputs,
    metadata: Value,
    /// The content as the last choice built it (its marks).
    contents: Yield,
    last: Option<Yield>,
    structured: structured::OpenAIStreamCheck,
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
            audio: String::new(),
            calls: Vec::new(),
            last_inputs: Default::default(),
            metadata: Value::Null,
            contents: Yield::default(),
            last: None,
            structured: structured::OpenAIStreamCheck::default(),
        }
    }

    /// Yields the content the last choice built.
    fn respond(&mut self) {
        self.last = Some(Yield {
            id: self.id.clone(),
            usage: self.usage.clone(),
            metadata: self.metadata.clone(),
            ..self.contents.clone()
        });
    }

    /// The blocks a yield holds, in `_parse_openai_stream_response`'s order.
    fn content(&self, y: &Yield) -> Vec<Value> {
        let mut contents = Vec::new();
        if y.thinking > 0 {
            contents.push(thinking_block(prefix(&self.thinking, y.thinking)));
        }
        if y.audio > 0 {
            contents.push(audio_block(
                Value::String(prefix(&self.audio, y.audio).to_string()),
                audio_media_type(&self.opts, "wav"),
            ));
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
        let chunk = match event {
            // openai's AsyncStream stops at `[DONE]`.
            Event::Text(s) if s.starts_with("[DONE]") => return Ok(None),
            Event::Text(s) => {
                return Err(ParseError::new(
                    "JSONDecodeError",
                    format!("not a JSON payload: {s}"),
                ))
            }
            Event::Json(v) => v,
        };
        if truthy(chunk.get("error")) {
            let message = chunk["error"]
                .get("message")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .unwrap_or("An error occurred during streaming");
            return Err(ParseError::new("APIError", message));
        }
        if self.opts.structured {
            // The SDK's stream helper accumulates first, and raises there.
            self.structured.accumulate(chunk)?;
        }
        if self.id.is_none() {
            // `getattr(chunk, "id", None)` until one is found ("" counts).
            self.id = str_of(chunk, "id").map(str::to_string);
        }
        if let Some(u) = get(chunk, "usage") {
            self.usage = Some(usage_of(u, self.start));
        }
        let choice = get(chunk, "choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        let Some(choice) = choice else {
            let yields = self.usage.is_some() && self.contents.has_content();
            if yields {
                self.respond();
            }
            return Ok(Some(yields));
        };
        let delta = choice
            .get("delta")
            .ok_or_else(|| ParseError::attribute("Choice", "delta"))?;
        self.thinking.push_str(reasoning(delta).unwrap_or(""));
        if let Some(t) = get(delta, "content") {
            match t.as_str() {
                Some(s) => self.text.push_str(s),
                None if truthy(Some(t)) => {
                    return Err(ParseError::new(
                        "TypeError",
                        format!(
                            "can only concatenate str (not \"{}\") to str",
                            crate::py::type_name(t)
                        ),
                    ))
                }
                None => {}
            }
        }
        if let Some(audio) = delta.get("audio") {
            // 1.0.21 tests `"data" in delta.audio`.
            let Some(a) = audio.as_object() else {
                return Err(ParseError::new(
                    "TypeError",
                    format!(
                        "argument of type '{}' is not iterable",
                        crate::py::type_name(audio)
                    ),
                ));
            };
            if let Some(d) = a.get("data").and_then(Value::as_str) {
                self.audio.push_str(d);
            }
            if let Some(t) = a.get("transcript").and_then(Value::as_str) {
                self.text.push_str(t);
            }
        }
        let deltas = get(delta, "tool_calls")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for call in &deltas {
            let key = call.get("index").map(|i| i.to_string()).unwrap_or_default();
            let function = get(call, "function");
            if let Some((_, tc)) = self.calls.iter_mut().find(|(k, _)| *k == key) {
                let function =
                    function.ok_or_else(|| ParseError::attribute("NoneType", "arguments"))?;
                if let Some(a) = get(function, "arguments").and_then(Value::as_str) {
                    tc.args.push_str(a);
                }
            } else {
                let function = function.ok_or_else(|| ParseError::attribute("NoneType", "name"))?;
                self.calls.push((
                    key,
                    ToolCall {
                        id: call.get("id").cloned().unwrap_or(Value::Null),
                        name: function.get("name").cloned().unwrap_or(Value::Null),
                        args: str_of(function, "arguments").unwrap_or("").to_string(),
                    },
                ));
            }
        }

        // The blocks are marks into the text (see `stream`); the tool blocks
        // are built now, their arguments repaired as every chunk repairs them.
        let mut tools = Vec::new();
        if !self.text.is_empty() && self.opts.structured {
            self.metadata = repair_load(&self.text, warnings);
        }
        for (_, tc) in &self.calls {
            let input = if self.opts.stream_tool_parsing {
                self.last_inputs
                    .streaming(tc.id.to_string(), &tc.args, warnings)
            } else {
                Value::Object(Map::new())
            };
            tools.push(tool_use_block(
                tc.id.clone(),
                tc.name.clone(),
                input,
                Some(Value::String(tc.args.clone())),
            ));
        }
        self.contents = Yield {
            thinking: self.thinking.len(),
            text: self.text.len(),
            audio: self.audio.len(),
            tools,
            ..Yield::default()
        };
        let yields = self.contents.has_content();
        if yields {
            self.respond();
        }
        Ok(Some(yields))
    }

    fn finish(&mut self, warnings: &mut Warnings) -> Result<bool, ParseError> {
        if self.opts.structured {
            self.structured.finish()?;
        }
        let extra = final_tool_response(
            &self.opts,
            !self.calls.is_empty(),
            self.last.as_ref().map(|y| self.content(y)),
            &self.id,
            &self.usage,
            None,
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

/// The extra response of `stream_tool_parsing=False`, once the stream is
/// over: a copy of the last content with every tool input repair-loaded from
/// its `raw_input`. `None` when the option is on, or no tool was called.
/// The metadata becomes the last tool input with a structured model, else
/// null, unless `keep_metadata` is given (the Responses API keeps the
/// stream's).
pub(crate) fn final_tool_response(
    opts: &Options,
    called: bool,
    last_contents: Option<Vec<Value>>,
    id: &Option<String>,
    usage: &Option<Usage>,
    keep_metadata: Option<Value>,
    warnings: &mut Warnings,
) -> Option<ChatResponse> {
    if opts.stream_tool_parsing || !called {
        return None;
    }
    let mut blocks = last_contents?;
    let mut metadata = Value::Null;
    for block in blocks.iter_mut() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let raw = match block.get("raw_input") {
            Some(v) if crate::py::truthy(v) => crate::py::py_str(v),
            _ => "{}".to_string(),
        };
        let input = repair_load(&raw, warnings);
        if opts.structured {
            metadata = input.clone();
        }
        if let Some(obj) = block.as_object_mut() {
            obj.insert("input".into(), input);
        }
    }
    Some(ChatResponse::new(
        id,
        blocks,
        usage.clone(),
        keep_metadata.unwrap_or(metadata),
    ))
}
