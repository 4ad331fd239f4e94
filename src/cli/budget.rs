//! The token budget commands: `count`, `truncate` and `tokenize`.

use super::{
    media_env, print_json, rejected_message_line, report_access, report_session, safe, say,
    usage_error, web_fetcher,
};
use clap::Args;
use formatscope::budget::{BudgetError, BudgetModel};
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::session::read_session;
use formatscope::tokens::{models, CounterSpec, TokenizerSpec};
use std::path::PathBuf;

/// Which request to count: a session under a provider, mode and model.
#[derive(Args)]
pub(crate) struct TargetArgs {
    /// Session file (any shape `format` accepts).
    pub(crate) session: PathBuf,

    /// Provider: openai, anthropic, dashscope, gemini, ollama or deepseek.
    /// Default: the session's.
    #[arg(long, value_name = "P")]
    pub(crate) provider: Option<String>,

    /// Mode: chat or multi-agent. Default: the session's.
    #[arg(long, value_name = "M")]
    pub(crate) mode: Option<String>,

    /// Model name (sets the tokenizer, template and context window).
    /// Default: the session's model, else the provider's default.
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,

    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,

    /// Never use the network (remote media some formatters download fail).
    #[arg(long)]
    pub(crate) offline: bool,
}

#[derive(Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// Also ask the provider to count the request (Anthropic's and Gemini's
    /// token-counting endpoints; the key from ANTHROPIC_API_KEY,
    /// GEMINI_API_KEY or GOOGLE_API_KEY): an exact count where ours is an
    /// estimate.
    #[cfg(feature = "net")]
    #[arg(long)]
    pub(crate) remote: bool,
}

#[derive(Args)]
pub(crate) struct TruncateArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// The budget, in tokens of the formatted messages (tool schemas are not
    /// part of it, as in AgentScope).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_tokens: i64,

    /// What truncation counts with, as the agent's `token_counter`:
    /// openai[:MODEL] (AgentScope's OpenAITokenCounter; default gpt-4o),
    /// char (CharTokenCounter), huggingface:qwen or huggingface:deepseek
    /// (HuggingFaceTokenCounter with a tokenizer we ship), or provider (the
    /// provider's own tokenizer). Default: the session's `token_counter`,
    /// else openai:gpt-4o.
    #[arg(long, value_name = "SPEC")]
    pub(crate) token_counter: Option<String>,
}

#[derive(Args)]
pub(crate) struct TokenizeArgs {
    /// Text file; standard input when absent.
    pub(crate) file: Option<PathBuf>,

    /// Tokenizer: o200k_base, cl100k_base, o200k_harmony, qwen, deepseek,
    /// claude_legacy, or an estimate: claude, claude_o200k, gemini, llama3.
    #[arg(long, value_name = "NAME", conflicts_with = "model")]
    pub(crate) tokenizer: Option<String>,

    /// Use this model's tokenizer (see assets/models.json).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
}

/// A session's budget model for `count` and `truncate`, or the exit code.
fn budget_model(target: &TargetArgs, counter: Option<&str>) -> Result<BudgetModel, i32> {
    let session = read_session(&target.session).map_err(usage_error)?;
    let truncation = match counter.or(session.token_counter()) {
        Some(spec) => CounterSpec::parse(spec).map_err(|e| {
            usage_error(format!("{}: token_counter: {e}", target.session.display()))
        })?,
        None => CounterSpec::default(),
    };
    let default = session.formatter();
    let provider = match &target.provider {
        Some(p) => Provider::from_id(p).ok_or_else(|| {
            usage_error(format!(
                "unknown provider {p:?}; one of openai, anthropic, dashscope, gemini, ollama, deepseek"
            ))
        })?,
        None => default.clone().map_err(usage_error)?.provider,
    };
    let mode = match &target.mode {
        Some(m) => Mode::from_id(m)
            .ok_or_else(|| usage_error(format!("unknown mode {m:?}; chat or multi-agent")))?,
        None => default.map(|d| d.mode).unwrap_or(Mode::Chat),
    };
    let model = match &target.model {
        Some(name) => models::lookup(provider, name).ok_or_else(|| {
            usage_error(format!(
                "unknown model {name:?} for {provider} (see assets/models.json; `formatscope tokenize --tokenizer` counts raw text with any tokenizer)"
            ))
        })?,
        None => formatscope::model_choice::choose_model(&session, provider, None).info(),
    };
    report_session(&session);
    let env = media_env(&session, web_fetcher(&[], target.offline));
    let mut session = session;
    let messages = std::mem::take(&mut session.messages);
    let mut model = BudgetModel::new(
        FormatterId::new(provider, mode),
        FormatOptions::default(),
        model,
        messages,
        session.tools.take(),
        env,
    )
    .map_err(|e| match e {
        BudgetError::Message { index, error, .. } => {
            say(rejected_message_line(
                &target.session,
                &session,
                index,
                error.kind,
                &error.message,
            ));
            2
        }
        BudgetError::Format(e) => {
            say(format!(
                "error: {}: {}",
                e.kind,
                e.message.lines().next().unwrap_or_default()
            ));
            1
        }
    })?;
    model.set_truncation_counter(truncation);
    Ok(model)
}

