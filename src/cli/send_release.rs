//! `formatscope send SESSION --agentscope VERSION` for a release other than
//! the default: the release's own wire (`Reference::request`) sent byte for
//! byte, its reply parsed as its model classes parse it
//! (`Reference::replies`) and printed as it streams, recorded in the
//! history under the release; `--append` adds the reply as the release
//! holds it. The key rules are the default release's: a key goes unasked
//! only to the family's own host or one the user chose.

use super::request::{ask_release, Asked};
use super::send::{allowed_hosts, append_message, runtime, session_text, timeouts, SendArgs};
use super::{failure, safe, say, success, usage_error, Exit};
use formatscope::json;
use formatscope::net::exchange::{exchange, Exchanged};
use formatscope::net::hosts::{self, ChosenHosts, HostRefusal};
use formatscope::net::redact::StreamRedactor;
use formatscope::net::{self, ApiKey, Prepared, SendError};
use formatscope::reference::{Reference, Replies, WireAsk};
use serde_json::Value;
use std::io::Write;

pub(crate) fn run(args: &SendArgs, release: &'static dyn Reference) -> Exit {
    let allowed = match allowed_hosts(args) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let allowed = allowed.as_slice();
    let Asked {
        session,
        family,
        mode,
        mut settings,
    } = match ask_release(&args.wire, release) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    if let Some(url) = &args.base_url {
        if let Err(e) = release.with_base_url(family, &mut settings, url) {
            return usage_error(e);
        }
    }
    let env = super::media_env(
        &session,
        super::web_fetcher(&args.wire.web_root, args.wire.offline),
    );
    let ask = WireAsk {
        session: &session,
        family,
        mode,
        class: args.wire.formatter.as_deref(),
        settings: &settings,
        tool_choice_tools: super::request::names(&args.wire.tool_choice_tools),
        input_types: super::request::names(&args.wire.input_types),
        history_prompt: args.wire.conversation_history_prompt.clone(),
        endpoint: args.wire.endpoint.clone(),
        env: &env,
    };
    let requested = match release.request(&ask) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    super::report_access(env.gate());
    let Some(wire) = requested.sendable() else {
        println_json(&Value::Object(requested.printed.clone()), None);
        say("error: nothing was sent: AgentScope or the SDK raises before sending");
        return failure();
    };
    if let Some(g) = &wire.grpc {
        return usage_error(format!(
            "nothing was sent: {} reaches {} over gRPC ({}), which formatscope does not speak; `formatscope request --agentscope {} --as json` shows the message",
            requested.class,
            g.target,
            g.method,
            release.version()
        ));
    }
    let timeouts = match timeouts(args) {
        Ok(t) => t,
        Err(e) => return usage_error(e),
    };
    let environment = |k: &str| std::env::var(k).ok();
    let key = match requested.key_variable {
        None => None,
        Some(var) => match ApiKey::from_variable(var, family.title, environment) {
            Ok(k) => Some(k),
            Err(e) => return usage_error(e),
        },
    };
    let chosen = ChosenHosts::around(requested.home, args.base_url.as_deref(), allowed);
    let host = match hosts::check(&wire.url, key.is_some(), &chosen) {
        Ok(h) => h,
        Err(HostRefusal::NoHost(url)) => {
            return usage_error(format!(
                "nothing was sent: the request's URL {} has no host",
                safe(&url)
            ))
        }
        Err(HostRefusal::NotChosen(h)) => {
            return usage_error(format!(
                "nothing was sent: the session names {h} as the {} server, and formatscope sends your key only to its own host or one you chose; to send it there: --allow-host {h}, or --base-url URL",
                family.title
            ))
        }
    };
    let prepared = Prepared::from_wire(wire, requested.framing, wire.stream);
    let original = if args.append {
        match session_text(&args.wire.session) {
            Ok(t) => Some(t),
            Err(e) => return usage_error(e),
        }
    } else {
        None
    };
    let runtime = runtime()?;
    say(format!(
        "note: sending to {} ({} · {})",
        safe(&host.to_string()),
        release.title(),
        requested.class
    ));
    let mut reading = Reading {
        parser: release.replies(&requested),
        stream: wire.stream,
        json: args.json,
        whole: None,
        error: None,
        printed_text: false,
        redactor: StreamRedactor::new(key.as_ref()),
        key: key.clone(),
    };
    if reading.parser.is_none() {
        say(format!(
            "note: {}'s parsing of the reply is not reproduced: the reply is shown as it came",
            release.title()
        ));
    }
    let result: Result<Exchanged, SendError> = runtime.block_on(async {
        let client = net::client(timeouts)?;
        let sending = exchange(&client, &prepared, key.as_ref(), timeouts, |event| {
            reading.take(event)
        });
        tokio::select! {
            r = sending => r,
            _ = tokio::signal::ctrl_c() => Err(SendError::Cancelled),
        }
    });
    // What the key filter held back as a key's possible start.
    out!("{}", reading.redactor.finish());
    if reading.printed_text && !args.json {
        outln!();
    }
    // What came back may echo the key: never printed (`net::redact`).
    let result = result.map_err(|e| e.redacted(key.as_ref()));
    let redact = |s: &str| net::redact::redact(s, key.as_ref()).into_owned();
    let final_reply = match &result {
        Ok(_) if reading.error.is_none() => reading.finish(),
        _ => None,
    };
    let warnings = reading
        .parser
        .as_ref()
        .map(|p| p.warnings())
        .unwrap_or_default();
    let model = wire
        .kwargs
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    super::history::record(&net::record::release_entry(
        &net::record::ReleaseSent {
            session: formatscope::history::session_key(&args.wire.session),
            messages: &session.messages,
            release: release.version(),
            family: family.id,
            model: &model,
            host: &host,
            body: &prepared.body,
            key: key.as_ref(),
        },
        net::record::ReleaseEnded {
            reply: final_reply.clone(),
            error: match (&result, &reading.error) {
                (Err(e), _) => Some(e.to_string()),
                (_, Some((kind, message))) => Some(format!("{kind}: {message}")),
                _ => None,
            },
            cancelled: matches!(result, Err(SendError::Cancelled)),
            elapsed: result.as_ref().map(|r| r.total).unwrap_or_default(),
            first_event: result.as_ref().ok().and_then(|r| r.first_event),
        },
    ));
    for w in &warnings {
        say(format!("warning: {}", safe(&redact(w))));
    }
    let done = match result {
        Ok(d) => d,
        Err(SendError::Cancelled) => {
            say("cancelled: nothing was appended");
            return Ok(std::process::ExitCode::from(super::CANCELLED));
        }
        Err(e) => {
            say(format!("error: {}", safe(&e.to_string())));
            return failure();
        }
    };
    if let Some((kind, message)) = &reading.error {
        say(format!("error: {kind}: {}", safe(&redact(message))));
        if args.append {
            say("nothing was appended");
        }
        return failure();
    }
    let usage = final_reply
        .as_ref()
        .and_then(|r| r.get("usage"))
        .filter(|u| !u.is_null())
        .cloned();
    if args.json {
        println_json(
            &json!({
                "final": &final_reply,
                "events": done.events,
                "first_event": done.first_event.map(|d| d.as_secs_f64()),
                "total_time": done.total.as_secs_f64(),
            }),
            key.as_ref(),
        );
    } else {
        let mut line = String::new();
        if let Some(u) = &usage {
            line.push_str(&format!(
                "usage: {} in, {} out · ",
                u["input_tokens"], u["output_tokens"]
            ));
        }
        if let Some(t) = done.first_event {
            line.push_str(&format!("first event {:.2} s · ", t.as_secs_f64()));
        }
        line.push_str(&format!("total {:.2} s", done.total.as_secs_f64()));
        say(line);
    }
    let holder = release.replies(&requested);
    // A reply with nothing an agent keeps (another API's shape, or an
    // empty one) is an error, appended or not.
    let keeps = |reply: &Value| {
        formatscope::response::holds_something(
            reply
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice),
        )
    };
    if holder.is_some() && final_reply.as_ref().is_some_and(|r| !keeps(r)) {
        say("error: the reply holds nothing AgentScope would keep (no text, thinking, tool call or media)");
        if original.is_some() {
            say("nothing was appended");
        }
        return failure();
    }
    match (original, final_reply, holder) {
        (Some(original), Some(reply), Some(holder)) => append_message(
            args,
            &original,
            |name| holder.held(&reply, name),
            &format!("{} {}", release.title(), family.title),
        ),
        (Some(_), _, _) => {
            say("error: the reply was not parsed here; nothing was appended");
            failure()
        }
        _ => success(),
    }
}

