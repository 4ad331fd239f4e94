//! What `count` and `truncate` work on: a session under a provider, mode
//! and model (`TargetArgs`), as the budget model both read, and the `≈`
//! mark of an estimate.

use super::{media_env, rejected_message_line, report_session, say, usage, web_fetcher};
use clap::Args;
use formatscope::budget::{BudgetError, BudgetModel};
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::session::read_session;
use formatscope::tokens::{models, CounterSpec};
use std::path::PathBuf;
use std::process::ExitCode;

/// Which request to count: a session under a provider, mode and model.
#[derive(Args)]
pub(crate) struct TargetArgs {
    /// Session file (any shape `format` accepts).
    pub(crate) session: PathBuf,

    /// Provider (each release has its own; the values are every release's).
    /// Default: the session's.
    #[arg(long, value_name = "P", ignore_case = true, value_parser = super::release::provider_parser())]
    pub(crate) provider: Option<String>,

    /// Mode: chat or multi-agent. Default: the session's.
    #[arg(long, value_name = "M")]
    pub(crate) mode: Option<super::release::ModeArg>,

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

/// A session's budget model for `count` and `truncate`, or the exit code.
pub(crate) fn budget_model(
    target: &TargetArgs,
    counter: Option<&str>,
) -> Result<BudgetModel, ExitCode> {
    let session = read_session(&target.session).map_err(usage)?;
    let truncation = match counter.or(session.token_counter()) {
        Some(spec) => CounterSpec::parse(spec)
            .map_err(|e| usage(format!("{}: token_counter: {e}", target.session.display())))?,
        None => CounterSpec::default(),
    };
    let default = session.formatter();
    let provider = match &target.provider {
        Some(p) => Provider::from_id(p).ok_or_else(|| {
            usage(format!(
                "unknown provider {p:?}; one of openai, anthropic, dashscope, gemini, ollama, deepseek"
            ))
        })?,
        None => default.clone().map_err(usage)?.provider,
    };
    let mode = match &target.mode {
        Some(m) => Mode::from_id(m.id()).ok_or_else(|| {
            usage(format!(
                "--mode {}: this command formats in chat or multi_agent",
                m.id()
            ))
        })?,
        None => default.map(|d| d.mode).unwrap_or(Mode::Chat),
    };
    let model = match &target.model {
        Some(name) => models::lookup(provider, name).ok_or_else(|| {
            usage(format!(
                "unknown model {name:?} for {provider} (see crates/core/assets/models.json; `formatscope tokenize --tokenizer` counts raw text with any tokenizer)"
            ))
        })?,
        None => formatscope::model_choice::choose_model(&session, provider, None).info(),
    };
    report_session(&session);
    let env = media_env(&session, web_fetcher(&[], target.offline));
    let mut session = session;
    let messages = std::sync::Arc::unwrap_or_clone(std::mem::take(&mut session.messages));
    let mut model = BudgetModel::new(
        FormatterId::new(provider, mode),
        FormatOptions::default(),
        model,
        messages,
        session.tools.take(),
        env,
    )
    .map_err(|e| match e {
        BudgetError::PackedMessage { index, error, .. } => {
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

pub(crate) fn mark(exact: bool) -> &'static str {
    if exact {
        ""
    } else {
        "≈"
    }
}
