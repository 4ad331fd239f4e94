//! The wire: what AgentScope 1.0.21's model classes hand to each provider's
//! SDK (`kwargs`) and the HTTP request that SDK builds from them (method,
//! URL, headers with the key as `<API_KEY>`, JSON body), from the formatted
//! messages, the session's tools and the model settings
//! (`../shared/spec/wire-requests.md`). Pure: nothing here sends anything.
//!
//! Every class: OpenAI and DeepSeek (`OpenAIChatModel`), Anthropic,
//! DashScope (text-generation and multimodal endpoints), Gemini and Ollama.
//! A module per provider; what they share is here.

mod anthropic;
mod dashscope;
pub mod export;
pub(crate) mod gemini;
pub(crate) mod ollama;
mod openai;

use crate::json;
use crate::provider::{FormatterId, Provider};
use crate::py::PyErr;
use serde_json::{Map, Value};

/// The key, wherever a request would carry it.
pub const API_KEY: &str = "<API_KEY>";

/// How the model class is built and called: the session's `request`
/// object, overridden by command-line flags.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Default: the provider's ([`Provider::default_model`]).
    pub model: Option<String>,
    /// Default: the class's (`True`, Ollama `False`).
    pub stream: Option<bool>,
    pub tool_choice: Option<String>,
    /// Constructor arguments besides the model name and the key
    /// (`generate_kwargs`, `thinking`, `client_kwargs`, ...).
    pub model_kwargs: Map<String, Value>,
    /// Keyword arguments of the call itself.
    pub call_kwargs: Map<String, Value>,
}

/// AgentScope's model class for a provider (DeepSeek goes through OpenAI's).
pub fn model_class(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi | Provider::DeepSeek => "OpenAIChatModel",
        Provider::Anthropic => "AnthropicChatModel",
        Provider::DashScope => "DashScopeChatModel",
        Provider::Gemini => "GeminiChatModel",
        Provider::Ollama => "OllamaChatModel",
    }
}

/// A built request: what the model class and its SDK make of the
/// formatted messages (the request oracle's object after `formatter`,
/// `model_class` and `model`).
#[derive(Debug, Clone)]
pub struct Wire {
    pub stream: bool,
    /// The constructor arguments used, as the oracle prints them.
    pub model_kwargs: Map<String, Value>,
    pub sdk_call: &'static str,
    pub kwargs: Value,
    pub method: &'static str,
    pub url: String,
    pub headers: Map<String, Value>,
    pub body: Value,
    /// Set when the SDK would raise after AgentScope called it: the call's
    /// kwargs are known, the HTTP request is not.
    pub sdk_error: Option<PyErr>,
    /// How the SDK turns `body` into bytes.
    pub encoding: Encoding,
    /// The gRPC call, when the SDK speaks gRPC (xAI): `url` is then the
    /// method's address and `body` the request message as proto3 JSON.
    pub grpc: Option<Grpc>,
}

/// How an SDK's transport writes a JSON body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// httpx and httpx2 (openai, anthropic, ollama): `","`, `":"`, UTF-8
    /// as is.
    Compact,
    /// aiohttp (dashscope, google-genai): `json.dumps` defaults, `", "`,
    /// `": "` and non-ASCII as `\uXXXX`.
    Spaced,
    /// A protobuf message (gRPC): no JSON goes on the wire.
    Protobuf,
    /// AgentScope Java's Jackson codec: compact, UTF-8 as is, Java's
    /// spelling of numbers.
    Jackson,
}

/// A gRPC call: where it goes and what it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grpc {
    /// "api.x.ai".
    pub target: String,
    /// "/xai_api.Chat/GetCompletionChunk".
    pub method: &'static str,
    /// "unary_stream" or "unary_unary".
    pub kind: &'static str,
    /// "xai_api.GetCompletionsRequest".
    pub request_type: &'static str,
}

impl Wire {
    /// The body's bytes as the SDK's transport writes them (a gRPC body:
    /// its proto3 JSON, compact, since the protobuf bytes are not JSON).
    pub fn body_bytes(&self) -> String {
        match self.encoding {
            Encoding::Spaced => export::ascii_escaped(&crate::py::dumps(&self.body)),
            Encoding::Jackson => crate::reference::java::jackson::write(&self.body),
            Encoding::Compact | Encoding::Protobuf => {
                serde_json::to_string(&self.body).unwrap_or_default()
            }
        }
    }
}

