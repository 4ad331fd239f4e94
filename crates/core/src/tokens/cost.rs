//! Prices per million tokens and the cost of a request.
//!
//! The table is a dated snapshot of LiteLLM's price map (MIT, see
//! `crates/core/assets/prices.NOTICE`; regenerate with `scripts/prices-regen.py`),
//! embedded at build time so nothing is fetched at run time. A user file at
//! `$XDG_CONFIG_HOME/formatscope/prices.json` (else
//! `~/.config/formatscope/prices.json`), same shape, adds or replaces
//! entries. A model is priced only by its exact name (an Ollama `:latest`
//! tag and a `provider/` prefix are dropped first): a model missing from the
//! table has no price, and callers say "unknown price" rather than guess.
//! Pure: no terminal, no async.

use crate::provider::Provider;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the prices come from: LiteLLM's version and the snapshot's date,
/// or what the user's file says about itself.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
pub struct Source {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub date: String,
}

/// One model's prices in USD per million tokens.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Price {
    pub input: f64,
    /// Reading a cached prompt prefix; absent when the source gives none.
    #[serde(default)]
    pub cached_input: Option<f64>,
    pub output: f64,
    /// The date of the table the price came from (filled on load).
    #[serde(skip)]
    pub date: String,
}

/// The cost in USD of a call with the given token counts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    pub input: f64,
    pub cached: f64,
    pub output: f64,
}

impl Cost {
    pub fn total(&self) -> f64 {
        self.input + self.cached + self.output
    }
}

/// The most a price may be, in USD per million tokens: a dollar a token,
/// far above any model's (the dearest are hundreds per million). Past it
/// a long request's cost overflows to `$inf`, and such a number is a typo.
pub const MOST: f64 = 1_000_000.0;

impl Price {
    /// Whether each of the prices is one: finite, not negative, at most
    /// [`MOST`]; else the field and why (`output: -1 is negative`).
    fn check(&self) -> Result<(), String> {
        let fields = [
            ("input", Some(self.input)),
            ("cached_input", self.cached_input),
            ("output", Some(self.output)),
        ];
        for (name, value) in fields {
            let Some(v) = value else { continue };
            let why = if !v.is_finite() {
                "is not finite"
            } else if v < 0.0 {
                "is negative"
            } else if v > MOST {
                "is not a price (over $1,000,000 per million tokens)"
            } else {
                continue;
            };
            return Err(format!("{name}: {v} {why}"));
        }
        Ok(())
    }

    /// `input` uncached prompt tokens, `cached` prompt tokens read from the
    /// cache and `output` tokens. Cached tokens are billed at the input
    /// price when the table has no cached price (no discount is assumed).
    pub fn cost(&self, input: u64, cached: u64, output: u64) -> Cost {
        let m = |n: u64, p: f64| n as f64 * p / 1_000_000.0;
        Cost {
            input: m(input, self.input),
            cached: m(cached, self.cached_input.unwrap_or(self.input)),
            output: m(output, self.output),
        }
    }

    /// What a reply's usage costs: `input` prompt tokens of which `cached`
    /// were read from the cache (when the usage says), and `output` tokens.
    pub fn billed(&self, input: u64, cached: Option<u64>, output: u64) -> Cost {
        let cached = cached.unwrap_or(0).min(input);
        self.cost(input - cached, cached, output)
    }

    /// What reading `tokens` prompt tokens from the cache saves against
    /// sending them uncached; None when the table has no cached price.
    pub fn cache_saving(&self, tokens: u64) -> Option<f64> {
        let cached = self.cached_input?;
        Some(tokens as f64 * (self.input - cached) / 1_000_000.0)
    }
}

/// A price table: the embedded snapshot, possibly with a user file over it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct PriceTable {
    #[serde(default)]
    pub source: Source,
    prices: BTreeMap<String, BTreeMap<String, Price>>,
}

/// Why a price table was not read. Each names the file (`origin`).
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    /// The user's file could not be read.
    #[error(transparent)]
    Config(#[from] crate::files::ConfigError),
    /// Not JSON, or not a table's shape: where it stands.
    #[error("{origin}:{line}:{column}: {source}")]
    Json {
        origin: String,
        line: usize,
        column: usize,
        source: serde_json::Error,
    },
    /// A provider formatscope does not know.
    #[error("{origin}: unknown provider {provider:?} in \"prices\"")]
    UnknownProvider { origin: String, provider: String },
    /// A price that is not one: the field and why (`output: -1 is negative`).
    #[error("{origin}: prices.{provider}.{model:?}.{why}")]
    BadPrice {
        origin: String,
        provider: String,
        model: String,
        why: String,
    },
}

