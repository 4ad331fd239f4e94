//! `formatscope lint SESSION`: what will fail or cost money at the provider
//! or in AgentScope. Exit 1 when there is an error finding (for CI and
//! pre-commit hooks), 0 otherwise, 2 for bad usage or an unreadable file.

use super::{
    failure, media_env, print_json, report_access, safe, say, success, usage_error, web_fetcher,
    Exit,
};
use clap::Args;
use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::lint::{self, Severity, RULES};
use formatscope::session::read_session_bytes;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct LintArgs {
    /// Session file.
    #[arg(required_unless_present = "rules")]
    session: Option<PathBuf>,

    /// The provider whose request is checked, or `all` (default: the
    /// session's provider, else all).
    #[arg(long, value_name = "P|all", ignore_case = true, value_parser = super::release::provider_or_all_parser())]
    provider: Option<String>,

    /// chat or multi_agent (default: the session's mode, else chat).
    #[arg(long, value_name = "MODE")]
    mode: Option<super::release::ModeArg>,

    /// The findings as JSON: {"findings": [...], "errors", "warnings", "infos"}.
    #[arg(long)]
    json: bool,

    /// List the rules and exit.
    #[arg(long)]
    rules: bool,

    /// Also check the session under this AgentScope release, found by
    /// formatting with it and the default: the upgrade to 2.0.11 (what it
    /// rejects or drops that 1.0.21 accepted, rules v2.*), the Java port
    /// java-2.0.2 (where a Java agent sends it differently, rules java.*),
    /// or 0.1.6 (what it refuses, cannot hold or skips, rules release.*).
    #[arg(long, value_name = "VERSION")]
    agentscope: Option<String>,

    /// Never use the network (remote media then fail as AgentScope fails offline).
    #[arg(long)]
    offline: bool,
}

pub(crate) fn run(args: LintArgs) -> Exit {
    if args.rules {
        for r in RULES {
            outln!("{:<40} {:<8} {}", r.id, r.severity.as_str(), r.summary);
        }
        return success();
    }
    let Some(path) = &args.session else {
        return usage_error("a session file is required");
    };
    let upgrade = match args.agentscope.as_deref() {
        None => None,
        Some(v) => match formatscope::reference::by_version(v) {
            None => {
                return usage_error(format!(
                    "unknown AgentScope release {v} (known: {})",
                    formatscope::reference::versions()
                ))
            }
            Some(r) if r.version() == formatscope::reference::default().version() => None,
            Some(r) => Some(r),
        },
    };
    let bytes = match read_session_bytes(path) {
        Ok(b) => b,
        Err(e) => return usage_error(e),
    };
    let origin = path.display().to_string();
    let mut session = match formatscope::session::parse_session_bytes(&bytes, &origin) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    session.path = Some(path.clone());
    let text = String::from_utf8_lossy(&bytes);
    let own = session.formatter().ok();
    let mode = match args.mode.map(super::release::ModeArg::id) {
        Some(m) => match Mode::from_id(m) {
            Some(m) => m,
            None => return usage_error(format!("unknown mode {m:?} (chat or multi_agent)")),
        },
        None => own.map_or(Mode::Chat, |f| f.mode),
    };
    let providers: Vec<Provider> = match args.provider.as_deref() {
        Some("all") => Provider::ALL.to_vec(),
        Some(p) => match Provider::from_id(p) {
            Some(p) => vec![p],
            None => return usage_error(format!("unknown provider {p:?}")),
        },
        None => match own {
            Some(f) => vec![f.provider],
            None => Provider::ALL.to_vec(),
        },
    };
    let env = media_env(&session, web_fetcher(&[], args.offline));
    let mut input = lint::Input::new(
        &session,
        Some(&text),
        providers
            .iter()
            .map(|p| FormatterId::new(*p, mode))
            .collect(),
        &env,
    );
    input.upgrade = upgrade;
    let findings = lint::lint(&input);
    report_access(env.gate());
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    if args.json {
        print_json(&serde_json::json!({
            "findings": findings.iter().map(|f| f.to_json()).collect::<Vec<_>>(),
            "errors": errors,
            "warnings": warnings,
            "infos": infos,
        }));
    } else {
        let all = input.formatters.len();
        for f in &findings {
            let at = match f.line_col {
                Some((l, c)) => format!("{}:{l}:{c}", path.display()),
                None => path.display().to_string(),
            };
            let which = match (&f.message, &f.block) {
                (Some(m), Some(b)) => format!(" message {m} block {b}:"),
                (Some(m), None) => format!(" message {m}:"),
                _ => String::new(),
            };
            // Name the formatters only when not all of them.
            let whom = if f.formatters.is_empty() || f.formatters.len() == all {
                String::new()
            } else {
                format!(
                    " [{}]",
                    f.formatters
                        .iter()
                        .map(|id| id.class_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            outln!(
                "{at}: {}[{}]:{which} {}{whom} (fix: {})",
                f.severity.as_str(),
                f.rule,
                safe(&f.text),
                f.fix
            );
        }
        outln!(
            "{errors} error{}, {warnings} warning{}, {infos} note{} for {}",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" },
            if infos == 1 { "" } else { "s" },
            input
                .formatters
                .iter()
                .map(|id| id.class_name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if errors > 0 {
        say(format!("{errors} error finding(s)"));
        failure()
    } else {
        success()
    }
}