/// A failed build: the constructor's outcome when it got that far, and
/// the failure.
pub type Rejected = Box<(Option<Constructed>, Failure)>;

/// Where a request failed, as the oracle's `stage`.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The model class's constructor raised. (Every class takes `**kwargs`,
    /// so an unknown argument does not; kept for the SDK clients' own.)
    ModelInit(PyErr),
    /// The call raised before the SDK was reached.
    Model(PyErr),
}

/// Builds the request `formatter`'s provider would receive for the
/// formatted `messages`; `warn` gets what AgentScope would log or warn.
pub fn build(
    formatter: FormatterId,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &Settings,
    warn: &mut dyn FnMut(String),
) -> Result<Wire, Rejected> {
    let provider = formatter.provider;
    let model = settings
        .model
        .clone()
        .unwrap_or_else(|| provider.default_model().to_string());
    let ctor = constructor(provider, settings);
    // `tools or None`: an empty list is no tools.
    let tools = tools.filter(|t| crate::py::truthy(t));
    match provider {
        Provider::OpenAi | Provider::DeepSeek => {
            openai::build(&model, ctor, messages, tools, settings, warn)
        }
        Provider::Anthropic => anthropic::build(&model, ctor, messages, tools, settings, warn),
        Provider::DashScope => dashscope::build(&model, ctor, messages, tools, settings, warn),
        Provider::Ollama => ollama::build(&model, ctor, messages, tools, settings, warn),
        Provider::Gemini => gemini::build(&model, ctor, messages, tools, settings, warn),
    }
}

/// The constructor arguments, as the request oracle assembles them: the
/// provider's base (DeepSeek's `base_url`), `stream` when given, then the
/// session's, `client_kwargs` merged.
fn constructor(provider: Provider, settings: &Settings) -> Map<String, Value> {
    let mut ctor = Map::new();
    if provider == Provider::DeepSeek {
        ctor.insert(
            "client_kwargs".into(),
            json!({"base_url": "https://api.deepseek.com"}),
        );
    }
    if let Some(stream) = settings.stream {
        ctor.insert("stream".into(), Value::Bool(stream));
    }
    for (key, value) in &settings.model_kwargs {
        match (key.as_str(), value, ctor.get_mut("client_kwargs")) {
            ("client_kwargs", Value::Object(more), Some(Value::Object(have))) => {
                for (k, v) in more {
                    have.insert(k.clone(), v.clone());
                }
            }
            _ => {
                ctor.insert(key.clone(), value.clone());
            }
        }
    }
    ctor
}

/// The constructor's outcome, kept for the output when the call fails.
#[derive(Debug, Clone)]
pub struct Constructed {
    pub stream: bool,
    pub model_kwargs: Map<String, Value>,
}

/// `Unknown keyword arguments: [...]. These will be ignored.`: what
/// OpenAI's and Anthropic's constructors log for arguments they do not
/// take (they accept `**kwargs`).
fn warn_unknown_ctor(ctor: &Map<String, Value>, known: &[&str], warn: &mut dyn FnMut(String)) {
    let unknown: Vec<Value> = ctor
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| Value::String(k.clone()))
        .collect();
    if !unknown.is_empty() {
        warn(format!(
            "Unknown keyword arguments: {}. These will be ignored.",
            crate::py::py_repr(&Value::Array(unknown))
        ));
    }
}

/// A dict-valued constructor argument (`generate_kwargs`, `client_kwargs`).
fn ctor_map(ctor: &Map<String, Value>, key: &str) -> Map<String, Value> {
    match ctor.get(key) {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    }
}

/// `_validate_tool_choice`: a mode, or the name of one of the tools.
fn validate_tool_choice(tool_choice: &str, tools: Option<&Value>) -> Result<(), PyErr> {
    const MODES: [&str; 3] = ["auto", "none", "required"];
    if MODES.contains(&tool_choice) {
        return Ok(());
    }
    let Some(tools) = tools else {
        return Err(PyErr::type_error("'NoneType' object is not iterable"));
    };
    let mut names = Vec::new();
    for tool in crate::py::iterate(tools)? {
        let function = crate::py::get_item(&tool, "function")?;
        names.push(crate::py::py_str(crate::py::get_item(function, "name")?));
    }
    if names.iter().any(|n| n == tool_choice) {
        return Ok(());
    }
    let mut all: Vec<String> = MODES.iter().map(|m| m.to_string()).chain(names).collect();
    all.sort();
    Err(PyErr::value(format!(
        "Invalid tool_choice '{tool_choice}'. Available options: {}",
        all.join(", ")
    )))
}

