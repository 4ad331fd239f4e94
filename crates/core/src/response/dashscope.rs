//! `DashScopeChatModel` on the native API: `Generation` and, for VL models,
//! `MultiModalConversation` (`_parse_dashscope_generation_response`,
//! `_parse_dashscope_stream_response`).

use super::args::repair_load;
use super::openai::final_tool_response;
use super::stream::{keep_whole, prefix};
use super::{
    str_of, text_block, thinking_block, tool_use_block, ChatResponse, Event, Options, ParseError,
    StreamParse, Usage, Warnings, Yield,
};
use serde_json::{Map, Value};
use std::time::Instant;

/// AgentScope's endpoint choice, which also picks the SDK's response class.
pub fn multimodal(opts: &Options) -> bool {
    opts.multimodality
        .unwrap_or_else(|| opts.model_name.starts_with("qvq") || opts.model_name.contains("-vl"))
}

/// The SDK's usage dict: `GenerationUsage(**usage)` puts `input_tokens` and
/// `output_tokens` (0 when absent) first; the multimodal class adds
/// `characters`.
fn sdk_usage(usage: Option<&Value>, multimodal: bool) -> Value {
    let given = usage
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = Map::new();
    out.insert(
        "input_tokens".into(),
        given.get("input_tokens").cloned().unwrap_or(Value::from(0)),
    );
    out.insert(
        "output_tokens".into(),
        given
            .get("output_tokens")
            .cloned()
            .unwrap_or(Value::from(0)),
    );
    if multimodal {
        out.insert(
            "characters".into(),
            given.get("characters").cloned().unwrap_or(Value::from(0)),
        );
    }
    for (k, v) in given {
        if !out.contains_key(&k) {
            out.insert(k, v);
        }
    }
    Value::Object(out)
}

fn usage_of(sdk: Value, start: Instant) -> Usage {
    Usage::new(
        sdk["input_tokens"].clone(),
        sdk["output_tokens"].clone(),
        start,
        sdk,
    )
}

/// `str(response)` of an error response (the SDK prints itself as JSON).
fn error_text(status: &Value, request_id: &Value, code: &Value, message: &Value) -> String {
    let mut m = Map::new();
    m.insert("status_code".into(), status.clone());
    m.insert("request_id".into(), request_id.clone());
    m.insert("code".into(), code.clone());
    m.insert("message".into(), message.clone());
    m.insert("output".into(), Value::Null);
    m.insert("usage".into(), Value::Null);
    crate::py::dumps(&Value::Object(m))
}

/// `response.output.choices[0].message`, with the SDK's errors.
fn first_message(output: Option<&Value>) -> Result<Value, ParseError> {
    let Some(output) = output.filter(|o| o.is_object()) else {
        return Err(ParseError::new(
            "TypeError",
            "dashscope.api_entities.dashscope_response.GenerationOutput() argument after ** \
             must be a mapping, not NoneType",
        ));
    };
    let Some(choices) = output.get("choices").and_then(Value::as_array) else {
        return Err(ParseError::new(
            "TypeError",
            "'NoneType' object is not subscriptable",
        ));
    };
    // The SDK builds every choice (`Choice(**choice)`, then
    // `Message(**message)` for a truthy message) before AgentScope reads
    // the first: a malformed one anywhere fails the parse.
    for choice in choices {
        let Value::Object(choice) = choice else {
            return Err(not_a_mapping("Choice", choice));
        };
        match choice.get("message") {
            Some(Value::Object(m)) if !m.is_empty() && !m.contains_key("role") => {
                return Err(ParseError::new(
                    "TypeError",
                    "Message.__init__() missing 1 required positional argument: 'role'",
                ));
            }
            Some(m) if !m.is_object() && crate::py::truthy(m) => {
                return Err(not_a_mapping("Message", m));
            }
            _ => {}
        }
    }
    let Some(choice) = choices.first() else {
        return Err(ParseError::new("IndexError", "list index out of range"));
    };
    match choice.get("message") {
        Some(m) if m.as_object().is_some_and(|o| !o.is_empty()) => Ok(m.clone()),
        _ => Err(ParseError::attribute("NoneType", "get")),
    }
}

