//! AgentScope Java 2.0.2 behind the release interface: the chat and
//! multi-agent classes of OpenAI, DashScope (the endpoint the session's
//! model routes to), Ollama, DeepSeek and GLM. Java's formatters neither
//! count tokens nor truncate; its Anthropic and Gemini requests are written
//! by the vendors' SDKs, which are not reproduced: those two keys say so.

use super::common::Ctx;
use super::{dashscope, Family as JavaFamily};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::py::PyErr;
use crate::reference::request::key_variable;
use crate::reference::{
    one_to_one, Body, Family, FormatFlags, FormatOracle, Formatted, Mode, Raised, Reference,
    Requested, Stopped, UsageError, WireAsk, SIX,
};
use crate::session::Session;
use serde_json::Value;

pub struct Java;

/// The release.
pub static JAVA_2_0_2: Java = Java;

/// The 1.0.21 six on their keys (Anthropic and Gemini to say Java's
/// vendor SDKs write them), then GLM.
static FAMILIES: [Family; 7] = [
    SIX[0],
    SIX[1],
    SIX[2],
    SIX[3],
    SIX[4],
    SIX[5],
    Family::new("glm", "GLM"),
];

/// Java's formatter family for a provider; None: a vendor SDK's.
fn family(provider: &Family) -> Option<JavaFamily> {
    match (provider.id, provider.provider) {
        ("glm", _) => Some(JavaFamily::Glm),
        (_, Some(Provider::OpenAi)) => Some(JavaFamily::OpenAi),
        (_, Some(Provider::DashScope)) => Some(JavaFamily::DashScope),
        (_, Some(Provider::Ollama)) => Some(JavaFamily::Ollama),
        (_, Some(Provider::DeepSeek)) => Some(JavaFamily::DeepSeek),
        _ => None,
    }
}

fn class_name(f: JavaFamily, mode: Mode) -> &'static str {
    let multi = mode == Mode::MultiAgent;
    match (f, multi) {
        (JavaFamily::OpenAi, false) => "OpenAIChatFormatter",
        (JavaFamily::OpenAi, true) => "OpenAIMultiAgentFormatter",
        (JavaFamily::DashScope, false) => "DashScopeChatFormatter",
        (JavaFamily::DashScope, true) => "DashScopeMultiAgentFormatter",
        (JavaFamily::Ollama, false) => "OllamaChatFormatter",
        (JavaFamily::Ollama, true) => "OllamaMultiAgentFormatter",
        (JavaFamily::DeepSeek, false) => "DeepSeekFormatter",
        (JavaFamily::DeepSeek, true) => "DeepSeekMultiAgentFormatter",
        (JavaFamily::Glm, false) => "GLMFormatter",
        (JavaFamily::Glm, true) => "GLMMultiAgentFormatter",
    }
}

/// How the message of a request formatscope does not build for Java
/// begins: AgentScope Java raises nothing here, the limit is formatscope's
/// (the panes show it as formatscope's, not as an AgentScope error).
pub const NOT_BUILT: &str = "formatscope does not build this for Java 2.0.2";

/// Anthropic's and Gemini's requests, which Java's vendor SDKs write: not
/// an error of AgentScope Java, a limit of formatscope. The kind stays the
/// one `lint::port` skips (no finding for what formatscope does not build).
fn sdk_error(provider: &Family) -> PyErr {
    PyErr::new(
        "UnsupportedOperationException",
        format!(
            "{NOT_BUILT}: AgentScope Java writes {} requests with the vendor's Java SDK, whose serialiser formatscope does not reproduce (a limit of formatscope, not an AgentScope error)",
            provider.title
        ),
    )
}

