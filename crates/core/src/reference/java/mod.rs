//! AgentScope Java 2.0.2's formatters, byte for byte: a session (loaded as
//! Java loads saved `Msg`s) through one of its ten formatter classes, wrapped
//! in the request its model class sends (`stream: true`, each provider's
//! envelope), and the body as Jackson writes it. Pure: media come through a
//! [`MediaEnv`] (local files and a web fetcher), nothing else is touched.
//! Anthropic and Gemini are not here: Java builds those requests with the
//! vendors' SDK types, whose serialisers decide the wire JSON.

pub mod common;
pub mod dashscope;
pub mod explain;
pub mod jackson;
pub mod msg;
pub mod ollama;
pub mod openai;
pub mod reference;
pub mod wire;

use crate::json;
use crate::media::MediaEnv;
use crate::py::PyErr;
use common::Ctx;
use dashscope::Endpoint;
use msg::{Msg, ToolSchema};
use openai::Flavor;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// The ten formatter classes of AgentScope Java 2.0.2 covered here.
pub const FORMATTERS: [&str; 10] = [
    "OpenAIChatFormatter",
    "OpenAIMultiAgentFormatter",
    "DashScopeChatFormatter",
    "DashScopeMultiAgentFormatter",
    "OllamaChatFormatter",
    "OllamaMultiAgentFormatter",
    "DeepSeekFormatter",
    "DeepSeekMultiAgentFormatter",
    "GLMFormatter",
    "GLMMultiAgentFormatter",
];

/// The multi-agent formatters' default history prompt.
pub const HISTORY_PROMPT: &str = "# Conversation History\nThe content between <history></history> tags contains your conversation history\n";

/// A provider family (one chat and one multi-agent class, one model class).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    OpenAi,
    DashScope,
    Ollama,
    DeepSeek,
    Glm,
}

impl Family {
    /// The model a vector uses when none is given.
    pub fn default_model(self, endpoint: Option<Endpoint>) -> &'static str {
        match self {
            Family::OpenAi => "gpt-4o",
            Family::DashScope if endpoint == Some(Endpoint::Multimodal) => "qwen-vl-max",
            Family::DashScope => "qwen-max",
            Family::Ollama => "qwen3:8b",
            Family::DeepSeek => "deepseek-chat",
            Family::Glm => "glm-4.6",
        }
    }
}

/// A formatter class: its family and whether it is the multi-agent one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Class {
    pub family: Family,
    pub multi_agent: bool,
}

impl Class {
    pub fn from_name(name: &str) -> Option<Class> {
        if !FORMATTERS.contains(&name) {
            return None;
        }
        let family = [
            ("OpenAI", Family::OpenAi),
            ("DashScope", Family::DashScope),
            ("Ollama", Family::Ollama),
            ("DeepSeek", Family::DeepSeek),
            ("GLM", Family::Glm),
        ]
        .into_iter()
        .find(|(p, _)| name.starts_with(p))
        .map(|(_, f)| f)?;
        Some(Class {
            family,
            multi_agent: name.ends_with("MultiAgentFormatter"),
        })
    }
}

/// The options of a run (the vectors' arguments).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--formatter`; `None`: from the session's `provider` and `mode`.
    pub formatter: Option<String>,
    /// `--endpoint text|multimodal` (DashScope): forces the endpoint.
    pub endpoint: Option<String>,
    /// `--model`; `None`: the family's default.
    pub model: Option<String>,
    pub conversation_history_prompt: Option<String>,
    /// Ollama's `promoteToolResultImages`.
    pub promote_tool_result_images: bool,
    /// `--raw`: only the formatted messages.
    pub raw: bool,
}

/// A usage error (the run does not start).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Error(pub String);

/// The class the session names (`provider`, `mode`).
pub fn formatter_for_session(session: &Value) -> Result<String, Error> {
    let provider = session
        .get("provider")
        .and_then(Value::as_str)
        .unwrap_or("openai")
        .to_lowercase();
    let multi = session.get("mode").and_then(Value::as_str) == Some("multi_agent");
    let (chat, multi_name) = match provider.as_str() {
        "openai" => ("OpenAIChatFormatter", "OpenAIMultiAgentFormatter"),
        "dashscope" => ("DashScopeChatFormatter", "DashScopeMultiAgentFormatter"),
        "ollama" => ("OllamaChatFormatter", "OllamaMultiAgentFormatter"),
        "deepseek" => ("DeepSeekFormatter", "DeepSeekMultiAgentFormatter"),
        "glm" => ("GLMFormatter", "GLMMultiAgentFormatter"),
        other => {
            return Err(Error(format!(
                "AgentScope Java 2.0.2 has no formatter here for provider {other:?} (Anthropic and Gemini are built with the vendors' Java SDKs)"
            )))
        }
    };
    Ok(if multi { multi_name } else { chat }.to_string())
}