impl PriceTable {
    /// Parses a table; errors name `origin:line:col`. The text of a
    /// [`PriceError`], for callers that only show it.
    pub fn parse(text: &str, origin: &str) -> Result<PriceTable, String> {
        PriceTable::read(text, origin).map_err(|e| e.to_string())
    }

    /// [`PriceTable::parse`], the error as a [`PriceError`].
    pub fn read(text: &str, origin: &str) -> Result<PriceTable, PriceError> {
        let mut table: PriceTable =
            serde_json::from_str(text).map_err(|source| PriceError::Json {
                origin: origin.to_string(),
                line: source.line(),
                column: source.column(),
                source,
            })?;
        for (provider, models) in &table.prices {
            if Provider::from_id(provider).is_none() {
                return Err(PriceError::UnknownProvider {
                    origin: origin.to_string(),
                    provider: provider.clone(),
                });
            }
            for (model, price) in models {
                price.check().map_err(|why| PriceError::BadPrice {
                    origin: origin.to_string(),
                    provider: provider.clone(),
                    model: model.clone(),
                    why,
                })?;
            }
        }
        let date = if table.source.date.is_empty() {
            origin.to_string()
        } else {
            table.source.date.clone()
        };
        for price in table.prices.values_mut().flat_map(|m| m.values_mut()) {
            price.date.clone_from(&date);
        }
        Ok(table)
    }

    /// The snapshot built into the binary.
    pub fn embedded() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            PriceTable::parse(
                include_str!("../../assets/prices.json"),
                "crates/core/assets/prices.json",
            )
            .unwrap_or_else(|e| {
                panic!("crates/core/assets/prices.json is valid (checked by a test): {e}")
            })
        })
    }

    /// Entries of `user` added to or replacing this table's.
    pub fn overlay(&self, user: PriceTable) -> PriceTable {
        let mut out = self.clone();
        for (provider, models) in user.prices {
            out.prices.entry(provider).or_default().extend(models);
        }
        out
    }

    /// The price of `model` at `provider`, or None: unknown, not guessed.
    pub fn price_for(&self, provider: Provider, model: &str) -> Option<Price> {
        let models = self.prices.get(provider.id())?;
        let name = model
            .strip_prefix(&format!("{}/", provider.id()))
            .unwrap_or(model);
        let name = name.strip_suffix(":latest").unwrap_or(name);
        models.get(name).or_else(|| models.get(model)).cloned()
    }
}

/// The user's price file, whether or not it exists.
pub fn user_file() -> Option<PathBuf> {
    crate::files::user_file(crate::files::UserDir::Config, "prices.json")
}

/// The embedded table with the file at `path` over it, if it exists,
/// read through the guarded read (`files::read_config`: a FIFO or a
/// device is an error naming the file, never a hang).
pub fn load_with(path: Option<&Path>) -> Result<PriceTable, PriceError> {
    let base = PriceTable::embedded();
    let Some(text) = path
        .map(|p| crate::files::read_config(p, "price files"))
        .transpose()?
        .flatten()
    else {
        return Ok(base.clone());
    };
    let origin = path.map(|p| p.display().to_string()).unwrap_or_default();
    let user = PriceTable::read(&text, &origin)?;
    Ok(base.overlay(user))
}

