//! Which hosts a key may go to without asking. A session file may come
//! from anyone, and its base URL (`client_kwargs.base_url`, `host`, ...)
//! would otherwise take the key from the environment to any host it names.
//! So a key goes, unasked, only to the provider's default host or to one
//! the user chose: a command-line flag (`--base-url`, `--allow-host`), the
//! SDK's variable (`OPENAI_BASE_URL`, ...), or a yes in the workbench. A
//! loopback host named only by the session is no exception: the session
//! must not pick where the key goes. Nor may it pick plain HTTP: a host
//! chosen over https (the provider's own among them) takes the key only
//! over https, so `http://api.openai.com:443` named by a session is not
//! OpenAI's host. Plain HTTP gets a key only when the user chose it.

use formatscope_core::provider::Provider;

/// Where a request goes: the host as people write it (`api.openai.com`,
/// `127.0.0.1:8000`) and the port it connects to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// Lower-cased name or address (IPv6 in brackets).
    pub name: String,
    /// The port connected to (the scheme's when the URL names none).
    pub port: Option<u16>,
    /// Whether the URL named the port (shown only then).
    explicit_port: bool,
    /// Whether the request goes over TLS (`https`). Of a chosen host:
    /// whether it takes the key only over TLS (a URL chosen as `https`, an
    /// allowed host named without a port), never in clear text.
    secure: bool,
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.explicit_port, self.port) {
            (true, Some(p)) => write!(f, "{}:{p}", self.name),
            _ => f.write_str(&self.name),
        }
    }
}

impl Host {
    /// The host of a URL (`http://127.0.0.1:8000/v1`); a bare `host:port`
    /// (as `OLLAMA_HOST` may be) is read as `http://host:port`.
    pub fn of_url(url: &str) -> Option<Host> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| u.host_str().is_some())
            .or_else(|| reqwest::Url::parse(&format!("http://{url}")).ok())?;
        let name = parsed.host_str()?.to_ascii_lowercase();
        Some(Host {
            name,
            port: parsed.port_or_known_default(),
            explicit_port: parsed.port().is_some(),
            secure: parsed.scheme() == "https",
        })
    }

    /// Whether a request here goes over plain HTTP: the key would travel
    /// in clear text (said when asking, so `api.openai.com:443` over HTTP
    /// is not taken for OpenAI's host).
    pub fn plain_http(&self) -> bool {
        !self.secure
    }

    /// A host as `--allow-host` takes it: `name` (any port, over https
    /// only) or `name:port` (that port), or a whole URL.
    pub fn parse_allowed(text: &str) -> Option<Host> {
        let text = text.trim();
        if text.contains("://") {
            return Host::of_url(text);
        }
        let parsed = reqwest::Url::parse(&format!("http://{text}")).ok()?;
        let name = parsed.host_str()?.to_ascii_lowercase();
        Some(Host {
            name,
            port: parsed.port(),
            explicit_port: parsed.port().is_some(),
            // `name:port` is the user naming that very port, whatever the
            // scheme; a bare name stands for any port, so TLS only.
            secure: parsed.port().is_none(),
        })
    }

    /// Whether `target` is this host (an allowed host without a port
    /// stands for any port over https). Name and port are not enough: a
    /// host chosen over https does not cover the same name and port over
    /// plain HTTP, which would carry the key in clear text.
    fn covers(&self, target: &Host) -> bool {
        self.name == target.name
            && (target.secure || !self.secure)
            && match self.port {
                None => true,
                port => port == target.port,
            }
    }
}

/// The host a provider's requests go to when nothing moves them.
pub fn default_url(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAi => "https://api.openai.com/v1",
        Provider::DeepSeek => "https://api.deepseek.com",
        Provider::Anthropic => "https://api.anthropic.com",
        Provider::DashScope => "https://dashscope.aliyuncs.com/api/v1",
        Provider::Gemini => "https://generativelanguage.googleapis.com/",
        Provider::Ollama => "http://127.0.0.1:11434",
    }
}

/// The hosts the user chose for one provider's key.
#[derive(Debug, Clone, Default)]
pub struct ChosenHosts {
    hosts: Vec<Host>,
}

