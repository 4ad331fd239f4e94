//! The reference pipeline: what AgentScope (through the oracle) produces for
//! a session: messages, token counts, provider tool schemas, or the error
//! it raises, as one JSON object in the golden files' shape.

use crate::formatter::{self, FormatOptions, FormatterId};
use crate::json;
use crate::media::{MediaEnv, WebFetcher};
use crate::py::{self, PyErr};
use crate::session::{Msg, Session};
use crate::tokens::{AgentScopeCounter, CounterSpec, MessageCounter, OpenAiTokenCounter};
use crate::truncate;
use crate::wire;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The model AgentScope's counter is built with for `--count` and budgets.
pub const REFERENCE_TOKEN_MODEL: &str = "gpt-4o";

/// What to run, as `oracle.py`'s options say it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceRequest {
    pub formatter: FormatterId,
    pub options: FormatOptions,
    /// Truncate to this budget (AgentScope's FIFO loop).
    pub max_tokens: Option<i64>,
    /// Add `tokens` (and `tokens_with_tools` when the session has tools).
    pub count: bool,
    /// Add the provider-formatted tool schemas.
    pub tools: bool,
    /// Count and truncate with this counter instead of the oracle's
    /// `OpenAITokenCounter(gpt-4o)` (the output then says which).
    pub token_counter: Option<CounterSpec>,
}

impl ReferenceRequest {
    /// The formatter alone: no options, budget, count or tool schemas.
    pub fn plain(formatter: FormatterId) -> Self {
        ReferenceRequest {
            formatter,
            options: FormatOptions::default(),
            max_tokens: None,
            count: false,
            tools: false,
            token_counter: None,
        }
    }
}

/// `[Msg.from_dict(m) for m in messages]`, each unpacked from the session.
pub fn build_msgs(session: &Session) -> Result<Vec<Arc<Msg>>, PyErr> {
    build_msgs_at(session).map_err(|(_, e)| e)
}

/// The first message `Msg.from_dict` rejects: its index and the error.
pub fn invalid_message(session: &Session) -> Option<(usize, PyErr)> {
    build_msgs_at(session).err()
}

/// On every core (each message is unpacked and checked on its own); the
/// first bad message in order is the one reported.
fn build_msgs_at(session: &Session) -> Result<Vec<Arc<Msg>>, (usize, PyErr)> {
    crate::parallel::map(&session.messages, |i, m| {
        m.msg().map(Arc::new).map_err(|(e, _)| (i, e))
    })
    .into_iter()
    .collect()
}

fn error_object(stage: &str, err: &PyErr) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("error".into(), Value::String(err.message.clone()));
    m.insert("error_type".into(), Value::String(err.kind.to_string()));
    m.insert("stage".into(), Value::String(stage.to_string()));
    m
}

/// Runs the formatter as the reference oracle does and returns its object.
pub fn run_reference(
    session: &Session,
    request: &ReferenceRequest,
    web: Arc<dyn WebFetcher>,
) -> Map<String, Value> {
    run_reference_in(session, request, &MediaEnv::new(session.base_dir(), web))
}

/// [`run_reference`] in a media environment of the caller's (whose gate
/// then tells what was read and fetched).
pub fn run_reference_in(
    session: &Session,
    request: &ReferenceRequest,
    env: &MediaEnv,
) -> Map<String, Value> {
    run_with(session, &build_msgs_at(session), request, env)
}

/// What [`run_reference_owned`] gives back.
pub struct OwnedRun {
    /// The oracle's object.
    pub out: Map<String, Value>,
    /// The message `Msg.from_dict` rejected, if one was.
    pub invalid: Option<usize>,
    /// The messages it formatted: a command that exits right after lets
    /// them go unfreed (freeing 100,000 messages one by one on one core
    /// was a tenth of `format --count`).
    pub msgs: Vec<Arc<Msg>>,
}

/// [`run_reference_in`] taking the session's messages out of it, so a large
/// session is not held twice.
pub fn run_reference_owned(
    session: &mut Session,
    request: &ReferenceRequest,
    env: &MediaEnv,
) -> OwnedRun {
    let msgs = build_msgs_at(session);
    // The packed copy is not read again.
    session.messages = Default::default();
    let invalid = msgs.as_ref().err().map(|(i, _)| *i);
    let out = run_with(session, &msgs, request, env);
    OwnedRun {
        out,
        invalid,
        msgs: msgs.unwrap_or_default(),
    }
}

