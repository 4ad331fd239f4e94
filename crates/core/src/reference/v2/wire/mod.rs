//! The wire under AgentScope 2.0.11: what each of its eleven model classes
//! sends for a session (`../shared/spec/wire-requests-v2.md`). In 2.x the
//! model class formats the messages itself: the session becomes 2.x Msgs,
//! the class is built from its constructor arguments (its `Parameters`, a
//! credential, `client_kwargs`), formats them with the formatter it was
//! given, adds its settings and tools, and calls its SDK, which writes the
//! HTTP request (xAI: a gRPC message). Pure: nothing is sent.
//!
//! A module per SDK: `chat` (the openai SDK's chat completions and
//! responses, used by OpenAI, DashScope, DeepSeek, Moonshot and Volcengine),
//! `messages` (anthropic's, used by Anthropic and MiniMax), `genai`
//! (Gemini), `ollama` and `grpc` (xAI).

mod chat;
mod genai;
mod grpc;
mod messages;
mod ollama;
pub mod parameters;

use super::base::Ctx;
use super::tools::{self, ToolChoice};
use super::{msgs, validate, Class, Family};
use crate::json;
use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::wire::Wire;
use parameters::Parameters;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// How the model class is built and called: the session's `request`
/// object and the command line's flags.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Default: the class's ([`default_model`]).
    pub model: Option<String>,
    /// Default: the class's (`True` for every 2.x class).
    pub stream: Option<bool>,
    pub tool_choice: Option<ToolChoice>,
    /// Constructor arguments besides the model name and the formatter:
    /// `parameters` (the class's `Parameters` fields), `credential` (its
    /// fields besides the key: `base_url`, `host`, `api_host`,
    /// `organization`), `client_kwargs`, `extra_body` (OpenAI), ...
    pub model_kwargs: Map<String, Value>,
    /// Keyword arguments of the call itself.
    pub call_kwargs: Map<String, Value>,
}

/// The formatter's own options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FormatterOptions {
    pub input_types: Option<Vec<String>>,
    pub conversation_history_prompt: Option<String>,
}

/// Where a request failed before its SDK was called, as the oracle's
/// `stage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Building the 2.x Msgs.
    Msg,
    /// The model class's constructor.
    ModelInit,
    /// The formatter, inside the call.
    Format,
    /// The model class, before its SDK (tool names, schema checks).
    Model,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Msg => "msg",
            Stage::ModelInit => "model_init",
            Stage::Format => "format",
            Stage::Model => "model",
        }
    }
}

/// The built model object, as the output reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    pub stream: bool,
    /// The constructor arguments used (`stream` when given first).
    pub model_kwargs: Map<String, Value>,
    pub tool_choice: Option<ToolChoice>,
    pub call_kwargs: Map<String, Value>,
}

/// One request under 2.0.11: the class, the model and what came of it.
#[derive(Debug, Clone)]
pub struct Request {
    pub formatter: String,
    pub model_class: &'static str,
    pub model: String,
    /// Known once the constructor ran.
    pub built: Option<Built>,
    /// The request the SDK would send (its `sdk_error` set when the SDK
    /// raises before sending), or where it failed before.
    pub outcome: Result<Wire, (Stage, PyErr)>,
    /// What AgentScope logs and Python warns, in order.
    pub warnings: Vec<String>,
}

/// The model class a formatter family's requests go through.
pub fn model_class(family: Family) -> &'static str {
    match family {
        Family::OpenAi => "OpenAIChatModel",
        Family::Responses => "OpenAIResponseModel",
        Family::Anthropic => "AnthropicChatModel",
        Family::MiniMax => "MiniMaxChatModel",
        Family::DashScope => "DashScopeChatModel",
        Family::DeepSeek => "DeepSeekChatModel",
        Family::Moonshot => "MoonshotChatModel",
        Family::Volcengine => "VolcengineChatModel",
        Family::Gemini => "GeminiChatModel",
        Family::Ollama => "OllamaChatModel",
        Family::Xai => "XAIChatModel",
    }
}

/// The model a request uses when none is given: a name from the class's
/// own model cards.
pub fn default_model(family: Family) -> &'static str {
    match family {
        Family::OpenAi | Family::Responses => "gpt-4o",
        Family::Anthropic => "claude-sonnet-4-6",
        Family::MiniMax => "MiniMax-M3",
        Family::DashScope => "qwen-plus",
        Family::DeepSeek => "deepseek-chat",
        Family::Moonshot => "kimi-k2.6",
        Family::Volcengine => "doubao-seed-2-1-pro-260915",
        Family::Gemini => "gemini-2.5-flash",
        Family::Ollama => "qwen3:8b",
        Family::Xai => "grok-4.3",
    }
}

