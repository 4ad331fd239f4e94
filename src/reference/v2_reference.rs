//! AgentScope 2.0.11 as a release of the workbench and the compare view:
//! the provider on screen goes to its 2.x chat or multi-agent class
//! (`v2`'s other five families, MiniMax to Volcengine, are the CLI's). 2.x
//! does not truncate in the formatter and has no tokenizers.

use super::{v2, Formatted, Mode, Raised, Reference};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::session::Session;
use serde_json::{Map, Value};

pub struct V2;

/// The release.
pub static V2_0_11: V2 = V2;

/// The 2.x class for `provider` in `mode`.
fn class_name(provider: Provider, mode: Mode) -> String {
    let family = match provider {
        Provider::OpenAi => "OpenAI",
        Provider::Anthropic => "Anthropic",
        Provider::DashScope => "DashScope",
        Provider::Gemini => "Gemini",
        Provider::Ollama => "Ollama",
        Provider::DeepSeek => "DeepSeek",
    };
    match mode {
        Mode::MultiAgent => format!("{family}MultiAgentFormatter"),
        _ => format!("{family}ChatFormatter"),
    }
}

impl Reference for V2 {
    fn version(&self) -> &'static str {
        "2.0.11"
    }

    fn modes(&self) -> &'static [Mode] {
        &[Mode::Chat, Mode::MultiAgent]
    }

    fn providers(&self) -> &'static [Provider] {
        &Provider::ALL
    }

    fn call(&self, provider: Provider, mode: Mode) -> String {
        format!("{}.format", class_name(provider, mode))
    }

    fn format(
        &self,
        session: &Session,
        provider: Provider,
        mode: Mode,
        env: &MediaEnv,
    ) -> Formatted {
        let mut object = Map::new();
        object.insert(
            "messages".into(),
            Value::Array(session.messages.iter().map(|m| m.value()).collect()),
        );
        if let Some(t) = &session.tools {
            object.insert("tools".into(), t.clone());
        }
        let opts = v2::Options {
            formatter: Some(class_name(provider, mode)),
            count: true,
            ..v2::Options::default()
        };
        let out = v2::run_with(&Value::Object(object), env, &opts);
        let estimate = out.as_ref().ok().and_then(|o| {
            o.get("tokens_with_tools")
                .or_else(|| o.get("tokens"))
                .and_then(Value::as_u64)
        });
        let messages = match out {
            Err(e) => Err(Raised {
                kind: "UsageError".into(),
                message: e.0,
            }),
            Ok(out) => match out.get("messages") {
                Some(Value::Array(m)) => Ok(m.clone()),
                _ => Err(Raised {
                    kind: text(&out, "error_type").unwrap_or("Error").to_string(),
                    message: text(&out, "error").unwrap_or_default().to_string(),
                }),
            },
        };
        let spans = match &messages {
            Ok(m) => super::one_to_one(session.messages.len(), m.len()),
            Err(_) => Vec::new(),
        };
        Formatted {
            call: self.call(provider, mode),
            branch: None,
            lost: Vec::new(),
            messages,
            spans,
            estimate,
        }
    }

    fn counts_and_truncates(&self) -> bool {
        false
    }

    fn no_budget(&self) -> Option<&'static str> {
        Some("AgentScope 2.x does not truncate in the formatter (compression lives in the agent) and counts with a bytes/4 estimate, not a tokenizer")
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}