fn run_with(
    session: &Session,
    msgs: &Result<Vec<Arc<Msg>>, (usize, PyErr)>,
    request: &ReferenceRequest,
    env: &MediaEnv,
) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert(
        "formatter".into(),
        Value::String(request.formatter.class_name()),
    );
    if let Some(max) = request.max_tokens {
        out.insert("max_tokens".into(), json!(max));
    }
    if let Some(spec) = &request.token_counter {
        out.insert("token_counter".into(), Value::String(spec.id()));
    }
    let finish = |mut out: Map<String, Value>, env: &MediaEnv| {
        let warnings = env.take_warnings();
        if !warnings.is_empty() {
            out.insert("warnings".into(), json!(warnings));
        }
        out
    };

    let msgs = match msgs {
        Ok(m) => m,
        Err((_, e)) => {
            out.extend(error_object("msg", e));
            return finish(out, env);
        }
    };
    let spec = request.token_counter.clone().unwrap_or_default();
    let counter = OpenAiTokenCounter::new(match &spec {
        CounterSpec::OpenAi(model) => model,
        _ => REFERENCE_TOKEN_MODEL,
    });
    let agentscope = AgentScopeCounter {
        counter: &counter,
        web: env.web(),
    };
    // Another counter, as the agent was built with (`--token-counter`).
    let other: Option<Box<dyn MessageCounter>> = match &spec {
        CounterSpec::OpenAi(_) => None,
        other => Some(other.build(
            &crate::model_choice::choose_model(session, request.formatter.provider, None).info(),
            env.web_arc(),
            Some(Arc::clone(env.gate())),
        )),
    };
    let truncation_counter: &dyn MessageCounter = match &other {
        Some(c) => c.as_ref(),
        None => &agentscope,
    };
    let result = match request.max_tokens {
        None => formatter::format(request.formatter, &request.options, msgs, env, None),
        Some(max_tokens) => truncate::plan_reference(
            request.formatter,
            &request.options,
            msgs,
            env,
            truncation_counter,
            max_tokens,
        )
        .map(|planned| planned.formatted),
    };
    let formatted = match result {
        Ok(f) => f,
        Err(e) => {
            out.extend(error_object("format", &e));
            return finish(out, env);
        }
    };
    // The key now, in the oracle's order; the value once counted, so the
    // output takes the messages without a copy.
    out.insert("messages".into(), Value::Null);
    if request.count || request.max_tokens.is_some() {
        let tokens = truncation_counter.count(&formatted);
        match &tokens {
            Ok(n) => out.insert("tokens".into(), json!(n)),
            Err(e) => out.insert(
                "tokens_error".into(),
                Value::Object(error_object("count", e)),
            ),
        };
        let tools = session.tools.as_ref().filter(|t| py::truthy(t));
        if let (true, Some(tools)) = (request.count, tools) {
            // The messages are counted once: `count(messages, tools)` is
            // `count(messages)` plus the tools' share, and raises where it
            // raises (the messages come first).
            let with_tools = match &spec {
                CounterSpec::OpenAi(_) => Some(
                    tokens
                        .clone()
                        .and_then(|n| Ok(n + counter.tools_tokens(tools)?)),
                ),
                // `"\n".join([str(m) for m in messages] + [str(tools)])`.
                CounterSpec::Char => Some(tokens.clone().map(|n| {
                    n + i64::from(!formatted.is_empty()) + py::py_repr(tools).chars().count() as i64
                })),
                // Tools in a chat template, or not AgentScope's: not counted.
                _ => None,
            };
            match with_tools {
                Some(Ok(n)) => out.insert("tokens_with_tools".into(), json!(n)),
                Some(Err(e)) => out.insert(
                    "tokens_with_tools_error".into(),
                    Value::Object(error_object("count", &e)),
                ),
                None => None,
            };
        }
    }
    out.insert("messages".into(), Value::Array(formatted));
    if request.tools {
        let tools = session
            .tools
            .clone()
            .filter(py::truthy)
            .unwrap_or_else(|| json!([]));
        let mut warnings = Vec::new();
        match formatter::format_tools(request.formatter.provider, &tools, &mut |w| {
            warnings.push(w)
        }) {
            Ok(t) => out.insert("tools".into(), t),
            Err(e) => out.insert(
                "tools_error".into(),
                Value::Object(error_object("tools", &e)),
            ),
        };
        for w in warnings {
            env.warn(w);
        }
    }
    finish(out, env)
}