impl ChosenHosts {
    /// The provider's default host, the host of its SDK variable in `env`,
    /// of `base_url` (a flag), and each of `allowed`.
    pub fn new(
        provider: Provider,
        env: impl Fn(&str) -> Option<String>,
        base_url: Option<&str>,
        allowed: &[Host],
    ) -> ChosenHosts {
        let from_env = env(super::base_url_variable(provider)).filter(|u| !u.trim().is_empty());
        let mut hosts: Vec<Host> = [Some(default_url(provider)), from_env.as_deref(), base_url]
            .into_iter()
            .flatten()
            .filter_map(Host::of_url)
            .collect();
        hosts.extend(allowed.iter().cloned());
        ChosenHosts { hosts }
    }

    /// The hosts chosen for a family no provider here stands for: its
    /// `home` (where its requests go when nothing moves them), a base URL
    /// given as a flag, and each of `allowed`.
    pub fn around(home: Option<&str>, base_url: Option<&str>, allowed: &[Host]) -> ChosenHosts {
        let mut hosts: Vec<Host> = [home, base_url]
            .into_iter()
            .flatten()
            .filter_map(Host::of_url)
            .collect();
        hosts.extend(allowed.iter().cloned());
        ChosenHosts { hosts }
    }

    /// Adds a host the user allowed (in the workbench: a yes).
    pub fn allow(&mut self, host: Host) {
        self.hosts.push(host);
    }

    pub fn covers(&self, target: &Host) -> bool {
        self.hosts.iter().any(|h| h.covers(target))
    }
}

/// Why a request may not go where it would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostRefusal {
    /// The URL has no host to check.
    NoHost(String),
    /// Only the session names this host, and the key would go there.
    NotChosen(Host),
}

/// Where a request to `url` goes, if a key carried with it (`with_key`)
/// may go there unasked. A request without a key (Ollama) may go anywhere
/// the session says, as in AgentScope: nothing secret travels with it.
pub fn check(url: &str, with_key: bool, chosen: &ChosenHosts) -> Result<Host, HostRefusal> {
    let host = Host::of_url(url).ok_or_else(|| HostRefusal::NoHost(url.to_string()))?;
    if !with_key || chosen.covers(&host) {
        Ok(host)
    } else {
        Err(HostRefusal::NotChosen(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_key_goes_unasked_only_to_the_default_or_a_chosen_host() {
        let chosen = ChosenHosts::new(Provider::OpenAi, no_env, None, &[]);
        assert!(check("https://api.openai.com/v1/chat/completions", true, &chosen).is_ok());
        let err = check("http://127.0.0.1:8000/v1/chat/completions", true, &chosen).unwrap_err();
        assert_eq!(
            err,
            HostRefusal::NotChosen(Host::of_url("http://127.0.0.1:8000").unwrap())
        );
        // Without a key, nothing to protect.
        assert!(check("http://127.0.0.1:8000/api/chat", false, &chosen).is_ok());
        // The SDK's variable, a flag, an allowed host.
        let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:8000/v1".into());
        let chosen = ChosenHosts::new(Provider::OpenAi, env, None, &[]);
        assert!(check("http://127.0.0.1:8000/v1/x", true, &chosen).is_ok());
        assert!(check("http://127.0.0.1:8001/v1/x", true, &chosen).is_err());
        let chosen = ChosenHosts::new(
            Provider::Anthropic,
            no_env,
            Some("http://LOCALHOST:9/"),
            &[Host::parse_allowed("example.com").unwrap()],
        );
        assert!(check("http://localhost:9/v1/messages", true, &chosen).is_ok());
        assert!(check("https://example.com:8443/v1/messages", true, &chosen).is_ok());
        // A host allowed without a port never takes the key in clear text.
        assert!(check("http://example.com/v1/messages", true, &chosen).is_err());
        assert!(check("https://api.anthropic.com/v1/messages", true, &chosen).is_ok());
        assert!(check("https://evil.example/v1/messages", true, &chosen).is_err());
        assert_eq!(
            Host::of_url("https://api.anthropic.com/v1")
                .unwrap()
                .to_string(),
            "api.anthropic.com"
        );
        assert_eq!(
            Host::of_url("localhost:11434").unwrap().to_string(),
            "localhost:11434"
        );
    }
}