/// The credential's default address (`base_url`; Ollama's `host`, xAI's
/// `api_host`), when the credential class has one.
fn default_address(family: Family) -> Option<&'static str> {
    match family {
        Family::DashScope => Some("https://dashscope.aliyuncs.com/compatible-mode/v1"),
        Family::DeepSeek => Some("https://api.deepseek.com"),
        Family::Moonshot => Some("https://api.moonshot.cn/v1"),
        Family::Volcengine => Some("https://ark.cn-beijing.volces.com/api/v3"),
        Family::MiniMax => Some("https://api.minimax.io/anthropic"),
        Family::Xai => Some("api.x.ai"),
        _ => None,
    }
}

/// Where a family's requests go when nothing moves them (its key goes
/// there unasked).
pub fn home(family: Family) -> &'static str {
    match family {
        Family::OpenAi | Family::Responses => "https://api.openai.com/v1",
        Family::Anthropic => "https://api.anthropic.com",
        Family::Gemini => "https://generativelanguage.googleapis.com/",
        Family::Ollama => "http://127.0.0.1:11434",
        Family::Xai => "https://api.x.ai",
        other => default_address(other).unwrap_or_default(),
    }
}

/// Constructor arguments with `url` as the base URL, where the family's
/// class reads it: its credential's `base_url` (Ollama `host`, xAI
/// `api_host`), Gemini's `client_kwargs.http_options.base_url`.
pub fn put_base_url(family: Family, model_kwargs: &mut Map<String, Value>, url: &str) {
    fn nested<'a>(m: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
        let slot = m
            .entry(key.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        slot.as_object_mut().expect("an object was just put there")
    }
    let (map, key) = match family {
        Family::Gemini => (
            nested(nested(model_kwargs, "client_kwargs"), "http_options"),
            "base_url",
        ),
        Family::Ollama => (nested(model_kwargs, "credential"), "host"),
        Family::Xai => (nested(model_kwargs, "credential"), "api_host"),
        _ => (nested(model_kwargs, "credential"), "base_url"),
    };
    map.insert(key.into(), Value::String(url.to_string()));
}

/// The constructed model class.
pub(crate) struct Model {
    pub family: Family,
    pub name: String,
    pub stream: bool,
    pub parameters: Parameters,
    /// The credential's fields besides the key.
    pub credential: Map<String, Value>,
    pub client_kwargs: Map<String, Value>,
    /// `OpenAIChatModel(extra_body=...)`.
    pub extra_body: Option<Map<String, Value>>,
}

impl Model {
    /// The credential's address: `base_url` (Ollama `host`, xAI
    /// `api_host`), or its class's default.
    pub fn address(&self) -> Option<String> {
        let key = match self.family {
            Family::Ollama => "host",
            Family::Xai => "api_host",
            _ => "base_url",
        };
        match self.credential.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => None,
            None => default_address(self.family).map(str::to_string),
        }
    }

    /// `client_kwargs["default_headers"]`, lower-cased.
    pub fn default_headers(&self) -> Map<String, Value> {
        match self.client_kwargs.get("default_headers") {
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| (k.to_lowercase(), Value::String(crate::py::py_str(v))))
                .collect(),
            _ => Map::new(),
        }
    }
}

/// Everything a family's builder gets: the model, the formatted messages,
/// the tools and tool choice as `_format_tools` returned them, the call's
/// keyword arguments.
pub(crate) struct Call<'a> {
    pub model: &'a Model,
    pub messages: Vec<Value>,
    /// `None` when `_format_tools` gave nothing to send.
    pub tools: Option<Value>,
    pub tool_choice: Option<Value>,
    pub call_kwargs: &'a Map<String, Value>,
}

