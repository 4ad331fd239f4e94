//! Which model a request is for: the one answer that `count`, `request`,
//! `send`, `lint`, `diff`, the exports and every workbench pane use, so
//! the model counted is the model sent.
//!
//! The order: a command-line flag (`--model`); then the session's own
//! choice, when the request is for the session's own provider (its
//! `"request"` object's `model`, else its top-level `"model"`): a session
//! written for OpenAI that names `gpt-4.1` does not send `gpt-4.1` to
//! Anthropic; then the provider's default ([`Provider::default_model`]),
//! which every surface labels as assumed.

use crate::provider::Provider;
use crate::session::Session;
use crate::tokens::models::{self, ModelInfo};
use crate::wire::{RequestSettingsError, Settings};
use serde_json::Value;

/// Where the chosen model's name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// `--model` on the command line.
    Flag,
    /// The session's `"request"` object.
    Request,
    /// The session's top-level `"model"`.
    Session,
    /// Nothing named one: the provider's default, a guess.
    Default,
}

/// The model a request is for, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub provider: Provider,
    pub name: String,
    pub source: ModelSource,
}

impl ModelChoice {
    /// Whether nothing named the model (the provider's default is assumed).
    pub fn assumed(&self) -> bool {
        self.source == ModelSource::Default
    }

    /// The model's entry in the models table (tokenizer, context window),
    /// with a note when the name is assumed or unknown.
    pub fn info(&self) -> ModelInfo {
        if self.assumed() {
            models::resolve(self.provider, None)
        } else {
            models::resolve(self.provider, Some(&self.name))
        }
    }
}

/// The model a request to `provider` is for (see the module comment).
pub fn choose_model(session: &Session, provider: Provider, flag: Option<&str>) -> ModelChoice {
    let choice = |name: &str, source| ModelChoice {
        provider,
        name: name.to_string(),
        source,
    };
    if let Some(name) = flag {
        return choice(name, ModelSource::Flag);
    }
    let own = session.formatter().ok().map(|f| f.provider) == Some(provider);
    if own {
        let requested = session
            .settings
            .get("request")
            .and_then(|r| r.get("model"))
            .and_then(Value::as_str);
        if let Some(name) = requested {
            return choice(name, ModelSource::Request);
        }
        if let Some(name) = session.model() {
            return choice(name, ModelSource::Session);
        }
    }
    choice(provider.default_model(), ModelSource::Default)
}

/// The session's `"request"` object as model settings, with the model
/// [`choose_model`] picks for `provider`: what the wire view, `request`,
/// `send` and the exports build the request from.
pub fn request_settings(
    session: &Session,
    provider: Provider,
    flag: Option<&str>,
) -> Result<Settings, RequestSettingsError> {
    let mut settings = Settings::from_request(session.settings.get("request"))?;
    settings.model = Some(choose_model(session, provider, flag).name);
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::parse_session;

    fn session(text: &str) -> Session {
        parse_session(text, "s.json").expect("session")
    }

    #[test]
    fn a_flag_then_the_request_object_then_the_session_then_the_default() {
        let s = session(
            r#"{"provider": "openai", "model": "gpt-4.1", "request": {"model": "gpt-5"}, "messages": []}"#,
        );
        let pick = |p, f| choose_model(&s, p, f);
        assert_eq!(pick(Provider::OpenAi, Some("o3")).name, "o3");
        assert_eq!(pick(Provider::OpenAi, None).name, "gpt-5");
        assert_eq!(pick(Provider::OpenAi, None).source, ModelSource::Request);
        let plain = session(r#"{"provider": "openai", "model": "gpt-4.1", "messages": []}"#);
        assert_eq!(choose_model(&plain, Provider::OpenAi, None).name, "gpt-4.1");
        // Another provider does not take the session's model.
        let other = pick(Provider::Anthropic, None);
        assert_eq!(
            (other.name.as_str(), other.assumed()),
            ("claude-sonnet-4-6", true)
        );
        assert_eq!(other.info().label(), "claude-sonnet-4-6 (default)");
    }

    #[test]
    fn every_provider_has_one_default_that_counting_and_the_wire_share() {
        let empty = session(r#"{"messages": []}"#);
        for p in Provider::ALL {
            let choice = choose_model(&empty, p, None);
            assert!(choice.assumed(), "{p}");
            assert_eq!(choice.name, p.default_model());
            assert_eq!(choice.info().model, p.default_model());
            let settings = request_settings(&empty, p, None).expect("settings");
            assert_eq!(settings.model.as_deref(), Some(p.default_model()));
        }
    }
}
