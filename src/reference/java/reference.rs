//! AgentScope Java 2.0.2 behind the release interface: the chat and
//! multi-agent classes of OpenAI, DashScope (the endpoint its default model
//! routes to), Ollama and DeepSeek. Java's formatters neither count tokens
//! nor truncate; its Anthropic and Gemini requests are written by the
//! vendors' SDKs, which are not reproduced.

use super::common::Ctx;
use super::{dashscope, msg, Class, Family};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::py::PyErr;
use crate::reference::{one_to_one, Formatted, Mode, Reference};
use crate::session::Session;
use serde_json::Value;

pub struct Java;

/// The release.
pub static JAVA_2_0_2: Java = Java;

fn family(provider: Provider) -> Option<Family> {
    match provider {
        Provider::OpenAi => Some(Family::OpenAi),
        Provider::DashScope => Some(Family::DashScope),
        Provider::Ollama => Some(Family::Ollama),
        Provider::DeepSeek => Some(Family::DeepSeek),
        Provider::Anthropic | Provider::Gemini => None,
    }
}

fn class_name(f: Family, mode: Mode) -> &'static str {
    let multi = mode == Mode::MultiAgent;
    match (f, multi) {
        (Family::OpenAi, false) => "OpenAIChatFormatter",
        (Family::OpenAi, true) => "OpenAIMultiAgentFormatter",
        (Family::DashScope, false) => "DashScopeChatFormatter",
        (Family::DashScope, true) => "DashScopeMultiAgentFormatter",
        (Family::Ollama, false) => "OllamaChatFormatter",
        (Family::Ollama, true) => "OllamaMultiAgentFormatter",
        (Family::DeepSeek, false) => "DeepSeekFormatter",
        (Family::DeepSeek, true) => "DeepSeekMultiAgentFormatter",
        (Family::Glm, false) => "GLMFormatter",
        (Family::Glm, true) => "GLMMultiAgentFormatter",
    }
}

fn sdk_error(provider: Provider) -> PyErr {
    PyErr::new(
        "UnsupportedOperationException",
        format!(
            "AgentScope Java builds {} requests with the vendor's Java SDK, whose serialiser writes the wire JSON; formatscope does not reproduce them",
            provider.class_prefix()
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

    fn providers(&self) -> &'static [Provider] {
        &[
            Provider::OpenAi,
            Provider::DashScope,
            Provider::Ollama,
            Provider::DeepSeek,
        ]
    }

    fn call(&self, provider: Provider, mode: Mode) -> String {
        match family(provider) {
            Some(Family::DashScope) if mode != Mode::MultiAgent => {
                "DashScopeChatFormatter.format".into()
            }
            Some(f) => format!("{}.format", class_name(f, mode)),
            None => format!("{} (vendor SDK)", provider.class_prefix()),
        }
    }

    fn format(
        &self,
        session: &Session,
        provider: Provider,
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
            };
        };
        let values: Vec<Value> = session.messages.iter().map(|m| m.value()).collect();
        let class = Class {
            family: f,
            multi_agent: mode == Mode::MultiAgent,
        };
        // DashScope: the endpoint the session's model routes to (qwen-max,
        // the default, is on the text one).
        let endpoint = (f == Family::DashScope).then(|| {
            let model = session.settings.get("model").and_then(Value::as_str);
            dashscope::route(model.unwrap_or(provider.default_model()))
        });
        let call = match endpoint {
            Some(dashscope::Endpoint::Multimodal) => {
                format!("{}.formatMultiModal", class_name(f, mode))
            }
            _ => call,
        };
        let ctx = Ctx::new(env);
        let messages = msg::load(&values)
            .map(|msgs| super::format(&ctx, class, endpoint, &msgs, super::HISTORY_PROMPT, false))
            .and_then(|out| match ctx.failure.take() {
                Some(e) => Err(e),
                None => Ok(out),
            });
        let spans = match (&messages, mode) {
            (Ok(out), Mode::Chat) if f != Family::Ollama => one_to_one(values.len(), out.len()),
            _ => Vec::new(),
        };
        Formatted {
            call,
            branch: None,
            lost: Vec::new(),
            messages: messages.map_err(Into::into),
            spans,
            estimate: None,
        }
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("Java's formatters neither count tokens nor truncate")
    }
}
