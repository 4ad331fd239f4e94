//! AgentScope Java 2.0.2 behind the release interface: the chat and
//! multi-agent classes of OpenAI, DashScope (the endpoint the session's
//! model routes to), Ollama, DeepSeek and GLM. Java's formatters neither
//! count tokens nor truncate; its Anthropic and Gemini requests are written
//! by the vendors' SDKs, which are not reproduced: those two keys say so.

use super::common::Ctx;
use super::{dashscope, msg, Class, Family as JavaFamily};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::py::PyErr;
use crate::reference::{one_to_one, Family, Formatted, Mode, Reference, SIX};
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

fn sdk_error(provider: &Family) -> PyErr {
    PyErr::new(
        "UnsupportedOperationException",
        format!(
            "AgentScope Java builds {} requests with the vendor's Java SDK, whose serialiser writes the wire JSON; formatscope does not reproduce them",
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
            };
        };
        let values: Vec<Value> = session.messages.iter().map(|m| m.value()).collect();
        let class = Class {
            family: f,
            multi_agent: mode == Mode::MultiAgent,
        };
        // DashScope: the endpoint the model routes to, the model chosen as
        // the wire's and the count's (qwen-max, the default, is on the text
        // one).
        let endpoint = (f == JavaFamily::DashScope).then(|| {
            let model = crate::model_choice::choose_model(session, Provider::DashScope, None);
            dashscope::route(&model.name)
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
            (Ok(out), Mode::Chat) if f != JavaFamily::Ollama => one_to_one(values.len(), out.len()),
            _ => Vec::new(),
        };
        Formatted {
            call,
            branch: None,
            lost: Vec::new(),
            messages: messages.map_err(Into::into),
            spans,
            estimate: None,
            tools: None,
        }
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("Java's formatters neither count tokens nor truncate")
    }
}
