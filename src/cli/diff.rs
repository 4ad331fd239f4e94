//! `formatscope diff SESSION --left SPEC --right SPEC`: the structural
//! difference between two requests for the same session (two providers,
//! two modes, the formatter's output or the wire body, two AgentScope
//! releases).
//!
//! A side may name its release (`2.0.11:openai`): it is then that
//! release's formatter output through `reference::Reference::format`, so
//! any release in `reference::ALL` diffs without code here, and
//! `--left 1.0.21:openai --right 2.0.11:openai` shows what an upgrade
//! changes. The default release (1.0.21) keeps the path a side without a
//! prefix takes; another release's `:wire` side is the body its model
//! class sends (`Reference::request`).

use super::{
    failure, media_env, print_json, report_access, say, success, usage_error, web_fetcher, Exit,
};
use anyhow::Context;
use clap::Args;
use formatscope::budget::BudgetModel;
use formatscope::diff::cache::Break;
use formatscope::diff::{CachePrefix, PromptPrefix, Version};
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::reference::{self, Family, Reference};
use formatscope::session::{read_session, Session};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct DiffArgs {
    /// Session file.
    session: PathBuf,

    /// The left request: [VERSION:]PROVIDER[:MODE][:wire], e.g. openai,
    /// anthropic:multi-agent, gemini:chat:wire (wire: the HTTP body the
    /// SDK sends, else the formatter's messages), 2.0.11:openai (that
    /// AgentScope release's formatter), 2.0.11:minimax:wire (the body its
    /// model class sends).
    /// The mode defaults to the session's.
    #[arg(long, value_name = "SPEC")]
    left: String,

    /// The right request, as --left.
    #[arg(long, value_name = "SPEC")]
    right: String,

    /// {"operations": JSON Patch operations (RFC 6902 add/remove/replace,
    /// JSON-pointer paths into the left request: the body for wire, else
    /// {"messages": [...]}; `moved_from`/`moved_to` pair a value that
    /// moved), which applied to the left request give the right one;
    /// "cache_prefix" for two wire bodies of one provider; "lost"
    /// {"left", "right"} when a side's release cannot hold all of the
    /// session}.
    #[arg(long)]
    json: bool,

    /// Take the right request from this session file instead (another
    /// version of the same conversation): with two wire sides, the
    /// summary then says how much of the body a prompt cache can reuse.
    #[arg(long, value_name = "FILE")]
    right_session: Option<PathBuf>,

    /// Also write a handout: one self-contained HTML page with the two
    /// requests side by side, aligned by message, the diff coloured, and
    /// the rule behind each node beside the lines.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,

    /// Show base64 media in full in the handout (default: `<image/png 34 KB>`).
    #[arg(long)]
    raw_media: bool,

    /// Never use the network.
    #[arg(long)]
    offline: bool,
}

/// A side: which formatter, whether the wire body, and the release a
/// `VERSION:` prefix named.
struct Side {
    formatter: FormatterId,
    wire: bool,
    release: Option<Released>,
}

/// A side's release, its provider and its mode, as the release names them.
struct Released {
    reference: &'static dyn Reference,
    family: &'static Family,
    mode: reference::Mode,
}

impl Side {
    /// The release formatting this side when it is not the default one
    /// (the default takes the path of a side without a prefix).
    fn other_release(&self) -> Option<&Released> {
        self.release
            .as_ref()
            .filter(|r| r.reference.version() != reference::default().version())
    }

    /// "OpenAIChatFormatter", or with a release "2.0.11 OpenAIChatFormatter.format".
    fn name(&self) -> String {
        let wire = if self.wire { " (wire body)" } else { "" };
        match &self.release {
            None => format!("{}{wire}", self.formatter.class_name()),
            Some(r) => format!(
                "{} {}{wire}",
                r.reference.version(),
                r.reference.call(r.family, r.mode)
            ),
        }
    }
}

fn parse_side(spec: &str, session: &Session) -> Result<Side, String> {
    let mut parts = spec.split(':');
    let first = parts.next().unwrap_or_default();
    // A release's version has a digit ("2.0.11", "java-2.0.2"); no
    // provider id has one.
    if Provider::from_id(first).is_none() && first.chars().any(|c| c.is_ascii_digit()) {
        let release = reference::by_version(first).ok_or_else(|| {
            format!(
                "{spec}: unknown AgentScope release {first} (known: {})",
                reference::versions()
            )
        })?;
        return parse_release_side(spec, release, parts, session);
    }
    let provider = Provider::from_id(first)
        .ok_or_else(|| format!("{spec}: expected PROVIDER[:MODE][:wire]"))?;
    let mut mode = session.formatter().map(|f| f.mode).unwrap_or(Mode::Chat);
    let mut wire = false;
    for p in parts {
        match p {
            "wire" => wire = true,
            m => mode = Mode::from_id(m).ok_or_else(|| format!("{spec}: unknown mode {m}"))?,
        }
    }
    Ok(Side {
        formatter: FormatterId::new(provider, mode),
        wire,
        release: None,
    })
}

