//! The history of sends: every request the CLI's `send` and the
//! workbench's S sent, with the reply as AgentScope parsed it, in a SQLite
//! file in the user's data folder (`$XDG_DATA_HOME/formatscope/
//! history.sqlite3`). What is kept is the request *body* only: never the
//! headers, so never the key.
//!
//! The history is a convenience beside formatting, never in its way: every
//! failure (another formatscope holding the file, a file that is not ours,
//! a full disk) is a [`HistoryError`] value the caller reports and goes
//! on from.

mod place;
mod store;

pub use store::{History, LIST_REPLY_LIMIT};

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The file's name in `formatscope/` under the data folder.
pub const FILE_NAME: &str = "history.sqlite3";

/// The variable that turns the history off (`off`) or moves it (a path).
pub const VARIABLE: &str = "FORMATSCOPE_HISTORY";

/// How many sends are kept before the oldest go.
pub const DEFAULT_MAX_SENDS: u64 = 10_000;

/// How many bytes of requests and replies are kept before the oldest go.
pub const DEFAULT_MAX_BYTES: u64 = 200 * 1024 * 1024;

/// Why the history could not be read or written. Every variant names the
/// file, so the message says where to look.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    #[error(
        "history: no data folder to keep it in (set XDG_DATA_HOME or HOME, or {VARIABLE}=PATH)"
    )]
    NoDataFolder,
    #[error("history: the database is locked by another formatscope ({path}); try again when it is done")]
    Locked { path: String },
    #[error("history: {path} is not a formatscope history database: {reason}")]
    NotHistory { path: String, reason: String },
    #[error(
        "history: disk full writing {path}: {reason}; `formatscope history --prune` makes room"
    )]
    Full { path: String, reason: String },
    #[error("history: cannot open {path}: {reason}")]
    Open { path: String, reason: String },
    #[error("history: {path}: {reason}")]
    Other { path: String, reason: String },
}

/// Where the history is kept: `$FORMATSCOPE_HISTORY` when it is a path,
/// else `history.sqlite3` in formatscope's data folder
/// (`$XDG_DATA_HOME/formatscope/`, else `~/.local/share/formatscope/`:
/// [`formatscope_core::files::user_file`]). `Ok(None)` when the user
/// turned it off (`FORMATSCOPE_HISTORY=off`).
pub fn default_path() -> Result<Option<PathBuf>, HistoryError> {
    path_from(std::env::var_os(VARIABLE), || {
        formatscope_core::files::user_file(formatscope_core::files::UserDir::Data, FILE_NAME)
    })
}

/// [`default_path`] from the variable's value and the data folder's file:
/// what is ours (the variable turns the history off or moves it) apart
/// from what etcetera resolves, so tests pass their own.
pub fn path_from(
    setting: Option<std::ffi::OsString>,
    data_file: impl FnOnce() -> Option<PathBuf>,
) -> Result<Option<PathBuf>, HistoryError> {
    match setting.filter(|v| !v.is_empty()) {
        Some(v) if v == "off" || v == "0" => Ok(None),
        Some(v) => Ok(Some(PathBuf::from(v))),
        None => data_file().map(Some).ok_or(HistoryError::NoDataFolder),
    }
}