/// `mapping[key]` of a missing key.
fn key_error(key: &str) -> ParseError {
    ParseError::new("KeyError", format!("'{key}'"))
}

/// `Class(**value)` of a value that is not a dict.
fn not_a_mapping(class: &str, value: &Value) -> ParseError {
    ParseError::new(
        "TypeError",
        format!(
            "dashscope.api_entities.dashscope_response.{class}() argument after ** must be a \
             mapping, not {}",
            crate::py::type_name(value)
        ),
    )
}

pub fn parse_whole(
    body: &Value,
    opts: &Options,
    start: Instant,
    warnings: &mut Warnings,
) -> Result<ChatResponse, ParseError> {
    let mm = multimodal(opts);
    if body.get("code").is_some_and(crate::py::truthy) && body.get("output").is_none() {
        let text = error_text(
            body.get("status_code").unwrap_or(&Value::from(400)),
            body.get("request_id").unwrap_or(&Value::from("")),
            &body["code"],
            body.get("message").unwrap_or(&Value::from("")),
        );
        return Err(ParseError::new("RuntimeError", text));
    }
    let message = first_message(body.get("output"))?;
    let mut content = Vec::new();
    let mut metadata = Value::Null;
    match message.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => {}
        Some(Value::Array(items)) => {
            for item in items {
                if let Some(t) = item.as_object().and_then(|o| o.get("text")) {
                    let mut b = text_block("");
                    b["text"] = t.clone();
                    content.push(b);
                }
            }
        }
        Some(other) => {
            let mut b = text_block("");
            b["text"] = other.clone();
            content.push(b);
        }
    }
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for call in calls {
            // `tool_call["function"]`, `.get("arguments", "{}") or "{}"`,
            // then `["name"]` and `["id"]`, in that order.
            let function = call.get("function").ok_or_else(|| key_error("function"))?;
            if !function.is_object() {
                return Err(ParseError::attribute(crate::py::type_name(function), "get"));
            }
            let args = match function.get("arguments") {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                _ => "{}".to_string(),
            };
            let input = repair_load(&args, warnings);
            let name = function.get("name").ok_or_else(|| key_error("name"))?;
            let id = call.get("id").ok_or_else(|| key_error("id"))?;
            if opts.structured {
                metadata = input.clone();
            }
            // This parser builds its block as `type, name, input, id`.
            let mut block = Map::new();
            block.insert("type".into(), "tool_use".into());
            block.insert("name".into(), name.clone());
            block.insert("input".into(), input);
            block.insert("id".into(), id.clone());
            content.push(Value::Object(block));
        }
    }
    let usage = Some(usage_of(sdk_usage(body.get("usage"), mm), start));
    let id = str_of(body, "request_id").map(str::to_string);
    Ok(ChatResponse::new(&id, content, usage, metadata))
}

#[derive(Default)]
struct ToolCall {
    index: Value,
    id: Option<String>,
    name: Option<String>,
    args: Option<String>,
}

pub struct Stream {
    opts: Options,
    start: Instant,
    multimodal: bool,
    /// The SDK keeps the last request id it saw across events.
    sdk_request_id: Value,
    id: Option<String>,
    text: String,
    thinking: String,
    calls: Vec<ToolCall>,
    last_inputs: super::args::LastInputs,
    usage: Option<Usage>,
    metadata: Value,
    last: Option<Yield>,
}

impl Stream {
    pub fn new(opts: &Options, start: Instant) -> Stream {
        Stream {
            opts: opts.clone(),
            start,
            multimodal: multimodal(opts),
            sdk_request_id: Value::from(""),
            id: None,
            text: String::new(),
            thinking: String::new(),
            calls: Vec::new(),
            last_inputs: Default::default(),
            usage: None,
            metadata: Value::Null,
            last: None,
        }
    }