/// The rest of a `VERSION:PROVIDER[:MODE][:wire]` spec, checked against
/// what the release has: its providers and its modes.
fn parse_release_side<'a>(
    spec: &str,
    release: &'static dyn Reference,
    mut parts: impl Iterator<Item = &'a str>,
    session: &Session,
) -> Result<Side, String> {
    let version = release.version();
    let id = parts
        .next()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| format!("{spec}: expected VERSION:PROVIDER[:MODE][:wire]"))?;
    let family = release.family(&id.to_ascii_lowercase()).ok_or_else(|| {
        let ids: Vec<&str> = release.families().iter().map(|f| f.id).collect();
        format!(
            "{spec}: AgentScope {version} has no formatter for {id} (it has {})",
            ids.join(", ")
        )
    })?;
    let modes = release.modes();
    let own = session
        .formatter()
        .map(|f| reference::Mode::from(f.mode))
        .unwrap_or(reference::Mode::Chat);
    let mut mode = if modes.contains(&own) {
        own
    } else {
        modes.first().copied().unwrap_or(own)
    };
    let mut wire = false;
    for p in parts {
        if p == "wire" {
            wire = true;
            continue;
        }
        let wanted = p.to_ascii_lowercase().replace('_', "-");
        mode = modes
            .iter()
            .copied()
            .find(|m| {
                m.name() == wanted || (wanted == "multiagent" && *m == reference::Mode::MultiAgent)
            })
            .ok_or_else(|| {
                let names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
                format!(
                    "{spec}: AgentScope {version} has no mode {p} ({})",
                    names.join(", ")
                )
            })?;
    }
    let side = Side {
        // A provider 1.0.21 lacks is only ever formatted by its release
        // (`other_release`), which reads `family`, not this.
        formatter: FormatterId::new(
            family.provider.unwrap_or(Provider::OpenAi),
            mode.formatter_mode()
                .unwrap_or_else(|| session.formatter().map(|f| f.mode).unwrap_or(Mode::Chat)),
        ),
        wire,
        release: Some(Released {
            reference: release,
            family,
            mode,
        }),
    };
    Ok(side)
}

/// The request a side describes: today's path, or the side's release's
/// formatter output (with what its message model leaves out).
fn side_request(
    session: &Session,
    side: &Side,
    env: &formatscope::media::MediaEnv,
) -> Result<(Value, Vec<String>, Vec<formatscope::formatter::Span>), String> {
    let Some(r) = side.other_release() else {
        return request_of(session, side.formatter, side.wire, env)
            .map(|v| (v, Vec::new(), Vec::new()));
    };
    if side.wire {
        return release_body(session, r, env).map(|v| (v, Vec::new(), Vec::new()));
    }
    let out = r.reference.format(session, r.family, r.mode, env);
    match out.messages {
        Ok(m) => Ok((formatscope::json!({ "messages": m }), out.lost, out.spans)),
        Err(e) => Err(format!(
            "AgentScope {} {}: {}: {}",
            r.reference.version(),
            out.call,
            e.kind,
            e.message
        )),
    }
}

/// The body another release's model class sends (`Reference::request`,
/// as `request --agentscope` builds it from the session's settings).
fn release_body(
    session: &Session,
    r: &Released,
    env: &formatscope::media::MediaEnv,
) -> Result<Value, String> {
    let settings = formatscope::wire::Settings::from_session(session.settings.get("request"))?
        .or_session_model(session.model());
    let ask = formatscope::reference::WireAsk {
        session,
        family: r.family,
        mode: r.mode,
        class: None,
        settings: &settings,
        tool_choice_tools: None,
        input_types: None,
        history_prompt: None,
        endpoint: None,
        env,
    };
    let requested = r.reference.request(&ask).map_err(|e| e.to_string())?;
    match (requested.sendable(), &requested.stopped) {
        (Some(w), _) => Ok(w.body.clone()),
        (None, Some(s)) => Err(format!(
            "{} {}: {}: {}",
            r.reference.title(),
            requested.class,
            s.error.kind,
            s.error.message
        )),
        (None, None) => Err(format!(
            "{} {}: the SDK raises before sending",
            r.reference.title(),
            requested.class
        )),
    }
}

