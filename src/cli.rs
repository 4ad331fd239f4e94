//! Subcommands. Each parses its options, calls the core, prints JSON.
//! Exit codes: 0 success, 1 the formatting failed (as the reference fails),
//! 2 bad usage or an unreadable/invalid file.

use clap::{Args, Parser, Subcommand};
use formatscope::budget::{BudgetError, BudgetModel};
use formatscope::formatter::{FormatOptions, FormatterId, Mode, Provider};
use formatscope::media::{MediaEnv, NoNetwork, WebFetcher, WebRoot};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use formatscope::tokens::{models, TokenizerSpec};
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
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Without a subcommand: open the workbench on this session file or
    /// folder of sessions (default: sessions/).
    #[arg(value_name = "SESSION|DIR")]
    target: Option<PathBuf>,

    /// Workbench theme: dark, light, or a path to a theme .toml.
    #[arg(long, value_name = "NAME", default_value = "dark")]
    theme: String,

    /// Workbench: write a log to FILE (nothing is printed while it runs).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,

    /// Workbench: never download remote media.
    #[arg(long)]
    offline: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Format a session with one of AgentScope's twelve formatters and print
    /// the result as JSON (the shape of the golden files / oracle.py).
    Format(FormatArgs),
    /// Count a session's request with the provider's own tokenizer: total,
    /// breakdown by category and by message, each marked exact or estimate.
    Count(CountArgs),
    /// Count the tokens of raw text (a file, or stdin) with one tokenizer.
    Tokenize(TokenizeArgs),
    /// Plan AgentScope's FIFO truncation for a budget, counted with the
    /// provider's tokenizer: which messages are kept and dropped, tokens
    /// before and after, or why it cannot fit.
    Truncate(TruncateArgs),
    /// Time the core on a session (for scripts/bench-vs-agentscope.py).
    #[command(hide = true)]
    Timing(TimingArgs),
}

#[derive(Args)]
struct TimingArgs {
    session: PathBuf,
    /// Budget for the truncation timings.
    #[arg(long, value_name = "N")]
    max_tokens: i64,
    /// Runs per figure (the median is printed).
    #[arg(long, default_value_t = 5)]
    runs: usize,
}

/// Which request to count: a session under a provider, mode and model.
#[derive(Args)]
struct TargetArgs {
    /// Session file (any shape `format` accepts).
    session: PathBuf,

    /// Provider: openai, anthropic, dashscope, gemini, ollama or deepseek.
    /// Default: the session's.
    #[arg(long, value_name = "P")]
    provider: Option<String>,

    /// Mode: chat or multi-agent. Default: the session's.
    #[arg(long, value_name = "M")]
    mode: Option<String>,

    /// Model name (sets the tokenizer, template and context window).
    /// Default: the session's model, else the provider's default.
    #[arg(long, value_name = "NAME")]
    model: Option<String>,

    /// Print JSON.
    #[arg(long)]
    json: bool,

    /// Never use the network (remote media some formatters download fail).
    #[arg(long)]
    offline: bool,
}

#[derive(Args)]
struct CountArgs {
    #[command(flatten)]
    target: TargetArgs,
}

#[derive(Args)]
struct TruncateArgs {
    #[command(flatten)]
    target: TargetArgs,

    /// The budget, in tokens of the formatted messages (tool schemas are not
    /// part of it, as in AgentScope).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    max_tokens: i64,
}

#[derive(Args)]
struct TokenizeArgs {
    /// Text file; standard input when absent.
    file: Option<PathBuf>,

    /// Tokenizer: o200k_base, cl100k_base, o200k_harmony, qwen, deepseek,
    /// claude_legacy, or an estimate: claude, claude_o200k, gemini, llama3.
    #[arg(long, value_name = "NAME", conflicts_with = "model")]
    tokenizer: Option<String>,

    /// Use this model's tokenizer (see assets/models.json).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
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
        Some(Command::Format(args)) => format(args),
        Some(Command::Count(args)) => count(args),
        Some(Command::Tokenize(args)) => tokenize(args),
        Some(Command::Truncate(args)) => truncate(args),
        Some(Command::Timing(args)) => timing(args),
        None => workbench(cli.target, cli.theme, cli.log, cli.offline),
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

/// A session's budget model for `count` and `truncate`, or the exit code.
fn budget_model(target: &TargetArgs) -> Result<BudgetModel, i32> {
    let session = read_session(&target.session).map_err(usage_error)?;
    let default = pipeline::formatter_for_session(&session);
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
        None => {
            // A session written for another provider names a model this
            // provider does not serve: use the provider's default then.
            let own = session.model().filter(|_| target.provider.is_none());
            models::resolve(provider, own)
        }
    };
    let env = MediaEnv::new(session.base_dir(), web_fetcher(&[], target.offline));
    BudgetModel::new(
        FormatterId::new(provider, mode),
        FormatOptions::default(),
        model,
        session.messages.clone(),
        session.tools.clone(),
        env,
    )
    .map_err(|e| match e {
        BudgetError::Message { index, error } => {
            let at = bad_message_location(&target.session, &session)
                .unwrap_or_else(|| format!("{}: message {index}", target.session.display()));
            eprintln!(
                "error: {at}: message rejected: {}: {}",
                error.kind, error.message
            );
            2
        }
        BudgetError::Format(e) => {
            eprintln!(
                "error: {}: {}",
                e.kind,
                e.message.lines().next().unwrap_or_default()
            );
            1
        }
    })
}

fn print_json(value: &Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

fn mark(exact: bool) -> &'static str {
    if exact {
        ""
    } else {
        "≈"
    }
}

