//! A live send from the workbench under another release (`V`): the
//! release builds the request (`Reference::request`), the bytes go out as
//! built (`net::exchange`), and the release parses the reply
//! (`Reference::replies`). The pane gets the reply so far at the
//! sender's pace, then the release's own message for `A`, then `Done`;
//! the history records the send under the release. The key rules are the
//! default release's: unasked only to the family's own host, else the
//! user says yes first.

use super::msg::ReplyUpdate;
use super::msg::{Event, Outbox, SendJob};
use super::sender::PACE;
use super::worker::ReleaseJob;
use formatscope_core::media::{MediaEnv, NoNetwork};
use formatscope_core::reference::WireAsk;
use formatscope_core::response::{ChatResponse, ParseError, Usage};
use formatscope_net::exchange::exchange;
use formatscope_net::hosts::{self, ChosenHosts, HostRefusal};
use formatscope_net::{self as net, ApiKey, Outcome, Prepared, Timeouts};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A 2.x-shaped response (`{"content", "usage", "id"}`) as the reply pane
/// holds responses: its blocks as they are, its token counts.
fn pane_response(reply: &Value) -> ChatResponse {
    let usage = reply.get("usage").filter(|u| !u.is_null()).map(|u| Usage {
        input_tokens: u.get("input_tokens").cloned().unwrap_or(Value::Null),
        output_tokens: u.get("output_tokens").cloned().unwrap_or(Value::Null),
        time: u.get("time").and_then(Value::as_f64).unwrap_or_default(),
        metadata: Value::Null,
    });
    ChatResponse {
        id: reply.get("id").and_then(Value::as_str).map(str::to_string),
        content: reply
            .get("content")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        usage,
        metadata: Value::Null,
    }
}