/// Where a run goes: the class, its DashScope endpoint and the model.
#[derive(Debug, Clone)]
pub struct Target {
    pub name: String,
    pub class: Class,
    pub endpoint: Option<Endpoint>,
    pub model: String,
}

/// The class, endpoint and model a run uses.
pub fn target(session: &Value, opts: &Options) -> Result<Target, Error> {
    let name = match &opts.formatter {
        Some(f) => f.clone(),
        None => formatter_for_session(session)?,
    };
    let class = Class::from_name(&name).ok_or_else(|| {
        Error(format!(
            "unknown formatter {name}; one of {}",
            FORMATTERS.join(", ")
        ))
    })?;
    let forced = match opts.endpoint.as_deref() {
        None => None,
        Some("text") => Some(Endpoint::Text),
        Some("multimodal") => Some(Endpoint::Multimodal),
        Some(other) => return Err(Error(format!("--endpoint {other}: text or multimodal"))),
    };
    if forced.is_some() && class.family != Family::DashScope {
        return Err(Error(format!(
            "{name} has no endpoint choice (DashScope only)"
        )));
    }
    if opts.conversation_history_prompt.is_some() && !class.multi_agent {
        return Err(Error(format!(
            "{name} has no option conversation_history_prompt"
        )));
    }
    if opts.promote_tool_result_images && class.family != Family::Ollama {
        return Err(Error(format!(
            "{name} has no option promote_tool_result_images (Ollama only)"
        )));
    }
    let endpoint = match (class.family, forced, &opts.model) {
        (Family::DashScope, Some(e), _) => Some(e),
        (Family::DashScope, None, Some(m)) => Some(dashscope::route(m)),
        (Family::DashScope, None, None) => Some(Endpoint::Text),
        _ => None,
    };
    let model = opts
        .model
        .clone()
        .unwrap_or_else(|| class.family.default_model(endpoint).to_string());
    Ok(Target {
        name,
        class,
        endpoint,
        model,
    })
}

/// One class over loaded `Msg`s: the formatted messages (what the model
/// class puts in its body).
pub fn format(
    ctx: &Ctx,
    class: Class,
    endpoint: Option<Endpoint>,
    msgs: &[Msg],
    prompt: &str,
    promote: bool,
) -> Vec<Value> {
    let multi = class.multi_agent;
    match class.family {
        Family::OpenAi => openai::format(ctx, Flavor::OpenAi, multi, msgs, prompt),
        Family::DeepSeek => openai::format(ctx, Flavor::DeepSeek, multi, msgs, prompt),
        Family::Glm => openai::format(ctx, Flavor::Glm, multi, msgs, prompt),
        Family::DashScope => {
            dashscope::format(ctx, multi, endpoint.unwrap_or(Endpoint::Text), msgs, prompt)
        }
        Family::Ollama => ollama::format(ctx, multi, msgs, prompt, promote),
    }
}

/// The whole request body.
pub fn request(target: &Target, messages: Vec<Value>, tools: &[ToolSchema]) -> Value {
    match target.class.family {
        Family::OpenAi => openai::request(Flavor::OpenAi, &target.model, messages, tools),
        Family::DeepSeek => openai::request(Flavor::DeepSeek, &target.model, messages, tools),
        Family::Glm => openai::request(Flavor::Glm, &target.model, messages, tools),
        Family::DashScope => dashscope::request(&target.model, messages, tools),
        Family::Ollama => ollama::request(&target.model, messages, tools),
    }
}

fn error_fields(out: &mut Map<String, Value>, stage: &str, e: &PyErr) {
    out.insert("error".into(), e.message.clone().into());
    out.insert("error_type".into(), e.kind.into());
    out.insert("stage".into(), stage.into());
    if let Some(c) = msg::cause(e) {
        out.insert("cause".into(), c.into());
    }
}

