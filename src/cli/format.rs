//! `formatscope format`: one of AgentScope's twelve formatters on a
//! session, printed in the golden files' shape.

use super::{
    failure, media_env, rejected_message_line, report_access, report_session, say, success,
    usage_error, web_fetcher, Exit,
};
use clap::Args;
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use formatscope::tokens::CounterSpec;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct FormatArgs {
    /// Session file: our session object, a bare array of messages, an OpenAI
    /// chat-completions request body, or an AgentScope memory state.
    pub(crate) session: PathBuf,

    /// Formatter class, e.g. DashScopeMultiAgentFormatter.
    /// Default: the session's own provider and mode (OpenAI chat if absent).
    #[arg(long, value_name = "CLASS", conflicts_with_all = ["provider", "mode"])]
    pub(crate) formatter: Option<String>,

    /// Provider (each release has its own; the values are every release's).
    #[arg(long, value_name = "P", ignore_case = true, value_parser = super::release::provider_parser())]
    pub(crate) provider: Option<String>,

    /// Mode: chat or multi-agent.
    #[arg(long, value_name = "M")]
    pub(crate) mode: Option<super::release::ModeArg>,

    /// Token budget: truncate as AgentScope does (OpenAITokenCounter for
    /// gpt-4o, oldest messages first) and add "tokens".
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_tokens: Option<i64>,

    /// Count and truncate with this counter, as the agent's `token_counter`:
    /// openai[:MODEL], char, huggingface:qwen, huggingface:deepseek or
    /// provider. Default: the session's `token_counter`, else the oracle's
    /// OpenAITokenCounter(gpt-4o).
    #[arg(long, value_name = "SPEC")]
    pub(crate) token_counter: Option<String>,

    /// Use the session's own "max_tokens" as the budget (when --max-tokens
    /// is not given).
    #[arg(long)]
    pub(crate) session_budget: bool,

    /// Add "tokens" (AgentScope's gpt-4o count of the messages) and, when
    /// the session has tools, "tokens_with_tools".
    #[arg(long)]
    pub(crate) count: bool,

    /// Add "tools": the session's tool schemas as the provider's model class
    /// formats them.
    #[arg(long)]
    pub(crate) tools: bool,

    /// Promote images in tool results to a user message (OpenAI, DashScope,
    /// Gemini, Ollama).
    #[arg(long)]
    pub(crate) promote_tool_result_images: bool,

    /// Promote audio in tool results to a user message (DashScope).
    #[arg(long)]
    pub(crate) promote_tool_result_audios: bool,

    /// Promote videos in tool results to a user message (DashScope).
    #[arg(long)]
    pub(crate) promote_tool_result_videos: bool,

    /// Multi-agent formatters: the prompt before the first <history> block.
    #[arg(long, value_name = "TEXT")]
    pub(crate) conversation_history_prompt: Option<String>,

    /// Serve https://HOST/PATH from DIR/HOST/PATH instead of the network
    /// (any other URL answers 404). May be given more than once.
    #[arg(long, value_name = "DIR")]
    pub(crate) web_root: Vec<PathBuf>,

    /// Never use the network: remote media fail to download.
    #[arg(long)]
    pub(crate) offline: bool,

    /// Write absolute paths under the session's folder as <SESSION_DIR>/...
    /// (as the golden files do), so output does not depend on where the
    /// files live.
    #[arg(long)]
    pub(crate) portable_paths: bool,

    /// Print only the messages list (or the error object).
    #[arg(long)]
    pub(crate) raw: bool,

    /// The AgentScope release to reproduce (the first is the default):
    /// 1.0.21, 2.0.11, 0.1.6 (`formatscope legacy` has 0.1.6's whole API)
    /// or java-2.0.2.
    #[arg(long, value_name = "VERSION", value_parser = super::release::parse)]
    pub(crate) agentscope: Option<super::release::Release>,

    /// 2.0.11: with --tools, format with ToolChoice(mode=MODE): auto, none,
    /// required or a tool name.
    #[arg(long, value_name = "MODE")]
    pub(crate) tool_choice: Option<String>,

    /// 2.0.11: with --tool-choice, ToolChoice.tools (comma-separated names).
    #[arg(long, value_name = "A,B")]
    pub(crate) tool_choice_tools: Option<String>,

    /// 2.0.11: the formatter's input_types (comma-separated; replaces its
    /// default).
    #[arg(long, value_name = "T,T")]
    pub(crate) input_types: Option<String>,

    /// 2.0.11: no formatter; print the 2.x Msgs the session becomes.
    #[arg(long)]
    pub(crate) msgs_only: bool,

    /// 2.0.11: add the 2.x Msgs ("msgs") to a formatter run.
    #[arg(long)]
    pub(crate) dump_msgs: bool,

    /// java-2.0.2, DashScope: force the endpoint (text or multimodal)
    /// instead of routing by model name.
    #[arg(long, value_name = "E")]
    pub(crate) endpoint: Option<String>,

    /// java-2.0.2: the model the request is built for (DashScope routes
    /// its endpoint by it). Default: the family's (gpt-4o, qwen-max,
    /// qwen-vl-max, qwen3:8b, deepseek-chat, glm-4.6).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
}

