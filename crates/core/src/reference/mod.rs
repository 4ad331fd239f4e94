//! The AgentScope releases formatscope reproduces, behind one interface.
//!
//! Each release is one module that implements [`Reference`]: which
//! formatter it calls for a provider and mode, how it formats a session,
//! what of a session its message model cannot hold, and whether it counts
//! tokens, truncates and builds wire requests. The CLI's `--agentscope`,
//! the workbench's `V` and the compare view's "release against release"
//! pair iterate over [`ALL`], so a new release is a module and one line
//! here; nothing in the shell names a version.
//!
//! The 1.0.21 release is also the one the budget model, the truncation
//! planner and the wire are built on (`crate::formatter`, `crate::budget`,
//! `crate::wire`): a release that [`Reference::counts_and_truncates`] runs
//! through them in the workbench; the others are formatted here alone.

pub mod java;
pub mod request;
mod v0;
mod v1;
pub mod v2;
mod v2_reference;

use crate::formatter::Span;
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::session::Session;
use serde_json::Value;

pub use request::{FormatFlags, Replies, Requested, Stopped, WireAsk};
pub use v0::V0_1_6;
pub use v1::V1_0_21;
pub use v2_reference::V2_0_11;

/// Every release, in the order `V` cycles them; the first is the default.
pub static ALL: [&dyn Reference; 4] = [&V1_0_21, &V2_0_11, &V0_1_6, &java::reference::JAVA_2_0_2];

/// The default release (`--agentscope` when not given).
pub fn default() -> &'static dyn Reference {
    ALL[0]
}

/// The release named `version` ("1.0.21").
pub fn by_version(version: &str) -> Option<&'static dyn Reference> {
    ALL.iter().copied().find(|r| r.version() == version)
}

/// Every release's version, for messages: "1.0.21, 0.1.6".
pub fn versions() -> String {
    ALL.iter()
        .map(|r| r.version())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The release after `current` in [`ALL`], wrapping round.
pub fn next(current: &dyn Reference) -> &'static dyn Reference {
    let at = ALL
        .iter()
        .position(|r| r.version() == current.version())
        .unwrap_or(0);
    ALL[(at + 1) % ALL.len()]
}

/// How a release is asked to format: AgentScope 1.0.21's two formatter
/// kinds, and 0.1.6's `format_auto`, which picks one itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Chat,
    MultiAgent,
    Auto,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Chat => "chat",
            Mode::MultiAgent => "multi-agent",
            Mode::Auto => "auto",
        }
    }

    /// The formatter mode of the same name (`Auto` has none).
    pub fn formatter_mode(self) -> Option<crate::provider::Mode> {
        match self {
            Mode::Chat => Some(crate::provider::Mode::Chat),
            Mode::MultiAgent => Some(crate::provider::Mode::MultiAgent),
            Mode::Auto => None,
        }
    }
}

impl From<crate::provider::Mode> for Mode {
    fn from(m: crate::provider::Mode) -> Mode {
        match m {
            crate::provider::Mode::Chat => Mode::Chat,
            crate::provider::Mode::MultiAgent => Mode::MultiAgent,
        }
    }
}

/// A session as a release formats it: what was called, what came out.
#[derive(Debug, Clone, PartialEq)]
pub struct Formatted {
    /// What AgentScope calls: `DashScopeMultiAgentFormatter.format`,
    /// `OpenAIFormatter.format_auto`.
    pub call: String,
    /// The mode `Auto` took, when it picks one.
    pub branch: Option<&'static str>,
    /// What the release's message model cannot hold of the session, each
    /// left out of the request.
    pub lost: Vec<String>,
    /// The formatted messages, or the error the release raises.
    pub messages: Result<Vec<Value>, Raised>,
    /// Input message range -> output message range, when known.
    pub spans: Vec<Span>,
    /// The release's own token count of the request, when it has one that
    /// is not a tokenizer's (2.x's bytes/4 `count_tokens`).
    pub estimate: Option<u64>,
    /// The tool schemas as the release's model class sends them, and its
    /// tool choice, when the release formats them here (2.x: `tools`,
    /// `tool_choice`).
    pub tools: Option<Value>,
    /// The body the release's model class sends, exactly, when it writes
    /// one here (Java: Jackson's bytes), with the endpoint it goes to.
    pub body: Option<Body>,
}

/// A request body as a release's model class writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Where it goes, as the release routes it ("DashScope multimodal").
    pub endpoint: String,
    /// The exact bytes sent.
    pub text: String,
}

