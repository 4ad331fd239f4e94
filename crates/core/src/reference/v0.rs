//! AgentScope 0.1.6, the legacy API (`crate::legacy`): five classes with
//! `format_chat`, `format_multi_agent` and `format_auto`, one per provider
//! family (Ollama and DeepSeek go to `CommonFormatter`). Its `Msg` holds
//! less than 1.0's, so a session is converted first and what is lost is
//! listed; it neither counts tokens nor truncates.

use super::{one_to_one, Family, Formatted, Mode, Reference, Setting, SIX};
use crate::explain::{Facts, Fired, Firing, RULES_V0};
use crate::legacy::{self, ChatOptions, Class, Method};
use crate::media::MediaEnv;
use crate::session::Session;
use serde_json::Value;

pub struct V0;

/// The release.
pub static V0_1_6: V0 = V0;

fn method(mode: Mode) -> Method {
    match mode {
        Mode::Chat => Method::Chat,
        Mode::MultiAgent => Method::MultiAgent,
        Mode::Auto => Method::Auto,
    }
}

/// `CommonFormatter.format_chat`'s two options, from the session's
/// `"legacy"` object (the other calls take none).
fn options(session: &Session, class: Class, method: Method) -> ChatOptions {
    if class != Class::Common || method != Method::Chat {
        return ChatOptions::default();
    }
    let flag = |k: &str| {
        session
            .settings
            .get("legacy")
            .and_then(|l| l.get(k))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    };
    ChatOptions {
        require_alternative: flag("require_alternative"),
        require_user_last: flag("require_user_last"),
    }
}

impl Reference for V0 {
    fn version(&self) -> &'static str {
        "0.1.6"
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::Chat, Mode::MultiAgent, Mode::Auto]
    }

    fn families(&self) -> &'static [Family] {
        &SIX
    }

    fn call(&self, family: &Family, mode: Mode) -> String {
        match family.provider {
            Some(provider) => format!(
                "{}.format_{}",
                Class::for_provider(provider).name(),
                method(mode).name()
            ),
            None => format!("{} (no 0.1.6 formatter)", family.title),
        }
    }

    fn format(&self, session: &Session, family: &Family, mode: Mode, env: &MediaEnv) -> Formatted {
        let provider = match family.provider(self.version()) {
            Ok(p) => p,
            Err(e) => {
                return Formatted {
                    call: self.call(family, mode),
                    branch: None,
                    lost: Vec::new(),
                    messages: Err(e),
                    spans: Vec::new(),
                    estimate: None,
                    tools: None,
                    body: None,
                }
            }
        };
        let class = Class::for_provider(provider);
        let method = method(mode);
        let values: Vec<Value> = session.messages.iter().map(|m| m.value()).collect();
        let (entries, lost) = legacy::convert::from_v1(&values);
        let result = legacy::format(
            &entries,
            class,
            method,
            options(session, class, method),
            env,
        );
        let (branch, messages) = match result {
            Ok((branch, Value::Array(m))) => (branch, Ok(m)),
            Ok((branch, other)) => (branch, Ok(vec![other])),
            Err((_, e)) => (None, Err(e.into())),
        };
        let spans = match &messages {
            Ok(m) => one_to_one(values.len(), m.len()),
            Err(_) => Vec::new(),
        };
        Formatted {
            call: self.call(family, mode),
            branch,
            lost,
            messages,
            spans,
            estimate: None,
            tools: None,
            body: None,
        }
    }

    fn rules(
        &self,
        session: &Session,
        family: &Family,
        mode: Mode,
        formatted: &Formatted,
    ) -> Option<Vec<Fired>> {
        let class = Class::for_provider(family.provider?);
        let facts = Facts::of(session);
        let mut f = Firing::new(RULES_V0);
        f.on("v0.msg.convert", facts.all());
        let multi = match mode {
            Mode::Chat => false,
            Mode::MultiAgent => true,
            Mode::Auto => {
                f.whole("v0.auto.count-messages");
                formatted.branch == Some(Method::MultiAgent.name())
            }
        };
        let images = facts.which(|m| m.has("image"));
        let tool_results = facts.which(|m| m.has("tool_result"));
        let holding =
            |kinds: &'static [&'static str]| facts.which(move |m| kinds.iter().any(|k| m.has(k)));
        match (class, multi) {
            (Class::OpenAi, _) | (Class::DashScope, false) => {
                let one = if class == Class::OpenAi {
                    "v0.openai.one-list"
                } else {
                    "v0.dashscope.parts"
                };
                f.on(one, facts.all());
                f.on("v0.openai.tool-calls", facts.which(|m| m.calls()));
                f.on("v0.openai.tool-result-first", tool_results.clone());
                f.on("v0.python.str", tool_results);
                if class == Class::OpenAi {
                    f.on("v0.openai.image-url", images);
                    f.on(
                        "v0.unsupported.skipped",
                        holding(&["audio", "video", "file"]),
                    );
                } else {
                    f.on("v0.unsupported.skipped", holding(&["video", "file"]));
                }
            }
            (Class::Anthropic, false) => {
                f.on(
                    "v0.anthropic.system-later-as-user",
                    facts.which_at(|all, i| i > 0 && all[i].role == "system"),
                );
                f.on("v0.anthropic.tool-blocks", facts.which(|m| m.tools()));
                f.on("v0.anthropic.image-source", images);
                f.on(
                    "v0.unsupported.skipped",
                    holding(&["audio", "video", "file"]),
                );
            }
            (Class::Gemini, false) => f.on("v0.gemini.parts-string", facts.all()),
            (Class::Common, false) => {
                f.on("v0.common.text-only", facts.all());
                let o = options(session, class, Method::Chat);
                if o.require_alternative || o.require_user_last {
                    f.whole("v0.common.fallback");
                }
            }
            (_, true) => {
                f.on(
                    "v0.multi_agent.system-first",
                    facts.which_at(|all, i| i == 0 && all[i].role == "system"),
                );
                f.on(
                    "v0.multi_agent.history",
                    facts.which_at(|all, i| i > 0 || all[i].role != "system"),
                );
                match class {
                    Class::Anthropic => {
                        f.on("v0.python.str", facts.which(|m| m.tools()));
                        f.on("v0.anthropic.image-source", images);
                    }
                    Class::DashScope => {
                        f.on("v0.dashscope.media-first", holding(&["image", "audio"]))
                    }
                    Class::Common => f.on("v0.common.text-only", facts.all()),
                    _ => {}
                }
            }
        }
        Some(f.done())
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("its formatters neither count tokens nor truncate (there is no token_counter or max_tokens in the 0.1.6 API)")
    }

    fn settings(&self) -> &'static [Setting] {
        &[
            Setting {
                object: "legacy",
                key: "require_alternative",
                list: false,
                label: "0.1.6 alternate",
                help: "CommonFormatter.format_chat(require_alternative=...): same roles side by side fall back to multi-agent",
            },
            Setting {
                object: "legacy",
                key: "require_user_last",
                list: false,
                label: "0.1.6 user last",
                help: "CommonFormatter.format_chat(require_user_last=...): a last message not from the user falls back to multi-agent",
            },
        ]
    }
}
