//! `formatscope explain SESSION`: the rules that shaped the request, for
//! notes and handouts; `--nodes` every attributed node; `--html FILE` a
//! page with the formatter's messages and the wire body side by side, the
//! rule beside each node and the lint findings beside their messages.

use super::release::{family_and_mode, Own, Release};
use super::{
    failure, failure_if, media_env, print_json, report_access, report_session, safe, say,
    usage_error, web_fetcher, Exit,
};
use anyhow::Context;
use clap::Args;
use formatscope::explain::{self, Explained, Fired, Rule};
use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::reference::{self, Family};
use formatscope::session::{read_session, Session};
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ExplainArgs {
    /// Session file.
    session: PathBuf,

    /// The provider, or `all` (default: the session's provider).
    #[arg(long, value_name = "P|all", ignore_case = true, value_parser = super::release::provider_or_all_parser())]
    provider: Option<String>,

    /// The AgentScope release whose rules to list (default: the one whose
    /// every node is attributed): 1.0.21, 2.0.11, 0.1.6 or java-2.0.2.
    #[arg(long, value_name = "VERSION", value_parser = super::release::parse)]
    agentscope: Option<super::release::Release>,

    /// Under another release, the class to explain (as its `format`
    /// names it), instead of --provider and --mode.
    #[arg(long, value_name = "CLASS")]
    formatter: Option<String>,

    /// chat or multi_agent (default: the session's mode, else chat).
    #[arg(long, value_name = "MODE")]
    mode: Option<super::release::ModeArg>,

    /// Explain the wire body (the HTTP request's JSON) instead of the
    /// formatter's messages.
    #[arg(long)]
    wire: bool,

    /// Every attributed node (JSON pointer, source message and block,
    /// rule), not only the rules that fired.
    #[arg(long)]
    nodes: bool,

    /// JSON output.
    #[arg(long)]
    json: bool,

    /// Also write a handout: the formatter's messages and the wire body
    /// side by side, with the rules and the lint findings beside the lines
    /// (with several providers, the first).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,

    /// Never use the network.
    #[arg(long)]
    offline: bool,
}

pub(crate) fn run(args: ExplainArgs) -> Exit {
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    match args.agentscope {
        Some(release) if !release.is_default() => return run_release(&args, &session, release),
        _ if args.formatter.is_some() => {
            return usage_error(format!(
                "--formatter picks a class under another release (--agentscope VERSION); {} takes --provider and --mode",
                formatscope::reference::default().title()
            ))
        }
        _ => {}
    }
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
        None => vec![own.map_or(Provider::OpenAi, |f| f.provider)],
    };
    let env = media_env(&session, web_fetcher(&[], args.offline));
    let msgs = match pipeline::build_msgs(&session) {
        Ok(m) => m,
        Err(e) => {
            say(format!(
                "error: AgentScope rejects a message: {}: {}",
                e.kind, e.message
            ));
            return failure();
        }
    };
    let keys = formatscope::formatter::message_keys(&session.messages);
    let mut out = Vec::new();
    let mut failed = false;
    for p in &providers {
        let id = FormatterId::new(*p, mode);
        let request = match formatscope::budget::formatted_with_spans(
            id,
            &Default::default(),
            &msgs,
            &keys,
            &env,
        ) {
            Ok(r) => r,
            Err(e) => {
                say(format!("{id}: AgentScope raises {}: {}", e.kind, e.message));
                failed = true;
                continue;
            }
        };
        let plain = explain::formatted(id, &msgs, &request, "");
        let explained = if args.wire {
            match wire_body(&session, id, &env) {
                Ok(body) => explain::wire(id, &body, &request, &plain),
                Err(e) => {
                    say(format!("{id}: {e}"));
                    failed = true;
                    continue;
                }
            }
        } else {
            plain
        };
        out.push((id, explained));
    }
    report_access(env.gate());
    if args.json {
        let v: Vec<Value> = out
            .iter()
            .map(|(id, ex)| to_json(*id, ex, args.nodes))
            .collect();
        print_json(&json!({ "explained": v }));
    } else {
        for (id, ex) in &out {
            print_text(*id, ex, args.nodes, args.wire);
        }
    }
    if let (Some(path), Some((id, _))) = (&args.html, out.first()) {
        let value = |wire: bool| super::diff::request_of(&session, *id, wire, &env);
        match (value(false), value(true)) {
            (Ok(l), Ok(r)) => {
                let left = super::handout::annotated_side(&session, *id, false, &l, &env, false);
                let right = super::handout::annotated_side(&session, *id, true, &r, &env, false);
                let findings = super::handout::findings(&session, &[*id], &env);
                let title = format!(
                    "{} · messages and wire, with the rule behind each node",
                    id.class_name()
                );
                // An output file that cannot be written is for main to
                // report.
                super::handout::write(
                    path,
                    &title,
                    &args.session.display().to_string(),
                    &left,
                    &right,
                    findings,
                )
                .with_context(|| {
                    format!("cannot write {}", super::safe(&path.display().to_string()))
                })?;
                say(format!("wrote {}", path.display()));
            }
            (Err(e), _) | (_, Err(e)) => {
                say(format!("error: {e}"));
                return failure();
            }
        }
    }
    failure_if(failed)
}