/// The hash that tells whether two sends had the same conversation: the
/// SHA-256 of the messages' JSON, one per line, in hex.
pub fn messages_hash(messages: impl IntoIterator<Item = Value>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for m in messages {
        h.update(m.to_string().as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The session's absolute path, as the history keys sends by it (the
/// same file opened from two folders is one session).
pub fn session_key(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A send to record. The body is the request's body bytes; headers (and so
/// the key) are never passed in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSend {
    pub session: PathBuf,
    pub messages_hash: String,
    /// The AgentScope release the request was formatted as.
    pub reference: String,
    pub provider: String,
    pub model: String,
    /// The server's host (and port), not the whole URL: Gemini's URLs may
    /// carry a key in their query.
    pub host: String,
    pub request: Vec<u8>,
    /// The final response as `send --json` prints it.
    pub reply: Option<Value>,
    pub usage: Option<Value>,
    /// `ok`, `error`, `cancelled`.
    pub status: String,
    pub elapsed_ms: u64,
    pub first_token_ms: Option<u64>,
    pub error: Option<String>,
}

/// A recorded send.
#[derive(Debug, Clone, PartialEq)]
pub struct Send {
    pub id: i64,
    /// Unix time in milliseconds.
    pub created_ms: i64,
    pub send: NewSend,
    /// The request body's size (a listed send does not hold the body).
    pub request_bytes: u64,
    /// The reply's size as stored (JSON text).
    pub reply_bytes: u64,
    /// Whether `send` holds everything stored: a listed send leaves out
    /// its request body and a large reply (`History::get` reads them).
    pub whole: bool,
}

impl Send {
    /// The reply's text, its blocks' text joined (thinking and tool calls
    /// named), for lists and the compare view.
    pub fn reply_text(&self) -> String {
        reply_text(self.send.reply.as_ref())
    }

    /// Input and output tokens, when usage came.
    pub fn tokens(&self) -> (Option<u64>, Option<u64>) {
        let u = self.send.usage.as_ref();
        let n = |k: &str| u.and_then(|u| u.get(k)).and_then(Value::as_u64);
        (n("input_tokens"), n("output_tokens"))
    }

    /// Whether the reply was left out of a list (too large to hold there).
    pub fn reply_left_out(&self) -> bool {
        self.send.reply.is_none() && self.reply_bytes > 0 && !self.whole
    }

    /// The first line of the reply, else of the error.
    pub fn first_line(&self) -> String {
        if self.reply_left_out() {
            return format!(
                "(a reply of {}, read when shown)",
                formatscope_core::files::megabytes(self.reply_bytes)
            );
        }
        let text = self.reply_text();
        let text = if text.trim().is_empty() {
            self.send.error.clone().unwrap_or_default()
        } else {
            text
        };
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or_default()
            .to_string()
    }

    /// `YYYY-MM-DD HH:MM:SS` UTC.
    pub fn time(&self) -> String {
        utc(self.created_ms)
    }

    /// The send as `history --json` prints it (the request body as text
    /// when it is UTF-8, which JSON bodies are).
    pub fn to_json(&self, with_request: bool) -> Value {
        let s = &self.send;
        let (input, output) = self.tokens();
        let mut v = serde_json::json!({
            "id": self.id,
            "created": self.time(),
            "created_ms": self.created_ms,
            "session": s.session.display().to_string(),
            "messages_hash": s.messages_hash,
            "agentscope": s.reference,
            "provider": s.provider,
            "model": s.model,
            "host": s.host,
            "status": s.status,
            "input_tokens": input,
            "output_tokens": output,
            "elapsed_ms": s.elapsed_ms,
            "first_token_ms": s.first_token_ms,
            "error": s.error,
            "reply": s.reply,
            "usage": s.usage,
        });
        if with_request {
            v["request"] = Value::String(String::from_utf8_lossy(&s.request).into_owned());
        }
        v
    }
}

/// The text of a reply as `ChatResponse::to_json` writes it.
pub fn reply_text(reply: Option<&Value>) -> String {
    let Some(blocks) = reply
        .and_then(|r| r.get("content"))
        .and_then(Value::as_array)
    else {
        return String::new();
    };
    let mut out = Vec::new();
    for b in blocks {
        let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default();
        match s("type") {
            "text" => out.push(s("text").to_string()),
            "thinking" => out.push(format!("[thinking] {}", s("thinking"))),
            "tool_use" => out.push(format!(
                "[tool call {}] {}",
                s("name"),
                b.get("input").map(Value::to_string).unwrap_or_default()
            )),
            other => out.push(format!("[{other}]")),
        }
    }
    out.join("\n")
}

/// Unix milliseconds as `YYYY-MM-DD HH:MM:SS` UTC (civil-from-days, so no
/// date crate for one format).
pub fn utc(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn the_variable_turns_the_history_off_or_moves_it() {
        let data = || Some(PathBuf::from("/d/formatscope/history.sqlite3"));
        let none = || None;
        let set = |v: &str| Some(OsString::from(v));
        assert_eq!(path_from(None, data), Ok(data()));
        // Empty is unset: the data folder's file.
        assert_eq!(path_from(set(""), data), Ok(data()));
        assert_eq!(path_from(set("off"), data), Ok(None));
        assert_eq!(path_from(set("0"), none), Ok(None));
        assert_eq!(
            path_from(set("/x/h.db"), none),
            Ok(Some(PathBuf::from("/x/h.db")))
        );
        assert_eq!(path_from(None, none), Err(HistoryError::NoDataFolder));
    }

    #[test]
    fn times_are_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00");
        assert_eq!(utc(1_764_092_908_000), "2025-11-25 17:48:28");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00");
    }

    #[test]
    fn the_hash_changes_with_the_messages() {
        let a = messages_hash([serde_json::json!({"role": "user", "content": "a"})]);
        let b = messages_hash([serde_json::json!({"role": "user", "content": "b"})]);
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }
}
