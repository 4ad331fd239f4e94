//! Port findings (`lint --agentscope java-2.0.2`): where AgentScope Java
//! 2.0.2 would send the session differently from Python 1.0.21 in a way a
//! provider treats differently — the history prompt read once per group,
//! thinking sent that Python drops, audio the model only reads the path of,
//! a system message splitting the history, a request Python refuses.
//!
//! As for upgrades (`upgrade.rs`), nothing is guessed from the session's
//! shape: both ports format it through `crate::reference::Reference`, and
//! a finding says what their outputs differ by. The rule ids are the
//! formatting rules' in `explain::RULES_JAVA`.

use super::{Input, Sink};
use crate::formatter::{FormatterId, Mode, Provider};
use crate::reference::{self, Family, Reference};
use serde_json::Value;

/// The port findings for one formatter, `release` being the Java release.
pub(super) fn checks(
    id: FormatterId,
    release: &dyn Reference,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let family = Family::of(id.provider);
    let Some(java_family) = release.family_of(id.provider) else {
        return;
    };
    let python = reference::default().format(input.session, &family, id.mode.into(), input.env);
    let java = release.format(input.session, java_family, id.mode.into(), input.env);
    let java_messages = match &java.messages {
        Ok(m) => m,
        Err(e) => {
            // Java's vendor-SDK providers are not reproduced: no finding.
            if e.kind != "UnsupportedOperationException" && python.messages.is_ok() {
                sink.add(
                    "java.raises",
                    (super::upgrade::first_raising(id, release, input), None),
                    Some(id),
                    format!(
                        "AgentScope Java 2.0.2 {} throws {}: {}",
                        java.call, e.kind, e.message
                    ),
                );
            }
            return;
        }
    };
    if id.provider == Provider::OpenAi {
        audio(id, java_messages, input, sink);
    }
    let python_messages = match &python.messages {
        Ok(m) => m,
        // Media Python could not reach here (offline, not allowed) say
        // nothing of what it would send.
        Err(e)
            if e.kind.contains("Connection")
                || e.kind.contains("Timeout")
                || e.kind.contains("Permission") =>
        {
            return
        }
        Err(e) => {
            sink.add(
                "java.sends-what-python-rejects",
                (
                    super::upgrade::first_raising(id, reference::default(), input),
                    None,
                ),
                Some(id),
                format!(
                    "AgentScope Java 2.0.2 sends this session where Python 1.0.21 raises {}: {}; the provider gets what Python refused",
                    e.kind,
                    e.message.lines().next().unwrap_or_default()
                ),
            );
            return;
        }
    };
    let outputs = (python_messages.as_slice(), java_messages.as_slice());
    history_prompt(id, outputs, input, sink);
    if id.provider == Provider::OpenAi {
        thinking(id, outputs, input, sink);
    }
    if id.mode == Mode::MultiAgent {
        system_in_middle(id, outputs, input, sink);
    }
}

/// How often `needle` occurs in the messages' JSON.
fn occurrences(messages: &[Value], needle: &str) -> usize {
    messages
        .iter()
        .map(|m| m.to_string().matches(needle).count())
        .sum()
}

/// Java gives every history group the whole conversation-history prompt;
/// Python the first only. The model reads the instructions once per group,
/// and each copy is billed.
fn history_prompt(
    id: FormatterId,
    (python, java): (&[Value], &[Value]),
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    const PROMPT: &str = "# Conversation History";
    let (p, j) = (occurrences(python, PROMPT), occurrences(java, PROMPT));
    if j <= p || j < 2 {
        return;
    }
    let starts = group_starts(input.messages());
    // Each group after the first, where the groups are where both ports
    // see them; else the session as a whole.
    let repeated: Vec<Option<usize>> = if starts.len() == j {
        starts.iter().skip(1).map(|i| Some(*i)).collect()
    } else {
        vec![None]
    };
    for at in repeated {
        sink.add(
            "java.multi-agent.history-prompt-every-group",
            (at, None),
            Some(id),
            format!(
                "AgentScope Java repeats the conversation-history prompt at each of the request's {j} history groups (Python sends it {p} time(s)): the model reads the instructions again here"
            ),
        );
    }
}

