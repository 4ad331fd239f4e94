//! Which tokenizer, chat template, context window and output limit a model
//! has: `crates/core/assets/models.json`, a data file so a new model is one line. Unknown
//! names fall back to the provider's default, and say so.

use super::Vocab;
use crate::provider::Provider;
use serde::Deserialize;
use std::sync::OnceLock;

/// A tokenizer as a count is labelled with: an exact vocabulary, or an
/// estimate (a vocabulary times a measured factor, with its error band).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenizerSpec {
    pub name: &'static str,
    pub vocab: Vocab,
    pub factor: f64,
    /// Measured ratio of the estimate to the real count (low, high).
    pub band: Option<(f64, f64)>,
}

impl TokenizerSpec {
    pub const ALL: [TokenizerSpec; 10] = [
        TokenizerSpec::exact("o200k_base", Vocab::O200kBase),
        TokenizerSpec::exact("cl100k_base", Vocab::Cl100kBase),
        TokenizerSpec::exact("o200k_harmony", Vocab::O200kHarmony),
        TokenizerSpec::exact("qwen", Vocab::Qwen),
        TokenizerSpec::exact("deepseek", Vocab::DeepSeek),
        TokenizerSpec::exact("claude_legacy", Vocab::ClaudeLegacy),
        TokenizerSpec::estimate("claude", Vocab::ClaudeLegacy, 1.09, (0.91, 1.10)),
        TokenizerSpec::estimate("claude_o200k", Vocab::O200kBase, 1.5, (0.91, 1.10)),
        TokenizerSpec::estimate("gemini", Vocab::Qwen, 1.12, (0.93, 1.08)),
        TokenizerSpec::estimate("llama3", Vocab::O200kBase, 1.02, (0.97, 1.03)),
    ];

    const fn exact(name: &'static str, vocab: Vocab) -> Self {
        Self {
            name,
            vocab,
            factor: 1.0,
            band: None,
        }
    }

    const fn estimate(name: &'static str, vocab: Vocab, factor: f64, band: (f64, f64)) -> Self {
        Self {
            name,
            vocab,
            factor,
            band: Some(band),
        }
    }

    pub fn from_name(name: &str) -> Option<TokenizerSpec> {
        Self::ALL.into_iter().find(|t| t.name == name)
    }

    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|t| t.name).collect()
    }

    pub fn exact_count(&self) -> bool {
        self.band.is_none()
    }

    /// Tokens of `text`, scaled when this is an estimate.
    pub fn count(&self, text: &str) -> i64 {
        self.scale(self.raw(text) as i64)
    }

    /// The vocabulary's count of `text`, before scaling. An estimate reads
    /// the borrowed vocabulary's special-token strings as text: they are not
    /// the estimated model's specials (Gemini does not know `<|im_start|>`).
    pub fn raw(&self, text: &str) -> usize {
        if self.exact_count() {
            self.vocab.count(text)
        } else {
            self.vocab.count_as_text(text)
        }
    }

    /// [`Self::raw`] of two texts that may share their start (see
    /// [`Vocab::count_two`]).
    pub fn raw_two(&self, a: &str, b: &str) -> (usize, usize) {
        if self.exact_count() {
            self.vocab.count_two(a, b)
        } else {
            (self.raw(a), self.raw(b))
        }
    }

    /// A raw vocabulary count scaled by the estimate's factor.
    pub fn scale(&self, raw: i64) -> i64 {
        if self.band.is_none() {
            raw
        } else {
            (raw as f64 * self.factor).round() as i64
        }
    }

    /// `qwen`, or `≈ claude (claude_legacy × 1.09, 0.91–1.10 of real)`.
    pub fn describe(&self) -> String {
        match self.band {
            None => self.name.to_string(),
            Some((lo, hi)) => format!(
                "≈ {} ({}×{}; {lo:.2}–{hi:.2})",
                self.name,
                self.vocab.name(),
                self.factor
            ),
        }
    }
}

/// How a provider frames messages around their content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Template {
    /// OpenAI's cookbook formula (3 per message, 1 per name, 3 priming).
    OpenAi,
    /// Qwen's ChatML: `<|im_start|>role\ncontent<|im_end|>\n`.
    ChatMl,
    /// DeepSeek V3/R1: `<｜User｜>`, `<｜Assistant｜>`, `<｜end▁of▁sentence｜>`.
    DeepSeek,
    /// Llama 3 headers: `<|start_header_id|>role<|end_header_id|>\n\n...<|eot_id|>`.
    Llama3,
    /// Gemma turns: `<start_of_turn>role\n...<end_of_turn>\n`.
    Gemma,
    /// Anthropic's Messages API (framing estimated).
    Anthropic,
    /// Gemini's `contents` (framing estimated).
    Gemini,
}

