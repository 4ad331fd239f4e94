//! `formatscope listen`: AgentScope's traces as sessions, live. Binds,
//! says where to point the agent and where the sessions go, then prints a
//! line per call until SIGINT or SIGTERM (exit 0).

use super::{failure, say, success, usage_error, Exit};
use clap::Args;
use formatscope::listen::{self, writer::Settings, Options, Said};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args)]
pub(crate) struct ListenArgs {
    /// Port to listen on (0: any free port). 4318 is OTLP/HTTP's.
    #[arg(long, default_value_t = 4318)]
    port: u16,

    /// Address to listen on. Default 127.0.0.1: only this machine can
    /// send traces. Any other lets everyone who reaches it write sessions
    /// here.
    #[arg(long, value_name = "ADDR")]
    bind: Option<IpAddr>,

    /// Folder for the sessions. Default: a new folder under the state
    /// folder ($XDG_STATE_HOME/formatscope/listen/, else
    /// ~/.local/state/formatscope/listen/), printed at start.
    #[arg(long)]
    dir: Option<PathBuf>,

    /// What traces cannot carry, given for every call: a JSON object put
    /// into each session's "request" (e.g. '{"stream": false,
    /// "model_kwargs": {"generate_kwargs": {"temperature": 0.3}}}'). Each
    /// session says it was assumed.
    #[arg(long, value_name = "JSON")]
    request: Option<String>,

    /// Session files written at most (later calls are printed, not
    /// written).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    max_files: u64,

    /// Largest export body taken, in MB (compressed or not); larger ones
    /// get 413.
    #[arg(long, default_value_t = listen::BODY_LIMIT >> 20, value_name = "MB")]
    max_body_mb: u64,
}

pub(crate) fn run(args: ListenArgs) -> Exit {
    let request = match args
        .request
        .as_deref()
        .map(serde_json::from_str::<serde_json::Value>)
    {
        None => None,
        Some(Ok(serde_json::Value::Object(m))) => Some(m),
        Some(Ok(_)) => return usage_error("--request: a JSON object"),
        Some(Err(e)) => return usage_error(format!("--request: {e}")),
    };
    let dir = match args.dir.clone().or_else(default_dir) {
        Some(d) => d,
        None => return usage_error("no state folder (HOME is not set): give --dir"),
    };
    let bind = args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let options = Options {
        dir: dir.clone(),
        body_limit: args.max_body_mb.saturating_mul(1 << 20),
        settings: Settings {
            request,
            max_files: args.max_files,
        },
    };
    // Made before its name is printed: a script may list it at once.
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return usage_error(format!("{}: {e}", dir.display()));
    }
    let runtime = super::send::runtime()?;
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(SocketAddr::new(bind, args.port)).await {
            Ok(l) => l,
            Err(e) => {
                say(format!("error: cannot listen on {bind}:{}: {e}", args.port));
                return failure();
            }
        };
        let addr = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
        {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{addr}/v1/traces");
            let _ = writeln!(out, "sessions go to {}", dir.display());
            let _ = out.flush();
        }
        if !bind.is_loopback() {
            say(format!(
                "warning: listening on {bind}: anyone who can reach this port can write sessions into {}",
                dir.display()
            ));
        }
        let print: Arc<dyn Fn(Said) + Send + Sync> = Arc::new(|said| match said {
            Said::Call(w) => {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{}", w.line);
                let _ = out.flush();
            }
            Said::Refused(why) => say(why),
        });
        match listen::serve(listener, options, print, stopped()).await {
            Ok(()) => success(),
            Err(e) => {
                say(format!("error: {}: {e}", dir.display()));
                failure()
            }
        }
    })
}

/// SIGINT or SIGTERM.
async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut int), Ok(mut term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `$XDG_STATE_HOME/formatscope/listen/YYYYMMDD-HHMMSS` (UTC).
pub(crate) fn default_dir() -> Option<PathBuf> {
    let base = formatscope::files::user_file(formatscope::files::UserDir::State, "listen")?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default();
    Some(base.join(stamp(ms)))
}

/// `20261127-154002` for Unix milliseconds: the history's UTC clock.
fn stamp(ms: i64) -> String {
    formatscope::history::utc(ms)
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | ':' => None,
            c => Some(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_are_civil_utc() {
        assert_eq!(super::stamp(0), "19700101-000000");
        assert_eq!(super::stamp(1_795_794_002_000), "20261127-154002");
    }
}
