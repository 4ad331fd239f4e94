//! Live sends from the workbench: each send is a task on the loop's tokio
//! runtime that the UI can cancel (the connection closes); progress comes
//! back to the loop as `Event::Reply`. Keys come from the environment, as for
//! `formatscope send`, and never reach the screen or the log.
//!
//! The pane shows only the latest response, and each one holds the whole
//! reply so far: building and sending every one of a long stream would be
//! quadratic. The [`Relay`] sends at most one per [`PACE`], always the
//! latest (the stream reports it again when quiet), then `Done` with the
//! final one.

use super::msg::ReplyUpdate;
use super::msg::{Event, Outbox, SendJob};
use formatscope_core::pipeline::build_request_local;
use formatscope_core::response::{ChatResponse, Yielded};
use formatscope_net::hosts::{self, ChosenHosts, Host, HostRefusal};
use formatscope_net::{self as net, Prepared, Timeouts};
use std::time::{Duration, Instant};

/// The reply pane's pace: at most one response built and sent per this.
pub const PACE: Duration = Duration::from_millis(50);

pub use crate::msg::PANE_TAIL;

/// Which of a stream's responses reach the reply pane.
#[derive(Debug, Default)]
pub struct Relay {
    sent: Option<Instant>,
    /// The wait before the next: [`PACE`], or longer while building a
    /// response takes long (a reply of megabytes), so that building stays
    /// a small part of the stream's time.
    wait: Duration,
    /// A response was skipped since the last one sent.
    pending: bool,
    /// The send's key: a reply that quotes it shows `<API_KEY>`, even
    /// while the key is still arriving chunk by chunk.
    key: Option<net::ApiKey>,
}

impl Relay {
    /// A relay that never shows `key`.
    pub fn redacting(key: Option<net::ApiKey>) -> Relay {
        Relay {
            key,
            ..Relay::default()
        }
    }

    /// The update for this response, if one goes now: the first, then one
    /// per [`PACE`] (or more, see `wait`), and a skipped one when it is
    /// reported again.
    pub fn update(&mut self, r: &Yielded<'_>) -> Option<ReplyUpdate> {
        if r.is_again() {
            if !self.pending {
                return None;
            }
        } else if self.sent.is_some_and(|t| t.elapsed() < self.wait.max(PACE)) {
            self.pending = true;
            return None;
        }
        self.pending = false;
        let started = Instant::now();
        let mut shown = pane_tail(&r.response());
        if let Some(key) = &self.key {
            for block in &mut shown.content {
                net::redact::redact_strings(block, key, true);
            }
        }
        self.wait = started.elapsed() * 4;
        self.sent = Some(Instant::now());
        Some(ReplyUpdate::Chunk(Box::new(shown)))
    }
}

/// `r` with each text and thinking block cut to its last half
/// [`PANE_TAIL`] of bytes (what the pane shows of a growing reply; the whole text is not
/// copied).
pub fn pane_tail(r: &ChatResponse) -> ChatResponse {
    use serde_json::Value;
    let content = r
        .content
        .iter()
        .map(|b| {
            let Value::Object(map) = b else {
                return b.clone();
            };
            let field = match map.get("type").and_then(Value::as_str) {
                Some("text") => "text",
                Some("thinking") => "thinking",
                _ => return b.clone(),
            };
            match map.get(field).and_then(Value::as_str) {
                // Half: the pane's own cut (at PANE_TAIL) leaves it whole.
                Some(t) if t.len() > PANE_TAIL / 2 => Value::Object(
                    map.iter()
                        .map(|(k, v)| match k == field {
                            true => (
                                k.clone(),
                                formatscope_core::response::tail(t, PANE_TAIL / 2).into(),
                            ),
                            false => (k.clone(), v.clone()),
                        })
                        .collect(),
                ),
                _ => b.clone(),
            }
        })
        .collect();
    ChatResponse {
        id: r.id.clone(),
        content,
        usage: r.usage.clone(),
        metadata: r.metadata.clone(),
    }
}

/// Why a job is not sent.
enum NotSent {
    Error(String),
    /// The key would go to a host only the session names: ask first.
    HostNotChosen(Host),
}

/// The request a job describes, ready to send, with its parse options and
/// key; or why not.
type Ready = (
    Prepared,
    formatscope_core::response::Options,
    Option<net::ApiKey>,
    Host,
);