/// Where the multi-agent history groups start: a message of the
/// conversation (not the system prompt) after a tool call or result, and
/// the first such message.
fn group_starts(messages: &[Value]) -> Vec<usize> {
    let tool = |m: &Value| {
        m.get("content")
            .and_then(Value::as_array)
            .is_some_and(|blocks| {
                blocks.iter().any(|b| {
                    matches!(
                        b.get("type").and_then(Value::as_str),
                        Some("tool_use" | "tool_result")
                    )
                })
            })
    };
    let mut starts = Vec::new();
    let mut in_group = false;
    for (i, m) in messages.iter().enumerate() {
        let system = i == 0 && m.get("role").and_then(Value::as_str) == Some("system");
        if system {
            continue;
        }
        // A later system message is its own message in Java: it ends a
        // group and starts none.
        let later_system = m.get("role").and_then(Value::as_str) == Some("system");
        if tool(m) || later_system {
            in_group = false;
        } else if !in_group {
            starts.push(i);
            in_group = true;
        }
    }
    starts
}

/// OpenAI chat: Java sends the first thinking block as
/// `reasoning_content`; Python drops thinking.
fn thinking(
    id: FormatterId,
    (python, java): (&[Value], &[Value]),
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    const KEY: &str = "\"reasoning_content\"";
    const LINE: &str = "[Thinking]: ";
    let sent = |m: &[Value]| occurrences(m, KEY) + occurrences(m, LINE);
    if sent(java) == 0 || sent(python) > 0 {
        return;
    }
    // Chat sends each message's first thinking block; multi-agent every
    // one, as history lines.
    let mut seen = std::collections::BTreeSet::new();
    let thinking = blocks_of(input.messages(), |b| kind(b) == Some("thinking"))
        .filter(|(i, _)| id.mode == Mode::MultiAgent || seen.insert(*i))
        .collect::<Vec<_>>();
    for (i, j) in thinking {
        sink.add(
            "java.openai.thinking-reasoning-content",
            (Some(i), Some(j)),
            Some(id),
            "AgentScope Java sends this thinking to OpenAI (as reasoning_content, or a \"[Thinking]:\" history line); Python drops it".into(),
        );
    }
}

/// OpenAI: Java writes audio from a file or a URL as a text part holding
/// its path; the model never hears it.
fn audio(id: FormatterId, java: &[Value], input: &Input<'_>, sink: &mut Sink<'_>) {
    if occurrences(java, "[Audio URL: ") == 0 {
        return;
    }
    let by_url = |b: &Value| {
        kind(b) == Some("audio")
            && b.get("source")
                .and_then(|s| s.get("type"))
                .and_then(Value::as_str)
                == Some("url")
    };
    for (i, j) in blocks_of(input.messages(), by_url) {
        sink.add(
            "java.openai.audio-url-text",
            (Some(i), Some(j)),
            Some(id),
            "AgentScope Java sends this audio to OpenAI as the text \"[Audio URL: ...]\": the model reads the path and does not hear it (Python sends input_audio)".into(),
        );
    }
}

/// OpenAI-family multi-agent: a system message after the first is its own
/// system message in Java, splitting the history; a history line in
/// Python.
fn system_in_middle(
    id: FormatterId,
    (python, java): (&[Value], &[Value]),
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let later_system = |m: &[Value]| {
        m.iter()
            .skip(1)
            .filter(|v| v.get("role").and_then(Value::as_str) == Some("system"))
            .count()
    };
    if later_system(java) <= later_system(python) {
        return;
    }
    for (i, m) in input.messages().iter().enumerate().skip(1) {
        if m.get("role").and_then(Value::as_str) == Some("system")
            && blocks_of(std::slice::from_ref(m), |b| {
                matches!(kind(b), Some("tool_use" | "tool_result"))
            })
            .next()
            .is_none()
        {
            sink.add(
                "java.openai.system-in-middle",
                (Some(i), None),
                Some(id),
                "AgentScope Java sends this system message as its own system message, splitting the history in two (Python writes it as a history line)".into(),
            );
        }
    }
}

fn kind(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

/// (message, block) of every block `wanted` holds.
fn blocks_of<'a>(
    messages: &'a [Value],
    wanted: impl Fn(&Value) -> bool + 'a,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    messages.iter().enumerate().flat_map(move |(i, m)| {
        let blocks = m.get("content").and_then(Value::as_array);
        let hits: Vec<(usize, usize)> = blocks
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, b)| wanted(b))
            .map(|(j, _)| (i, j))
            .collect();
        hits
    })
}

/// Whether `release` is a port whose differences lint reports.
pub fn is_port(release: &dyn Reference) -> bool {
    release.version().starts_with("java-")
}