/// The oracle's path normalisation, for portable output: absolute paths
/// under the session folder, its parent and grandparent are written
/// `<SESSION_DIR>/...`, `<SESSION_DIR>/../...`, `<SESSION_DIR>/../../...`.
pub fn portable_paths(text: &str, session_dir: &std::path::Path) -> String {
    let mut prefixes = Vec::new();
    let mut dir = session_dir.to_path_buf();
    let mut label = "<SESSION_DIR>".to_string();
    for _ in 0..3 {
        let Some(parent) = dir.parent().map(|p| p.to_path_buf()) else {
            break;
        };
        if dir.as_os_str().is_empty() || dir == std::path::Path::new("/") {
            break;
        }
        prefixes.push((dir.display().to_string(), label.clone()));
        dir = parent;
        label.push_str("/..");
    }
    let mut text = text.to_string();
    for (dir, label) in prefixes {
        let quoted = serde_json::to_string(&format!("{dir}/")).unwrap_or_default();
        let quoted = &quoted[1..quoted.len() - 1];
        text = text.replace(quoted, &format!("{label}/"));
    }
    text
}

/// The full request a provider would receive, as typed values: the
/// formatter's output wrapped by AgentScope's model class and serialised
/// as its SDK would ([`crate::wire`]). `send` and the workbench read it;
/// only the CLI turns it into the request oracle's object
/// ([`BuiltRequest::to_oracle`]).
#[derive(Debug, Clone)]
pub struct BuiltRequest {
    pub formatter: FormatterId,
    /// The model the request names (`model_choice`'s when not set).
    pub model: String,
    /// What AgentScope, the model class and the SDK would log.
    pub warnings: Vec<Value>,
    /// The settings' `tool_choice` and call kwargs, as the object shows them.
    tool_choice: Option<String>,
    call_kwargs: Map<String, Value>,
    pub outcome: Result<wire::Wire, BuildFailure>,
}

/// Why no request was built.
#[derive(Debug, Clone)]
pub enum BuildFailure {
    /// `Msg.from_dict` or the formatter raised: the oracle's `stage`,
    /// `error_type` and `error`.
    Formatting {
        stage: String,
        kind: String,
        message: String,
    },
    /// The model class raised (`stage`: "model_init" or "model"); how it
    /// was constructed, when it got that far.
    Model {
        stage: &'static str,
        error: PyErr,
        constructed: Option<wire::Constructed>,
    },
}

impl BuiltRequest {
    /// Why nothing can be sent: the formatter, the model class or the SDK
    /// raised.
    pub fn error(&self) -> Option<String> {
        match &self.outcome {
            Err(BuildFailure::Formatting { message, .. }) => Some(message.clone()),
            Err(BuildFailure::Model { error, .. }) => Some(error.message.clone()),
            Ok(w) => w.sdk_error.as_ref().map(|e| e.message.clone()),
        }
    }

    /// The HTTP request, when the SDK would send one.
    pub fn http(&self) -> Option<&wire::Wire> {
        self.outcome.as_ref().ok().filter(|w| w.sdk_error.is_none())
    }