    /// The blocks a yield holds.
    fn content(&self, y: &Yield) -> Vec<Value> {
        let mut contents = Vec::new();
        if y.thinking > 0 {
            contents.push(thinking_block(prefix(&self.thinking, y.thinking)));
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
        let Event::Json(ev) = event else {
            return Err(ParseError::new("JSONDecodeError", "not a JSON payload"));
        };
        // An `event:error` frame: a response whose status is not 200.
        if str_of(ev, "event") == Some("error") && ev.get("data").is_some() {
            let data = &ev["data"];
            if let Some(r) = data.get("request_id") {
                self.sdk_request_id = r.clone();
            }
            let text = error_text(
                ev.get("status").unwrap_or(&Value::from(400)),
                &self.sdk_request_id,
                data.get("code").unwrap_or(&Value::Null),
                data.get("message").unwrap_or(&Value::Null),
            );
            return Err(ParseError::new(
                "RuntimeError",
                format!("Failed to get response from _ API: {text}"),
            ));
        }
        if let Some(r) = ev.get("request_id") {
            self.sdk_request_id = r.clone();
        }
        if self.id.is_none() {
            self.id = self.sdk_request_id.as_str().map(str::to_string);
        }
        let message = first_message(ev.get("output"))?;
        if let Some(r) = str_of(&message, "reasoning_content") {
            self.thinking.push_str(r);
        }
        match message.get("content") {
            Some(Value::String(s)) => self.text.push_str(s),
            Some(Value::Array(items)) => {
                for item in items {
                    if let Some(t) = item.as_object().and_then(|o| o.get("text")) {
                        self.text.push_str(&crate::py::py_str(t));
                    }
                }
            }
            _ => {}
        }
        if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                let index = call.get("index").cloned().unwrap_or(Value::from(0));
                let pos = match self.calls.iter().position(|c| c.index == index) {
                    Some(p) => p,
                    None => {
                        self.calls.push(ToolCall {
                            index,
                            ..ToolCall::default()
                        });
                        self.calls.len() - 1
                    }
                };
                let acc = &mut self.calls[pos];
                if let Some(id) = call.get("id") {
                    let id = crate::py::py_str(id);
                    if acc.id.as_deref() != Some(id.as_str()) {
                        // Appended, not replaced: a new id joins the old one.
                        acc.id = Some(acc.id.take().unwrap_or_default() + &id);
                    }
                }
                if let Some(func) = call.get("function").and_then(Value::as_object) {
                    if let Some(n) = func.get("name") {
                        acc.name =
                            Some(acc.name.take().unwrap_or_default() + &crate::py::py_str(n));
                    }
                    if let Some(a) = func.get("arguments") {
                        acc.args =
                            Some(acc.args.take().unwrap_or_default() + &crate::py::py_str(a));
                    }
                }
            }
        }
        // Marks into the text (see `stream`); tool blocks built now.
        let mut tools = Vec::new();
        for call in &self.calls {
            let id = call.id.clone().unwrap_or_default();
            let raw = call.args.clone();
            let input = if self.opts.stream_tool_parsing {
                self.last_inputs
                    .streaming(id.clone(), raw.as_deref().unwrap_or(""), warnings)
            } else {
                Value::Object(Map::new())
            };
            if self.opts.structured {
                self.metadata = input.clone();
            }
            tools.push(tool_use_block(
                Value::String(id),
                Value::String(call.name.clone().unwrap_or_default()),
                input,
                Some(raw.map(Value::String).unwrap_or(Value::Null)),
            ));
        }
        let sdk = sdk_usage(ev.get("usage"), self.multimodal);
        self.usage = Some(usage_of(sdk, self.start));
        let y = Yield {
            id: self.id.clone(),
            usage: self.usage.clone(),
            metadata: self.metadata.clone(),
            thinking: self.thinking.len(),
            text: self.text.len(),
            tools,
            ..Yield::default()
        };
        let yields = y.has_content();
        if yields {
            self.last = Some(y);
        }
        Ok(Some(yields))
    }

    fn finish(&mut self, warnings: &mut Warnings) -> Result<bool, ParseError> {
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