impl Template {
    /// Whether the per-message framing is known token for token.
    pub fn exact_framing(self) -> bool {
        matches!(
            self,
            Template::OpenAi | Template::ChatMl | Template::DeepSeek
        )
    }
}

/// A model as the budget sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub provider: Provider,
    pub model: String,
    pub tokenizer: TokenizerSpec,
    pub template: Template,
    pub context_window: u64,
    pub max_output: u64,
    /// The name was not in the table: the provider's defaults are used.
    pub fallback: bool,
    /// No model was named: this is the provider's default, a guess.
    pub assumed: bool,
    /// Said next to the count when something was assumed.
    pub note: Option<String>,
}

impl ModelInfo {
    /// The name as every surface shows it: `qwen-max (default)` when no
    /// model was named.
    pub fn label(&self) -> String {
        if self.assumed {
            format!("{} (default)", self.model)
        } else {
            self.model.clone()
        }
    }
}

#[derive(Deserialize)]
struct Table {
    models: Vec<Entry>,
    fallback: std::collections::BTreeMap<String, FallbackEntry>,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "match")]
    pattern: String,
    provider: String,
    tokenizer: String,
    template: Template,
    context: u64,
    output: u64,
}

#[derive(Deserialize)]
struct FallbackEntry {
    model: String,
    tokenizer: String,
    template: Template,
    context: u64,
    output: u64,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(include_str!("../../assets/models.json"))
            .expect("crates/core/assets/models.json is valid (checked by a test)")
    })
}

impl Entry {
    fn matches(&self, model: &str) -> bool {
        match self.pattern.strip_suffix('*') {
            Some(prefix) => model.starts_with(prefix),
            None => model == self.pattern,
        }
    }
}

fn tokenizer(name: &str) -> TokenizerSpec {
    TokenizerSpec::from_name(name).unwrap_or(TokenizerSpec::ALL[0])
}

/// The model names the table files under `provider`, for completion (a
/// prefix pattern such as `gpt-5*` is offered as `gpt-5`).
pub fn names_for(provider: Provider) -> Vec<String> {
    let mut names: Vec<String> = table()
        .models
        .iter()
        .filter(|e| e.provider == provider.id())
        .map(|e| e.pattern.trim_end_matches('*').to_string())
        .collect();
    names.dedup();
    names
}

/// The model table's entry for `model` under `provider`, if it has one.
/// OpenAI-compatible endpoints and Ollama serve other makers' models, so for
/// those an entry filed under another provider counts too (Qwen behind an
/// OpenAI-compatible endpoint still tokenizes as Qwen).
pub fn lookup(provider: Provider, model: &str) -> Option<ModelInfo> {
    let t = table();
    let serves_others = matches!(provider, Provider::OpenAi | Provider::Ollama);
    let entry = t
        .models
        .iter()
        .find(|e| e.provider == provider.id() && e.matches(model))
        .or_else(|| {
            serves_others
                .then(|| t.models.iter().find(|e| e.matches(model)))
                .flatten()
        })?;
    Some(ModelInfo {
        provider,
        model: model.to_string(),
        tokenizer: tokenizer(&entry.tokenizer),
        template: if entry.provider == provider.id() {
            entry.template
        } else {
            default_template(provider, entry.template)
        },
        context_window: entry.context,
        max_output: entry.output,
        fallback: false,
        assumed: false,
        note: None,
    })
}

/// The hosted APIs frame messages their own way whatever model they serve;
/// only Ollama (and OpenAI-compatible servers) use the model's template.
fn default_template(provider: Provider, model_template: Template) -> Template {
    match provider {
        Provider::Anthropic => Template::Anthropic,
        Provider::Gemini => Template::Gemini,
        Provider::DashScope => Template::ChatMl,
        Provider::DeepSeek => Template::DeepSeek,
        Provider::OpenAi | Provider::Ollama => model_template,
    }
}

/// Any provider's entry for `model` (for `tokenize --model`).
pub fn lookup_any(model: &str) -> Option<ModelInfo> {
    let entry = table().models.iter().find(|e| e.matches(model))?;
    let provider = Provider::from_id(&entry.provider)?;
    lookup(provider, model)
}