    /// The request oracle's object (`request_oracle.py`).
    pub fn to_oracle(&self) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert(
            "formatter".into(),
            Value::String(self.formatter.class_name()),
        );
        out.insert(
            "model_class".into(),
            json!(wire::model_class(self.formatter.provider)),
        );
        out.insert("model".into(), Value::String(self.model.clone()));
        let constructed =
            |out: &mut Map<String, Value>, stream: bool, ctor: &Map<String, Value>| {
                out.insert("stream".into(), Value::Bool(stream));
                if !ctor.is_empty() {
                    out.insert("model_kwargs".into(), Value::Object(ctor.clone()));
                }
                out.insert(
                    "tool_choice".into(),
                    self.tool_choice.clone().map_or(Value::Null, Value::String),
                );
                if !self.call_kwargs.is_empty() {
                    out.insert(
                        "call_kwargs".into(),
                        Value::Object(self.call_kwargs.clone()),
                    );
                }
            };
        match &self.outcome {
            Ok(w) => {
                constructed(&mut out, w.stream, &w.model_kwargs);
                out.insert("sdk_call".into(), json!(w.sdk_call));
                out.insert("kwargs".into(), w.kwargs.clone());
                match &w.sdk_error {
                    None => {
                        out.insert(
                            "http".into(),
                            json!({"method": w.method, "url": &w.url, "headers": &w.headers}),
                        );
                        out.insert("http_body".into(), w.body.clone());
                    }
                    Some(e) => {
                        out.insert("http_error".into(), Value::Object(error_object("sdk", e)));
                    }
                }
            }
            Err(BuildFailure::Formatting {
                stage,
                kind,
                message,
            }) => {
                out.insert("error".into(), Value::String(message.clone()));
                out.insert("error_type".into(), Value::String(kind.clone()));
                out.insert("stage".into(), Value::String(stage.clone()));
            }
            Err(BuildFailure::Model {
                stage,
                error,
                constructed: with,
            }) => {
                if let Some(c) = with {
                    constructed(&mut out, c.stream, &c.model_kwargs);
                }
                out.extend(error_object(stage, error));
            }
        }
        if !self.warnings.is_empty() {
            out.insert("warnings".into(), Value::Array(self.warnings.clone()));
        }
        out
    }
}

/// [`build_request`] for `formatter` alone, reading local media only (no
/// downloads): the request the workbench exports and sends.
pub fn build_request_local(
    session: &Session,
    formatter: FormatterId,
    settings: &wire::Settings,
) -> BuiltRequest {
    let env = MediaEnv::new(session.base_dir(), Arc::new(crate::media::NoNetwork));
    build_request(session, &ReferenceRequest::plain(formatter), settings, &env)
}

pub fn build_request(
    session: &Session,
    request: &ReferenceRequest,
    settings: &wire::Settings,
    env: &MediaEnv,
) -> BuiltRequest {
    let provider = request.formatter.provider;
    let model = settings
        .model
        .clone()
        .unwrap_or_else(|| crate::model_choice::choose_model(session, provider, None).name);
    let formatted_request = ReferenceRequest {
        count: false,
        tools: false,
        token_counter: None,
        ..request.clone()
    };
    let mut formatted = run_reference_in(session, &formatted_request, env);
    let mut warnings: Vec<Value> = match formatted.shift_remove("warnings") {
        Some(Value::Array(w)) => w,
        _ => Vec::new(),
    };
    let mut built = BuiltRequest {
        formatter: request.formatter,
        model,
        warnings: Vec::new(),
        tool_choice: settings.tool_choice.clone(),
        call_kwargs: settings.call_kwargs.clone(),
        outcome: Err(BuildFailure::Formatting {
            stage: String::new(),
            kind: String::new(),
            message: String::new(),
        }),
    };
    let messages = match formatted.shift_remove("messages") {
        Some(Value::Array(m)) => m,
        _ => {
            let text = |key: &str| {
                formatted
                    .get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            built.outcome = Err(BuildFailure::Formatting {
                stage: text("stage"),
                kind: text("error_type"),
                message: text("error"),
            });
            built.warnings = warnings;
            return built;
        }
    };
    let mut warn = |w: String| warnings.push(Value::String(w));
    let wire = wire::build(
        request.formatter,
        messages,
        session.tools.as_ref(),
        settings,
        &mut warn,
    );
    built.outcome = wire.map_err(|rejected| {
        let (constructed, failure) = *rejected;
        let (stage, error) = match failure {
            wire::Failure::ModelInit(e) => ("model_init", e),
            wire::Failure::Model(e) => ("model", e),
        };
        BuildFailure::Model {
            stage,
            error,
            constructed,
        }
    });
    built.warnings = warnings;
    built
}
