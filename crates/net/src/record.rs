//! What the history keeps of a send, from what the send had and what came
//! back: one function for `send` and the workbench's `S`. The body, never
//! the headers, so never the key; the host, not the URL (Gemini's URLs
//! may carry a key). And the key the send used is replaced by `<API_KEY>`
//! in everything kept: a provider's error may echo it (`Incorrect API key
//! provided: Bearer sk-…`), a server's body may hold it.

use super::{ApiKey, Outcome, Prepared, SendError};
use formatscope_core::provider::Provider;
use formatscope_core::session::PackedMessage;
use formatscope_history::{messages_hash, NewSend};
use std::path::PathBuf;
use std::time::Duration;

/// The send as it went out.
pub struct Sent<'a> {
    /// The session it is recorded under (`history::session_key`).
    pub session: PathBuf,
    pub messages: &'a [PackedMessage],
    pub provider: Provider,
    pub model: &'a str,
    pub host: &'a super::hosts::Host,
    pub prepared: &'a Prepared,
    /// The key the send carried: never stored.
    pub key: Option<&'a ApiKey>,
}

/// The history entry of a send and its result.
pub fn entry(sent: &Sent<'_>, result: &Result<Outcome, SendError>, elapsed: Duration) -> NewSend {
    let final_response = result.as_ref().ok().and_then(|o| o.final_response.as_ref());
    let error = match result {
        Ok(o) => o
            .parse_error
            .as_ref()
            .map(|e| format!("{}: {}", e.error_type, e.message))
            .or_else(|| o.nothing.clone()),
        Err(e) => Some(e.to_string()),
    };
    // Built once: a reply without an id gets a new one each time.
    let reply = final_response.map(|r| r.to_json(false));
    let status = match result {
        Err(SendError::Cancelled) => "cancelled",
        _ if error.is_some() => "error",
        _ => "ok",
    };
    let send = NewSend {
        session: sent.session.clone(),
        messages_hash: messages_hash(sent.messages.iter().map(PackedMessage::value)),
        reference: formatscope_core::reference::default().version().to_string(),
        provider: sent.provider.to_string(),
        model: sent.model.to_string(),
        host: sent.host.to_string(),
        request: sent.prepared.body.clone(),
        usage: reply
            .as_ref()
            .and_then(|r| r.get("usage").cloned())
            .filter(|u| !u.is_null()),
        reply,
        status: status.into(),
        elapsed_ms: result.as_ref().map_or(elapsed, |o| o.total).as_millis() as u64,
        first_token_ms: result
            .as_ref()
            .ok()
            .and_then(|o| o.time_to_first_token)
            .map(|t| t.as_millis() as u64),
        error,
    };
    without_key(send, sent.key)
}

/// `send` with `key` replaced by `<API_KEY>` in every text it keeps: the
/// error, the reply and usage, the request body (a session may hold the
/// key too), the model and host.
fn without_key(mut send: NewSend, key: Option<&ApiKey>) -> NewSend {
    let Some(key) = key else {
        return send;
    };
    let text = |s: &mut String| {
        if let std::borrow::Cow::Owned(r) = key.redact(s) {
            *s = r;
        }
    };
    if let Some(e) = send.error.as_mut() {
        text(e);
    }
    text(&mut send.model);
    text(&mut send.host);
    if let Some(v) = send.reply.as_mut() {
        key.redact_value(v);
    }
    if let Some(v) = send.usage.as_mut() {
        key.redact_value(v);
    }
    if let std::borrow::Cow::Owned(b) = key.redact_bytes(&send.request) {
        send.request = b;
    }
    send
}

/// A send under another release (`Reference::request`, its reply parsed
/// by `Reference::replies`) as it went out.
pub struct ReleaseSent<'a> {
    pub session: PathBuf,
    pub messages: &'a [PackedMessage],
    /// "2.0.11".
    pub release: &'a str,
    /// The release's family id ("minimax").
    pub family: &'a str,
    pub model: &'a str,
    pub host: &'a super::hosts::Host,
    pub body: &'a [u8],
    /// The key the send carried: never stored.
    pub key: Option<&'a ApiKey>,
}

/// How a send under another release ended: its final reply as the release
/// dumps it, or why there is none.
pub struct ReleaseEnded {
    pub reply: Option<serde_json::Value>,
    pub error: Option<String>,
    pub cancelled: bool,
    pub elapsed: Duration,
    pub first_event: Option<Duration>,
}

/// The history entry of a send under another release: marked with it.
pub fn release_entry(sent: &ReleaseSent<'_>, ended: ReleaseEnded) -> NewSend {
    let status = match (ended.cancelled, &ended.error) {
        (true, _) => "cancelled",
        (_, Some(_)) => "error",
        _ => "ok",
    };
    let send = NewSend {
        session: sent.session.clone(),
        messages_hash: messages_hash(sent.messages.iter().map(PackedMessage::value)),
        reference: sent.release.to_string(),
        provider: sent.family.to_string(),
        model: sent.model.to_string(),
        host: sent.host.to_string(),
        request: sent.body.to_vec(),
        usage: ended
            .reply
            .as_ref()
            .and_then(|r| r.get("usage").cloned())
            .filter(|u| !u.is_null()),
        reply: ended.reply,
        status: status.into(),
        elapsed_ms: ended.elapsed.as_millis() as u64,
        first_token_ms: ended.first_event.map(|t| t.as_millis() as u64),
        error: ended.error,
    };
    without_key(send, sent.key)
}
