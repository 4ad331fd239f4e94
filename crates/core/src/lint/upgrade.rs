//! Upgrade findings (`lint --agentscope 2.0.11`): what AgentScope 2.0.11
//! rejects or drops of a session that 1.0.21 formats, each with its fix.
//!
//! Nothing here is guessed from the session's shape: the session (or one
//! message of it) is formatted by both releases through
//! `crate::reference::Reference`, and a finding says what the outputs
//! differ by. 2.0.11 raises where 1.0.21 formats: the first message whose
//! prefix raises is named. A block is dropped when its message formats the
//! same without it. A message changes role when 2.x's conversion of the
//! session (its `--msgs-only`) gives it another one.

use super::{Input, Sink};
use crate::provider::FormatterId;
use crate::reference::{self, Family, Mode, Raised, Reference};
use crate::session::{PackedMessage, Session};
use serde_json::Value;

/// The upgrade checks for one formatter, `release` being the release the
/// session is upgraded to.
pub(super) fn checks(
    id: FormatterId,
    release: &dyn Reference,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let from = reference::default();
    let family = Family::of(id.provider);
    let run = |r: &dyn Reference, s: &Session| r.format(s, &family, id.mode.into(), input.env);
    let (before, after) = (run(from, input.session), run(release, input.session));
    if let (Ok(_), Err(e)) = (&before.messages, &after.messages) {
        raises(id, release, e, input, sink);
    }
    if let (Ok(b), Ok(a)) = (&before.messages, &after.messages) {
        reminder(id, release, (b, a), input, sink);
    }
    roles(release, input, sink);
    // Text always goes; tool calls and results pair across messages, and
    // their media are the reminder's.
    let skip = |_: usize, _: usize, kind: &str| matches!(kind, "text" | "tool_use" | "tool_result");
    for (i, j, kind) in dropped_blocks(release, &family, id.mode.into(), input, skip) {
        let media = matches!(kind, "image" | "audio" | "video");
        let (rule, why) = if media {
            ("v2.media-dropped", "outside the formatter's input_types")
        } else {
            ("v2.block-dropped", "its formatter skips it")
        };
        sink.add(
            rule,
            (Some(i), Some(j)),
            Some(id),
            format!(
                "AgentScope {} leaves this {kind} block out of the request ({why}); {} sends it",
                release.version(),
                from.version()
            ),
        );
    }
}

/// The blocks `release` leaves out of `family`'s request that the default
/// release sends, as (message, block, type): by both releases, each block
/// with some context of its message formatted against the context alone
/// ([`super::Probes`]: the message formatted whole without each block, four
/// times per block, was quadratic: 2,000 blocks took 165 s). Blocks `skip`
/// names are not tried.
pub(super) fn dropped_blocks<'v>(
    release: &dyn Reference,
    family: &Family,
    mode: Mode,
    input: &'v Input<'_>,
    skip: impl Fn(usize, usize, &str) -> bool,
) -> Vec<(usize, usize, &'v str)> {
    let from = reference::default();
    // The messages `r` makes of `m` alone; None: it raises.
    let run = |r: &dyn Reference, m: &Value| {
        r.format(&alone(input.session, m), family, mode, input.env)
            .messages
            .ok()
    };
    let mut out = Vec::new();
    for (i, m) in input.messages().iter().enumerate() {
        let Some(probes) = super::Probes::new(m) else {
            continue;
        };
        let blocks = m.get("content").and_then(Value::as_array);
        // Each context without its block, by each release, formatted once.
        let mut without = std::collections::HashMap::new();
        for (j, b) in blocks.into_iter().flatten().enumerate() {
            let kind = b.get("type").and_then(Value::as_str).unwrap_or("?");
            if skip(i, j, kind) {
                continue;
            }
            let (none_release, none_from) = without.entry(probes.key(j)).or_insert_with(|| {
                let none = probes.without_block(j);
                (run(release, &none), run(from, &none))
            });
            let block = probes.with_block(j, b);
            // Some(true): the same as without it; None: either raises.
            let dropped = |r: &dyn Reference, none: &Option<Vec<Value>>| {
                Some(run(r, &block)? == *none.as_ref()?)
            };
            if dropped(release, none_release) == Some(true)
                && dropped(from, none_from) == Some(false)
            {
                out.push((i, j, kind));
            }
        }
    }
    out
}

/// The session with only message `m`.
fn alone(session: &Session, m: &Value) -> Session {
    Session {
        path: session.path.clone(),
        shape: session.shape,
        messages: vec![PackedMessage::new(m)].into(),
        tools: None,
        settings: session.settings.clone(),
        warnings: Vec::new(),
    }
}

