//! Subcommands. Each parses its options, calls the core, prints JSON.
//! Exit codes: 0 success, 1 the formatting failed (as the reference fails),
//! 2 bad usage or an unreadable/invalid file.

use clap::{Args, Parser, Subcommand};
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::media::{NoNetwork, WebFetcher, WebRoot};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Parser)]
#[command(
    name = "formatscope",
    version,
    about = "See the exact request each LLM provider would receive for a conversation, formatted byte for byte as AgentScope 1.0.21 formats it."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Format a session with one of AgentScope's twelve formatters and print
    /// the result as JSON (the shape of the golden files / oracle.py).
    Format(FormatArgs),
}

#[derive(Args)]
struct FormatArgs {
    /// Session file: our session object, a bare array of messages, an OpenAI
    /// chat-completions request body, or an AgentScope memory state.
    session: PathBuf,

    /// Formatter class, e.g. DashScopeMultiAgentFormatter.
    /// Default: the session's own provider and mode (OpenAI chat if absent).
    #[arg(long, value_name = "CLASS", conflicts_with_all = ["provider", "mode"])]
    formatter: Option<String>,

    /// Provider: openai, anthropic, dashscope, gemini, ollama or deepseek.
    #[arg(long, value_name = "P")]
    provider: Option<String>,

    /// Mode: chat or multi-agent.
    #[arg(long, value_name = "M")]
    mode: Option<String>,

    /// Token budget: truncate as AgentScope does (OpenAITokenCounter for
    /// gpt-4o, oldest messages first) and add "tokens".
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_tokens: Option<i64>,

    /// Use the session's own "max_tokens" as the budget (when --max-tokens
    /// is not given).
    #[arg(long)]
    session_budget: bool,

    /// Add "tokens" (AgentScope's gpt-4o count of the messages) and, when
    /// the session has tools, "tokens_with_tools".
    #[arg(long)]
    count: bool,

    /// Add "tools": the session's tool schemas as the provider's model class
    /// formats them.
    #[arg(long)]
    tools: bool,

    /// Promote images in tool results to a user message (OpenAI, DashScope,
    /// Gemini, Ollama).
    #[arg(long)]
    promote_tool_result_images: bool,

    /// Promote audio in tool results to a user message (DashScope).
    #[arg(long)]
    promote_tool_result_audios: bool,

    /// Promote videos in tool results to a user message (DashScope).
    #[arg(long)]
    promote_tool_result_videos: bool,

    /// Multi-agent formatters: the prompt before the first <history> block.
    #[arg(long, value_name = "TEXT")]
    conversation_history_prompt: Option<String>,

    /// Serve https://HOST/PATH from DIR/HOST/PATH instead of the network
    /// (any other URL answers 404). May be given more than once.
    #[arg(long, value_name = "DIR")]
    web_root: Vec<PathBuf>,

    /// Never use the network: remote media fail to download.
    #[arg(long)]
    offline: bool,

    /// Write absolute paths under the session's folder as <SESSION_DIR>/...
    /// (as the golden files do), so output does not depend on where the
    /// files live.
    #[arg(long)]
    portable_paths: bool,

    /// Print only the messages list (or the error object).
    #[arg(long)]
    raw: bool,
}

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Format(args) => format(args),
    }
}

fn usage_error(message: impl std::fmt::Display) -> i32 {
    eprintln!("error: {message}");
    2
}

fn web_fetcher(web_roots: &[PathBuf], offline: bool) -> Arc<dyn WebFetcher> {
    if !web_roots.is_empty() {
        return Arc::new(WebRoot::new(web_roots.to_vec()));
    }
    if offline {
        return Arc::new(NoNetwork);
    }
    #[cfg(feature = "http")]
    {
        Arc::new(formatscope::media::HttpFetcher::new(
            std::time::Duration::from_secs(20),
        ))
    }
    #[cfg(not(feature = "http"))]
    {
        Arc::new(NoNetwork)
    }
}

fn pick_formatter(
    args: &FormatArgs,
    session: &formatscope::session::Session,
) -> Result<FormatterId, String> {
    if let Some(name) = &args.formatter {
        return FormatterId::from_class_name(name).ok_or_else(|| {
            let all: Vec<String> = FormatterId::all().map(|f| f.class_name()).collect();
            format!("unknown formatter {name}; one of {}", all.join(", "))
        });
    }
    let default = pipeline::formatter_for_session(session);
    let provider = match &args.provider {
        Some(p) => Provider::from_id(p)
            .ok_or_else(|| format!("unknown provider {p:?}; one of openai, anthropic, dashscope, gemini, ollama, deepseek"))?,
        None => default.clone()?.provider,
    };
    let mode = match &args.mode {
        Some(m) => {
            Mode::from_id(m).ok_or_else(|| format!("unknown mode {m:?}; chat or multi-agent"))?
        }
        None => default.map(|d| d.mode).unwrap_or(Mode::Chat),
    };
    Ok(FormatterId::new(provider, mode))
}

/// `file:line:col` of the first message AgentScope's `Msg` rejects, when the
/// failure is that (the file is our session object or a bare array).
fn bad_message_location(
    path: &std::path::Path,
    session: &formatscope::session::Session,
) -> Option<String> {
    use formatscope::session::{locate_pointer, InputShape};
    let (index, _) = pipeline::invalid_message(session)?;
    let pointer = match session.shape {
        InputShape::Session => format!("/messages/{index}"),
        InputShape::BareArray => format!("/{index}"),
        _ => return None,
    };
    let text = std::fs::read_to_string(path).ok()?;
    let (line, col) = locate_pointer(&text, &pointer)?;
    Some(format!("{}:{line}:{col}", path.display()))
}

fn format(args: FormatArgs) -> i32 {
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
    let request = ReferenceRequest {
        formatter,
        options,
        max_tokens,
        count: args.count,
        tools: args.tools,
    };
    let out = pipeline::run_reference(
        &session,
        &request,
        web_fetcher(&args.web_root, args.offline),
    );
    let failed = out.get("error").and_then(Value::as_str).map(|e| {
        let kind = out
            .get("error_type")
            .and_then(Value::as_str)
            .unwrap_or("Error");
        format!("{kind}: {e}")
    });
    let shown = if args.raw {
        match out.get("messages") {
            Some(m) => m.clone(),
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
    let mut text = serde_json::to_string_pretty(&shown).unwrap_or_default();
    if args.portable_paths {
        let dir = session.base_dir();
        text = pipeline::portable_paths(&text, &std::path::absolute(&dir).unwrap_or(dir));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{text}");
    match failed {
        Some(message) => {
            let first_line = message.lines().next().unwrap_or_default();
            match bad_message_location(&args.session, &session) {
                Some(at) => eprintln!("error: {at}: message rejected: {first_line}"),
                None => eprintln!("error: {first_line}"),
            }
            1
        }
        None => 0,
    }
}
