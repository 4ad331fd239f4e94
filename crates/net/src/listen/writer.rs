//! The one place `listen` writes: each call's session file (atomically,
//! named in call order, never outside the folder) and its line, and the
//! agent and turn added to a reply's files once the reply ends.

use formatscope_core::live::check::{self, Checked};
use formatscope_core::live::{Call, Heard, Listener};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What `listen` was told to assume of every call, and its bounds.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Merged into each session's `request` (what traces cannot carry).
    pub request: Option<Map<String, Value>>,
    /// Files written at most; later calls are counted, not written.
    pub max_files: u64,
}

/// A call as the workbench and the printed line see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub number: u64,
    pub path: Option<PathBuf>,
    pub line: String,
}

/// Replies waiting for their agent: at most this many remembered.
const REPLIES: usize = 10_000;

pub struct Recorder {
    dir: PathBuf,
    settings: Settings,
    listener: Listener,
    written: u64,
    /// Calls by the reply they belong to, until the reply ends.
    by_reply: HashMap<String, Vec<(u64, PathBuf)>>,
}

impl Recorder {
    pub fn new(dir: PathBuf, settings: Settings) -> Recorder {
        Recorder {
            dir,
            settings,
            listener: Listener::new(),
            written: 0,
            by_reply: HashMap::new(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// One export's spans: the lines to print.
    pub fn take(&mut self, spans: Vec<formatscope_core::live::otlp::Span>) -> Vec<Written> {
        let heard = self.listener.take(spans);
        self.record(heard)
    }

    /// At the end: the format calls no model call came for.
    pub fn finish(&mut self) -> Vec<Written> {
        let heard = self.listener.finish();
        self.record(heard)
    }

    fn record(&mut self, heard: Vec<Heard>) -> Vec<Written> {
        let mut out = Vec::new();
        for h in heard {
            match h {
                Heard::Call(call) => out.push(self.call(*call)),
                Heard::Reply { reply, agent, turn } => {
                    if let Some(w) = self.reply(&reply, &agent, turn) {
                        out.push(w);
                    }
                }
                Heard::Problem(p) => out.push(Written {
                    number: 0,
                    path: None,
                    line: format!("{}  not a session: {p}", clock()),
                }),
            }
        }
        out
    }

    fn call(&mut self, call: Call) -> Written {
        let checked = check::check(&call.rebuilt, &self.dir);
        let mut session = call.rebuilt.session.clone();
        let mut assumed = call.rebuilt.assumed.clone();
        if let Some(given) = &self.settings.request {
            let request = session
                .entry("request")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(r) = request.as_object_mut() {
                for (k, v) in given {
                    r.insert(k.clone(), v.clone());
                }
            }
            assumed.push(format!(
                "request settings given to listen: {}",
                Value::Object(given.clone())
            ));
        }
        session.insert(
            "listen".into(),
            json!({
                "agentscope": call.release,
                "call": call.number,
                "trace_id": call.trace_id,
                "span_id": call.span_id,
                "conversation": call.rebuilt.conversation,
                "assumed": assumed,
                "recorded": checked.verdict.to_string(),
                "recorded_messages": call.rebuilt.recorded,
            }),
        );
        let path = self.file(&call, &session);
        let line = line(&call, &checked, path.as_deref(), &self.dir);
        if let Some(p) = &path {
            if !call.parent_id.is_empty() && self.by_reply.len() < REPLIES {
                self.by_reply
                    .entry(call.parent_id.clone())
                    .or_default()
                    .push((call.number, p.clone()));
            }
        }
        Written {
            number: call.number,
            path,
            line,
        }
    }

    /// Writes the session, or says why not (in the line).
    fn file(&mut self, call: &Call, session: &Map<String, Value>) -> Option<PathBuf> {
        if self.written >= self.settings.max_files {
            return None;
        }
        let provider = session
            .get("provider")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mode = session.get("mode").and_then(Value::as_str).unwrap_or("");
        let name = format!("{:05}-{}-{}.json", call.number, safe(provider), safe(mode));
        let path = self.dir.join(name);
        let text = pretty(&Value::Object(session.clone()));
        match formatscope_core::session::write_atomic(&path, &text) {
            Ok(_) => {
                self.written += 1;
                Some(path)
            }
            Err(_) => None,
        }
    }

    /// A reply ended: its calls were `agent`'s, its `turn`th reply.
    fn reply(&mut self, reply: &str, agent: &str, turn: u64) -> Option<Written> {
        let calls = self.by_reply.remove(reply)?;
        for (_, path) in &calls {
            // The file this writer wrote, read back as every session is
            // read (a file swapped for a FIFO must not stall the writer).
            let Ok(bytes) = formatscope_core::files::read_regular(path, 256 << 20, "session files")
            else {
                continue;
            };
            let Ok(Value::Object(mut session)) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            if let Some(Value::Object(listen)) = session.get_mut("listen") {
                listen.insert("agent".into(), agent.into());
                listen.insert("turn".into(), turn.into());
            }
            let _ = formatscope_core::session::write_atomic(path, &pretty(&Value::Object(session)));
        }
        let numbers: Vec<String> = calls.iter().map(|(n, _)| format!("#{n}")).collect();
        Some(Written {
            number: 0,
            path: None,
            line: format!(
                "{}  {}  reply {turn} ended: {}",
                clock(),
                formatscope_core::text::escape_control(agent),
                numbers.join(" ")
            ),
        })
    }
}

/// A name part from a span, as letters, digits, `_`, `-` and `.` only: a
/// span never chooses a path.
fn safe(part: &str) -> String {
    let s: String = part
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .take(40)
        .collect();
    let s = s.trim_start_matches('.').to_string();
    if s.is_empty() {
        "unknown".into()
    } else {
        s
    }
}

fn pretty(v: &Value) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    text.push('\n');
    text
}

/// `18:40:02  #7  1.0.21  OpenAIMultiAgentFormatter  gpt-4o  5 messages  1,234 tokens  same  00007-openai-multi_agent.json`
fn line(call: &Call, checked: &Checked, path: Option<&Path>, dir: &Path) -> String {
    let s = &call.rebuilt.session;
    let messages = s
        .get("messages")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let formatter = if call.rebuilt.formatter.is_empty() {
        format!(
            "{} (chat)",
            s.get("provider").and_then(Value::as_str).unwrap_or("?")
        )
    } else {
        call.rebuilt.formatter.clone()
    };
    let model = s
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("(no model)");
    let tokens = match checked.tokens {
        Some((n, exact)) => format!("{}{} tokens", if exact { "" } else { "≈" }, thousands(n)),
        None => "? tokens".into(),
    };
    let file = match path {
        Some(p) => p.strip_prefix(dir).unwrap_or(p).display().to_string(),
        None => "not written (the file limit is reached, or the folder refused it)".into(),
    };
    formatscope_core::text::escape_control(&format!(
        "{}  #{}  {}  {}  {}  {} messages  {}  {}  {}",
        clock(),
        call.number,
        call.release,
        formatter,
        model,
        messages,
        tokens,
        checked.verdict,
        file
    ))
    .into_owned()
}

fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// The wall clock, UTC, `HH:MM:SS` (the history's clock).
fn clock() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default();
    formatscope_history::utc(ms).split_off(11)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_spans_never_leave_the_folder() {
        assert_eq!(safe("../../etc"), "etc");
        assert_eq!(safe("openai"), "openai");
        assert_eq!(safe("/"), "unknown");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