/// The message at which `release` starts to raise: the last of the
/// shortest prefix of the session it raises on (a binary search over
/// prefixes; the whole session raises).
pub(super) fn first_raising(
    id: FormatterId,
    release: &dyn Reference,
    input: &Input<'_>,
) -> Option<usize> {
    let session = input.session;
    let family = release.family_of(id.provider)?;
    let fails = |n: usize| {
        let prefix = Session {
            messages: session.messages[..n].to_vec().into(),
            ..alone(session, &Value::Null)
        };
        release
            .format(&prefix, family, id.mode.into(), input.env)
            .messages
            .is_err()
    };
    let (mut lo, mut hi) = (0, session.messages.len());
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if fails(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (hi > 0 && fails(hi)).then(|| hi - 1)
}

/// 2.x raises where 1.0.21 formats: the error, on the first message whose
/// prefix of the session raises (a binary search over prefixes).
fn raises(
    id: FormatterId,
    release: &dyn Reference,
    error: &Raised,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let at = first_raising(id, release, input);
    let message: String = error.message.lines().take(3).collect::<Vec<_>>().join("; ");
    let (rule, block) = if error.message.contains("audio/x-wav") {
        ("v2.audio-x-wav", at.and_then(|i| wav_block(input, i)))
    } else {
        ("v2.raises", None)
    };
    sink.add(
        rule,
        (at, block),
        Some(id),
        format!(
            "AgentScope {} raises {}: {message}",
            release.version(),
            error.kind
        ),
    );
}

/// The first audio block of message `i` whose `.wav` URL 2.x guesses as
/// `audio/x-wav` (no media type of its own).
fn wav_block(input: &Input<'_>, i: usize) -> Option<usize> {
    let blocks = input.messages().get(i)?.get("content")?.as_array()?;
    blocks.iter().position(|b| {
        let source = b.get("source");
        b.get("type").and_then(Value::as_str) == Some("audio")
            && source.and_then(|s| s.get("media_type")).is_none()
            && source
                .and_then(|s| s.get("url"))
                .and_then(Value::as_str)
                .is_some_and(|u| u.to_ascii_lowercase().ends_with(".wav"))
    })
}

/// Tool-result media: 1.0.21 writes a path in the tool result, 2.x
/// always sends them in a `<system-reminder>` user message.
fn reminder(
    id: FormatterId,
    release: &dyn Reference,
    outputs: (&[Value], &[Value]),
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    const TAG: &str = "<system-reminder>";
    let has = |m: &[Value]| m.iter().any(|v| v.to_string().contains(TAG));
    if has(outputs.0) || !has(outputs.1) {
        return;
    }
    for (i, m) in input.messages().iter().enumerate() {
        let blocks = m.get("content").and_then(Value::as_array);
        for (j, b) in blocks.into_iter().flatten().enumerate() {
            let media = b.get("type").and_then(Value::as_str) == Some("tool_result")
                && b.get("output").and_then(Value::as_array).is_some_and(|o| {
                    o.iter().any(|x| {
                        matches!(
                            x.get("type").and_then(Value::as_str),
                            Some("image" | "audio" | "video")
                        )
                    })
                });
            if media {
                sink.add(
                    "v2.tool-result-media.system-reminder",
                    (Some(i), Some(j)),
                    Some(id),
                    format!(
                        "AgentScope {} sends this tool result's media in a {TAG} user message after it (1.0.21 wrote their paths in the result)",
                        release.version()
                    ),
                );
            }
        }
    }
}

/// Messages 2.x's message model holds under another role: v1 kept tool
/// results in user and system messages, 2.x only in assistant ones.
fn roles(release: &dyn Reference, input: &Input<'_>, sink: &mut Sink<'_>) {
    let Some(converted) = converted_roles(input) else {
        return;
    };
    for (i, (m, now)) in input.messages().iter().zip(converted).enumerate() {
        let was = m.get("role").and_then(Value::as_str).unwrap_or("?");
        if let Some(now) = now.filter(|now| now != was) {
            sink.add(
                "v2.tool-result-role",
                (Some(i), None),
                None,
                format!(
                    "AgentScope {}'s Msg rejects this {was} message's tool blocks: it holds them only in an {now} message",
                    release.version()
                ),
            );
        }
    }
}

/// The role each message has in 2.x's conversion of the session.
fn converted_roles(input: &Input<'_>) -> Option<Vec<Option<String>>> {
    // Built, not serialized: `json!` unwraps a serialization, and a number
    // Python wrote as NaN or Infinity does not serialize (it panicked).
    let mut session = serde_json::Map::new();
    session.insert("messages".into(), Value::Array(input.messages().to_vec()));
    let session = Value::Object(session);
    let opts = reference::v2::Options {
        msgs_only: true,
        ..Default::default()
    };
    let out = reference::v2::run_with(&session, input.env, &opts).ok()?;
    let msgs = out.get("msgs")?.as_array()?;
    (msgs.len() == input.messages().len()).then(|| {
        msgs.iter()
            .map(|m| m.get("role").and_then(Value::as_str).map(str::to_string))
            .collect()
    })
}

/// Whether `release` has upgrade findings: the 2.x releases.
pub fn upgrades_to(release: &dyn Reference) -> bool {
    release.version().starts_with("2.")
}
