//! `formatscope history [SESSION]`: the sends `send` and the workbench
//! made, newest first; `--show ID` one of them whole; `--prune` keeps the
//! newest `--keep N`.

use super::{safe, say, usage_error};
use clap::Args;
use formatscope::history::{self, History, HistoryError, Send};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct HistoryArgs {
    /// Only this session's sends.
    #[arg(value_name = "SESSION")]
    session: Option<PathBuf>,

    /// JSON: one object per send (with its request under --show).
    #[arg(long)]
    json: bool,

    /// Show one send whole: its request body and its reply.
    #[arg(long, value_name = "ID", conflicts_with = "prune")]
    show: Option<i64>,

    /// Remove the oldest sends, keeping the newest --keep.
    #[arg(long)]
    prune: bool,

    /// How many sends --prune keeps.
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "prune")]
    keep: u64,

    /// How many sends to list.
    #[arg(long, value_name = "N", default_value_t = 50)]
    limit: usize,
}

pub(crate) fn run(args: HistoryArgs) -> i32 {
    let history = match History::open_default() {
        Ok(Some(h)) => h,
        Ok(None) => return usage_error(format!("the history is off ({}=off)", history::VARIABLE)),
        Err(e) => return failed(&e),
    };
    match (args.show, args.prune) {
        (Some(id), _) => show(&history, id, args.json),
        (None, true) => prune(history, args.keep),
        (None, false) => list(&history, &args),
    }
}

/// Every history error exits 1 with its message: a locked, foreign or full
/// file is the user's to see, not a crash.
fn failed(e: &HistoryError) -> i32 {
    say(format!("error: {}", safe(&e.to_string())));
    1
}

fn list(history: &History, args: &HistoryArgs) -> i32 {
    let key = args.session.as_deref().map(history::session_key);
    let sends = match history.list(key.as_deref(), args.limit) {
        Ok(s) => s,
        Err(e) => return failed(&e),
    };
    if args.json {
        for s in &sends {
            outln!("{}", s.to_json(false));
        }
        return 0;
    }
    if sends.is_empty() {
        say(format!(
            "no sends in {}{}",
            history.path().display(),
            key.map(|k| format!(" for {}", k.display()))
                .unwrap_or_default()
        ));
        return 0;
    }
    for s in &sends {
        outln!("{}", safe(&line(s, args.session.is_none())));
    }
    0
}

/// `ID  TIME  PROVIDER MODEL  IN→OUT  STATUS  first line of the reply`.
fn line(s: &Send, with_session: bool) -> String {
    let (input, output) = s.tokens();
    let n = |t: Option<u64>| t.map_or("-".to_string(), |t| t.to_string());
    let mut first = s.first_line();
    if first.chars().count() > 60 {
        first = first.chars().take(59).collect::<String>() + "…";
    }
    let session = if with_session {
        format!(
            "  {}",
            s.send
                .session
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    format!(
        "{:>5}  {}  {} {}  {}→{}  {}{session}  {first}",
        s.id,
        s.time(),
        s.send.provider,
        s.send.model,
        n(input),
        n(output),
        s.send.status,
    )
}

fn show(history: &History, id: i64, json: bool) -> i32 {
    let send = match history.get(id) {
        Ok(Some(s)) => s,
        Ok(None) => return usage_error(format!("no send {id} in the history")),
        Err(e) => return failed(&e),
    };
    if json {
        outln!("{}", send.to_json(true));
        return 0;
    }
    outln!("{}", safe(&line(&send, true)));
    outln!(
        "session: {}",
        safe(&send.send.session.display().to_string())
    );
    outln!(
        "agentscope {} · {} · {} ms{}",
        send.send.reference,
        safe(&send.send.host),
        send.send.elapsed_ms,
        send.send
            .first_token_ms
            .map(|t| format!(" (first token {t} ms)"))
            .unwrap_or_default()
    );
    outln!("\n--- request body");
    lines(&pretty_bytes(&send.send.request));
    outln!("\n--- reply");
    match &send.send.reply {
        Some(r) => lines(&formatscope::text::json_text(r)),
        None => outln!("(none)"),
    }
    if let Some(e) = &send.send.error {
        outln!("\n--- error");
        lines(e);
    }
    0
}

/// Prints `text` line by line, each line's control characters escaped
/// (the line breaks stay).
fn lines(text: &str) {
    for line in text.lines() {
        outln!("{}", safe(line));
    }
}

/// The body pretty-printed when it is JSON, else as text.
fn pretty_bytes(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => formatscope::text::json_text(&v),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    }
}

fn prune(mut history: History, keep: u64) -> i32 {
    match history.prune(keep) {
        Ok(gone) => {
            say(format!(
                "removed {gone} send(s) from {}; {keep} at most kept",
                history.path().display()
            ));
            0
        }
        Err(e) => failed(&e),
    }
}

/// Records a finished `send`: a history that cannot be written is a
/// warning, and the send's own output and exit code stand.
pub(crate) fn record(send: &history::NewSend) {
    match History::open_default() {
        Ok(Some(mut h)) => {
            if let Err(e) = h.record(send) {
                say(format!("warning: {}", safe(&e.to_string())));
            }
        }
        Ok(None) => {}
        Err(e) => say(format!("warning: {}", safe(&e.to_string()))),
    }
}