impl Reference for Java {
    fn version(&self) -> &'static str {
        "java-2.0.2"
    }

    fn title(&self) -> String {
        "AgentScope Java 2.0.2".into()
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::Chat, Mode::MultiAgent]
    }

    fn families(&self) -> &'static [Family] {
        &FAMILIES
    }

    fn call(&self, provider: &Family, mode: Mode) -> String {
        match family(provider) {
            Some(JavaFamily::DashScope) if mode != Mode::MultiAgent => {
                "DashScopeChatFormatter.format".into()
            }
            Some(f) => format!("{}.format", class_name(f, mode)),
            None => format!("{} (vendor SDK)", provider.title),
        }
    }

    fn format(
        &self,
        session: &Session,
        provider: &Family,
        mode: Mode,
        env: &MediaEnv,
    ) -> Formatted {
        let call = self.call(provider, mode);
        let Some(f) = family(provider) else {
            return Formatted {
                call,
                branch: None,
                lost: Vec::new(),
                messages: Err(sdk_error(provider).into()),
                spans: Vec::new(),
                estimate: None,
                tools: None,
                body: None,
            };
        };
        let values: Vec<Value> = session.messages.iter().map(|m| m.value()).collect();
        // The model the wire and the count choose for the provider (GLM:
        // Java's default); DashScope routes it to its endpoint.
        let model = provider
            .provider
            .map(|p| crate::model_choice::choose_model(session, p, None).name);
        let opts = super::Options {
            formatter: Some(class_name(f, mode).to_string()),
            model,
            ..super::Options::default()
        };
        let target = match super::target(&Value::Null, &opts) {
            Ok(t) => t,
            Err(e) => {
                return Formatted {
                    call,
                    branch: None,
                    lost: Vec::new(),
                    messages: Err(PyErr::new("UsageError", e.0).into()),
                    spans: Vec::new(),
                    estimate: None,
                    tools: None,
                    body: None,
                }
            }
        };
        let call = match target.endpoint {
            Some(dashscope::Endpoint::Multimodal) => {
                format!("{}.formatMultiModal", class_name(f, mode))
            }
            _ => call,
        };
        // The same stages as `format --agentscope java-2.0.2`: load, tool
        // schemas, format, the model class's body.
        let ctx = Ctx::new(env);
        let mut failed = serde_json::Map::new();
        let body = super::stages(&ctx, &target, &values, &session.tools, &opts, &mut failed);
        let messages = match &body {
            Some(b) => Ok(b
                .get("messages")
                .or_else(|| b.pointer("/input/messages"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()),
            None => Err(Raised {
                kind: text(&failed, "error_type"),
                message: text(&failed, "error"),
            }),
        };
        let spans = match (&messages, mode) {
            (Ok(out), Mode::Chat) if f != JavaFamily::Ollama => one_to_one(values.len(), out.len()),
            _ => Vec::new(),
        };
        let endpoint = match target.endpoint {
            Some(e) => format!(
                "{} {} endpoint, model {}",
                provider.title,
                e.name(),
                target.model
            ),
            None => format!("{}, model {}", provider.title, target.model),
        };
        Formatted {
            call,
            branch: None,
            lost: Vec::new(),
            messages,
            spans,
            estimate: None,
            tools: None,
            body: body.map(|b| Body {
                endpoint,
                text: super::jackson::write(&b),
            }),
        }
    }

    fn rules(
        &self,
        session: &Session,
        family: &Family,
        mode: Mode,
        formatted: &Formatted,
    ) -> Option<Vec<crate::explain::Fired>> {
        Some(super::explain::rules(session, family, mode, formatted))
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("Java's formatters neither count tokens nor truncate")
    }

    fn format_oracle(&self) -> Option<FormatOracle> {
        Some(format_oracle)
    }

    fn with_base_url(
        &self,
        _family: &Family,
        settings: &mut crate::wire::Settings,
        url: &str,
    ) -> Result<(), UsageError> {
        settings
            .model_kwargs
            .insert("base_url".into(), Value::String(url.to_string()));
        Ok(())
    }

    fn request(&self, ask: &WireAsk) -> Result<Requested, UsageError> {
        let class = match (ask.class, family(ask.family)) {
            (Some(c), _) => c.to_string(),
            (None, Some(f)) => class_name(f, ask.mode).to_string(),
            (None, None) => return Err(UsageError(sdk_error(ask.family).message)),
        };
        let settings = ask.settings;
        if settings.tool_choice.is_some() || !settings.call_kwargs.is_empty() {
            return Err(UsageError(
                "AgentScope Java's request here takes no tool choice or call arguments (GenerateOptions are not reproduced)"
                    .into(),
            ));
        }
        let opts = super::Options {
            formatter: Some(class.clone()),
            endpoint: ask.endpoint.clone(),
            model: settings.model.clone(),
            conversation_history_prompt: ask.history_prompt.clone(),
            ..super::Options::default()
        };
        let base_url = match settings.model_kwargs.get("base_url") {
            None => None,
            Some(Value::String(u)) => Some(u.as_str()),
            Some(_) => {
                return Err(UsageError(
                    "the Java model's base_url must be a string".into(),
                ))
            }
        };
        if let Some(k) = settings.model_kwargs.keys().find(|k| *k != "base_url") {
            return Err(UsageError(format!(
                "the Java model here takes base_url only, not {k:?} (the builders' other settings are not reproduced)"
            )));
        }
        let mut session = serde_json::Map::new();
        session.insert(
            "messages".into(),
            Value::Array(ask.session.messages.iter().map(|m| m.value()).collect()),
        );
        if let Some(t) = &ask.session.tools {
            session.insert("tools".into(), t.clone());
        }
        let (printed, wire) = super::wire::request(
            &Value::Object(session),
            ask.env,
            &opts,
            settings.stream.unwrap_or(true),
            base_url,
        )?;
        let stopped = printed.get("error").map(|e| Stopped {
            stage: text(&printed, "stage"),
            error: Raised {
                kind: text(&printed, "error_type"),
                message: e.as_str().unwrap_or_default().to_string(),
            },
        });
        let warnings = printed
            .get("warnings")
            .and_then(Value::as_array)
            .map(|w| {
                w.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let mut shown = serde_json::Map::new();
        shown.insert("agentscope".into(), Value::String(self.version().into()));
        shown.extend(printed);
        let java = super::Class::from_name(&class).map(|c| c.family);
        let key = match java {
            Some(JavaFamily::Ollama) => None,
            _ => key_variable(ask.family),
        };
        let framing = match java {
            Some(JavaFamily::DashScope) => crate::response::Api::DashScope,
            Some(JavaFamily::Ollama) => crate::response::Api::Ollama,
            _ => crate::response::Api::OpenAi,
        };
        Ok(Requested {
            class,
            wire,
            stopped,
            key_variable: key,
            provider: ask.family.provider,
            home: java.map(super::wire::default_base_url),
            framing,
            printed: shown,
            warnings,
        })
    }
}

fn text(m: &serde_json::Map<String, Value>, key: &str) -> String {
    m.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The release's `format` object ([`Reference::format_oracle`]).
fn format_oracle(
    session: &Value,
    env: &MediaEnv,
    flags: &FormatFlags,
) -> Result<Value, UsageError> {
    if let Some(flag) = flags.first_of(&[
        ("--count", flags.count),
        ("--tools", flags.tools),
        ("--tool-choice", flags.tool_choice.is_some()),
        ("--tool-choice-tools", flags.tool_choice_tools.is_some()),
        ("--input-types", flags.input_types.is_some()),
        ("--msgs-only", flags.msgs_only),
        ("--dump-msgs", flags.dump_msgs),
    ]) {
        return Err(UsageError(format!(
            "{flag} is not an AgentScope Java 2.0.2 option (Java's formatters neither count tokens nor truncate; the request always carries the session's tools)"
        )));
    }
    let opts = super::Options {
        formatter: flags.class.clone(),
        endpoint: flags.endpoint.clone(),
        model: flags.model.clone(),
        conversation_history_prompt: flags.history_prompt.clone(),
        promote_tool_result_images: flags.promote_images,
        raw: flags.raw,
    };
    super::run(session, env, &opts).map_err(UsageError::from)
}