/// An exception a release raises: its class name and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Raised {
    pub kind: String,
    pub message: String,
}

impl Raised {
    /// How a pane or a command says it: "`who` raises KIND: message", or
    /// the message alone where the limit is formatscope's own (it says
    /// so itself: "formatscope does not build this …"), not an exception
    /// AgentScope raises.
    pub fn said_by(&self, who: &str) -> String {
        if self.message.starts_with("formatscope ") {
            self.message.clone()
        } else {
            format!("{who} raises {}: {}", self.kind, self.message)
        }
    }
}

impl From<crate::py::PyErr> for Raised {
    fn from(e: crate::py::PyErr) -> Raised {
        Raised {
            kind: e.kind.to_string(),
            message: e.message,
        }
    }
}

/// A release's usage error: a flag, class or option it does not have, or
/// a request it does not build, named (`format` and `request` say it and
/// exit 2). The text is all there is: each release words its own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl From<v2::Error> for UsageError {
    fn from(e: v2::Error) -> Self {
        UsageError(e.0)
    }
}

impl From<java::Error> for UsageError {
    fn from(e: java::Error) -> Self {
        UsageError(e.0)
    }
}

/// A release's own `format` object for a session (its JSON), with the
/// flags it takes; `Err`: a usage error (a flag or class it does not have,
/// named). See [`Reference::format_oracle`].
pub type FormatOracle =
    fn(session: &Value, env: &MediaEnv, flags: &FormatFlags) -> Result<Value, UsageError>;

/// One AgentScope release.
pub trait Reference: Send + Sync {
    /// "1.0.21".
    fn version(&self) -> &'static str;

    /// "AgentScope 1.0.21".
    fn title(&self) -> String {
        format!("AgentScope {}", self.version())
    }

    /// The modes it formats in, in the order `m` cycles them.
    fn modes(&self) -> &'static [Mode];

    /// The providers it has formatter classes for, in the order the
    /// workbench's digit keys pick them (the 1.0.21 six first, on the same
    /// keys, in every release that has them).
    fn families(&self) -> &'static [Family];

    /// Its family named `id` ("minimax").
    fn family(&self, id: &str) -> Option<&'static Family> {
        self.families().iter().find(|f| f.id == id)
    }

    /// Its family for the 1.0.21 provider `provider`.
    fn family_of(&self, provider: Provider) -> Option<&'static Family> {
        self.families()
            .iter()
            .find(|f| f.provider == Some(provider))
    }

    /// What it calls for `family` in `mode`: `OpenAIChatFormatter.format`.
    fn call(&self, family: &Family, mode: Mode) -> String;

    /// Formats the session's messages as the release does.
    fn format(&self, session: &Session, family: &Family, mode: Mode, env: &MediaEnv) -> Formatted;

    /// Whether it counts tokens and truncates to a budget in the formatter
    /// (the budget model and the planner reproduce it).
    fn counts_and_truncates(&self) -> bool;

    /// Why it has no count or truncation, when it has none: for the panes.
    fn no_budget(&self) -> Option<&'static str> {
        None
    }

    /// `format`'s output for the session in the shape of the release's
    /// golden vectors, with the flags it takes; `None`: the release's
    /// `format` is the shell's own (the default release's, with its
    /// truncation and counters, or the generic one), which reads the
    /// session as it needs it, so the shell reads the whole tree only for
    /// a release that answers here.
    fn format_oracle(&self) -> Option<FormatOracle> {
        None
    }

    /// How its model class parses the reply to `requested`; `None`: the
    /// release's parsing is not reproduced (the reply is shown as it came).
    fn replies(&self, requested: &Requested) -> Option<Box<dyn Replies>> {
        let _ = requested;
        None
    }

    /// The settings with `url` as the base URL of `family`'s requests
    /// (where the release's model class reads it), for `send --base-url`.
    fn with_base_url(
        &self,
        family: &Family,
        settings: &mut crate::wire::Settings,
        url: &str,
    ) -> Result<(), UsageError> {
        let _ = (family, settings, url);
        Err(UsageError(format!(
            "{} takes no base URL here",
            self.title()
        )))
    }

    /// The request its model class sends for the session: the wire
    /// (endpoint, headers, body bytes) and the release's oracle object;
    /// `Err`: a usage error (a class it does not have, an option it does
    /// not take) or a release that builds no wire, named.
    fn request(&self, ask: &WireAsk) -> Result<Requested, UsageError> {
        let _ = ask;
        Err(UsageError(format!(
            "{} builds no wire request here (its formatter output is what formatscope reproduces)",
            self.title()
        )))
    }

    /// The rules of its catalogue behind the session's request for
    /// `family` in `mode` (`formatted`: what `format` gave), each with the
    /// session messages it shaped; `None`: it attributes every node of
    /// the request instead (the default release, `explain::formatted`).
    fn rules(
        &self,
        session: &Session,
        family: &Family,
        mode: Mode,
        formatted: &Formatted,
    ) -> Option<Vec<crate::explain::Fired>> {
        let _ = (session, family, mode, formatted);
        None
    }

    /// The session settings it reads, beyond the shared ones: the settings
    /// form offers each (key path, label, help).
    fn settings(&self) -> &'static [Setting] {
        &[]
    }
}

