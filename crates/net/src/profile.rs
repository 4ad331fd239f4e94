//! Named provider profiles: the way to send through a local server or a
//! proxy without a session file naming the host (which `hosts` refuses to
//! trust). A profile lives in the user's own config file,
//! `$XDG_CONFIG_HOME/formatscope/profiles.toml` (else
//! `~/.config/formatscope/profiles.toml`):
//!
//! ```toml
//! [profiles.local-vllm]
//! provider = "openai"
//! base_url = "http://127.0.0.1:8000/v1"   # the key may go here: you chose it
//! key_env = "VLLM_API_KEY"                # else the provider's variable
//! model = "Qwen2.5-7B-Instruct"           # when the session names none
//! headers = { "X-Team" = "research" }
//! ```
//!
//! Picked by `--profile NAME` (`request`, `send`) and in the workbench's
//! settings; never by a session file. Keys stay in the environment: a
//! profile names the variable, not the key, and its headers may not
//! replace the ones that carry the key.

use super::{ApiKey, Prepared, SendError};
use formatscope_core::provider::Provider;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    pub provider: Provider,
    pub base_url: Option<String>,
    pub key_env: Option<String>,
    pub model: Option<String>,
    pub headers: Vec<(String, String)>,
}

/// The profiles of the user's file, by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Profiles {
    pub list: Vec<Profile>,
    /// The file they came from ("" when there is none).
    pub origin: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    profiles: BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    provider: String,
    base_url: Option<String>,
    key_env: Option<String>,
    model: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// Headers that carry a provider's key: a profile names the key's
/// variable instead (`key_env`), so the key never sits in a file.
const KEY_HEADERS: [&str; 4] = ["authorization", "x-api-key", "api-key", "x-goog-api-key"];

impl Profiles {
    /// Parses a profiles file; errors say `origin:line:col: what`.
    pub fn parse(text: &str, origin: &str) -> Result<Profiles, String> {
        let file: File = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| line_col(text, s.start))
                .map(|(l, c)| format!(":{l}:{c}"))
                .unwrap_or_default();
            format!("{origin}{at}: {}", e.message())
        })?;
        let mut list = Vec::new();
        for (name, e) in file.profiles {
            let provider = Provider::from_id(&e.provider).ok_or_else(|| {
                format!(
                    "{origin}: profile {name}: unknown provider {:?} (openai, anthropic, dashscope, gemini, ollama, deepseek)",
                    e.provider
                )
            })?;
            if let Some(url) = &e.base_url {
                if super::hosts::Host::of_url(url).is_none() {
                    return Err(format!(
                        "{origin}: profile {name}: base_url is not a URL: {url:?}"
                    ));
                }
            }
            if let Some(h) = e
                .headers
                .keys()
                .find(|h| KEY_HEADERS.contains(&h.to_ascii_lowercase().as_str()))
            {
                return Err(format!(
                    "{origin}: profile {name}: header {h} carries the key; name its variable with key_env instead"
                ));
            }
            list.push(Profile {
                name,
                provider,
                base_url: e.base_url,
                key_env: e.key_env.filter(|v| !v.trim().is_empty()),
                model: e.model,
                headers: e.headers.into_iter().collect(),
            });
        }
        Ok(Profiles {
            list,
            origin: origin.to_string(),
        })
    }

    /// The profile named `name`, or which there are.
    pub fn get(&self, name: &str) -> Result<&Profile, String> {
        self.list.iter().find(|p| p.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.list.iter().map(|p| p.name.as_str()).collect();
            match (names.is_empty(), self.origin.is_empty()) {
                (_, true) => format!(
                    "no profile {name}: there is no profiles file ({})",
                    path_hint()
                ),
                (true, false) => format!("no profile {name}: {} has none", self.origin),
                (false, false) => format!(
                    "no profile {name} in {} (it has {})",
                    self.origin,
                    names.join(", ")
                ),
            }
        })
    }
}

impl Profile {
    /// Checks the profile is for `provider`.
    pub fn for_provider(&self, provider: Provider) -> Result<&Profile, String> {
        if self.provider == provider {
            Ok(self)
        } else {
            Err(format!(
                "profile {} is for {}, the request is for {provider}",
                self.name, self.provider
            ))
        }
    }

    /// The key from the profile's variable, else the provider's.
    pub fn key(&self, env: impl Fn(&str) -> Option<String>) -> Result<Option<ApiKey>, SendError> {
        match &self.key_env {
            None => super::find_key(self.provider, env),
            Some(var) => match env(var).filter(|k| !k.trim().is_empty()) {
                Some(k) => Ok(Some(ApiKey(k.trim().to_string()))),
                None => Err(SendError::MissingKey {
                    provider: format!("{} (profile {})", self.provider, self.name),
                    variables: var.clone(),
                }),
            },
        }
    }

