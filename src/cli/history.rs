//! `formatscope history [SESSION]`: the sends `send` and the workbench
//! made, newest first; `--show ID` one of them whole; `--prune` keeps the
//! newest `--keep N`.

use super::{failure, safe, say, success, usage_error, Exit};
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

pub(crate) fn run(args: HistoryArgs) -> Exit {
    let path = match history::default_path() {
        Ok(Some(p)) => p,
        Ok(None) => return usage_error(format!("the history is off ({}=off)", history::VARIABLE)),
        Err(e) => return failed(&e),
    };
    // Listing, showing and pruning never make a history: no file there is
    // no sends (and no folders made at whatever path was named).
    let history = match History::open_existing(&path) {
        Ok(h) => h,
        Err(e) => return failed(&e),
    };
    // Rows an older formatscope kept may hold a key a provider echoed:
    // the keys in the environment are never printed.
    let printer = Printer {
        keys: formatscope::net::redact::keys_in_env(|k| std::env::var(k).ok()),
    };
    match (args.show, args.prune, history) {
        (Some(id), _, None) => usage_error(format!("no send {id} in the history")),
        (None, true, None) => {
            say(format!("no sends in {}: nothing to prune", path.display()));
            success()
        }
        (None, false, None) => {
            if !args.json {
                say(format!("no sends in {}", path.display()));
            }
            success()
        }
        (Some(id), _, Some(h)) => show(&h, id, args.json, &printer),
        // Pruning writes: the history that is there, opened for writing.
        (None, true, Some(h)) => match History::open(h.path()) {
            Ok(h) => prune(h, args.keep),
            Err(e) => failed(&e),
        },
        (None, false, Some(h)) => list(&h, &args, &printer),
    }
}

/// What `history` prints goes through here: JSON as `text::json_line`
/// writes it (controls escaped), text with controls escaped, and the keys
/// of the environment replaced in both.
struct Printer {
    /// Without live sends (`net`) there are no keys to hide.
    keys: Vec<formatscope::net::ApiKey>,
}

impl Printer {
    fn json(&self, value: Value) {
        let value = {
            let mut value = value;
            for k in &self.keys {
                k.redact_value(&mut value);
            }
            value
        };
        outln!("{}", formatscope::text::json_line(&value));
    }

    fn line(&self, text: &str) {
        let redacted = formatscope::net::redact::redact_all(text, &self.keys);
        let text: &str = &redacted;
        outln!("{}", safe(text));
    }

    /// `text` line by line, each line's control characters escaped (the
    /// line breaks stay).
    fn lines(&self, text: &str) {
        for line in text.lines() {
            self.line(line);
        }
    }
}

/// Every history error exits 1 with its message: a locked, foreign or full
/// file is the user's to see, not a crash.
fn failed(e: &HistoryError) -> Exit {
    say(format!("error: {}", safe(&e.to_string())));
    failure()
}

fn list(history: &History, args: &HistoryArgs, printer: &Printer) -> Exit {
    let key = args.session.as_deref().map(history::session_key);
    // One row at a time, without request bodies: a long history of large
    // sends is never held whole.
    let mut listed = 0usize;
    let done = history.each(key.as_deref(), args.limit, None, |s| {
        listed += 1;
        if args.json {
            printer.json(s.to_json(false));
        } else {
            printer.line(&line(&s, args.session.is_none()));
        }
    });
    if let Err(e) = done {
        return failed(&e);
    }
    if listed == 0 && !args.json {
        say(format!(
            "no sends in {}{}",
            history.path().display(),
            key.map(|k| format!(" for {}", k.display()))
                .unwrap_or_default()
        ));
    }
    success()
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

fn show(history: &History, id: i64, json: bool, printer: &Printer) -> Exit {
    let send = match history.get(id) {
        Ok(Some(s)) => s,
        Ok(None) => return usage_error(format!("no send {id} in the history")),
        Err(e) => return failed(&e),
    };
    if json {
        printer.json(send.to_json(true));
        return success();
    }
    printer.line(&line(&send, true));
    printer.line(&format!("session: {}", send.send.session.display()));
    printer.line(&format!(
        "agentscope {} · {} · {} ms{}",
        send.send.reference,
        send.send.host,
        send.send.elapsed_ms,
        send.send
            .first_token_ms
            .map(|t| format!(" (first token {t} ms)"))
            .unwrap_or_default()
    ));
    outln!("\n--- request body");
    printer.lines(&pretty_bytes(&send.send.request));
    outln!("\n--- reply");
    match &send.send.reply {
        Some(r) => printer.lines(&formatscope::text::json_text(r)),
        None => outln!("(none)"),
    }
    if let Some(e) = &send.send.error {
        outln!("\n--- error");
        printer.lines(e);
    }
    success()
}

/// The body pretty-printed when it is JSON, else as text.
fn pretty_bytes(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => formatscope::text::json_text(&v),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    }
}

fn prune(mut history: History, keep: u64) -> Exit {
    match history.prune(keep) {
        Ok(gone) => {
            say(format!(
                "removed {gone} send(s) from {}; {keep} at most kept",
                history.path().display()
            ));
            success()
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
