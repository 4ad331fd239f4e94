//! The counter AgentScope's truncation runs with.
//!
//! A formatter truncates with the `token_counter` its agent was built with,
//! so two users with the same session can drop different messages. A
//! session names its counter (`"token_counter": "openai:gpt-4o"`), the
//! command line can override it, and every figure says which one counted:
//!
//! | spec | AgentScope class | what it counts |
//! | --- | --- | --- |
//! | `openai[:MODEL]` | `OpenAITokenCounter(MODEL)` (default `gpt-4o`) | tiktoken, OpenAI's cookbook formula |
//! | `char` | `CharTokenCounter()` | characters of the messages' Python repr, joined by newlines |
//! | `huggingface:qwen`, `huggingface:deepseek` | `HuggingFaceTokenCounter` with that model's tokenizer, which we ship | the chat template's tokens, without the generation prompt |
//! | `provider` | none (formatscope's own) | the provider's tokenizer and template, as the budget meter counts |

use super::{
    models, AgentScopeCounter, Cost, MessageCounter, ModelInfo, OpenAiTokenCounter,
    ProviderCounter, Template,
};
use crate::media::{Gate, WebFetcher};
use crate::provider::Provider;
use crate::py::{self, PyErr};
use serde_json::Value;
use std::sync::Arc;

/// Which counter truncation uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CounterSpec {
    /// `OpenAITokenCounter(model_name)`.
    OpenAi(String),
    /// `CharTokenCounter()`.
    Char,
    /// `HuggingFaceTokenCounter` with a tokenizer we ship.
    HuggingFace(HfModel),
    /// The provider's own tokenizer (not an AgentScope counter).
    Provider,
}

/// The local Hugging Face tokenizers: the vocabularies we ship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HfModel {
    Qwen,
    DeepSeek,
}

impl Default for CounterSpec {
    /// What `format --max-tokens` and AgentScope's examples use.
    fn default() -> Self {
        CounterSpec::OpenAi("gpt-4o".to_string())
    }
}

/// A token counter spec [`CounterSpec::parse`] does not know (the spec,
/// trimmed); the message lists the ones it does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token counter {0:?}: use {choices}", choices = CounterSpec::CHOICES)]
pub struct UnknownCounter(pub String);

impl CounterSpec {
    /// The names `parse` takes, for help and errors.
    pub const CHOICES: &'static str =
        "openai[:MODEL] (default openai:gpt-4o), char, huggingface:qwen, huggingface:deepseek, provider";

    pub fn parse(spec: &str) -> Result<CounterSpec, UnknownCounter> {
        let spec = spec.trim();
        let (kind, arg) = match spec.split_once(':') {
            Some((k, a)) => (k, Some(a.trim())),
            None => (spec, None),
        };
        match (kind.to_ascii_lowercase().as_str(), arg) {
            ("openai", None) => Ok(CounterSpec::default()),
            ("openai", Some(model)) if !model.is_empty() => {
                Ok(CounterSpec::OpenAi(model.to_string()))
            }
            ("char", None) => Ok(CounterSpec::Char),
            ("huggingface" | "hf", Some(m)) if m.eq_ignore_ascii_case("qwen") => {
                Ok(CounterSpec::HuggingFace(HfModel::Qwen))
            }
            ("huggingface" | "hf", Some(m)) if m.eq_ignore_ascii_case("deepseek") => {
                Ok(CounterSpec::HuggingFace(HfModel::DeepSeek))
            }
            ("provider", None) => Ok(CounterSpec::Provider),
            _ => Err(UnknownCounter(spec.to_string())),
        }
    }

    /// The spec as written in a session (`openai:gpt-4o`).
    pub fn id(&self) -> String {
        match self {
            CounterSpec::OpenAi(model) => format!("openai:{model}"),
            CounterSpec::Char => "char".to_string(),
            CounterSpec::HuggingFace(HfModel::Qwen) => "huggingface:qwen".to_string(),
            CounterSpec::HuggingFace(HfModel::DeepSeek) => "huggingface:deepseek".to_string(),
            CounterSpec::Provider => "provider".to_string(),
        }
    }

    /// What counts, in AgentScope's terms (`OpenAITokenCounter(gpt-4o)`).
    pub fn label(&self, provider_tokenizer: &str) -> String {
        match self {
            CounterSpec::OpenAi(model) => format!("OpenAITokenCounter({model})"),
            CounterSpec::Char => "CharTokenCounter()".to_string(),
            CounterSpec::HuggingFace(HfModel::Qwen) => "HuggingFaceTokenCounter(qwen)".to_string(),
            CounterSpec::HuggingFace(HfModel::DeepSeek) => {
                "HuggingFaceTokenCounter(deepseek)".to_string()
            }
            CounterSpec::Provider => format!("the provider's tokenizer ({provider_tokenizer})"),
        }
    }

    /// Whether its plans are AgentScope's exactly: its own counters are
    /// reproduced exactly; the Hugging Face template is ours (≈); the
    /// provider's tokenizer is as exact as the meter says.
    pub fn exact(&self, provider_exact: bool) -> bool {
        match self {
            CounterSpec::OpenAi(_) | CounterSpec::Char => true,
            CounterSpec::HuggingFace(_) => false,
            CounterSpec::Provider => provider_exact,
        }
    }