/// Builds the request `class_name`'s model class would send for the
/// session, media read through `env`.
pub fn request(
    session: &Value,
    env: &MediaEnv,
    class_name: &str,
    settings: &Settings,
    options: &FormatterOptions,
) -> Result<Request, super::Error> {
    let class = Class::from_name(class_name).ok_or_else(|| {
        super::Error(format!(
            "unknown formatter {class_name}; one of {}",
            super::FORMATTERS.join(", ")
        ))
    })?;
    if options.conversation_history_prompt.is_some() && !class.multi_agent {
        return Err(super::Error(format!(
            "{class_name} has no option conversation_history_prompt"
        )));
    }
    let mut session = session.clone();
    crate::py::normalize_numbers(&mut session);
    let (messages, tools) = super::session_parts(&session)?;
    let family = class.family;
    let mut out = Request {
        formatter: class_name.to_string(),
        model_class: model_class(family),
        model: settings
            .model
            .clone()
            .unwrap_or_else(|| default_model(family).to_string()),
        built: None,
        outcome: Err((Stage::Msg, PyErr::value(""))),
        warnings: Vec::new(),
    };
    let base_dir = PathBuf::from(msgs::normpath(
        &std::path::absolute(env.base_dir())
            .unwrap_or_else(|_| env.base_dir().to_path_buf())
            .display()
            .to_string(),
    ));
    let msgs = match validate::build(&messages, &base_dir) {
        Ok((msgs, _)) => msgs,
        Err(e) => {
            out.outcome = Err((Stage::Msg, e));
            return Ok(out);
        }
    };
    let (model, ctor) = match construct(family, &out.model, settings) {
        Ok(x) => x,
        Err(e) => {
            out.outcome = Err((Stage::ModelInit, e));
            return Ok(out);
        }
    };
    out.built = Some(Built {
        stream: model.stream,
        model_kwargs: ctor,
        tool_choice: settings.tool_choice.clone(),
        call_kwargs: settings.call_kwargs.clone(),
    });
    let input_types = options.input_types.clone().unwrap_or_else(|| {
        family
            .default_input_types()
            .iter()
            .map(|s| s.to_string())
            .collect()
    });
    let ctx = Ctx { env, input_types };
    let prompt = options
        .conversation_history_prompt
        .clone()
        .unwrap_or_else(|| super::base::HISTORY_PROMPT.to_string());
    // `copy.deepcopy(session.get("tools")) or None`.
    let tools_list: Vec<Value> = match &tools {
        Some(Value::Array(t)) => t.clone(),
        _ => Vec::new(),
    };
    let mut warnings = Vec::new();
    let format_tools = |warnings: &mut Vec<String>| {
        tools::format_tools(family, &tools_list, settings.tool_choice.as_ref()).map(|f| {
            warnings.extend(f.warnings);
            warnings.extend(f.python_warnings);
            (f.tools, f.choice)
        })
    };
    // Anthropic and MiniMax handle the tools before formatting; the
    // others format first.
    let tools_first = matches!(family, Family::Anthropic | Family::MiniMax);
    let mut formatted_tools = None;
    if tools_first {
        match format_tools(&mut warnings) {
            Ok(t) => formatted_tools = Some(t),
            Err(e) => {
                out.warnings = warnings;
                out.outcome = Err((Stage::Model, e));
                return Ok(out);
            }
        }
    }
    let formatted = super::format(&ctx, class, &msgs, &prompt);
    warnings.extend(env.take_warnings());
    let formatted = match formatted {
        Ok(list) => list,
        Err(e) => {
            out.warnings = warnings;
            out.outcome = Err((Stage::Format, e));
            return Ok(out);
        }
    };
    let (tools_value, choice_value) = match formatted_tools {
        Some(t) => t,
        None => match format_tools(&mut warnings) {
            Ok(t) => t,
            Err(e) => {
                out.warnings = warnings;
                out.outcome = Err((Stage::Model, e));
                return Ok(out);
            }
        },
    };
    let call = Call {
        model: &model,
        messages: formatted,
        tools: Some(tools_value).filter(crate::py::truthy),
        tool_choice: Some(choice_value).filter(|v| !v.is_null()),
        call_kwargs: &settings.call_kwargs,
    };
    out.outcome = match family {
        Family::OpenAi
        | Family::DashScope
        | Family::DeepSeek
        | Family::Moonshot
        | Family::Volcengine => Ok(chat::completions(call)),
        Family::Responses => Ok(chat::responses(call)),
        Family::Anthropic | Family::MiniMax => Ok(messages::create(call)),
        Family::Gemini => Ok(genai::generate(call, &mut warnings)),
        Family::Ollama => Ok(ollama::chat(call)),
        Family::Xai => Ok(grpc::completion(call)),
    };
    out.warnings = warnings;
    Ok(out)
}