/// `"any"`, deprecated: warned and read as `"required"`.
fn any_to_required(tool_choice: &str, warn: &mut dyn FnMut(String)) -> String {
    if tool_choice == "any" {
        warn(
            "DeprecationWarning: \"any\" is deprecated and will be removed in a future version."
                .into(),
        );
        "required".into()
    } else {
        tool_choice.to_string()
    }
}

/// `body` with its keys in the SDK's parameter order: `first`, then
/// `optional` as listed; a key in neither is a TypeError of the SDK method.
fn in_parameter_order(
    kwargs: &Map<String, Value>,
    order: &[&str],
    method: &str,
) -> Result<Map<String, Value>, PyErr> {
    if let Some(k) = kwargs.keys().find(|k| !order.contains(&k.as_str())) {
        return Err(PyErr::type_error(format!(
            "{method}() got an unexpected keyword argument '{k}'"
        )));
    }
    Ok(order
        .iter()
        .filter_map(|k| kwargs.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect())
}

fn headers(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
        .collect()
}

impl Settings {
    /// The session's own `"model"` when the `"request"` object names
    /// none: the model the user chose for the session, under any release.
    pub fn or_session_model(mut self, session_model: Option<&str>) -> Settings {
        if self.model.is_none() {
            self.model = session_model.map(str::to_string);
        }
        self
    }

    /// A session's `"request"` object: `model`, `stream`, `tool_choice`,
    /// `model_kwargs`, `call_kwargs`, each optional; anything else, or a
    /// value of the wrong type, is an error that names it.
    pub fn from_request(request: Option<&Value>) -> Result<Settings, RequestSettingsError> {
        let mut settings = Settings::default();
        let Some(request) = request else {
            return Ok(settings);
        };
        let Value::Object(map) = request else {
            return Err(RequestSettingsError::NotAnObject);
        };
        for (key, value) in map {
            let wrong = |what: &'static str| RequestSettingsError::WrongType {
                key: key.clone(),
                what,
            };
            match (key.as_str(), value) {
                (_, Value::Null) => {}
                ("model", Value::String(s)) => settings.model = Some(s.clone()),
                ("stream", Value::Bool(b)) => settings.stream = Some(*b),
                ("tool_choice", Value::String(s)) => settings.tool_choice = Some(s.clone()),
                ("model_kwargs", Value::Object(m)) => settings.model_kwargs = m.clone(),
                ("call_kwargs", Value::Object(m)) => settings.call_kwargs = m.clone(),
                ("model" | "tool_choice", _) => return Err(wrong("a string")),
                ("stream", _) => return Err(wrong("true or false")),
                ("model_kwargs" | "call_kwargs", _) => return Err(wrong("an object")),
                (other, _) => return Err(RequestSettingsError::UnknownKey(other.to_string())),
            }
        }
        Ok(settings)
    }

    /// [`Settings::from_request`] with the error as its text, for callers
    /// that only show it.
    pub fn from_session(request: Option<&Value>) -> Result<Settings, String> {
        Settings::from_request(request).map_err(|e| e.to_string())
    }
}

/// What is wrong with a session's `"request"` object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestSettingsError {
    /// It is not a JSON object.
    #[error(
        "\"request\" must be an object (model, stream, tool_choice, model_kwargs, call_kwargs)"
    )]
    NotAnObject,
    /// A known key holding a value of the wrong type.
    #[error("\"request\".{key} must be {what}")]
    WrongType { key: String, what: &'static str },
    /// A key the object does not hold.
    #[error("\"request\" has no {0:?}: it holds model, stream, tool_choice, model_kwargs and call_kwargs")]
    UnknownKey(String),
}

/// For the workbench's callers that still report settings errors as text.
impl From<RequestSettingsError> for String {
    fn from(e: RequestSettingsError) -> String {
        e.to_string()
    }
}