fn count(args: CountArgs) -> i32 {
    let mut model = match budget_model(&args.target) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let report = model.report();
    if args.target.json {
        print_json(&report.to_json());
        return 0;
    }
    let mut out = String::new();
    let m = &report.model;
    out.push_str(&format!(
        "{} · {} · tokenizer {}{}\n",
        report.formatter,
        m.model,
        m.tokenizer.describe(),
        if report.exact { " (exact)" } else { "" }
    ));
    if let Some(note) = &m.note {
        out.push_str(&format!("note: {note}\n"));
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
            msg.name,
            msg.role,
            msg.tokens,
            if msg.shared {
                " (share of its <history> group)"
            } else {
                ""
            }
        ));
    }
    print!("{out}");
    0
}

fn truncate(args: TruncateArgs) -> i32 {
    if args.max_tokens <= 0 {
        return usage_error(format!(
            "--max-tokens must be a positive number of tokens, not {}",
            args.max_tokens
        ));
    }
    let model = match budget_model(&args.target) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let plan = match model.plan(args.max_tokens) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}: {}", e.kind, e.message);
            return 1;
        }
    };
    let info = &model.counter().info;
    if args.target.json {
        let mut out = serde_json::json!({
            "formatter": model.formatter.class_name(),
            "provider": info.provider.id(),
            "model": info.model,
            "tokenizer": info.tokenizer.describe(),
            "exact": model.counter().exact(Some(formatscope::tokens::Category::Conversation)),
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
        println!(
            "{} · {} · tokenizer {}",
            model.formatter,
            info.model,
            info.tokenizer.describe()
        );
        match (&plan.error, plan.tokens_after) {
            (None, Some(after)) if plan.dropped.is_empty() => println!(
                "fits: {} tokens of {}; nothing dropped",
                after, plan.max_tokens
            ),
            (None, Some(after)) => println!(
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
            _ => println!(
                "cannot fit: {} ({} tokens before)",
                plan.reason().unwrap_or_default(),
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

fn tokenize(args: TokenizeArgs) -> i32 {
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
        Some(path) => std::fs::read(path).map_err(|e| format!("{}: {e}", path.display())),
        None => {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
                .map(|_| buf)
                .map_err(|e| format!("stdin: {e}"))
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

/// Median milliseconds of `runs` calls.
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn timing(args: TimingArgs) -> i32 {
    use formatscope::tokens::{AgentScopeCounter, OpenAiTokenCounter};
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let Ok(id) = pipeline::formatter_for_session(&session) else {
        return usage_error("the session names an unknown provider or mode");
    };
    let Ok(msgs) = pipeline::build_msgs(&session) else {
        return usage_error("a message is not a valid Msg");
    };
    let env = MediaEnv::new(session.base_dir(), Arc::new(NoNetwork));
    let info = models::resolve(id.provider, session.model());
    info.tokenizer.vocab.warm();
    let options = FormatOptions::default();
    let new_model = || {
        BudgetModel::new(
            id,
            options.clone(),
            info.clone(),
            session.messages.clone(),
            session.tools.clone(),
            MediaEnv::new(session.base_dir(), Arc::new(NoNetwork)),
        )
    };
    let Ok(mut model) = new_model() else {
        return usage_error("the session does not format");
    };
    let runs = args.runs;
    let format_ms = median_ms(runs, || {
        let _ = formatscope::formatter::format(id, &options, &msgs, &env, None);
    });
    let count_cold_ms = median_ms(runs, || {
        let _ = new_model().map(|mut m| m.report().total);
    });
    let count_warm_ms = median_ms(runs, || {
        let _ = model.set_messages(session.messages.clone());
        let _ = model.report().total;
    });
    let middle = msgs.len() / 2;
    let mut edit = 0;
    let recount_ms = median_ms(runs, || {
        edit += 1;
        let message = serde_json::json!({"name": "Bob", "role": "user", "content": [
            {"type": "text", "text": format!("Edit number {edit}: the library opens at nine.")}
        ]});
        let _ = model.set_message(middle, message);
        let _ = model.messages_total();
    });
    let plan_ms = median_ms(runs, || {
        let _ = model.plan(args.max_tokens);
    });
    let reference = OpenAiTokenCounter::new(pipeline::REFERENCE_TOKEN_MODEL);
    let agentscope = AgentScopeCounter {
        counter: &reference,
        web: &NoNetwork,
    };
    let mut kept = 0;
    let agentscope_truncation_ms = median_ms(runs, || {
        if let Ok(p) = formatscope::truncate::plan_reference(
            id,
            &options,
            &msgs,
            &env,
            &agentscope,
            args.max_tokens,
        ) {
            kept = p.plan.kept.len();
        }
    });
    print_json(&serde_json::json!({
        "messages": msgs.len(),
        "formatter": id.class_name(),
        "max_tokens": args.max_tokens,
        "format_ms": format_ms,
        "count_cold_ms": count_cold_ms,
        "count_warm_ms": count_warm_ms,
        "recount_one_edit_ms": recount_ms,
        "plan_ms": plan_ms,
        "agentscope_truncation_ms": agentscope_truncation_ms,
        "agentscope_truncation_kept": kept,
    }));
    0
}

#[cfg(feature = "tui")]
fn workbench(target: Option<PathBuf>, theme: String, log: Option<PathBuf>, offline: bool) -> i32 {
    formatscope::tui::run(formatscope::tui::Options {
        target,
        theme,
        log,
        offline,
    })
}

#[cfg(not(feature = "tui"))]
fn workbench(
    _target: Option<PathBuf>,
    _theme: String,
    _log: Option<PathBuf>,
    _offline: bool,
) -> i32 {
    usage_error("this build has no workbench (the `tui` feature); use a subcommand")
}