fn mark(exact: bool) -> &'static str {
    if exact {
        ""
    } else {
        "≈"
    }
}

pub(crate) fn count(args: CountArgs) -> i32 {
    let mut model = match budget_model(&args.target, None) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let report = model.report();
    report_access(model.gate());
    #[cfg(feature = "net")]
    let remote = if args.remote {
        match super::send::remote_count(&args.target, report.formatter.provider) {
            Ok(n) => Some(n),
            Err(code) => return code,
        }
    } else {
        None
    };
    #[cfg(not(feature = "net"))]
    let remote: Option<u64> = None;
    if args.target.json {
        let mut out = report.to_json();
        if let (Some(n), Some(obj)) = (remote, out.as_object_mut()) {
            obj.insert(
                "remote".into(),
                serde_json::json!({"input_tokens": n, "exact": true}),
            );
        }
        print_json(&out);
        return 0;
    }
    if let Some(n) = remote {
        outln!(
            "{}'s own count: {n} input tokens (exact; ours {}{})",
            report.formatter.provider,
            mark(report.exact),
            report.total
        );
    }
    let mut out = String::new();
    let m = &report.model;
    out.push_str(&format!(
        "{} · {} · tokenizer {}{}\n",
        report.formatter,
        safe(&m.label()),
        m.tokenizer.describe(),
        if report.exact { " (exact)" } else { "" }
    ));
    if let Some(note) = &m.note {
        out.push_str(&format!("note: {}\n", safe(note)));
    }
    out.push_str(&format!(
        "total {}{} tokens = messages {} + tool schemas {}; context window {}\n",
        mark(report.exact),
        report.total,
        report.messages_total,
        report.tool_schemas,
        m.context_window
    ));
    for (cat, exact) in &report.exact_categories {
        out.push_str(&format!(
            "  {:<14} {:>8}{}\n",
            cat.label(),
            report.by_category.get(*cat),
            mark(*exact || report.by_category.get(*cat) == 0)
        ));
    }
    out.push_str(&format!(
        "  {:<14} {:>8}{}\n",
        "tool schemas",
        report.tool_schemas,
        mark(report.tool_schemas_exact)
    ));
    out.push_str("messages:\n");
    for msg in &report.messages {
        out.push_str(&format!(
            "  #{:<4} {:<12} {:<10} {:>7}{}\n",
            msg.index,
            safe(&msg.name),
            safe(msg.role),
            msg.tokens,
            if msg.shared {
                " (share of its <history> group)"
            } else {
                ""
            }
        ));
    }
    out!("{out}");
    0
}