fn pick_formatter(
    args: &FormatArgs,
    session: &formatscope::session::Session,
) -> Result<FormatterId, String> {
    choose_formatter(
        args.formatter.as_deref(),
        args.provider.as_deref(),
        args.mode.map(super::release::ModeArg::id),
        session,
    )
}

/// `--formatter`, or `--provider`/`--mode`, else the session's own.
pub(crate) fn choose_formatter(
    formatter: Option<&str>,
    provider: Option<&str>,
    mode: Option<&str>,
    session: &formatscope::session::Session,
) -> Result<FormatterId, String> {
    if let Some(name) = formatter {
        return FormatterId::from_class_name(name).ok_or_else(|| {
            let all: Vec<String> = FormatterId::all().map(|f| f.class_name()).collect();
            format!("unknown formatter {name}; one of {}", all.join(", "))
        });
    }
    let default = session.formatter();
    let provider = match provider {
        Some(p) => Provider::from_id(p)
            .ok_or_else(|| format!("unknown provider {p:?}; one of openai, anthropic, dashscope, gemini, ollama, deepseek"))?,
        None => default.clone().map_err(|e| e.to_string())?.provider,
    };
    let mode = match mode {
        Some(m) => {
            Mode::from_id(m).ok_or_else(|| format!("unknown mode {m:?}; chat or multi-agent"))?
        }
        None => default.map(|d| d.mode).unwrap_or(Mode::Chat),
    };
    Ok(FormatterId::new(provider, mode))
}

pub(crate) fn run(args: FormatArgs) -> Exit {
    let other_releases = [
        ("--tool-choice", args.tool_choice.is_some()),
        ("--tool-choice-tools", args.tool_choice_tools.is_some()),
        ("--input-types", args.input_types.is_some()),
        ("--msgs-only", args.msgs_only),
        ("--dump-msgs", args.dump_msgs),
        ("--endpoint", args.endpoint.is_some()),
        ("--model", args.model.is_some()),
    ];
    if let Some((flag, _)) = other_releases.iter().find(|(_, on)| *on) {
        return usage_error(format!(
            "{flag} is not an option of {}'s formatters; another release's (--agentscope VERSION: {})",
            formatscope::reference::default().title(),
            formatscope::reference::versions()
        ));
    }
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let formatter = match pick_formatter(&args, &session) {
        Ok(f) => f,
        Err(e) => return usage_error(e),
    };
    let options = FormatOptions {
        promote_images: args.promote_tool_result_images,
        promote_audios: args.promote_tool_result_audios,
        promote_videos: args.promote_tool_result_videos,
        history_prompt: args.conversation_history_prompt.clone(),
    };
    if let Some(option) = options.unsupported_by(formatter).first() {
        return usage_error(format!(
            "{formatter} has no option {}",
            option.python_name()
        ));
    }
    let max_tokens = args
        .max_tokens
        .or_else(|| args.session_budget.then(|| session.max_tokens()).flatten());
    let token_counter = match args.token_counter.as_deref().or(session.token_counter()) {
        Some(spec) => match CounterSpec::parse(spec) {
            Ok(c) => Some(c),
            Err(e) => return usage_error(format!("token_counter: {e}")),
        },
        None => None,
    };
    let request = ReferenceRequest {
        formatter,
        options,
        max_tokens,
        count: args.count,
        tools: args.tools,
        token_counter,
    };
    report_session(&session);
    let env = media_env(&session, web_fetcher(&args.web_root, args.offline));
    let mut session = session;
    let run = pipeline::run_reference_owned(&mut session, &request, &env);
    let (out, invalid) = (run.out, run.invalid);
    report_access(env.gate());
    // AgentScope's error: its type and text.
    let failed = out.get("error").and_then(Value::as_str).map(|e| {
        let kind = out.get("error_type").and_then(Value::as_str);
        (kind.unwrap_or("Error").to_string(), e.to_string())
    });
    let mut out = out;
    let shown = if args.raw {
        match out.remove("messages") {
            Some(m) => m,
            None => Value::Object(
                out.iter()
                    .filter(|(k, _)| k.starts_with("error") || *k == "stage")
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            ),
        }
    } else {
        Value::Object(out)
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    if args.portable_paths {
        let dir = session.base_dir();
        let text = formatscope::text::json_text(&shown);
        let text = pipeline::portable_paths(&text, &std::path::absolute(&dir).unwrap_or(dir));
        let _ = writeln!(stdout, "{text}");
    } else {
        // Streamed: a large request is never held twice, as values and
        // text (its messages are written a chunk per core at a time).
        let _ = formatscope::text::write_json_value(&mut stdout, &shown);
        let _ = writeln!(stdout);
    }
    let _ = stdout.flush();
    drop(stdout);
    // The process ends right after: freeing a large request value by value
    // (100,000 messages: about 4% of the command), and the messages it was
    // formatted from (a tenth), would only delay the exit.
    std::mem::forget(shown);
    std::mem::forget(run.msgs);
    match failed {
        Some((kind, text)) => {
            match invalid {
                Some(i) => say(rejected_message_line(
                    &args.session,
                    &session,
                    i,
                    &kind,
                    &text,
                )),
                None => say(format!(
                    "error: {kind}: {}",
                    text.lines().next().unwrap_or_default()
                )),
            }
            failure()
        }
        None => success(),
    }
}