/// The request a side describes: the formatter's messages, or the body.
pub(crate) fn request_of(
    session: &Session,
    formatter: FormatterId,
    wire: bool,
    env: &formatscope::media::MediaEnv,
) -> Result<Value, String> {
    let request = ReferenceRequest::plain(formatter);
    if wire {
        let settings =
            formatscope::model_choice::request_settings(session, formatter.provider, None)?;
        let built = pipeline::build_request(session, &request, &settings, env);
        return match built.http() {
            Some(w) => Ok(w.body.clone()),
            None => Err(format!(
                "{formatter}: {}",
                built.error().unwrap_or_else(|| "no request body".into())
            )),
        };
    }
    let out = pipeline::run_reference_in(session, &request, env);
    if let Some(e) = out.get("error").and_then(Value::as_str) {
        return Err(format!("{formatter}: {e}"));
    }
    // The formatter's list, under the key a body holds it by, so the
    // formatter's output and a wire body line up.
    let messages = out
        .get("messages")
        .cloned()
        .ok_or_else(|| format!("{formatter}: no messages"))?;
    Ok(formatscope::json!({ "messages": messages }))
}

pub(crate) fn run(args: DiffArgs) -> Exit {
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let right_session = match &args.right_session {
        None => session.clone(),
        Some(p) => match read_session(p) {
            Ok(s) => s,
            Err(e) => return usage_error(e),
        },
    };
    let (left, right) = match (
        parse_side(&args.left, &session),
        parse_side(&args.right, &right_session),
    ) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return usage_error(e),
    };
    let env = media_env(&session, web_fetcher(&[], args.offline));
    let right_env = media_env(&right_session, web_fetcher(&[], args.offline));
    let ((l, l_lost, l_spans), (r, r_lost, r_spans)) = match (
        side_request(&session, &left, &env),
        side_request(&right_session, &right, &right_env),
    ) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => {
            say(format!("error: {e}"));
            return failure();
        }
    };
    // What each side read outside its folder or fetched, as every command
    // says (one session on both sides reads the same files: said once).
    report_access(env.gate());
    if args.right_session.is_some() {
        report_access(right_env.gate());
    }
    if let Some(path) = &args.html {
        let annotated = |s: &Side, session: &Session, v: &Value, spans, env| match s.other_release()
        {
            Some(_) => super::handout::release_side(s.name(), v, spans, args.raw_media),
            None => {
                super::handout::annotated_side(session, s.formatter, s.wire, v, env, args.raw_media)
            }
        };
        let sides = (
            annotated(&left, &session, &l, &l_spans, &env),
            annotated(&right, &right_session, &r, &r_spans, &right_env),
        );
        let title = format!("{} ↔ {}", sides.0.side.label, sides.1.side.label);
        let subtitle = match &args.right_session {
            Some(p) => format!("{} → {}", args.session.display(), p.display()),
            None => args.session.display().to_string(),
        };
        // Lint speaks for 1.0.21: its findings for the sides it formats.
        let linted: Vec<FormatterId> = [&left, &right]
            .iter()
            .filter(|s| s.other_release().is_none())
            .map(|s| s.formatter)
            .collect();
        let findings = super::handout::findings(&session, &linted, &env);
        // An output file that cannot be written is for main to report.
        super::handout::write(path, &title, &subtitle, &sides.0, &sides.1, findings).with_context(
            || format!("cannot write {}", super::safe(&path.display().to_string())),
        )?;
        say(format!("wrote {}", path.display()));
    }
    let ops = formatscope::diff::diff(&l, &r);
    // Prompt caches reuse the prompt up to its first change.
    let prefix = (left.wire && right.wire && left.formatter.provider == right.formatter.provider)
        .then(|| {
            let provider = left.formatter.provider;
            let (lb, rb) = (
                formatscope::wire::export::body_bytes(provider, &l),
                formatscope::wire::export::body_bytes(provider, &r),
            );
            let bytes = formatscope::diff::cache_prefix(&lb, &rb);
            let prompt = prompt_prefix(
                (&session, left.formatter, &env),
                (&right_session, right.formatter, args.offline),
            );
            (bytes, prompt)
        });
    if args.json {
        let mut out = formatscope::json!({"operations": formatscope::diff::to_json(&ops)});
        if !l_lost.is_empty() || !r_lost.is_empty() {
            out["lost"] = formatscope::json!({"left": l_lost, "right": r_lost});
        }
        if let Some((bytes, prompt)) = &prefix {
            let mut c = formatscope::json!({
                "bytes": bytes.bytes, "of_bytes": bytes.of, "body_breaks_at": &bytes.breaks_at,
            });
            match prompt {
                Ok(p) => {
                    c["tokens"] = p.tokens.into();
                    c["of_tokens"] = p.of.into();
                    c["tokens_exact"] = p.exact.into();
                    c["breaks_at"] = p.breaks.as_ref().map(Break::pointer).into();
                    c["breaks"] = p
                        .breaks
                        .as_ref()
                        .map(|b| match b {
                            Break::Model { .. } => "model",
                            Break::Tools => "tools",
                            Break::PackedMessage { .. } => "message",
                        })
                        .into();
                    c["message"] = p.breaks.as_ref().and_then(Break::message).into();
                }
                Err(e) => c["error"] = e.clone().into(),
            }
            out["cache_prefix"] = c;
        }
        print_json(&out);
        return success();
    }
    let lines: Vec<String> = ops.iter().filter_map(|o| o.summary()).collect();
    outln!(
        "{} → {}: {} change{}",
        left.name(),
        right.name(),
        lines.len(),
        if lines.len() == 1 { "" } else { "s" }
    );
    for line in &lines {
        outln!("{}", super::safe(line));
    }
    for (side, lost) in [(&left, &l_lost), (&right, &r_lost)] {
        for what in lost {
            outln!("{} leaves out: {}", side.name(), super::safe(what));
        }
    }
    if let Some((bytes, prompt)) = prefix {
        outln!("{}", super::safe(&cache_summary(&bytes, &prompt)));
    }
    success()
}