    /// The variable an export through this profile reads the key from:
    /// the one `send` would take it from for the profile's host (its
    /// `key_env`, else the provider's). A script that named the provider's
    /// variable would carry the real provider's key to the profile's host.
    pub fn key_variable(&self) -> Option<String> {
        self.key_env.clone().or_else(|| {
            formatscope_core::wire::export::key_variable(self.provider).map(str::to_string)
        })
    }

    /// The request's settings through the profile: its base URL over the
    /// session's, and its model when the model was only assumed (neither a
    /// flag nor the session named one). Returns the model it put in.
    pub fn apply(
        &self,
        settings: &mut formatscope_core::wire::Settings,
        model_assumed: bool,
    ) -> Option<&str> {
        if let Some(url) = &self.base_url {
            super::set_base_url(self.provider, &mut settings.model_kwargs, url);
        }
        let model = self.model.as_deref().filter(|_| model_assumed)?;
        settings.model = Some(model.to_string());
        Some(model)
    }

    /// The profile's headers added to the request (a header the request
    /// already has keeps the request's value: the SDK's own win).
    pub fn add_headers(&self, prepared: &mut Prepared) {
        for (name, value) in &self.headers {
            let taken = prepared
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name));
            if !taken {
                prepared.headers.push((name.clone(), value.clone()));
            }
        }
    }
}

/// The user's profiles file, whether or not it exists.
pub fn file() -> Option<PathBuf> {
    formatscope_core::files::user_file(formatscope_core::files::UserDir::Config, "profiles.toml")
}

/// The profiles file's path for messages (where it would be when there is
/// none).
pub fn path_hint() -> String {
    file()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "~/.config/formatscope/profiles.toml".into())
}

/// The profiles in the file at `path` (none when it does not exist),
/// through the guarded read (`files::read_config`): a FIFO or a link to a
/// device is an error naming the file, never a hang or a read without end.
pub fn load_from(path: Option<&Path>) -> Result<Profiles, String> {
    let Some(path) = path else {
        return Ok(Profiles::default());
    };
    match formatscope_core::files::read_config(path, "profiles files").map_err(|e| e.to_string())? {
        Some(text) => Profiles::parse(&text, &path.display().to_string()),
        None => Ok(Profiles::default()),
    }
}

/// The user's profiles.
pub fn load() -> Result<Profiles, String> {
    load_from(file().as_deref())
}

/// 1-based line and column of byte `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[profiles.local]
provider = "openai"
base_url = "http://127.0.0.1:8000/v1"
key_env = "LOCAL_KEY"
model = "qwen2.5-7b"
headers = { "X-Team" = "research" }

[profiles.proxy]
provider = "anthropic"
base_url = "https://proxy.example.com"
"#;

    #[test]
    fn a_profile_moves_the_base_url_names_the_key_variable_and_adds_headers() {
        let profiles = Profiles::parse(FILE, "profiles.toml").expect("parses");
        let local = profiles.get("local").expect("found");
        assert_eq!(local.provider, Provider::OpenAi);
        let mut settings = formatscope_core::wire::Settings::default();
        assert_eq!(local.apply(&mut settings, true), Some("qwen2.5-7b"));
        assert_eq!(settings.model.as_deref(), Some("qwen2.5-7b"));
        assert_eq!(
            settings.model_kwargs["client_kwargs"]["base_url"],
            "http://127.0.0.1:8000/v1"
        );
        // The session's model stays.
        let mut named = formatscope_core::wire::Settings {
            model: Some("gpt-4o".into()),
            ..Default::default()
        };
        assert_eq!(local.apply(&mut named, false), None);
        assert_eq!(named.model.as_deref(), Some("gpt-4o"));
        let env = |v: &str| (v == "LOCAL_KEY").then(|| "sk-local".to_string());
        assert!(local.key(env).expect("found").is_some());
        let none = |_: &str| None;
        let e = local.key(none).expect_err("missing");
        assert!(e.to_string().contains("LOCAL_KEY"), "{e}");
        assert!(local.for_provider(Provider::Anthropic).is_err());
    }

    #[test]
    fn bad_files_say_where_and_keys_never_sit_in_them() {
        let e = Profiles::parse("[profiles.x]\nprovider = 3\n", "p.toml").expect_err("bad");
        assert!(e.starts_with("p.toml:2:"), "{e}");
        let e = Profiles::parse("[profiles.x]\nprovider = \"nope\"\n", "p.toml").expect_err("bad");
        assert!(e.contains("unknown provider"), "{e}");
        let e = Profiles::parse(
            "[profiles.x]\nprovider = \"openai\"\nheaders = { Authorization = \"Bearer sk\" }\n",
            "p.toml",
        )
        .expect_err("a key header");
        assert!(e.contains("key_env"), "{e}");
        let e = Profiles::parse(
            "[profiles.x]\nprovider = \"openai\"\nbase_url = \"::\"\n",
            "p.toml",
        )
        .expect_err("not a URL");
        assert!(e.contains("base_url"), "{e}");
        let none = Profiles::default();
        assert!(none.get("x").is_err());
    }
}
