//! The session's own settings, checked once when the file is read, so that
//! every command and the workbench say the same thing about a badly typed
//! field (`file:line:col: "max_tokens" must be ...`) instead of each reader
//! quietly skipping a value it cannot use.

use super::Session;
use crate::provider::{FormatterId, Mode, Provider};
use crate::py;
use crate::tokens::CounterSpec;
use crate::wire::Settings;
use serde_json::{Map, Value};

/// Why a session names no formatter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatterError {
    /// `provider` is none of the six (its Python repr, as AgentScope
    /// would show it).
    #[error("unknown provider {0}")]
    UnknownProvider(String),
    /// `mode` is neither `chat` nor `multi_agent`.
    #[error("unknown mode {0:?} (chat or multi_agent)")]
    UnknownMode(String),
}

impl Session {
    /// The formatter the session asks for (`provider` + `mode`; OpenAI chat
    /// when absent), or an error for an unknown provider or mode.
    pub fn formatter(&self) -> Result<FormatterId, FormatterError> {
        let provider = match self.settings.get("provider") {
            None => Provider::OpenAi,
            Some(v) => {
                let name = py::py_str(v);
                Provider::from_id(&name)
                    .ok_or_else(|| FormatterError::UnknownProvider(py::py_repr(v)))?
            }
        };
        let mode = match self.mode() {
            None => Mode::Chat,
            Some(m) => {
                Mode::from_id(m).ok_or_else(|| FormatterError::UnknownMode(m.to_string()))?
            }
        };
        Ok(FormatterId::new(provider, mode))
    }
}

/// The first setting of the wrong type or with an unknown value: its JSON
/// pointer and what is wrong. `null` means absent, as elsewhere.
pub fn check(settings: &Map<String, Value>) -> Result<(), (String, String)> {
    for (key, value) in settings {
        // A null provider is not OpenAI's: AgentScope's runs read it as
        // the unknown provider "None".
        if value.is_null() && key != "provider" {
            continue;
        }
        let at = format!("/{}", key.replace('~', "~0").replace('/', "~1"));
        let wrong = |what: &str| Err((at.clone(), format!("{key:?} must be {what}, not {value}")));
        match key.as_str() {
            "provider" => match value.as_str() {
                Some(p) if Provider::from_id(p).is_some() => {}
                Some(_) => {
                    return wrong("one of openai, anthropic, dashscope, gemini, ollama, deepseek")
                }
                None => return wrong("a provider's name (openai, anthropic, dashscope, ...)"),
            },
            "mode" => match value.as_str() {
                Some(m) if Mode::from_id(m).is_some() => {}
                _ => return wrong("\"chat\" or \"multi_agent\""),
            },
            "model" | "title" if !value.is_string() => return wrong("a string"),
            "max_tokens" if !(value.is_i64() || value.is_u64()) => {
                return wrong("a whole number of tokens")
            }
            "token_counter" => match value.as_str() {
                Some(spec) => {
                    if let Err(e) = CounterSpec::parse(spec) {
                        return Err((at, format!("\"token_counter\": {e}")));
                    }
                }
                None => return wrong("a counter such as \"openai:gpt-4o\" or \"char\""),
            },
            "request" => {
                if let Err(e) = Settings::from_request(Some(value)) {
                    return Err((at, e.to_string()));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(settings: Value) -> Option<(String, String)> {
        check(settings.as_object().expect("an object")).err()
    }

    #[test]
    fn each_typed_field_is_checked_and_named() {
        for (settings, pointer, says) in [
            (json!({"max_tokens": "100"}), "/max_tokens", "whole number"),
            (json!({"max_tokens": true}), "/max_tokens", "whole number"),
            (json!({"max_tokens": 1.5}), "/max_tokens", "whole number"),
            (json!({"provider": "openia"}), "/provider", "one of openai"),
            (json!({"provider": 3}), "/provider", "provider's name"),
            (json!({"mode": "group"}), "/mode", "multi_agent"),
            (json!({"model": 4}), "/model", "a string"),
            (
                json!({"token_counter": "bogus"}),
                "/token_counter",
                "token_counter",
            ),
            (json!({"request": {"stream": "yes"}}), "/request", "stream"),
        ] {
            let (at, message) = error(settings.clone()).unwrap_or_else(|| panic!("{settings}"));
            assert_eq!(at, pointer, "{settings}");
            assert!(message.contains(says), "{settings}: {message}");
        }
    }

    #[test]
    fn good_values_and_nulls_pass() {
        assert_eq!(
            error(
                json!({"provider": "DashScope", "mode": "multi-agent", "model": "qwen-max",
                         "max_tokens": 200, "token_counter": "char", "title": "t",
                         "request": {"stream": false}, "max_tokens_note": "x", "tools": []})
            ),
            None
        );
        assert_eq!(error(json!({"mode": null, "max_tokens": null})), None);
        assert!(error(json!({"provider": null})).is_some());
    }
}