/// A provider as a release knows it: the family of formatter classes its
/// model class uses (`MiniMaxChatFormatter`, `MiniMaxMultiAgentFormatter`).
/// Releases after 1.0.21 add providers the budget model, the wire and the
/// sends do not know; `provider` links a family to the one they know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// "minimax": the diff's sides and the workbench's status say it.
    pub id: &'static str,
    /// "MiniMax": the header's and the classes' spelling.
    pub title: &'static str,
    /// The 1.0.21 provider of the same API: its tokenizer counts the
    /// family's requests and its key sends them. None: formatscope has no
    /// tokenizer for it (the release's own estimate is the count).
    pub provider: Option<Provider>,
}

impl Family {
    /// The family of a 1.0.21 provider.
    pub const fn of(provider: Provider) -> Family {
        Family {
            id: provider.id(),
            title: provider.class_prefix(),
            provider: Some(provider),
        }
    }

    /// A family 1.0.21 does not have.
    pub const fn new(id: &'static str, title: &'static str) -> Family {
        Family {
            id,
            title,
            provider: None,
        }
    }

    /// The 1.0.21 provider, or the error a release without one raises.
    pub fn provider(&self, version: &str) -> Result<Provider, Raised> {
        self.provider.ok_or_else(|| Raised {
            kind: "UsageError".into(),
            message: format!("AgentScope {version} has no {} formatter", self.title),
        })
    }
}

/// The six providers of 1.0.21, in `Provider::ALL`'s order.
pub const SIX: [Family; 6] = [
    Family::of(Provider::OpenAi),
    Family::of(Provider::Anthropic),
    Family::of(Provider::DashScope),
    Family::of(Provider::Gemini),
    Family::of(Provider::Ollama),
    Family::of(Provider::DeepSeek),
];

/// A session setting only one release reads: a field of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setting {
    /// The session object and key: ("legacy", "require_alternative").
    pub object: &'static str,
    pub key: &'static str,
    /// A list of names (typed comma-separated, saved as a JSON array of
    /// strings) instead of an on/off switch.
    pub list: bool,
    /// The form's label.
    pub label: &'static str,
    /// The form's help line.
    pub help: &'static str,
}

/// One output message per input message when the counts agree: the only
/// alignment a release that does not report spans allows.
pub fn one_to_one(inputs: usize, outputs: usize) -> Vec<Span> {
    if inputs == outputs {
        (0..inputs).map(|i| (i..i + 1, i..i + 1)).collect()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_release_is_found_by_its_version_and_v_cycles_through_all() {
        let mut seen = vec![default().version()];
        let mut r = default();
        for _ in 1..ALL.len() {
            r = next(r);
            assert_eq!(
                by_version(r.version()).map(|x| x.version()),
                Some(r.version())
            );
            seen.push(r.version());
        }
        assert_eq!(next(r).version(), default().version());
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), ALL.len());
    }

    /// A limit of formatscope is said as one, never as an exception of
    /// AgentScope's; a real exception names its class.
    #[test]
    fn formatscopes_own_limits_are_not_said_as_agentscope_raising() {
        let ours = Raised {
            kind: "UnsupportedOperationException".into(),
            message: format!("{}: the vendor SDK", java::reference::NOT_BUILT),
        };
        let said = ours.said_by("AgentScope Java 2.0.2");
        assert!(!said.contains("raises"), "{said}");
        assert!(said.starts_with("formatscope does not build this"));
        let theirs = Raised {
            kind: "ValueError".into(),
            message: "bad".into(),
        };
        assert_eq!(
            theirs.said_by("AgentScope 2.0.11"),
            "AgentScope 2.0.11 raises ValueError: bad"
        );
    }
}