/// The wire body the SDK would send for the session's request settings.
fn wire_body(
    session: &formatscope::session::Session,
    id: FormatterId,
    env: &formatscope::media::MediaEnv,
) -> Result<Value, String> {
    let settings = formatscope::model_choice::request_settings(session, id.provider, None)?;
    let built = pipeline::build_request(session, &ReferenceRequest::plain(id), &settings, env);
    match built.http() {
        Some(wire) => Ok(wire.body.clone()),
        None => Err(built.error().unwrap_or_else(|| "no request body".into())),
    }
}

fn to_json(id: FormatterId, ex: &Explained, nodes: bool) -> Value {
    let mut v = rules_json(&id.class_name(), &ex.fired(), |r| r.api_for(id.provider));
    if nodes {
        v["nodes"] = ex
            .nodes
            .iter()
            .map(|n| {
                json!({"pointer": n.pointer, "messages": n.messages.as_ref().map(|m| [m.start, m.end]),
                       "block": n.block, "rule": n.rule})
            })
            .collect();
    }
    v
}

/// The JSON of one class's fired rules.
fn rules_json(class: &str, fired: &[Fired], api: impl Fn(&Rule) -> &'static str) -> Value {
    let rules: Vec<Value> = fired
        .iter()
        .map(|(r, on)| {
            json!({"id": r.id, "provider": r.provider, "text": r.text,
                   "agentscope": r.agentscope, "api": api(r), "messages": on})
        })
        .collect();
    json!({"formatter": class, "rules": rules})
}

fn print_text(id: FormatterId, ex: &Explained, nodes: bool, wire: bool) {
    let title = format!(
        "{}{}",
        id.class_name(),
        if wire { " (wire body)" } else { "" }
    );
    print_rules(&title, &ex.fired(), |r| r.api_for(id.provider));
    if nodes {
        for n in &ex.nodes {
            let src = match (&n.messages, n.block) {
                (Some(m), Some(b)) => format!("message {} block {b}", m.start),
                (Some(m), None) if m.len() > 1 => format!("messages {}–{}", m.start, m.end - 1),
                (Some(m), None) => format!("message {}", m.start),
                _ => "—".into(),
            };
            outln!("  {:<40} {:<22} {}", safe(&n.pointer), src, n.rule);
        }
    }
    outln!();
}

/// A class's fired rules, each with the messages it shaped.
fn print_rules(title: &str, fired: &[Fired], api: impl Fn(&Rule) -> &'static str) {
    outln!(
        "{title} · {} rule{}",
        fired.len(),
        if fired.len() == 1 { "" } else { "s" }
    );
    for (r, on) in fired {
        let on = if on.is_empty() {
            String::new()
        } else {
            format!(
                " (message{} {})",
                if on.len() == 1 { "" } else { "s" },
                on.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        outln!("  {}{on}", r.id);
        outln!("      {}", r.text);
        outln!("      AgentScope: {}", r.agentscope);
        outln!("      API: {}", api(r));
    }
}

/// `explain --agentscope VERSION` for a release that lists its rules by
/// message (`Reference::rules`): the class the flags or the session pick,
/// or every class of the release with `--provider all`.
fn run_release(args: &ExplainArgs, session: &Session, release: Release) -> Exit {
    let r = release.0;
    if args.nodes || args.wire || args.html.is_some() {
        return usage_error(format!(
            "--nodes, --wire and --html attribute every node, which {} does; {} lists its rules by the messages they shape",
            formatscope::reference::default().title(),
            r.title()
        ));
    }
    let own = Own::of_session(session);
    let picked: Vec<(&'static Family, reference::Mode)> = if args.provider.as_deref() == Some("all")
    {
        let mode = match family_and_mode(
            r,
            None,
            None,
            args.mode.map(super::release::ModeArg::id),
            own,
        ) {
            Ok((_, m)) => m,
            Err(e) => return usage_error(e),
        };
        r.families().iter().map(|f| (f, mode)).collect()
    } else {
        match family_and_mode(
            r,
            args.formatter.as_deref(),
            args.provider.as_deref(),
            args.mode.map(super::release::ModeArg::id),
            own,
        ) {
            Ok(pick) => vec![pick],
            Err(e) => return usage_error(e),
        }
    };
    report_session(session);
    let env = media_env(session, web_fetcher(&[], args.offline));
    let mut out = Vec::new();
    let mut failed = false;
    for (family, mode) in picked {
        let formatted = r.format(session, family, mode, &env);
        let class = formatted
            .call
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string();
        if let Err(e) = &formatted.messages {
            say(format!("{}: {}", formatted.call, e.said_by(&r.title())));
            failed = true;
            continue;
        }
        match r.rules(session, family, mode, &formatted) {
            Some(fired) => out.push((class, fired)),
            None => {
                say(format!(
                    "{}: {} lists no rules here",
                    formatted.call,
                    r.title()
                ));
                failed = true;
            }
        }
    }
    report_access(env.gate());
    let api = |rule: &Rule| rule.api;
    if args.json {
        let v: Vec<Value> = out.iter().map(|(c, f)| rules_json(c, f, api)).collect();
        print_json(&json!({ "agentscope": r.version(), "explained": v }));
    } else {
        for (class, fired) in &out {
            print_rules(&format!("{class} ({})", r.title()), fired, api);
            outln!();
        }
    }
    failure_if(failed)
}
