//! A request sent for a release whose replies the release parses itself
//! (`Reference::replies`): the bytes go out as built, the reply comes back
//! as JSON events (each SSE frame's data, each NDJSON line, or the whole
//! body), under the same timeouts and bounds as every send; the whole
//! reply, streamed or not, is capped at [`super::BODY_LIMIT`].

use super::{open, read_body, root_cause, ApiKey, Prepared, SendError, Timeouts};
use formatscope_core::response::framing::EventReader;
use formatscope_core::response::Event;
use serde_json::Value;
use std::time::{Duration, Instant};

/// How an exchange went.
#[derive(Debug, Clone)]
pub struct Exchanged {
    /// Events handed over.
    pub events: usize,
    /// Until the first event.
    pub first_event: Option<Duration>,
    pub total: Duration,
}

fn too_large() -> SendError {
    SendError::Stream(super::body_too_large())
}

/// Sends `prepared` and hands each event of the reply to `on_event`,
/// which says whether to read on. OpenAI's `[DONE]` is the JSON string.
pub async fn exchange(
    client: &reqwest::Client,
    prepared: &Prepared,
    key: Option<&ApiKey>,
    timeouts: Timeouts,
    mut on_event: impl FnMut(Value) -> bool,
) -> Result<Exchanged, SendError> {
    let start = Instant::now();
    let url = prepared.url.clone();
    let mut resp = open(client, prepared, key, timeouts).await?;
    let mut done = Exchanged {
        events: 0,
        first_event: None,
        total: Duration::ZERO,
    };
    let note = |done: &mut Exchanged| {
        done.events += 1;
        done.first_event.get_or_insert_with(|| start.elapsed());
    };
    if !prepared.stream {
        let body = match tokio::time::timeout(
            timeouts.idle,
            read_body(&mut resp, super::BODY_LIMIT),
        )
        .await
        {
            Err(_) => {
                return Err(SendError::Timeout {
                    what: "body",
                    after: timeouts.idle,
                    url,
                })
            }
            Ok(Err(e)) => return Err(SendError::Dropped(root_cause(&e))),
            Ok(Ok((_, true))) => return Err(too_large()),
            Ok(Ok((b, false))) => b,
        };
        let value = formatscope_core::json::parse(&body, Default::default())
            .map(|p| p.value)
            .map_err(|e| SendError::NotAReply(format!("the reply body is not JSON: {e}")))?;
        note(&mut done);
        on_event(value);
        done.total = start.elapsed();
        return Ok(done);
    }
    let mut reader = EventReader::new(prepared.api);
    let mut bytes = 0usize;
    let mut reading = true;
    while reading {
        let chunk = match tokio::time::timeout(timeouts.idle, resp.chunk()).await {
            Err(_) => {
                return Err(SendError::Timeout {
                    what: "stream data",
                    after: timeouts.idle,
                    url,
                })
            }
            Ok(Err(e)) => return Err(SendError::Dropped(root_cause(&e))),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(c))) => c,
        };
        bytes += chunk.len();
        if bytes > super::BODY_LIMIT {
            return Err(too_large());
        }
        for event in reader.push(&chunk)? {
            note(&mut done);
            if !on_event(event_value(event)) {
                reading = false;
                break;
            }
        }
    }
    if reading {
        for event in reader.finish()? {
            note(&mut done);
            if !on_event(event_value(event)) {
                break;
            }
        }
    }
    done.total = start.elapsed();
    Ok(done)
}

fn event_value(event: Event) -> Value {
    match event {
        Event::Json(v) => v,
        Event::Text(t) => Value::String(t),
    }
}