pub async fn run(client: reqwest::Client, job: SendJob, target: ReleaseJob, msgs: Outbox) {
    let id = job.id;
    let say = |update: ReplyUpdate| {
        let _ = msgs.send(Event::Reply { id, update });
    };
    let release = target.release;
    // Built before anything is awaited: the media world stays on this
    // thread.
    let requested = {
        let env = MediaEnv::new(job.session.base_dir(), Arc::new(NoNetwork));
        let ask = WireAsk {
            session: &job.session,
            family: target.family,
            mode: target.mode,
            class: None,
            settings: &job.settings,
            tool_choice_tools: None,
            input_types: None,
            history_prompt: None,
            endpoint: None,
            env: &env,
        };
        release.request(&ask)
    };
    let requested = match requested {
        Ok(r) => r,
        Err(e) => return say(ReplyUpdate::Failed(e.to_string())),
    };
    let Some(wire) = requested.sendable() else {
        let why = requested
            .stopped
            .as_ref()
            .map(|s| s.error.said_by(&release.title()))
            .unwrap_or_else(|| "the SDK raises before sending".into());
        return say(ReplyUpdate::Failed(format!("not sent: {why}")));
    };
    if let Some(g) = &wire.grpc {
        return say(ReplyUpdate::Failed(format!(
            "not sent: {} reaches {} over gRPC, which formatscope does not speak (v shows the message)",
            requested.class, g.target
        )));
    }
    let Some(mut parser) = release.replies(&requested) else {
        return say(ReplyUpdate::Failed(format!(
            "not sent: {}'s parsing of the reply is not reproduced here (formatscope send --agentscope {} shows it as it came)",
            release.title(),
            release.version()
        )));
    };
    let environment = |k: &str| std::env::var(k).ok();
    let key = match requested.key_variable {
        None => None,
        Some(var) => match ApiKey::from_variable(var, target.family.title, environment) {
            Ok(k) => Some(k),
            Err(e) => return say(ReplyUpdate::Failed(e.to_string())),
        },
    };
    let chosen = ChosenHosts::around(requested.home, None, &job.allowed_hosts);
    let host = match hosts::check(&wire.url, key.is_some(), &chosen) {
        Ok(h) => h,
        Err(HostRefusal::NotChosen(h)) => return say(ReplyUpdate::HostNotChosen(h)),
        Err(HostRefusal::NoHost(url)) => {
            return say(ReplyUpdate::Failed(format!(
                "the request's URL {url} has no host"
            )))
        }
    };
    let prepared = Prepared::from_wire(wire, requested.framing, wire.stream);
    say(ReplyUpdate::Started {
        url: prepared.url.clone(),
        host: host.to_string(),
        stream: prepared.stream,
    });
    let started = Instant::now();
    let mut whole: Option<Result<Value, formatscope_core::reference::Raised>> = None;
    let mut failed: Option<formatscope_core::reference::Raised> = None;
    let mut responses = 0usize;
    let mut first_content: Option<Duration> = None;
    let mut shown: Option<Instant> = None;
    let result = exchange(
        &client,
        &prepared,
        key.as_ref(),
        Timeouts::default(),
        |event| {
            if !prepared.stream {
                whole = Some(parser.whole(&event));
                return false;
            }
            match parser.push(&event) {
                Ok(Some(_)) => {
                    responses += 1;
                    first_content.get_or_insert_with(|| started.elapsed());
                    // The pane shows the reply so far, at most once a PACE.
                    // (`Done` brings the whole reply.)
                    if shown.is_none_or(|t| t.elapsed() >= PACE) {
                        shown = Some(Instant::now());
                        say(ReplyUpdate::Chunk(Box::new(super::sender::pane_tail(
                            &pane_response(&parser.snapshot()),
                        ))));
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    failed = Some(e);
                    return false;
                }
            }
            !parser.done()
        },
    )
    .await;
    let warnings = parser.warnings();
    let final_reply = match (&result, failed.is_some(), whole) {
        (Ok(_), false, Some(Ok(w))) => Some(w),
        (Ok(_), false, Some(Err(e))) => {
            failed = Some(e);
            None
        }
        (Ok(_), false, None) if prepared.stream => Some(parser.snapshot()),
        _ => None,
    };
    let name =
        formatscope_core::response::reply_speaker(job.session.messages.iter().map(|m| m.value()));
    if let Some(reply) = &final_reply {
        say(ReplyUpdate::Held(parser.held(reply, &name)));
    }
    let entry = job.history.clone().map(|(db, session)| {
        let model = wire
            .kwargs
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let sent = net::record::ReleaseSent {
            session,
            messages: &job.session.messages,
            release: release.version(),
            family: target.family.id,
            model: &model,
            host: &host,
            body: &prepared.body,
            key: key.as_ref(),
        };
        let ended = net::record::ReleaseEnded {
            reply: final_reply.clone(),
            error: match (&result, &failed) {
                (Err(e), _) => Some(e.to_string()),
                (_, Some(e)) => Some(format!("{}: {}", e.kind, e.message)),
                _ => None,
            },
            cancelled: false,
            elapsed: started.elapsed(),
            first_event: result.as_ref().ok().and_then(|r| r.first_event),
        };
        (db, net::record::release_entry(&sent, ended))
    });
    match result {
        Ok(done) => {
            let outcome = Outcome {
                final_response: final_reply.as_ref().map(pane_response),
                chunks: responses.max(usize::from(final_reply.is_some())),
                time_to_first_token: first_content.or(done.first_event),
                total: done.total,
                parse_error: failed.map(|e| ParseError {
                    error_type: e.kind,
                    message: e.message,
                    stage: "parse",
                }),
                warnings,
                // A reply with nothing an agent keeps (another API's shape,
                // or empty) is not "done": `A` would append an empty turn.
                nothing: final_reply
                    .as_ref()
                    .filter(|r| {
                        !formatscope_core::response::holds_something(
                            r.get("content")
                                .and_then(Value::as_array)
                                .map_or(&[], Vec::as_slice),
                        )
                    })
                    .map(|_| {
                        format!(
                            "the reply holds nothing {} would keep (no text, thinking, tool call or media)",
                            release.title()
                        )
                    }),
            };
            say(ReplyUpdate::Done(Box::new(outcome)));
        }
        Err(e) => say(ReplyUpdate::Failed(e.to_string())),
    }
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