/// The reply as it comes in: parsed and shown.
struct Reading {
    parser: Option<Box<dyn Replies>>,
    stream: bool,
    json: bool,
    /// A whole (non-streamed) reply, parsed.
    whole: Option<Value>,
    /// What the parsing raised (kind, message).
    error: Option<(String, String)>,
    printed_text: bool,
    /// The stream's text past the key filter (a key split across chunks).
    redactor: StreamRedactor,
    /// The send's key, replaced in every JSON line.
    key: Option<ApiKey>,
}

impl Reading {
    /// One event; whether to read on.
    fn take(&mut self, event: Value) -> bool {
        let Some(parser) = self.parser.as_mut() else {
            println_json(&event, self.key.as_ref());
            return true;
        };
        if !self.stream {
            match parser.whole(&event) {
                Ok(reply) => {
                    self.show(&reply);
                    self.whole = Some(reply);
                }
                Err(e) => self.error = Some((e.kind, e.message)),
            }
            return false;
        }
        match parser.push(&event) {
            Ok(Some(delta)) => self.show(&delta),
            Ok(None) => {}
            Err(e) => {
                self.error = Some((e.kind, e.message));
                return false;
            }
        }
        !self.parser.as_ref().is_some_and(|p| p.done())
    }

    /// A response: a JSON line, or its text as it streams.
    fn show(&mut self, reply: &Value) {
        if self.json {
            println_json(reply, self.key.as_ref());
            return;
        }
        let mut out = std::io::stdout().lock();
        for block in reply
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let text = match block.get("type").and_then(Value::as_str) {
                Some("text") => block
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                Some("thinking") => block
                    .get("thinking")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(|t| format!("[thinking] {t}")),
                Some("tool_call") => Some(format!(
                    "\n[tool call {} {}] {}",
                    block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    block.get("id").and_then(Value::as_str).unwrap_or_default(),
                    block
                        .get("input")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                )),
                Some("data") => Some("[audio]".into()),
                _ => None,
            };
            if let Some(t) = text {
                let _ = write!(out, "{}", self.redactor.push(&super::safe(&t)));
                self.printed_text = true;
            }
        }
        let _ = out.flush();
    }

    /// The final response: the whole reply, or the stream's accumulated.
    fn finish(&mut self) -> Option<Value> {
        if let Some(w) = self.whole.take() {
            return Some(w);
        }
        if !self.stream {
            return None;
        }
        let last = self.parser.take()?.finish();
        if self.json {
            println_json(&last, self.key.as_ref());
        }
        Some(last)
    }
}

/// One JSON line, `key` replaced.
fn println_json(v: &Value, key: Option<&ApiKey>) {
    let mut v = std::borrow::Cow::Borrowed(v);
    if let Some(k) = key {
        k.redact_value(v.to_mut());
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", formatscope::text::json_line(&v));
}