/// The model class's constructor: its arguments checked, its
/// `Parameters` validated. Also the constructor arguments as the output
/// reports them.
fn construct(
    family: Family,
    name: &str,
    settings: &Settings,
) -> Result<(Model, Map<String, Value>), PyErr> {
    let mut ctor = Map::new();
    if let Some(stream) = settings.stream {
        ctor.insert("stream".into(), Value::Bool(stream));
    }
    for (k, v) in &settings.model_kwargs {
        ctor.insert(k.clone(), v.clone());
    }
    let mut known = vec![
        "credential",
        "parameters",
        "stream",
        "max_retries",
        "retry_delay",
        "context_size",
        "client_kwargs",
    ];
    if family == Family::OpenAi {
        known.push("extra_body");
    }
    if let Some(k) = ctor.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(PyErr::type_error(format!(
            "{}.__init__() got an unexpected keyword argument '{k}'",
            model_class(family)
        )));
    }
    let credential = match ctor.shift_remove("credential") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(PyErr::type_error(
                "the credential must be an object of its fields (base_url, ...)",
            ))
        }
    };
    let parameters = Parameters::new(family, ctor.get("parameters"))?;
    let stream = match ctor.get("stream") {
        None => true,
        Some(v) => crate::py::truthy(v),
    };
    let object = |key: &str| match ctor.get(key) {
        Some(Value::Object(m)) => Some(m.clone()),
        _ => None,
    };
    let model = Model {
        family,
        name: name.to_string(),
        stream,
        parameters,
        credential,
        client_kwargs: object("client_kwargs").unwrap_or_default(),
        extra_body: object("extra_body"),
    };
    Ok((model, ctor))
}

impl Request {
    /// The built request, when the SDK was reached.
    pub fn wire(&self) -> Option<&Wire> {
        self.outcome.as_ref().ok()
    }

    /// The error it stopped on: before the SDK, or in it.
    pub fn error(&self) -> Option<(&'static str, &PyErr)> {
        match &self.outcome {
            Err((stage, e)) => Some((stage.name(), e)),
            Ok(w) => w.sdk_error.as_ref().map(|e| ("sdk", e)),
        }
    }

    /// The request in the shape of `request_oracle_v2.py`'s output.
    pub fn to_oracle(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("formatter".into(), json!(&self.formatter));
        out.insert("model_class".into(), json!(self.model_class));
        out.insert("model".into(), json!(&self.model));
        if let Some(b) = &self.built {
            out.insert("stream".into(), json!(b.stream));
            if !b.model_kwargs.is_empty() {
                out.insert("model_kwargs".into(), Value::Object(b.model_kwargs.clone()));
            }
            out.insert(
                "tool_choice".into(),
                match &b.tool_choice {
                    None => Value::Null,
                    Some(c) => {
                        let mut m = Map::new();
                        m.insert("mode".into(), json!(&c.mode));
                        if let Some(t) = &c.tools {
                            m.insert("tools".into(), json!(t));
                        }
                        Value::Object(m)
                    }
                },
            );
            if !b.call_kwargs.is_empty() {
                out.insert("call_kwargs".into(), Value::Object(b.call_kwargs.clone()));
            }
        }
        let error = |stage: &str, e: &PyErr| json!({"error": &e.message, "error_type": e.kind, "stage": stage});
        match &self.outcome {
            Err((stage, e)) => {
                if let Value::Object(m) = error(stage.name(), e) {
                    out.extend(m);
                }
            }
            Ok(w) => {
                out.insert("sdk_call".into(), json!(w.sdk_call));
                out.insert("kwargs".into(), w.kwargs.clone());
                // The gRPC call is recorded when it is made: not when the
                // SDK raised before it.
                if let Some(g) = w.grpc.as_ref().filter(|_| w.sdk_error.is_none()) {
                    out.insert(
                        "grpc".into(),
                        json!({"target": &g.target, "method": g.method, "kind": g.kind, "request_type": g.request_type}),
                    );
                }
                match &w.sdk_error {
                    Some(e) => {
                        out.insert("http_error".into(), error("sdk", e));
                    }
                    None => {
                        out.insert(
                            "http".into(),
                            json!({"method": w.method, "url": &w.url, "headers": &w.headers}),
                        );
                        out.insert("http_body".into(), w.body.clone());
                    }
                }
            }
        }
        if !self.warnings.is_empty() {
            out.insert("warnings".into(), json!(&self.warnings));
        }
        out
    }
}

/// Headers as the oracle records them: names lower-cased, sorted.
pub(crate) fn sorted_headers(pairs: Vec<(String, Value)>) -> Map<String, Value> {
    let mut pairs: Vec<(String, Value)> = pairs
        .into_iter()
        .map(|(k, v)| (k.to_lowercase(), v))
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Map::new();
    for (k, v) in pairs {
        out.insert(k, v);
    }
    out
}

/// An SDK method's keyword arguments in its body's order: a key the
/// method does not take is the `TypeError` Python raises at the call.
pub(crate) fn in_order(
    kwargs: &Map<String, Value>,
    accepted: &[&str],
    order: &[&str],
    method: &str,
) -> Result<Map<String, Value>, PyErr> {
    if let Some(k) = kwargs.keys().find(|k| !accepted.contains(&k.as_str())) {
        return Err(PyErr::type_error(format!(
            "{method}() got an unexpected keyword argument '{k}'"
        )));
    }
    Ok(order
        .iter()
        .filter_map(|k| kwargs.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect())
}