/// `model` under `provider`; with no model, the provider's default model
/// ([`Provider::default_model`]) with a note saying it was assumed; an
/// unknown name counts as the provider's fallback entry, with a note.
pub fn resolve(provider: Provider, model: Option<&str>) -> ModelInfo {
    let Some(model) = model else {
        let default = provider.default_model();
        let mut info = resolve(provider, Some(default));
        info.assumed = true;
        info.note = Some(format!(
            "no model given: assuming {default}, {provider}'s default"
        ));
        return info;
    };
    if let Some(info) = lookup(provider, model) {
        return info;
    }
    let fb = &table().fallback[provider.id()];
    let tokenizer = tokenizer(&fb.tokenizer);
    ModelInfo {
        provider,
        model: model.to_string(),
        tokenizer,
        template: fb.template,
        context_window: fb.context,
        max_output: fb.output,
        fallback: true,
        assumed: false,
        note: Some(format!(
            "unknown model {model:?} for {provider}: counted as {} with {}",
            fb.model,
            tokenizer.describe()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_names_only_known_tokenizers_and_providers() {
        let t = table();
        for e in &t.models {
            assert!(
                TokenizerSpec::from_name(&e.tokenizer).is_some(),
                "{}",
                e.pattern
            );
            assert!(Provider::from_id(&e.provider).is_some(), "{}", e.provider);
        }
        for p in Provider::ALL {
            assert!(t.fallback.contains_key(p.id()), "{p}");
        }
    }

    #[test]
    fn every_provider_default_is_in_the_table_and_is_its_fallback() {
        for p in Provider::ALL {
            let default = p.default_model();
            let info = lookup(p, default).unwrap_or_else(|| panic!("{p}: {default}"));
            assert!(!info.fallback, "{p}");
            assert_eq!(table().fallback[p.id()].model, default, "{p}");
            let assumed = resolve(p, None);
            assert_eq!(assumed.model, default);
            assert_eq!(
                (assumed.tokenizer.name, assumed.context_window),
                (info.tokenizer.name, info.context_window)
            );
            assert!(assumed.note.is_some_and(|n| n.contains("assuming")), "{p}");
        }
    }

    #[test]
    fn known_models_resolve_by_prefix_and_unknown_ones_fall_back_with_a_note() {
        let m = resolve(Provider::OpenAi, Some("gpt-4o-2024-08-06"));
        assert_eq!((m.tokenizer.name, m.fallback), ("o200k_base", false));
        assert_eq!(
            resolve(Provider::OpenAi, Some("gpt-4")).tokenizer.name,
            "cl100k_base"
        );
        assert_eq!(
            resolve(Provider::Ollama, Some("qwen3:8b")).tokenizer.name,
            "qwen"
        );
        assert_eq!(
            resolve(Provider::Ollama, Some("llama3.2")).template,
            Template::Llama3
        );
        let unknown = resolve(Provider::DashScope, Some("my-model"));
        assert!(unknown.fallback);
        assert_eq!(unknown.tokenizer.name, "qwen");
        assert!(unknown.note.unwrap().contains("unknown model"));
        // Qwen behind an OpenAI-compatible endpoint still counts as Qwen.
        assert_eq!(
            resolve(Provider::OpenAi, Some("qwen-max")).tokenizer.name,
            "qwen"
        );
    }

    #[test]
    fn estimates_read_the_borrowed_vocabularys_specials_as_text() {
        // Gemini does not know Qwen's <|im_start|>; Qwen itself does.
        let gemini = TokenizerSpec::from_name("gemini").unwrap();
        let qwen = TokenizerSpec::from_name("qwen").unwrap();
        assert_eq!(qwen.raw("<|im_start|>"), 1);
        assert_eq!(gemini.raw("<|im_start|>"), 6);
        let claude = TokenizerSpec::from_name("claude").unwrap();
        assert_eq!(
            claude.raw("<EOT>"),
            Vocab::ClaudeLegacy.count_as_text("<EOT>")
        );
        assert!(claude.raw("<EOT>") > 1);
    }

    #[test]
    fn estimates_scale_and_say_so() {
        let claude = TokenizerSpec::from_name("claude").unwrap();
        assert!(!claude.exact_count());
        assert_eq!(claude.scale(100), 109);
        assert!(claude.describe().starts_with("≈ claude"));
    }
}
