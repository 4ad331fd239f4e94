//! `formatscope send SESSION`: sends the wire view's exact bytes and prints
//! the reply as it streams, parsed as AgentScope parses it.

use super::request::{build, WireArgs};
use super::{failure, safe, say, success, usage, usage_error, Exit};
use anyhow::Context;
use clap::Args;
use formatscope::json;
use formatscope::net::hosts::{self, ChosenHosts, Host, HostRefusal};
use formatscope::net::printer::Printer;
use formatscope::net::{self, Prepared, SendError, Timeouts};
use formatscope::provider::Provider;
use formatscope::response::ChatResponse;
use formatscope::session::PackedMessage;
use serde_json::Value;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub(crate) struct SendArgs {
    #[command(flatten)]
    pub(crate) wire: WireArgs,

    /// Print one JSON object per response AgentScope yields (JSON lines),
    /// then a summary object.
    #[arg(long)]
    pub(crate) json: bool,

    /// Add the reply to the session as a new assistant message (an atomic
    /// save; only when the reply came whole).
    #[arg(long)]
    pub(crate) append: bool,

    /// The name of the appended message (default: the session's last
    /// assistant speaker, else "assistant").
    #[arg(long, value_name = "NAME")]
    pub(crate) name: Option<String>,

    /// Seconds to wait for the connection.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub(crate) connect_timeout: f64,

    /// Seconds to wait for the response to begin.
    #[arg(long, value_name = "S", default_value_t = 120.0)]
    pub(crate) first_byte_timeout: f64,

    /// Seconds a stream may stay silent.
    #[arg(long, value_name = "S", default_value_t = 60.0)]
    pub(crate) idle_timeout: f64,

    /// Beyond AgentScope: split <think>…</think> in DashScope and Ollama
    /// text into a thinking block.
    #[arg(long)]
    split_think_tags: bool,

    /// Send to this base URL, over the session's own (what the provider's
    /// variable sets, e.g. http://127.0.0.1:8000/v1 for OpenAI). The key
    /// goes there.
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,

    /// Let the key go to HOST (or HOST:PORT) when the session's base URL
    /// names it. Without it, a host only the session names gets nothing.
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
}

/// Where the request goes, if the key may go there; else says why not
/// and how to allow it (exit 2). `how` names the ways the command has.
fn host_for_key(
    provider: Provider,
    prepared: &Prepared,
    key: Option<&net::ApiKey>,
    chosen: &ChosenHosts,
    how: &str,
) -> Result<Host, ExitCode> {
    match hosts::check(&prepared.url, key.is_some(), chosen) {
        Ok(host) => Ok(host),
        Err(HostRefusal::NoHost(url)) => Err(usage(format!(
            "nothing was sent: the request's URL {} has no host",
            safe(&url)
        ))),
        Err(HostRefusal::NotChosen(host)) => Err(usage(format!(
            "nothing was sent: the session names {host}{plain} as the {provider} server, and \
             formatscope sends your key only to {provider}'s own host or one you chose; \
             to send it there: {how}",
            plain = if host.plain_http() {
                " over plain HTTP (the key in clear text)"
            } else {
                ""
            },
            how = how.replace("HOST", &host.to_string()),
        ))),
    }
}

/// The three `--*-timeout` flags.
pub(crate) fn timeouts(args: &SendArgs) -> Result<Timeouts, String> {
    Ok(Timeouts {
        connect: seconds("--connect-timeout", args.connect_timeout)?,
        first_byte: seconds("--first-byte-timeout", args.first_byte_timeout)?,
        idle: seconds("--idle-timeout", args.idle_timeout)?,
    })
}

/// The runtime a send runs on (one thread: the CLI sends one request).
/// One that cannot start is no fault of the user's: main reports it.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn seconds(flag: &str, s: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s).map_err(|_| format!("{flag}: not a number of seconds: {s}"))
}

