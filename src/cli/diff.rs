//! `formatscope diff SESSION --left SPEC --right SPEC`: the structural
//! difference between two requests for the same session (two providers,
//! two modes, the formatter's output or the wire body).

use super::{media_env, print_json, say, usage_error, web_fetcher};
use clap::Args;
use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::{read_session, Session};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct DiffArgs {
    /// Session file.
    session: PathBuf,

    /// The left request: PROVIDER[:MODE][:wire], e.g. openai, anthropic:multi-agent,
    /// gemini:chat:wire (wire: the HTTP body the SDK sends, else the
    /// formatter's messages). The mode defaults to the session's.
    #[arg(long, value_name = "SPEC")]
    left: String,

    /// The right request, as --left.
    #[arg(long, value_name = "SPEC")]
    right: String,

    /// {"operations": JSON Patch operations (RFC 6902 add/remove/replace,
    /// JSON-pointer paths into the left request: the body for wire, else
    /// {"messages": [...]}; `moved_from`/`moved_to` pair a value that
    /// moved), which applied to the left request give the right one;
    /// "cache_prefix" for two wire bodies of one provider}.
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

/// A side: which formatter, and whether the wire body.
struct Side {
    formatter: FormatterId,
    wire: bool,
}

fn parse_side(spec: &str, session: &Session) -> Result<Side, String> {
    let mut parts = spec.split(':');
    let provider = parts
        .next()
        .and_then(Provider::from_id)
        .ok_or_else(|| format!("{spec}: expected PROVIDER[:MODE][:wire]"))?;
    let mut mode = pipeline::formatter_for_session(session)
        .map(|f| f.mode)
        .unwrap_or(Mode::Chat);
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
    })
}

/// The request a side describes: the formatter's messages, or the body.
pub(crate) fn request_of(
    session: &Session,
    formatter: FormatterId,
    wire: bool,
    env: &formatscope::media::MediaEnv,
) -> Result<Value, String> {
    let request = ReferenceRequest::plain(formatter);
    let out = if wire {
        let settings =
            formatscope::model_choice::request_settings(session, formatter.provider, None)?;
        pipeline::run_request(session, &request, &settings, env)
    } else {
        pipeline::run_reference_in(session, &request, env)
    };
    if let Some(e) = out.get("error").and_then(Value::as_str) {
        return Err(format!("{formatter}: {e}"));
    }
    if wire {
        return out
            .get("http_body")
            .cloned()
            .ok_or_else(|| format!("{formatter}: no request body"));
    }
    // The formatter's list, under the key a body holds it by, so the
    // formatter's output and a wire body line up.
    let messages = out
        .get("messages")
        .cloned()
        .ok_or_else(|| format!("{formatter}: no messages"))?;
    Ok(serde_json::json!({ "messages": messages }))
}

pub(crate) fn run(args: DiffArgs) -> i32 {
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
    let (l, r) = match (
        request_of(&session, left.formatter, left.wire, &env),
        request_of(&right_session, right.formatter, right.wire, &right_env),
    ) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => {
            say(format!("error: {e}"));
            return 1;
        }
    };
    if let Some(path) = &args.html {
        let sides = (
            super::handout::annotated_side(
                &session,
                left.formatter,
                left.wire,
                &l,
                &env,
                args.raw_media,
            ),
            super::handout::annotated_side(
                &right_session,
                right.formatter,
                right.wire,
                &r,
                &right_env,
                args.raw_media,
            ),
        );
        let title = format!("{} ↔ {}", sides.0.side.label, sides.1.side.label);
        let subtitle = match &args.right_session {
            Some(p) => format!("{} → {}", args.session.display(), p.display()),
            None => args.session.display().to_string(),
        };
        let findings = super::handout::findings(&session, &[left.formatter, right.formatter], &env);
        if let Err(e) = super::handout::write(path, &title, &subtitle, &sides.0, &sides.1, findings)
        {
            say(format!("error: cannot write {}: {e}", path.display()));
            return 2;
        }
        say(format!("wrote {}", path.display()));
    }
    let ops = formatscope::diff::diff(&l, &r);
    // Prompt caches reuse the identical prefix of the bytes sent.
    let prefix = (left.wire && right.wire && left.formatter.provider == right.formatter.provider)
        .then(|| {
            let provider = left.formatter.provider;
            let (lb, rb) = (
                formatscope::wire::export::body_bytes(provider, &l),
                formatscope::wire::export::body_bytes(provider, &r),
            );
            let p = formatscope::diff::cache_prefix(&lb, &rb);
            let model =
                formatscope::model_choice::choose_model(&right_session, provider, None).info();
            // The body's text in the provider's tokenizer: an estimate of
            // the cached prompt (the JSON syntax is not what is cached).
            let tokens = model.tokenizer.count(&rb[..p.bytes]);
            (p, tokens, false)
        });
    if args.json {
        let mut out = serde_json::json!({"operations": formatscope::diff::to_json(&ops)});
        if let Some((p, tokens, exact)) = &prefix {
            out["cache_prefix"] = serde_json::json!({
                "bytes": p.bytes, "of_bytes": p.of, "tokens": tokens,
                "tokens_exact": exact, "breaks_at": p.breaks_at,
            });
        }
        print_json(&out);
        return 0;
    }
    let name = |s: &Side| {
        format!(
            "{}{}",
            s.formatter.class_name(),
            if s.wire { " (wire body)" } else { "" }
        )
    };
    outln!(
        "{} → {}: {} change{}",
        name(&left),
        name(&right),
        ops.len(),
        if ops.len() == 1 { "" } else { "s" }
    );
    for op in &ops {
        outln!("{}", super::safe(&op.summary()));
    }
    if let Some((p, tokens, exact)) = prefix {
        outln!(
            "identical prefix of the bodies: {} of {} bytes, {}{tokens} tokens{}",
            p.bytes,
            p.of,
            if exact { "" } else { "≈" },
            match &p.breaks_at {
                Some(at) => format!("; it breaks at {at}"),
                None => String::new(),
            }
        );
    }
    0
}