/// Runs one formatter on one session as the vectors were made: the JSON
/// object of a vector (`formatter`, `endpoint`, `model`, `messages`,
/// `tools`, `request`, `request_text`, `warnings`, or the error fields).
pub fn run(session: &Value, env: &MediaEnv, opts: &Options) -> Result<Value, Error> {
    let (messages, tools) = crate::reference::v2::session_parts(session).map_err(|e| Error(e.0))?;
    let target = target(session, opts)?;
    let mut out = Map::new();
    out.insert("formatter".into(), target.name.clone().into());
    if let Some(e) = target.endpoint {
        out.insert("endpoint".into(), e.name().into());
    }
    out.insert("model".into(), target.model.clone().into());
    let ctx = Ctx::new(env);
    let body = stages(&ctx, &target, &messages, &tools, opts, &mut out);
    if let Some(body) = body {
        if let Some(m) = body
            .get("messages")
            .or_else(|| body.pointer("/input/messages"))
        {
            out.insert("messages".into(), m.clone());
        }
        if let Some(t) = body
            .get("tools")
            .or_else(|| body.pointer("/parameters/tools"))
        {
            out.insert("tools".into(), t.clone());
        }
        out.insert("request_text".into(), jackson::write(&body).into());
        out.insert("request".into(), body);
    }
    let warnings = ctx.warnings.take();
    if !warnings.is_empty() {
        out.insert("warnings".into(), json!(warnings));
    }
    let session_dir =
        std::path::absolute(env.base_dir()).unwrap_or_else(|_| PathBuf::from(env.base_dir()));
    let out = crate::reference::v2::portable(Value::Object(out), &session_dir);
    if opts.raw {
        return Ok(match out.get("messages") {
            Some(m) => m.clone(),
            None => {
                let mut e = Map::new();
                for (k, v) in out.as_object().into_iter().flatten() {
                    if k.starts_with("error") || k == "stage" {
                        e.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(e)
            }
        });
    }
    Ok(out)
}

/// The `NullPointerException` a class throws for a message without a
/// role, where it reads the role (AgentScope Java 2.0.2's source; no test
/// there covers it): the OpenAI family's converters and multi-agent
/// grouping switch on it, DashScope's chat converters name it; DashScope's
/// multi-agent text path never reads it (such a message joins the history
/// by its name, or is dropped with tool blocks), its multimodal path only
/// for tool messages; Ollama's chat converter for a message with text,
/// images or tool calls, its multi-agent one for a tool message or a lone
/// message. The JVM's helpful message is written as JDK 21 writes it.
fn null_role_failure(target: &Target, msgs: &[Msg]) -> Option<PyErr> {
    let nulls: Vec<&Msg> = msgs.iter().filter(|m| m.role == msg::Role::Null).collect();
    if nulls.is_empty() {
        return None;
    }
    let tool = |m: &Msg| m.has_tool_use() || m.has_tool_result();
    let multi = target.class.multi_agent;
    let (throws, call) = match (target.class.family, multi, target.endpoint) {
        (Family::OpenAi | Family::DeepSeek | Family::Glm, _, _) => (true, "ordinal()"),
        (Family::DashScope, false, _) => (true, "name()"),
        (Family::DashScope, true, Some(Endpoint::Multimodal)) => {
            (nulls.iter().any(|m| tool(m)), "name()")
        }
        (Family::DashScope, true, _) => (false, ""),
        (Family::Ollama, false, _) => (
            nulls.iter().any(|m| {
                m.content.iter().any(|b| {
                    matches!(
                        b,
                        msg::Block::Text(_) | msg::Block::Image(_) | msg::Block::ToolUse { .. }
                    )
                })
            }),
            "ordinal()",
        ),
        (Family::Ollama, true, _) => {
            let rest = match msgs.first() {
                Some(m) if m.role == msg::Role::System => &msgs[1..],
                _ => msgs,
            };
            let lone = rest.len() == 1 && rest[0].role == msg::Role::Null && !tool(&rest[0]);
            (lone || nulls.iter().any(|m| tool(m)), "ordinal()")
        }
    };
    throws.then(|| {
        PyErr::new(
            "NullPointerException",
            format!(
                "Cannot invoke \"io.agentscope.core.message.MsgRole.{call}\" because the return value of \"io.agentscope.core.message.Msg.getRole()\" is null"
            ),
        )
    })
}

/// Loads the messages and tools and formats them into the model class's
/// body, or records the error (`error`, `error_type`, `stage`) in `out`:
/// the one path of `run` and the workbench's release.
pub(super) fn stages(
    ctx: &Ctx,
    target: &Target,
    messages: &[Value],
    tools: &Option<Value>,
    opts: &Options,
    out: &mut Map<String, Value>,
) -> Option<Value> {
    let msgs = match msg::load(messages) {
        Ok(m) => m,
        Err(e) => {
            error_fields(out, "msg", &e);
            return None;
        }
    };
    if let Some(e) = null_role_failure(target, &msgs) {
        error_fields(out, "format", &e);
        return None;
    }
    let tool_list: Vec<Value> = match tools {
        Some(Value::Array(t)) => t.clone(),
        _ => Vec::new(),
    };
    let schemas = match msg::tool_schemas(&tool_list) {
        Ok(s) => s,
        Err(e) => {
            error_fields(out, "tools", &e);
            return None;
        }
    };
    let prompt = opts
        .conversation_history_prompt
        .as_deref()
        .unwrap_or(HISTORY_PROMPT);
    let formatted = format(
        ctx,
        target.class,
        target.endpoint,
        &msgs,
        prompt,
        opts.promote_tool_result_images,
    );
    if let Some(e) = ctx.failure.take() {
        error_fields(out, "format", &e);
        return None;
    }
    Some(request(target, formatted, &schemas))
}
