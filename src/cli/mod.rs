//! Subcommands. Each parses its options, calls the core, prints JSON.
//! Exit codes: 0 success, 1 the formatting failed (as the reference fails),
//! 2 bad usage or an unreadable/invalid file. Those a subcommand reports
//! itself and returns as `Ok(code)` ([`Exit`]); what should never happen
//! (a runtime that cannot start, an output file that cannot be written)
//! is an `Err` that main reports with its causes, exit 1.
//!
//! Output goes through [`outln!`] and [`out!`], never `println!`: a reader
//! that closes the pipe early (`formatscope count big.json | head -1`) ends
//! the output quietly, where `println!` panics. Clippy holds every
//! subcommand to it.

#![deny(clippy::print_stdout)]

/// `println!` for command output: a closed pipe is not an error.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `print!` for command output: a closed pipe is not an error.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod count;
mod diff;
mod explain;
mod format;
mod format_release;
mod handout;
mod history;
mod legacy;
mod lint;
mod listen;
mod manual;
mod release;
mod request;
mod response;
mod send;
mod send_release;
mod target;
mod timing;
mod token_view;
mod tokenize;
mod truncate;

use clap::{Parser, Subcommand};
use count::CountArgs;
use format::FormatArgs;
use formatscope::media::{Access, Gate, MediaEnv, NoNetwork, WebFetcher, WebRoot};
use formatscope::session::Session;
use formatscope::text::escape_control;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use timing::TimingArgs;
use tokenize::TokenizeArgs;
use truncate::TruncateArgs;

#[derive(Parser)]
#[command(
    name = "formatscope",
    version,
    about = "See the exact request each LLM provider would receive for a conversation, formatted byte for byte as the AgentScope release you run formats it (--agentscope VERSION)."
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

    /// Start a new session file: write FILE (a system and a user message;
    /// an existing file is never overwritten), then open the workbench
    /// on it.
    #[arg(long, value_name = "FILE", conflicts_with = "target")]
    new: Option<PathBuf>,

    /// Workbench: receive a running AgentScope agent's traces on
    /// 127.0.0.1:PORT (default 4318) as `listen` does, and follow its
    /// calls as they arrive. SESSION|DIR is the folder they go to
    /// (default: a new one under the state folder).
    #[arg(long, value_name = "PORT", num_args = 0..=1, default_missing_value = "4318")]
    listen: Option<u16>,
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
    /// agent's token counter (default OpenAITokenCounter(gpt-4o)): which
    /// messages are kept and dropped, tokens before and after, or why it
    /// cannot fit.
    Truncate(TruncateArgs),
    /// The full request a provider receives: the formatted messages wrapped
    /// by AgentScope's model class, the SDK call's kwargs, and the HTTP
    /// method, URL, headers (key as <API_KEY>) and body (request_oracle.py's
    /// shape), for all six providers.
    Request(request::RequestArgs),
    /// Send the request (the wire view's exact bytes) and print the reply
    /// as it streams, parsed as AgentScope parses it; then usage, time to
    /// first token and total. Keys come from the provider's usual
    /// environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).
    Send(send::SendArgs),
    /// What AgentScope's model class builds from a recorded provider reply,
    /// whole or streamed: the ChatResponse after every chunk and the final
    /// one (response_oracle.py's shape).
    Response(response::ResponseArgs),
    /// The structural difference between two requests for one session (two
    /// providers, modes, or the formatter's output against the wire body):
    /// a summary, or JSON Patch operations with --json.
    Diff(diff::DiffArgs),
    /// Check a session for what will fail or cost money at the provider or
    /// in AgentScope: findings with severity, file:line:col and a fix;
    /// exit 1 on errors (for CI and pre-commit hooks). --rules lists them.
    Lint(lint::LintArgs),
    /// The rule behind every node of the request (source message and
    /// block, a stable rule id, what it does, where it lives in AgentScope
    /// and in the provider's API); --html writes a handout.
    Explain(explain::ExplainArgs),
    /// AgentScope 0.1.6's formatter API (OpenAIFormatter.format_chat,
    /// CommonFormatter, format_auto, format_tools_json_schemas,
    /// is_supported_model), byte for byte: one JSON object in the shape of
    /// oracle_v0.py.
    Legacy(legacy::LegacyArgs),
    /// The sends `send` and the workbench made, newest first (`--show ID`,
    /// `--prune`).
    History(history::HistoryArgs),
    /// Receive a running AgentScope agent's OpenTelemetry traces (OTLP/HTTP
    /// on 127.0.0.1) and write each model call as a session file, with a
    /// line per call: formatter, messages, tokens, and whether
    /// formatscope's formatting equals what AgentScope recorded.
    Listen(listen::ListenArgs),
    /// Shell completions on stdout: `formatscope completions bash >
    /// ~/.local/share/bash-completion/completions/formatscope`.
    Completions(manual::CompletionsArgs),
    /// The man page (roff) on stdout: `formatscope manpage >
    /// ~/.local/share/man/man1/formatscope.1`.
    Manpage,
    /// Time the core on a session (for scripts/bench-vs-agentscope.py).
    #[command(hide = true)]
    Timing(TimingArgs),
}