/// The prompt-cache line: prompt tokens reusable, and why it breaks.
fn cache_summary(bytes: &CachePrefix, prompt: &Result<PromptPrefix, String>) -> String {
    let body = format!(
        "identical prefix of the bodies: {} of {} bytes",
        bytes.bytes, bytes.of
    );
    let p = match prompt {
        Ok(p) => p,
        Err(e) => return format!("prompt cache: cannot count the prompt ({e}); {body}"),
    };
    let approx = if p.exact { "" } else { "≈" };
    let why = match &p.breaks {
        None => " (nothing changed)".to_string(),
        Some(Break::Model { before, now }) => format!(
            ": the model changed ({before} → {now}), and no provider reuses a cache across models"
        ),
        Some(Break::Tools) => {
            ": the tool schemas changed, and they come before every message".into()
        }
        Some(Break::PackedMessage {
            message, pointer, ..
        }) => format!(" (up to message {message}; it breaks at {pointer})"),
    };
    format!(
        "prompt cache: {approx}{} of {approx}{} prompt tokens reusable{why}; {body}",
        p.tokens, p.of
    )
}

/// The prompt the right request shares with the left one, counted as
/// the budget meter counts the right request.
fn prompt_prefix(
    before: (&Session, FormatterId, &formatscope::media::MediaEnv),
    now: (&Session, FormatterId, bool),
) -> Result<PromptPrefix, String> {
    let (b_session, b_formatter, b_env) = before;
    let (n_session, n_formatter, offline) = now;
    let msgs = pipeline::build_msgs(b_session).map_err(|e| format!("{}: {}", e.kind, e.message))?;
    let keys = formatscope::formatter::message_keys(&b_session.messages);
    let earlier = formatscope::budget::formatted_with_spans(
        b_formatter,
        &FormatOptions::default(),
        &msgs,
        &keys,
        b_env,
    )
    .map_err(|e| format!("{}: {}", e.kind, e.message))?;
    let mut model = BudgetModel::new(
        n_formatter,
        FormatOptions::default(),
        formatscope::model_choice::choose_model(n_session, n_formatter.provider, None).info(),
        n_session.messages.iter().cloned(),
        n_session.tools.clone(),
        media_env(n_session, web_fetcher(&[], offline)),
    )
    .map_err(|e| e.to_string())?;
    let report = model.report();
    let current = model
        .formatted_with_spans()
        .map_err(|e| format!("{}: {}", e.kind, e.message))?;
    let (b_model, n_model) = (
        body_model(b_session, b_formatter),
        body_model(n_session, n_formatter),
    );
    Ok(formatscope::diff::prompt_prefix(
        &Version {
            model: &b_model,
            tools: b_session.tools.as_ref(),
            messages: &earlier.messages,
            spans: &earlier.spans,
        },
        &Version {
            model: &n_model,
            tools: n_session.tools.as_ref(),
            messages: &current.messages,
            spans: &current.spans,
        },
        &report,
    ))
}

/// The model the wire body names (as `request_of` builds it).
fn body_model(session: &Session, formatter: FormatterId) -> String {
    formatscope::model_choice::choose_model(session, formatter.provider, None).name
}