    /// The counter itself. `provider` is the budget meter's model (used by
    /// `Provider`); `web` fetches web images whose size OpenAI's formula needs.
    pub fn build(
        &self,
        provider: &ModelInfo,
        web: Arc<dyn WebFetcher>,
        gate: Option<Arc<Gate>>,
    ) -> Box<dyn MessageCounter> {
        match self {
            CounterSpec::OpenAi(model) => Box::new(OwnedOpenAiCounter {
                counter: OpenAiTokenCounter::remembering(model),
                web,
            }),
            CounterSpec::Char => Box::new(CharCounter),
            CounterSpec::HuggingFace(hf) => {
                let info = match hf {
                    HfModel::Qwen => models::resolve(Provider::DashScope, None),
                    HfModel::DeepSeek => models::resolve(Provider::DeepSeek, None),
                };
                Box::new(HfTemplateCounter {
                    inner: ProviderCounter::new(info, gate),
                })
            }
            CounterSpec::Provider => Box::new(ProviderCounter::new(provider.clone(), gate)),
        }
    }
}

/// `OpenAITokenCounter` owning what it needs (for long-lived models).
struct OwnedOpenAiCounter {
    counter: OpenAiTokenCounter,
    web: Arc<dyn WebFetcher>,
}

impl MessageCounter for OwnedOpenAiCounter {
    fn base(&self) -> i64 {
        self.borrowed().base()
    }
    fn message(&self, message: &Value) -> Result<Cost, PyErr> {
        self.borrowed().message(message)
    }
    fn splits_after_newline(&self, first: char) -> bool {
        self.borrowed().splits_after_newline(first)
    }
}

impl OwnedOpenAiCounter {
    fn borrowed(&self) -> AgentScopeCounter<'_> {
        AgentScopeCounter {
            counter: &self.counter,
            web: self.web.as_ref(),
        }
    }
}

/// `CharTokenCounter`: `len("\n".join(str(m) for m in messages))`. Each
/// message costs its repr and one separator; the base takes back the one
/// separator too many (and an empty list counts 0).
pub struct CharCounter;

impl MessageCounter for CharCounter {
    fn base(&self) -> i64 {
        -1
    }

    fn message(&self, message: &Value) -> Result<Cost, PyErr> {
        let chars = py::py_repr(message).chars().count() as i64;
        Ok(Cost::of(super::Category::Conversation, chars + 1))
    }

    fn count(&self, messages: &[Value]) -> Result<i64, PyErr> {
        let mut n = 0;
        for m in messages {
            n += self.message(m)?.total();
        }
        Ok((n - 1).max(0))
    }
}

/// `HuggingFaceTokenCounter`: `apply_chat_template(messages,
/// add_generation_prompt=False)`, so the template's tokens without the
/// assistant prompt that the provider counter adds.
struct HfTemplateCounter {
    inner: ProviderCounter,
}

impl MessageCounter for HfTemplateCounter {
    fn base(&self) -> i64 {
        match self.inner.info.template {
            // The BOS token the template starts with.
            Template::DeepSeek => 1,
            _ => 0,
        }
    }
    fn message(&self, message: &Value) -> Result<Cost, PyErr> {
        self.inner.message(message)
    }
    fn splits_after_newline(&self, first: char) -> bool {
        self.inner.splits_after_newline(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::NoNetwork;
    use serde_json::json;

    #[test]
    fn specs_parse_and_print_back() {
        for s in [
            "openai:gpt-4o",
            "openai:gpt-4.1-mini",
            "char",
            "huggingface:qwen",
            "huggingface:deepseek",
            "provider",
        ] {
            assert_eq!(CounterSpec::parse(s).map(|c| c.id()), Ok(s.to_string()));
        }
        assert_eq!(CounterSpec::parse("openai"), Ok(CounterSpec::default()));
        let err = CounterSpec::parse(" dashscope").unwrap_err();
        assert_eq!(err, UnknownCounter("dashscope".into()));
        assert!(err.to_string().contains("huggingface:qwen"), "{err}");
    }

    #[test]
    fn char_counter_is_agentscopes() {
        let c = CharCounter;
        // The spec's worked examples (truncation-and-tokens.md §2.1).
        let one = [json!({"role": "system", "content": "You are Friday."})];
        assert_eq!(c.count(&one).ok(), Some(48));
        let esc = [json!({"role": "user", "content": "it's \"q\" é\n"})];
        assert_eq!(c.count(&esc).ok(), Some(44));
        assert_eq!(c.count(&[]).ok(), Some(0));
        assert_eq!(
            c.count(&[one[0].clone(), esc[0].clone()]).ok(),
            Some(48 + 1 + 44)
        );
    }

    #[test]
    fn openai_counter_matches_agentscopes() {
        let spec = CounterSpec::default();
        let info = models::resolve(Provider::OpenAi, None);
        let counter = spec.build(&info, Arc::new(NoNetwork), None);
        let msgs = [json!({"role": "user", "content": "Hello there"})];
        let direct = OpenAiTokenCounter::new("gpt-4o").count(&msgs, None, &NoNetwork);
        assert_eq!(counter.count(&msgs).ok(), direct.ok());
    }
}
