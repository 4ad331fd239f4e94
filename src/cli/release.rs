//! The `--agentscope` flag and what it picks: a release of
//! `formatscope::reference::ALL` (typed, parsed from its version), and
//! the family and mode a command's flags or the session choose within
//! it. No command names a version: each asks the release.

use formatscope::reference::{self, Family, Mode, Reference};

/// A release, as `--agentscope` names it.
#[derive(Clone, Copy)]
pub(crate) struct Release(pub(crate) &'static dyn Reference);

impl Release {
    /// Whether it is the default release (the one `--agentscope` means
    /// when not given).
    pub(crate) fn is_default(self) -> bool {
        self.0.version() == reference::default().version()
    }
}

/// `--agentscope VERSION`.
pub(crate) fn parse(text: &str) -> Result<Release, String> {
    reference::by_version(text).map(Release).ok_or_else(|| {
        format!(
            "unknown AgentScope version {text:?}; one of {}",
            reference::versions()
        )
    })
}

/// `--mode`, typed: clap lists the values in `--help` and refuses any
/// other; each command then checks the mode against what it (or the
/// release) formats in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModeArg {
    Chat,
    #[value(name = "multi_agent", alias = "multi-agent")]
    MultiAgent,
    /// `format_auto`, for a release whose classes have it.
    Auto,
}

impl ModeArg {
    /// The mode as sessions spell it.
    pub(crate) fn id(self) -> &'static str {
        match self {
            ModeArg::Chat => "chat",
            ModeArg::MultiAgent => "multi_agent",
            ModeArg::Auto => "auto",
        }
    }
}

/// `--provider`, typed by clap against every release's providers: `--help`
/// lists them and a name no release has is refused before anything is
/// read ("mistral"). Each command then checks it against the release it
/// formats under, whose error lists that release's own.
pub(crate) fn provider_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(provider_ids())
}

/// `--provider` where `all` asks for every provider (`explain`, `lint`).
pub(crate) fn provider_or_all_parser() -> clap::builder::PossibleValuesParser {
    let mut ids = provider_ids();
    ids.push("all");
    clap::builder::PossibleValuesParser::new(ids)
}

/// Every release's provider ids, each once, in `reference::ALL` order.
fn provider_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = Vec::new();
    for family in reference::ALL.iter().flat_map(|r| r.families()) {
        if !ids.contains(&family.id) {
            ids.push(family.id);
        }
    }
    ids
}

/// A mode as the flags spell it (`multi_agent` as the sessions do).
fn mode_named(text: &str) -> Option<Mode> {
    match text {
        "chat" => Some(Mode::Chat),
        "multi-agent" | "multi_agent" => Some(Mode::MultiAgent),
        "auto" => Some(Mode::Auto),
        _ => None,
    }
}

fn listed(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// A session's own `provider` and `mode` settings, as written.
#[derive(Clone, Copy, Default)]
pub(crate) struct Own<'a> {
    pub(crate) provider: Option<&'a str>,
    pub(crate) mode: Option<&'a str>,
}

impl<'a> Own<'a> {
    /// The settings of a session object (any JSON: a bare array has none).
    pub(crate) fn of(session: &'a serde_json::Value) -> Own<'a> {
        Own {
            provider: session.get("provider").and_then(|v| v.as_str()),
            mode: session.get("mode").and_then(|v| v.as_str()),
        }
    }

    /// A loaded session's own settings.
    pub(crate) fn of_session(session: &'a formatscope::session::Session) -> Own<'a> {
        Own {
            provider: session.settings.get("provider").and_then(|v| v.as_str()),
            mode: session.mode(),
        }
    }
}

/// The class `--formatter` names, else the release's class for
/// `--provider`/`--mode` when either is given; `None`: the release picks
/// from the session itself.
pub(crate) fn class(
    release: &'static dyn Reference,
    formatter: Option<&str>,
    provider: Option<&str>,
    mode: Option<&str>,
    own: Own,
) -> Result<Option<String>, String> {
    if formatter.is_none() && provider.is_none() && mode.is_none() {
        return Ok(None);
    }
    let (family, mode) = family_and_mode(release, formatter, provider, mode, own)?;
    Ok(release
        .call(family, mode)
        .split('.')
        .next()
        .map(str::to_string))
}

/// The family and mode a request under `release` is for: the class
/// `--formatter` names, else `--provider` and `--mode`, else the
/// session's `provider` and `mode`; each checked against what the release
/// has, and the error lists what it has.
pub(crate) fn family_and_mode(
    release: &'static dyn Reference,
    formatter: Option<&str>,
    provider: Option<&str>,
    mode: Option<&str>,
    own: Own,
) -> Result<(&'static Family, Mode), String> {
    if let Some(class) = formatter {
        let prefix = format!("{class}.");
        // A class with a method per mode (0.1.6's) takes --mode too.
        let asked = mode.and_then(mode_named);
        for family in release.families() {
            for m in asked.iter().chain(release.modes()) {
                if release.call(family, *m).starts_with(&prefix) {
                    return Ok((family, *m));
                }
            }
        }
        let classes = listed(release.families().iter().flat_map(|f| {
            release
                .modes()
                .iter()
                .map(|m| release.call(f, *m))
                .filter_map(|c| c.strip_suffix(".format").map(str::to_string))
                .collect::<Vec<_>>()
        }));
        return Err(format!(
            "unknown formatter {class}: {} has {classes}",
            release.title()
        ));
    }
    let id = match provider {
        Some(p) => p.to_lowercase(),
        None => own
            .provider
            .map(str::to_lowercase)
            .unwrap_or_else(|| release.families()[0].id.to_string()),
    };
    let family = release.family(&id).ok_or_else(|| {
        format!(
            "unknown provider {id:?}: {} has {} (or name a class with --formatter CLASS)",
            release.title(),
            listed(release.families().iter().map(|f| f.id.to_string()))
        )
    })?;
    let named = mode.or(own.mode);
    let mode = match named {
        None => release.modes()[0],
        Some(text) => mode_named(text)
            .filter(|m| release.modes().contains(m))
            .ok_or_else(|| {
                format!(
                    "unknown mode {text:?}: {} has {}",
                    release.title(),
                    listed(release.modes().iter().map(|m| m.name().to_string()))
                )
            })?,
    };
    Ok((family, mode))
}
