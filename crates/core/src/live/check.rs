//! What `listen` says of each call: its size in tokens, and whether
//! formatscope's own formatting of the rebuilt session equals what
//! AgentScope recorded. Both through the answers every command uses: the
//! default release's `format` and the budget model's count.

use super::Rebuilt;
use crate::formatter::{FormatOptions, FormatterId};
use crate::media::{MediaEnv, NoNetwork};
use crate::session::{parse_session, Session, SessionError};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// How formatscope's formatting compares with AgentScope's record.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Same,
    /// Where they first differ, as a JSONPath (`$[3].content`).
    Differs(String),
    /// Nothing recorded to compare with (2.0.11 has no format span).
    NotRecorded,
    /// formatscope could not format it: why.
    Failed(String),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Same => write!(f, "same"),
            Verdict::Differs(at) => write!(f, "differs at {at}"),
            Verdict::NotRecorded => write!(f, "-"),
            Verdict::Failed(why) => write!(f, "not formatted: {why}"),
        }
    }
}

/// A call's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The request's tokens by the provider's tokenizer, and whether the
    /// count is exact; None when it cannot be counted.
    pub tokens: Option<(i64, bool)>,
    pub verdict: Verdict,
}

/// The session as formatscope reads it (`dir`: where local media paths
/// resolve, the folder it is written to).
pub fn session(rebuilt: &Rebuilt) -> Result<Session, SessionError> {
    let text = Value::Object(rebuilt.session.clone()).to_string();
    parse_session(&text, "the rebuilt session")
}

/// Counts the call and formats it again under the default release,
/// without the network (a trace's media are inline or URLs AgentScope
/// already read).
pub fn check(rebuilt: &Rebuilt, dir: &Path) -> Checked {
    let session = match session(rebuilt) {
        Ok(s) => s,
        Err(e) => {
            return Checked {
                tokens: None,
                verdict: Verdict::Failed(e.to_string()),
            }
        }
    };
    let env = || MediaEnv::new(dir, Arc::new(NoNetwork));
    let tokens = count(&session, env());
    let verdict = match &rebuilt.recorded {
        None => Verdict::NotRecorded,
        Some(recorded) => formatted(&session, env()).map_or_else(Verdict::Failed, |ours| {
            let ours = Value::Array(ours);
            if &ours == recorded {
                Verdict::Same
            } else {
                Verdict::Differs(json_path(&crate::diff::first_difference(recorded, &ours)))
            }
        }),
    };
    Checked { tokens, verdict }
}

fn formatted(session: &Session, env: MediaEnv) -> Result<Vec<Value>, String> {
    let release = crate::reference::default();
    let provider = session
        .settings
        .get("provider")
        .and_then(Value::as_str)
        .unwrap_or("openai");
    let family = release
        .family(provider)
        .ok_or_else(|| format!("{} has no provider {provider:?}", release.title()))?;
    let mode = match session.mode() {
        Some("multi_agent") => crate::reference::Mode::MultiAgent,
        _ => crate::reference::Mode::Chat,
    };
    release
        .format(session, family, mode, &env)
        .messages
        .map_err(|e| format!("{}: {}", e.kind, e.message))
}

fn count(session: &Session, env: MediaEnv) -> Option<(i64, bool)> {
    let formatter: FormatterId = session.formatter().ok()?;
    let model = crate::model_choice::choose_model(session, formatter.provider, None).info();
    let messages = session.messages.iter().cloned();
    let mut budget = crate::budget::BudgetModel::new(
        formatter,
        FormatOptions::default(),
        model,
        messages,
        session.tools.clone(),
        env,
    )
    .ok()?;
    let report = budget.report();
    Some((report.total, report.exact))
}

/// A JSON pointer (`/3/content`) as JSONPath (`$[3].content`).
fn json_path(pointer: &str) -> String {
    let mut out = String::from("$");
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        if token.bytes().all(|b| b.is_ascii_digit()) && !token.is_empty() {
            out.push_str(&format!("[{token}]"));
        } else if token.chars().all(|c| c.is_alphanumeric() || c == '_') && !token.is_empty() {
            out.push('.');
            out.push_str(&token);
        } else {
            out.push_str(&format!("[{}]", Value::String(token)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_read_as_json_paths() {
        assert_eq!(json_path(""), "$");
        assert_eq!(json_path("/3/content/0/text"), "$[3].content[0].text");
        assert_eq!(json_path("/a b/x~1y"), "$[\"a b\"][\"x/y\"]");
    }
}