fn prepare(job: &SendJob) -> Result<Ready, NotSent> {
    let provider = job.formatter.provider;
    let mut settings = (*job.settings).clone();
    net::apply_base_url_from_env(provider, &mut settings.model_kwargs);
    let out = build_request_local(&job.session, job.formatter, &settings);
    let split = net::session_splits_think_tags(&job.session.settings);
    let (mut prepared, opts) = net::prepare(provider, &out, split).map_err(NotSent::Error)?;
    let env = |k: &str| std::env::var(k).ok();
    let key = match &job.profile {
        Some(p) => p.key(env),
        None => net::find_key(provider, env),
    }
    .map_err(|e| NotSent::Error(e.to_string()))?;
    if let Some(p) = &job.profile {
        p.add_headers(&mut prepared);
    }
    // The key goes unasked only to the default host, the SDK variable's,
    // a profile's (the user's own file) or one the user allowed (see
    // `net::hosts`).
    let profile_url = job.profile.as_ref().and_then(|p| p.base_url.as_deref());
    let chosen = ChosenHosts::new(provider, env, profile_url, &job.allowed_hosts);
    let host = match hosts::check(&prepared.url, key.is_some(), &chosen) {
        Ok(h) => h,
        Err(HostRefusal::NotChosen(h)) => return Err(NotSent::HostNotChosen(h)),
        Err(HostRefusal::NoHost(url)) => {
            return Err(NotSent::Error(format!(
                "the request's URL {url} has no host"
            )))
        }
    };
    Ok((prepared, opts, key, host))
}

/// One send, as a task on the loop's runtime: builds the request (the
/// wire view's), sends it, and reports the parsed responses (paced).
pub async fn run(client: reqwest::Client, job: SendJob, msgs: Outbox) {
    let id = job.id;
    let say = |update: ReplyUpdate| {
        let _ = msgs.send(Event::Reply { id, update });
    };
    let (prepared, opts, key, host) = match prepare(&job) {
        Ok(p) => p,
        Err(NotSent::Error(e)) => return say(ReplyUpdate::Failed(e)),
        Err(NotSent::HostNotChosen(h)) => return say(ReplyUpdate::HostNotChosen(h)),
    };
    say(ReplyUpdate::Started {
        url: prepared.url.clone(),
        host: host.to_string(),
        stream: prepared.stream,
    });
    let mut relay = Relay::redacting(key.clone());
    let started = Instant::now();
    let result = net::send(
        &client,
        &prepared,
        key.as_ref(),
        &opts,
        Timeouts::default(),
        |r| {
            if let Some(update) = relay.update(r) {
                say(update);
            }
        },
    )
    .await;
    let entry = job.history.clone().map(|(db, session)| {
        let sent = net::record::Sent {
            session,
            messages: &job.session.messages,
            provider: job.formatter.provider,
            model: &opts.model_name,
            host: &host,
            prepared: &prepared,
            key: key.as_ref(),
        };
        (db, net::record::entry(&sent, &result, started.elapsed()))
    });
    // What came back may echo the key: never on screen (`net::redact`).
    match result {
        Ok(mut outcome) => {
            outcome.redact(key.as_ref());
            say(ReplyUpdate::Done(Box::new(outcome)))
        }
        Err(e) => say(ReplyUpdate::Failed(e.redacted(key.as_ref()).to_string())),
    }
    // Recorded after the pane has the reply (a history held by another
    // formatscope may take its busy timeout), off the loop's threads; a
    // failure is a status line, after the send's own.
    if let Some((db, entry)) = entry {
        let written = tokio::task::spawn_blocking(move || {
            formatscope_history::History::open(&db).and_then(|mut h| h.record(&entry))
        })
        .await;
        if let Ok(Err(e)) = written {
            let _ = msgs.send(Event::HistoryNotWritten(e.to_string()));
        }
    }
}

/// The provider's own count of the request (`R`): Anthropic's
/// `count_tokens`, Gemini's `countTokens`. `job.id` is the preview's
/// generation it counts.
pub async fn count(client: reqwest::Client, job: SendJob, msgs: Outbox) {
    let provider = job.formatter.provider;
    let result = match prepare(&job) {
        Err(NotSent::Error(e)) => Err(e),
        Err(NotSent::HostNotChosen(h)) => Err(format!(
            "not counted: only the session names {h}, and the key goes only where you chose (S asks)"
        )),
        Ok((prepared, _, key, _)) => net::count_remote(
            &client,
            provider,
            &prepared,
            key.as_ref(),
            Timeouts::default(),
        )
        .await
        .map_err(|e| e.to_string()),
    };
    let _ = msgs.send(Event::RemoteCounted {
        generation: job.id,
        provider,
        result,
    });
}
