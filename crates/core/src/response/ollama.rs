//! `OllamaChatModel` on `/api/chat` (`_parse_ollama_completion_response`,
//! `_parse_ollama_stream_completion_response`). Ollama sends no response
//! id: every response gets a generated one.

use super::args::{ascii_dumps, repair_load};
use super::stream::prefix;
use super::{
    get, text_block, thinking_block, tool_use_block, truthy, ChatResponse, Event, Options,
    ParseError, StreamParse, Usage, Warnings, Yield,
};
use serde_json::{Map, Value};
use std::time::Instant;

fn message(body: &Value) -> Value {
    body.get("message").cloned().unwrap_or(Value::Null)
}

fn str_field(v: &Value, key: &str) -> String {
    match get(v, key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

fn arguments(call: &Value) -> (Value, Value) {
    let function = call.get("function").cloned().unwrap_or(Value::Null);
    (
        function.get("name").cloned().unwrap_or(Value::Null),
        function
            .get("arguments")
            .cloned()
            .unwrap_or(Value::Object(Map::new())),
    )
}

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let msg = message(body);
    let mut content = Vec::new();
    let mut metadata = Value::Null;
    let thinking = str_field(&msg, "thinking");
    if !thinking.is_empty() {
        content.push(thinking_block(&thinking));
    }
    let text = str_field(&msg, "content");
    if !text.is_empty() {
        content.push(text_block(&text));
        if opts.structured {
            metadata = repair_load(&text, warnings);
        }
    }
    for (idx, call) in get(&msg, "tool_calls")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let (name, args) = arguments(call);
        content.push(tool_use_block(
            Value::String(format!("{idx}_{}", crate::py::py_str(&name))),
            name,
            args.clone(),
            Some(Value::String(ascii_dumps(&args))),
        ));
    }
    // `"prompt_eval_count" in response`: the field was sent.
    let usage = match (body.get("prompt_eval_count"), body.get("eval_count")) {
        (Some(i), Some(o)) => Some(Usage::new(i.clone(), o.clone(), start, Value::Null)),
        _ => None,
    };
    Ok(ChatResponse::new(&None, content, usage, metadata))
}

pub struct Stream {
    opts: Options,
    start: Instant,
    text: String,
    thinking: String,
    /// Keyed `"<index in its line>_<name>"`: a later line's call with the
    /// same key replaces the earlier one.
    calls: Vec<(String, Value, Value)>,
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
            content.push(text_block(prefix(&self.text, y.text)));
        }
        content.extend(y.tools.iter().cloned());
        content
    }
}

fn count(v: &Value, key: &str) -> Value {
    match get(v, key) {
        Some(n) if truthy(Some(n)) => n.clone(),
        _ => Value::from(0),
    }
}

impl StreamParse for Stream {
    fn push(&mut self, event: &Event, warnings: &mut Warnings) -> Result<Option<bool>, ParseError> {
        let Event::Json(chunk) = event else {
            return Err(ParseError::new("JSONDecodeError", "not a JSON payload"));
        };
        if let Some(err) = chunk.get("error").filter(|e| truthy(Some(e))) {
            return Err(ParseError::new(
                "ResponseError",
                format!("{} (status code: -1)", crate::py::py_str(err)),
            ));
        }
        let msg = message(chunk);
        self.thinking.push_str(&str_field(&msg, "thinking"));
        self.text.push_str(&str_field(&msg, "content"));
        for (idx, call) in get(&msg, "tool_calls")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let (name, args) = arguments(call);
            let key = format!("{idx}_{}", crate::py::py_str(&name));
            match self.calls.iter_mut().find(|(k, _, _)| *k == key) {
                Some(slot) => *slot = (key, name, args),
                None => self.calls.push((key, name, args)),
            }
        }
        let usage = Usage::new(
            count(chunk, "prompt_eval_count"),
            count(chunk, "eval_count"),
            self.start,
            Value::Null,
        );
        if !self.text.is_empty() && self.opts.structured {
            self.metadata = repair_load(&self.text, warnings);
        }
        // Marks into the text (see `stream`); tool blocks built now.
        let mut tools = Vec::new();
        for (key, name, args) in &self.calls {
            let input = match args {
                Value::String(s) => repair_load(s, warnings),
                other => other.clone(),
            };
            tools.push(tool_use_block(
                Value::String(key.clone()),
                name.clone(),
                input,
                None,
            ));
        }
        let y = Yield {
            id: None,
            usage: Some(usage),
            metadata: self.metadata.clone(),
            thinking: self.thinking.len(),
            text: self.text.len(),
            tools,
            ..Yield::default()
        };
        let yields = truthy(chunk.get("done")) || y.has_content();
        if yields {
            self.last = Some(y);
        }
        Ok(Some(yields))
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