/// The table in use: the embedded one with the user's file over it.
pub fn load() -> Result<PriceTable, PriceError> {
    load_with(user_file().as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(provider: &str, model: &str) -> serde_json::Value {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../assets/prices.json")).expect("valid json");
        v["prices"][provider][model].clone()
    }

    fn check(provider: Provider, model: &str) -> Price {
        let p = PriceTable::embedded()
            .price_for(provider, model)
            .unwrap_or_else(|| panic!("{model} is priced"));
        let s = snapshot(provider.id(), model);
        let num = |k: &str| s[k].to_string().parse::<f64>().expect("a number");
        assert_eq!((p.input, p.output), (num("input"), num("output")));
        assert_eq!(p.date, "2026-11-25");
        p
    }

    #[test]
    fn openai_gpt_4o_is_the_snapshots_price() {
        let p = check(Provider::OpenAi, "gpt-4o");
        assert_eq!((p.input, p.cached_input, p.output), (2.5, Some(1.25), 10.0));
        let c = p.cost(1_000_000, 0, 0);
        assert!((c.total() - 2.5).abs() < 1e-9);
    }

    #[test]
    fn anthropic_sonnet_4_6_is_the_snapshots_price() {
        let p = check(Provider::Anthropic, "claude-sonnet-4-6");
        assert_eq!((p.input, p.cached_input, p.output), (3.0, Some(0.3), 15.0));
    }

    #[test]
    fn dashscope_qwen_max_is_the_snapshots_price() {
        let p = check(Provider::DashScope, "qwen-max");
        assert_eq!((p.input, p.output), (1.6, 6.4));
        assert_eq!(
            PriceTable::embedded().price_for(Provider::DashScope, "dashscope/qwen-max"),
            Some(p)
        );
    }

    #[test]
    fn gemini_2_5_flash_is_the_snapshots_price() {
        let p = check(Provider::Gemini, "gemini-2.5-flash");
        assert_eq!((p.input, p.cached_input, p.output), (0.3, Some(0.03), 2.5));
    }

    #[test]
    fn ollama_local_models_are_free_or_unknown_as_litellm_says() {
        let p = check(Provider::Ollama, "llama3");
        assert_eq!((p.input, p.output), (0.0, 0.0));
        assert_eq!(
            PriceTable::embedded().price_for(Provider::Ollama, "llama3:latest"),
            Some(p)
        );
        assert_eq!(
            PriceTable::embedded().price_for(Provider::Ollama, "qwen2.5"),
            None
        );
    }

    #[test]
    fn deepseek_chat_is_the_snapshots_price() {
        let p = check(Provider::DeepSeek, "deepseek-chat");
        assert_eq!(
            (p.input, p.cached_input, p.output),
            (0.28, Some(0.028), 0.42)
        );
        let c = p.cost(1_000_000, 1_000_000, 1_000_000);
        assert!((c.total() - (0.28 + 0.028 + 0.42)).abs() < 1e-9);
    }

    #[test]
    fn a_reply_is_billed_with_its_cached_tokens_at_the_cached_price() {
        let p = check(Provider::OpenAi, "gpt-4o");
        // 1M prompt tokens of which 400k cached, 100k output.
        let c = p.billed(1_000_000, Some(400_000), 100_000);
        assert!((c.input - 0.6 * 2.5).abs() < 1e-9, "{c:?}");
        assert!((c.cached - 0.4 * 1.25).abs() < 1e-9, "{c:?}");
        assert!((c.output - 0.1 * 10.0).abs() < 1e-9, "{c:?}");
        // Not reported: all at the input price.
        assert_eq!(p.billed(1_000, None, 0), p.cost(1_000, 0, 0));
        // What a cached prefix of 1M tokens saves: input minus cached.
        assert_eq!(p.cache_saving(1_000_000), Some(2.5 - 1.25));
        let no_cached = Price {
            cached_input: None,
            ..p
        };
        assert_eq!(no_cached.cache_saving(1_000), None);
    }

    #[test]
    fn an_unknown_model_has_no_price_not_a_neighbours() {
        let t = PriceTable::embedded();
        assert_eq!(t.price_for(Provider::OpenAi, "gpt-4o-imaginary"), None);
        assert_eq!(t.price_for(Provider::OpenAi, "claude-sonnet-4-6"), None);
    }

    #[test]
    fn a_user_file_overrides_and_adds() {
        let dir = std::env::temp_dir().join(format!("fs-prices-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("prices.json");
        std::fs::write(
            &path,
            r#"{"source": {"date": "2027-01-01"}, "prices": {"ollama": {"qwen2.5": {"input": 0, "output": 0}}, "openai": {"gpt-4o": {"input": 1, "output": 2}}}}"#,
        )
        .expect("write");
        let t = load_with(Some(&path)).expect("loads");
        let q = t.price_for(Provider::Ollama, "qwen2.5").expect("added");
        assert_eq!((q.input, q.date.as_str()), (0.0, "2027-01-01"));
        assert_eq!(
            t.price_for(Provider::OpenAi, "gpt-4o").map(|p| p.input),
            Some(1.0)
        );
        assert!(t
            .price_for(Provider::Anthropic, "claude-sonnet-4-6")
            .is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bad_user_file_names_file_line_and_column() {
        let dir = std::env::temp_dir().join(format!("fs-prices-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("prices.json");
        std::fs::write(
            &path,
            "{\"prices\": {\n  \"openai\": {\"gpt-4o\": {\"input\": \"two\"}}}}\n",
        )
        .expect("write");
        let err = load_with(Some(&path)).expect_err("bad file");
        assert!(matches!(err, PriceError::Json { line: 2, .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with(&format!("{}:2:", path.display())),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_user_file_is_the_snapshot() {
        let t = load_with(Some(Path::new("/nonexistent/formatscope/prices.json"))).expect("ok");
        assert_eq!(t.source.version, "1.110.2");
    }
}