/// What a subcommand ends with: the exit code of what it reported itself,
/// or an unexpected failure for main to report.
pub(crate) type Exit = anyhow::Result<ExitCode>;

/// Exit 0: done.
pub(crate) fn success() -> Exit {
    Ok(ExitCode::SUCCESS)
}

/// Exit 1: the request failed as the reference fails, or lint found
/// errors; the subcommand has said why.
pub(crate) fn failure() -> Exit {
    Ok(ExitCode::FAILURE)
}

/// Exit 1 when the subcommand failed (and said why), else 0.
pub(crate) fn failure_if(failed: bool) -> Exit {
    if failed {
        failure()
    } else {
        success()
    }
}

/// The exit code of a subcommand that says a bad usage or an unreadable
/// or invalid file.
pub(crate) const USAGE: u8 = 2;

/// The exit code of a send the user cancelled (Ctrl-C): 128 + SIGINT, as
/// a shell reports a command it interrupted.
pub(crate) const CANCELLED: u8 = 130;

pub fn run() -> Exit {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` come here too, on stdout, exit 0;
            // a closed pipe is not an error.
            let _ = e.print();
            return Ok(ExitCode::from(if e.use_stderr() { USAGE } else { 0 }));
        }
    };
    match cli.command {
        Some(Command::Format(args)) => format_release::dispatch(args),
        Some(Command::Count(args)) => count::count(args),
        Some(Command::Tokenize(args)) => tokenize::tokenize(args),
        Some(Command::Request(args)) => request::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Lint(args)) => lint::run(args),
        Some(Command::Explain(args)) => explain::run(args),
        Some(Command::Legacy(args)) => legacy::run(args),
        Some(Command::History(args)) => history::run(args),
        Some(Command::Listen(args)) => listen::run(args),
        Some(Command::Response(args)) => response::run(args),
        Some(Command::Send(args)) => match args.wire.agentscope.filter(|r| !r.is_default()) {
            Some(release) => send_release::run(&args, release.0),
            None => send::run(args),
        },
        Some(Command::Truncate(args)) => truncate::truncate(args),
        Some(Command::Timing(args)) => timing::run(args),
        Some(Command::Completions(args)) => manual::completions::<Cli>(args),
        Some(Command::Manpage) => manual::manpage::<Cli>(),
        None => workbench(cli),
    }
}

/// Says `error: MESSAGE` and ends the subcommand with exit 2.
pub(crate) fn usage_error(message: impl std::fmt::Display) -> Exit {
    Ok(usage(message))
}

/// Says `error: MESSAGE`; the exit code for a helper's `Err` to carry
/// (`Result<T, ExitCode>`) until its subcommand returns it.
pub(crate) fn usage(message: impl std::fmt::Display) -> ExitCode {
    say(format!("error: {message}"));
    ExitCode::from(USAGE)
}

/// One line on stderr, with any control character from a session (a name,
/// a URL, a path) shown as an escape instead of reaching the terminal.
pub(crate) fn say(line: impl std::fmt::Display) {
    eprintln!("{}", escape_control(&line.to_string()));
}

/// `text` safe for a terminal (see `formatscope::text`).
pub(crate) fn safe(text: &str) -> std::borrow::Cow<'_, str> {
    escape_control(text)
}

/// A session file as a JSON value, read through the one guarded read
/// (regular files only, bounded) and parsed as Python's `json` reads it;
/// the error is reported and the exit code comes back.
pub(crate) fn read_session_value(path: &std::path::Path) -> Result<Value, ExitCode> {
    let bytes = formatscope::session::read_session_bytes(path).map_err(usage)?;
    formatscope::json::parse(&bytes, Default::default())
        .map(|p| p.value)
        .map_err(|e| usage(format!("{}:{e}", path.display())))
}

/// What the user should know about the file itself (duplicate keys).
pub(crate) fn report_session(session: &Session) {
    for w in &session.warnings {
        say(format!("warning: {w}"));
    }
}

/// The media environment for a session: AgentScope's behaviour (anything
/// readable, any URL), through a gate that remembers what was done.
pub(crate) fn media_env(session: &Session, web: Arc<dyn WebFetcher>) -> MediaEnv {
    MediaEnv::with_gate(Arc::new(Gate::open(session.base_dir())), web)
}

/// Lists on stderr what a run read outside the session's own folder, and what it downloaded: the reference reads and fetches
/// silently, we say so.
pub(crate) fn report_access(gate: &Gate) {
    for event in gate.events() {
        match &event.access {
            Access::Read(path) => say(format!(
                "note: read {} (outside the session's folder)",
                path.display()
            )),
            Access::Fetch(url) => say(format!("note: fetched {url}")),
            Access::Redirect { to, from } => {
                say(format!("note: fetched {to} (redirected from {from})"))
            }
        }
    }
}

pub(crate) fn web_fetcher(web_roots: &[PathBuf], offline: bool) -> Arc<dyn WebFetcher> {
    if !web_roots.is_empty() {
        return Arc::new(WebRoot::new(web_roots.to_vec()));
    }
    if offline {
        return Arc::new(NoNetwork);
    }
    {
        Arc::new(formatscope::net::fetch::HttpFetcher::new(
            std::time::Duration::from_secs(20),
        ))
    }
}

/// `file:line:col` of message `index` of a session read from `path`.
pub(crate) fn message_location(
    path: &std::path::Path,
    session: &formatscope::session::Session,
    index: usize,
) -> Option<String> {
    use formatscope::session::{locate_pointer, InputShape};
    let pointer = match session.shape {
        InputShape::Session => format!("/messages/{index}"),
        InputShape::BareArray => format!("/{index}"),
        _ => return None,
    };
    let bytes = formatscope::session::read_session_bytes(path).ok()?;
    let (line, col) = locate_pointer(&String::from_utf8_lossy(&bytes), &pointer)?;
    Some(format!("{}:{line}:{col}", path.display()))
}

/// The line that says a message was rejected: where, AgentScope's error
/// (often an `AssertionError` with no text), and why in plain words.
pub(crate) fn rejected_message_line(
    path: &std::path::Path,
    session: &formatscope::session::Session,
    index: usize,
    kind: &str,
    message: &str,
) -> String {
    let at = message_location(path, session, index)
        .unwrap_or_else(|| format!("{}: message {index}", path.display()));
    let reference = match message.lines().next().unwrap_or_default().trim() {
        "" => kind.to_string(),
        first => format!("{kind}: {first}"),
    };
    // The session's messages may have moved into the request: read it again.
    let why = formatscope::session::read_session(path).ok().and_then(|s| {
        s.messages
            .get(index)
            .and_then(|m| formatscope::session::Msg::explain_rejection(&m.value()))
    });
    match why {
        Some(why) => format!("error: {at}: message {index} rejected ({reference}): {why}"),
        None => format!("error: {at}: message {index} rejected: {reference}"),
    }
}

/// A release's oracle-shaped object on stdout; the error it records, if
/// any, in one line on stderr, and the exit code (1 when it failed).
pub(crate) fn print_oracle_object(out: &Value) -> Exit {
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = writeln!(stdout, "{}", formatscope::text::json_text(out));
    let _ = stdout.flush();
    let Some(e) = out.get("error").and_then(Value::as_str) else {
        return success();
    };
    let kind = out
        .get("error_type")
        .and_then(Value::as_str)
        .unwrap_or("Error");
    say(format!(
        "error: {kind}: {}",
        e.lines().next().unwrap_or_default()
    ));
    failure()
}

pub(crate) fn print_json(value: &Value) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", formatscope::text::json_text(value));
}

fn workbench(cli: Cli) -> Exit {
    crate::return_freed_memory_at_once();
    let listen = match cli.listen {
        None => None,
        Some(port) => match cli.target.clone().or_else(listen::default_dir) {
            Some(dir) => Some(formatscope::tui::listening::Listening { port, dir }),
            None => return usage_error("no state folder (HOME is not set): give a folder"),
        },
    };
    let listening = listen.is_some();
    let target = match (cli.new, cli.target) {
        // A new session file first, then the workbench on it.
        (Some(new), _) => {
            if let Err(e) = formatscope::tui::io::create_session(&new) {
                return usage_error(e);
            }
            say(format!(
                "wrote {} (a system and a user message)",
                new.display()
            ));
            Some(new)
        }
        (None, Some(target)) => Some(target),
        (None, None) if listening => None,
        (None, None) => default_target(),
    };
    let code = formatscope::tui::run(formatscope::tui::Options {
        target,
        theme: cli.theme,
        log: cli.log,
        offline: cli.offline,
        listen,
    });
    // The workbench's codes are 0, 1 and 2; anything else is a failure.
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

/// No SESSION|DIR: the `sessions/` folder when there is one here (the
/// runtime's default); else this folder, whose sessions the picker
/// offers, with how to start said first.
fn default_target() -> Option<PathBuf> {
    if std::path::Path::new("sessions").is_dir() {
        return None;
    }
    say(format!(
        "note: no sessions/ folder here: showing the sessions of this folder. {}.",
        formatscope::tui::app::START_HINT
    ));
    Some(PathBuf::from("."))
}