pub(crate) fn truncate(args: TruncateArgs) -> i32 {
    if args.max_tokens <= 0 {
        return usage_error(format!(
            "--max-tokens must be a positive number of tokens, not {}",
            args.max_tokens
        ));
    }
    let mut model = match budget_model(&args.target, args.token_counter.as_deref()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let plan = match model.plan(args.max_tokens) {
        Ok(p) => p,
        Err(e) => {
            say(format!("error: {}: {}", e.kind, e.message));
            return 1;
        }
    };
    report_access(model.gate());
    let info = &model.counter().info;
    if args.target.json {
        let mut out = serde_json::json!({
            "formatter": model.formatter.class_name(),
            "provider": info.provider.id(),
            "model": info.model,
            "tokenizer": info.tokenizer.describe(),
            "exact": model.counter().exact(Some(formatscope::tokens::Category::Conversation)),
            "token_counter": model.truncation_counter().id(),
            "counted_with": model.truncation_label(),
            "counter_exact": model.truncation_counter().exact(
                model.counter().exact(Some(formatscope::tokens::Category::Conversation))
            ),
            "max_tokens": plan.max_tokens,
            "tokens_before": plan.tokens_before,
            "tokens_after": plan.tokens_after,
            "fits": plan.fits(),
            "kept": plan.kept,
            "dropped": plan.dropped,
            "steps": plan.steps,
        });
        if let Some(e) = &plan.error {
            out["error"] = serde_json::json!(e.message);
            out["error_type"] = serde_json::json!(e.kind);
            out["reason"] = serde_json::json!(plan.reason());
        }
        print_json(&out);
    } else {
        outln!(
            "{} · {} · truncation counted with {}",
            model.formatter,
            safe(&info.model),
            model.truncation_label()
        );
        match (&plan.error, plan.tokens_after) {
            (None, Some(after)) if plan.dropped.is_empty() => outln!(
                "fits: {} tokens of {}; nothing dropped",
                after,
                plan.max_tokens
            ),
            (None, Some(after)) => outln!(
                "drops {} of {} messages (#{}..#{}) in {} steps: {} -> {} tokens of {}",
                plan.dropped.len(),
                plan.kept.len() + plan.dropped.len(),
                plan.dropped.first().copied().unwrap_or_default(),
                plan.dropped.last().copied().unwrap_or_default(),
                plan.steps,
                plan.tokens_before,
                after,
                plan.max_tokens
            ),
            _ => outln!(
                "cannot fit: {} ({} tokens before)",
                safe(&plan.reason().unwrap_or_default()),
                plan.tokens_before
            ),
        }
    }
    if plan.fits() {
        0
    } else {
        1
    }
}

pub(crate) fn tokenize(args: TokenizeArgs) -> i32 {
    let spec = match (&args.tokenizer, &args.model) {
        (Some(name), _) => match TokenizerSpec::from_name(name) {
            Some(t) => t,
            None => {
                return usage_error(format!(
                    "unknown tokenizer {name:?}; one of {}",
                    TokenizerSpec::names().join(", ")
                ))
            }
        },
        (None, Some(model)) => match models::lookup_any(model) {
            Some(info) => info.tokenizer,
            None => {
                return usage_error(format!("unknown model {model:?} (see assets/models.json)"))
            }
        },
        (None, None) => TokenizerSpec::ALL[0],
    };
    let text = match &args.file {
        Some(path) => {
            formatscope::files::read_regular(path, formatscope::files::SESSION_LIMIT, "text files")
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => {
            // Never more than a session file's worth, whatever is piped in.
            let limit = formatscope::files::SESSION_LIMIT;
            let mut buf = Vec::new();
            std::io::Read::read_to_end(
                &mut std::io::Read::take(std::io::stdin(), limit + 1),
                &mut buf,
            )
            .map_err(|e| format!("stdin: {e}"))
            .and_then(|_| {
                if buf.len() as u64 > limit {
                    Err(format!(
                        "stdin: more than {} of text; formatscope reads at most that",
                        formatscope::files::megabytes(limit)
                    ))
                } else {
                    Ok(buf)
                }
            })
        }
    };
    let text = match text
        .and_then(|b| String::from_utf8(b).map_err(|_| "the text is not UTF-8".to_string()))
    {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    print_json(&serde_json::json!({
        "tokenizer": spec.name,
        "exact": spec.exact_count(),
        "tokens": spec.count(&text),
    }));
    0
}