/// `--allow-host` and `--base-url` checked: the hosts allowed, or the
/// exit code.
pub(crate) fn allowed_hosts(args: &SendArgs) -> Result<Vec<Host>, ExitCode> {
    let mut allowed = Vec::new();
    for text in &args.allow_host {
        match Host::parse_allowed(text) {
            Some(h) => allowed.push(h),
            None => return Err(usage(format!("--allow-host: not a host: {}", safe(text)))),
        }
    }
    if let Some(url) = &args.base_url {
        if Host::of_url(url).is_none() {
            return Err(usage(format!("--base-url: not a URL: {}", safe(url))));
        }
    }
    Ok(allowed)
}

pub(crate) fn run(args: SendArgs) -> Exit {
    let env = |k: &str| std::env::var(k).ok();
    let allowed = match allowed_hosts(&args) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let built = match build(&args.wire, |provider, settings| match &args.base_url {
        Some(url) => net::set_base_url(provider, &mut settings.model_kwargs, url),
        None => net::apply_base_url_from_env(provider, &mut settings.model_kwargs),
    }) {
        Ok(b) => b,
        Err(code) => return Ok(code),
    };
    if built.failed {
        // As `request` prints it: safe for a terminal.
        let _ = writeln!(
            std::io::stdout().lock(),
            "{}",
            formatscope::text::json_text(&Value::Object(built.out.clone()))
        );
        say("error: nothing was sent: AgentScope or the SDK raises before sending");
        return failure();
    }
    let timeouts = match timeouts(&args) {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    let key = match &built.profile {
        Some(p) => p.key(env),
        None => net::find_key(built.provider, env),
    };
    let key = match key {
        Ok(k) => k,
        Err(e) => return usage_error(e),
    };
    let split = args.split_think_tags || net::session_splits_think_tags(&built.session.settings);
    let (mut prepared, opts) = match net::prepare(built.provider, &built.request, split) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    // A profile's base URL is one the user chose, as --base-url is.
    let profile_url = built.profile.as_ref().and_then(|p| p.base_url.as_deref());
    if let Some(p) = &built.profile {
        p.add_headers(&mut prepared);
    }
    let chosen = ChosenHosts::new(
        built.provider,
        env,
        args.base_url.as_deref().or(profile_url),
        &allowed,
    );
    let host = match host_for_key(
        built.provider,
        &prepared,
        key.as_ref(),
        &chosen,
        &format!(
            "--allow-host HOST, or --base-url URL, or set {}",
            net::base_url_variable(built.provider)
        ),
    ) {
        Ok(h) => h,
        Err(code) => return Ok(code),
    };
    let original = if args.append {
        match session_text(&args.wire.session) {
            Ok(t) => Some(t),
            Err(e) => return usage_error(e),
        }
    } else {
        None
    };

    let runtime = runtime()?;
    say(format!("note: sending to {}", safe(&host.to_string())));
    let json_lines = args.json;
    // A server may echo the key in the reply text, even split across chunks.
    let mut printer = Printer::redacting(std::io::stdout(), key.as_ref());
    let started = std::time::Instant::now();
    let result = runtime.block_on(async {
        let client = net::client(timeouts)?;
        let sending = net::send(&client, &prepared, key.as_ref(), &opts, timeouts, |r| {
            if json_lines {
                // Every response, built: the output holds them all.
                if !r.is_again() {
                    print_json_line(r.response().to_json(false), key.as_ref());
                }
            } else {
                printer.show(r);
            }
        });
        tokio::select! {
            r = sending => r,
            _ = tokio::signal::ctrl_c() => Err(SendError::Cancelled),
        }
    });
    if !json_lines {
        printer.end();
    }
    // What came back may echo the key (an error quoting the header that
    // carried it): never printed, never kept (`net::redact`).
    let result = result
        .map(|mut o| {
            o.redact(key.as_ref());
            o
        })
        .map_err(|e| e.redacted(key.as_ref()));
    let sent = net::record::Sent {
        session: formatscope::history::session_key(&args.wire.session),
        messages: &built.session.messages,
        provider: built.provider,
        model: &built.request.model,
        host: &host,
        prepared: &prepared,
        key: key.as_ref(),
    };
    super::history::record(&net::record::entry(&sent, &result, started.elapsed()));
    let outcome = match result {
        Ok(o) => o,
        Err(SendError::Cancelled) => {
            say("cancelled: nothing was appended");
            return Ok(ExitCode::from(super::CANCELLED));
        }
        Err(e) => {
            say(format!("error: {}", safe(&e.to_string())));
            if args.append {
                say("nothing was appended");
            }
            return failure();
        }
    };
    for w in &outcome.warnings {
        say(format!("warning: {}", safe(w)));
    }
    let usage = outcome
        .final_response
        .as_ref()
        .and_then(|r| r.usage.clone());
    let summary = json!({
        "final": outcome.final_response.as_ref().map(|r| r.to_json(false)),
        "chunks": outcome.chunks,
        "time_to_first_token": outcome.time_to_first_token.map(|d| d.as_secs_f64()),
        "total_time": outcome.total.as_secs_f64(),
        "tokens_per_second": outcome.tokens_per_second(),
        "error": outcome.parse_error.as_ref().map(|e| json!({"error": &e.message, "error_type": &e.error_type, "stage": e.stage})),
        "not_a_reply": &outcome.nothing,
    });
    if json_lines {
        print_json_line(summary, key.as_ref());
    } else {
        let mut line = String::new();
        if let Some(u) = &usage {
            line.push_str(&format!(
                "usage: {} in, {} out · ",
                u.input_tokens, u.output_tokens
            ));
            line.push_str(&billed(built.provider, &built.request.model, u));
        }
        if let Some(t) = outcome.time_to_first_token {
            line.push_str(&format!("first token {:.2} s · ", t.as_secs_f64()));
        }
        line.push_str(&format!("total {:.2} s", outcome.total.as_secs_f64()));
        if let Some(tps) = outcome.tokens_per_second() {
            line.push_str(&format!(" · {tps:.1} tokens/s"));
        }
        say(line);
    }
    // A body AgentScope yields nothing from is no reply: said, not "done".
    if let Some(what) = outcome
        .nothing
        .as_ref()
        .filter(|_| outcome.parse_error.is_none())
    {
        say(format!("error: {}", safe(what)));
        if args.append {
            say("nothing was appended");
        }
        return failure();
    }
    if let Some(e) = &outcome.parse_error {
        say(format!("error: {}: {}", e.error_type, safe(&e.message)));
        if args.append {
            say("nothing was appended");
        }
        return failure();
    }
    if let (Some(original), Some(reply)) = (original, outcome.final_response.as_ref()) {
        return append(&args, &original, reply, built.provider);
    }
    success()
}

/// One line of `send --json`: the key the send used replaced, and the
/// controls JSON leaves raw (C1, bidi overrides) escaped, as every JSON we
/// print is (`text::json_line`).
fn print_json_line(mut value: Value, key: Option<&net::ApiKey>) {
    if let Some(k) = key {
        k.redact_value(&mut value);
    }
    let _ = writeln!(
        std::io::stdout().lock(),
        "{}",
        formatscope::text::json_line(&value)
    );
}

/// A session file's text, through the one guarded read.
pub(crate) fn session_text(path: &std::path::Path) -> Result<String, String> {
    let bytes = formatscope::session::read_session_bytes(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// Adds the reply as the session's last message, if the file is still
/// what the request was built from.
fn append(args: &SendArgs, original: &str, reply: &ChatResponse, provider: Provider) -> Exit {
    append_message(
        args,
        original,
        |name| reply.to_message(name),
        &provider.to_string(),
    )
}

/// Adds `message(name)` as the session's last message, if the file is
/// still what the request was built from; `who` names the reply's maker.
pub(crate) fn append_message(
    args: &SendArgs,
    original: &str,
    message: impl FnOnce(&str) -> Value,
    who: &str,
) -> Exit {
    let path = &args.wire.session;
    match session_text(path) {
        Ok(now) if now == original => {}
        _ => {
            say(format!(
                "error: {} changed while the request ran; nothing was appended",
                path.display()
            ));
            return failure();
        }
    }
    let mut session =
        match formatscope::session::parse_session(original, &path.display().to_string()) {
            Ok(s) => s,
            Err(e) => return usage_error(e),
        };
    let name = args.name.clone().unwrap_or_else(|| {
        formatscope::response::reply_speaker(session.messages.iter().map(PackedMessage::value))
    });
    session
        .messages_mut()
        .push(PackedMessage::new(&message(&name)));
    let text = match formatscope::session::render_saved(original, &session) {
        Ok(t) => t,
        Err(e) => return usage_error(format!("{}: {e}", path.display())),
    };
    match formatscope::session::write_atomic(path, &text) {
        Ok(_) => {
            say(format!(
                "appended the {} reply to {} as message #{} ({name})",
                who,
                path.display(),
                session.messages.len() - 1
            ));
            success()
        }
        Err(e) => {
            say(format!(
                "error: {}: {e}; nothing was appended",
                path.display()
            ));
            failure()
        }
    }
}

/// The provider's own count of the request `count` describes: `Ok(Err)`
/// is the exit code of what it reported (a usage error, a failed count).
pub(crate) fn remote_count(
    target: &super::target::TargetArgs,
    provider: Provider,
) -> anyhow::Result<Result<u64, ExitCode>> {
    match count_remotely(target, provider) {
        Ok(n) => Ok(Ok(n)),
        Err(Remote::Said(code)) => Ok(Err(code)),
        Err(Remote::Failed(e)) => Err(e),
    }
}

/// Why [`count_remotely`] has no count.
enum Remote {
    /// Reported on stderr: the exit code.
    Said(ExitCode),
    /// Unexpected (the runtime did not start): for main to report.
    Failed(anyhow::Error),
}

impl From<ExitCode> for Remote {
    fn from(code: ExitCode) -> Remote {
        Remote::Said(code)
    }
}

fn count_remotely(target: &super::target::TargetArgs, provider: Provider) -> Result<u64, Remote> {
    if !net::has_token_counter(provider) {
        return Err(Remote::Said(usage(format!(
            "--remote: {provider} has no token-counting endpoint (Anthropic and Gemini have)"
        ))));
    }
    let wire = WireArgs::for_count(target, provider);
    let env = |k: &str| std::env::var(k).ok();
    let built = build(&wire, |provider, settings| {
        net::apply_base_url_from_env(provider, &mut settings.model_kwargs)
    })?;
    let (prepared, _) = net::prepare(built.provider, &built.request, false).map_err(usage)?;
    let key = net::find_key(provider, env).map_err(usage)?;
    let chosen = ChosenHosts::new(provider, env, None, &[]);
    let how = format!(
        "set {} to the server's URL",
        net::base_url_variable(provider)
    );
    let host = host_for_key(provider, &prepared, key.as_ref(), &chosen, &how)?;
    say(format!("note: counting at {}", safe(&host.to_string())));
    let runtime = runtime().map_err(Remote::Failed)?;
    let timeouts = Timeouts::default();
    runtime
        .block_on(async {
            let client = net::client(timeouts)?;
            net::count_remote(&client, provider, &prepared, key.as_ref(), timeouts).await
        })
        .map_err(|e| {
            say(format!("error: {}", safe(&e.to_string())));
            Remote::Said(ExitCode::FAILURE)
        })
}

/// The reply's cost from its usage at the price table's rate, or why it is
/// unknown: "cost $0.001234 · " (cached prompt tokens at the cached price
/// where the usage reports them).
fn billed(
    provider: formatscope::formatter::Provider,
    model: &str,
    u: &formatscope::response::Usage,
) -> String {
    let table = match formatscope::tokens::cost::load() {
        Ok(t) => t,
        Err(e) => return format!("cost unknown ({}) · ", safe(&e.to_string())),
    };
    let Some(p) = table.price_for(provider, model) else {
        return "cost unknown (no price for this model) · ".into();
    };
    match (u.input(), u.output()) {
        (Some(i), Some(o)) => {
            let cost = p.billed(i, u.cached(), o);
            let cached = u
                .cached()
                .filter(|n| *n > 0)
                .map(|n| format!(", {n} cached"))
                .unwrap_or_default();
            format!("cost ${:.6}{cached} · ", cost.total())
        }
        _ => "cost unknown (no token counts) · ".into(),
    }
}
