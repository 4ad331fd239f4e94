//! The twelve AgentScope 1.0.21 formatters: six providers, each in chat and
//! multi-agent mode. Each provider module is a faithful transliteration of
//! AgentScope's Python over `serde_json::Value`, including the exceptions
//! its dynamic typing raises; this module holds what they share.

mod anthropic;
mod dashscope;
mod deepseek;
mod every_core;
mod gemini;
mod ollama;
mod openai;
mod segments;
mod shared;
mod tools;

use crate::media::MediaEnv;
use crate::py::PyErr;
use crate::session::{Msg, MsgItem, Role, ToolIds};
use crate::tokens::MessageCounter;
use serde_json::Value;
use shared::Group;
use std::borrow::Cow;
use std::sync::Arc;

pub use segments::{
    message_keys, Build, FormattedRequest, Piece, Pieces, Placement, SegmentError, Segmented, Span,
    Unit, UnitKind, UnitOutput, UnitPlaces, SYSTEM_UNIT,
};
pub use tools::format_tools;
// The shared enums live below every layer that uses them.
pub use crate::provider::{FormatterId, FormatterOption, Mode, Provider};

/// AgentScope's default `conversation_history_prompt`.
pub const DEFAULT_HISTORY_PROMPT: &str = "# Conversation History\nThe content between <history></history> tags contains your conversation history\n";

/// Constructor options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FormatOptions {
    pub promote_images: bool,
    pub promote_audios: bool,
    pub promote_videos: bool,
    /// `None` is AgentScope's default prompt.
    pub history_prompt: Option<String>,
}

impl FormatOptions {
    /// The options set that `id`'s constructor does not take.
    pub fn unsupported_by(&self, id: FormatterId) -> Vec<FormatterOption> {
        [
            (self.promote_images, FormatterOption::PromoteImages),
            (self.promote_audios, FormatterOption::PromoteAudios),
            (self.promote_videos, FormatterOption::PromoteVideos),
            (
                self.history_prompt.is_some(),
                FormatterOption::HistoryPrompt,
            ),
        ]
        .into_iter()
        .filter(|(set, opt)| *set && !id.accepts(*opt))
        .map(|(_, opt)| opt)
        .collect()
    }

    fn history_prompt(&self) -> &str {
        self.history_prompt
            .as_deref()
            .unwrap_or(DEFAULT_HISTORY_PROMPT)
    }
}

/// AgentScope's truncation settings: `token_counter` + `max_tokens`.
pub struct Budget<'a> {
    pub counter: &'a dyn MessageCounter,
    pub max_tokens: i64,
}

/// `formatter.format(msgs)`: format, and with a budget count and drop the
/// oldest messages until the result fits (AgentScope's FIFO loop).
pub fn format(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    env: &MediaEnv,
    budget: Option<Budget<'_>>,
) -> Result<Vec<Value>, PyErr> {
    if budget.is_none() && id.mode == Mode::MultiAgent {
        // One pass that leaves the list as it is: no working copy.
        return multi_agent(id.provider, options, msgs, env);
    }
    format_traced(id, options, msgs, env, budget).map(|run| run.formatted)
}

/// What the reference loop ended with.
#[derive(Debug, Clone)]
pub struct LoopRun {
    pub formatted: Vec<Value>,
    /// The list it last formatted (promoted messages included).
    pub working: Vec<Arc<Msg>>,
    /// The count of the first pass and of the last (with a budget).
    pub first_count: Option<i64>,
    pub last_count: Option<i64>,
    pub steps: usize,
}

/// [`format`], reporting the counts and the list it ended with: a plain
/// re-implementation of AgentScope's loop, one full format and count per
/// dropped span (what the truncation planner is checked against).
pub fn format_traced(
    id: FormatterId,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    env: &MediaEnv,
    budget: Option<Budget<'_>>,
) -> Result<LoopRun, PyErr> {
    if let Some(b) = &budget {
        if b.max_tokens <= 0 {
            return Err(PyErr::assertion("max_tokens must be greater than 0"));
        }
    }
    let mut working: Vec<Arc<Msg>> = msgs.to_vec();
    let mut first_count = None;
    let mut steps = 0;
    loop {
        let formatted = format_once(id, options, &mut working, env)?;
        let Some(b) = &budget else {
            return Ok(LoopRun {
                formatted,
                working,
                first_count,
                last_count: None,
                steps,
            });
        };
        let n = b.counter.count(&formatted)?;
        first_count.get_or_insert(n);
        if n <= b.max_tokens {
            return Ok(LoopRun {
                formatted,
                working,
                first_count,
                last_count: Some(n),
                steps,
            });
        }
        let before = working.len();
        working = truncate_step(&working, b.max_tokens)?;
        steps += 1;
        if working.len() >= before {
            return Err(non_termination(working.len(), b.max_tokens));
        }
    }
}

/// The reference loops forever here (no system prompt, and even `[]` does
/// not fit); we stop with this error instead.
pub fn non_termination(left: usize, max_tokens: i64) -> PyErr {
    PyErr::new(
        "NonTermination",
        format!(
            "oracle: AgentScope's truncation loop never ends here: {left} message(s) left, nothing more can be removed, and the result still exceeds max_tokens={max_tokens}"
        ),
    )
}

/// One `_format` pass. Chat formatters may insert promoted tool-result media
/// messages into `working`, exactly as AgentScope does (so they survive into
/// the next truncation pass).
pub fn format_once(
    id: FormatterId,
    options: &FormatOptions,
    working: &mut Vec<Arc<Msg>>,
    env: &MediaEnv,
) -> Result<Vec<Value>, PyErr> {
    match id.mode {
        Mode::Chat => chat(id.provider, options, working, env),
        Mode::MultiAgent => multi_agent(id.provider, options, working, env),
    }
}

fn chat(
    provider: Provider,
    options: &FormatOptions,
    msgs: &mut Vec<Arc<Msg>>,
    env: &MediaEnv,
) -> Result<Vec<Value>, PyErr> {
    match provider {
        Provider::OpenAi => openai::chat(env, msgs, options),
        Provider::Anthropic => anthropic::chat(env, msgs),
        Provider::DashScope => dashscope::chat(env, msgs, options),
        Provider::Gemini => gemini::chat(env, msgs, options),
        Provider::Ollama => ollama::chat(env, msgs, options),
        Provider::DeepSeek => deepseek::chat(env, msgs),
    }
}

/// The multi-agent skeleton all six share: the system message, then runs of
/// tool messages (formatted by a fresh chat formatter) and of other messages
/// (wrapped into one `<history>` message each; only the first gets the prompt).
fn multi_agent(
    provider: Provider,
    options: &FormatOptions,
    msgs: &[Arc<Msg>],
    env: &MediaEnv,
) -> Result<Vec<Value>, PyErr> {
    let mut out = Vec::new();
    let mut start = 0;
    if let Some(first) = msgs.first() {
        if first.role == Role::System {
            out.push(system_message(provider, first)?);
            start = 1;
        }
    }
    let chat_options = FormatOptions {
        history_prompt: None,
        ..options.clone()
    };
    let rest = &msgs[start..];
    let (groups, cut_error) = tool_runs(rest, |m| m.has_tool_blocks());
    // Only the first history group gets the prompt.
    let first_history = groups
        .iter()
        .find(|(is_tool, _)| !is_tool)
        .map(|(_, range)| range.start);
    let formatted = every_core::in_order(
        &groups,
        env,
        |(_, range)| rest[range.clone()].iter().any(|m| m.may_read_media()),
        |(is_tool, range), env| {
            let group = &rest[range.clone()];
            if *is_tool {
                // `ChatFormatter(...).format(group)` works on its own copy.
                let mut copy = group.to_vec();
                chat(provider, &chat_options, &mut copy, env)
            } else {
                let prompt = if first_history == Some(range.start) {
                    options.history_prompt()
                } else {
                    ""
                };
                history_message(provider, env, Group::Msgs(group), prompt)
            }
        },
    )?;
    if let Some(e) = cut_error {
        return Err(e);
    }
    out.reserve(formatted.iter().map(Vec::len).sum());
    for mut group in formatted {
        out.append(&mut group);
    }
    Ok(out)
}

/// Multi-agent grouping: the runs of consecutive messages with tool blocks
/// and without, as `(is_tool, range)`. Grouping is lazy in AgentScope (an
/// async generator): a group is formatted as soon as the next message
/// shows it has ended, which fixes which error wins when several messages
/// are bad. So the runs are cut up to the first message whose tool blocks
/// cannot be told, and its error is returned beside them, to be raised
/// after the runs cut before it are formatted.
fn tool_runs<M>(
    msgs: &[M],
    has_tool_blocks: impl Fn(&M) -> Result<bool, PyErr>,
) -> (Vec<(bool, std::ops::Range<usize>)>, Option<PyErr>) {
    let mut runs = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, msg) in msgs.iter().enumerate() {
        let is_tool = match has_tool_blocks(msg) {
            Ok(t) => t,
            Err(e) => return (runs, Some(e)),
        };
        match current {
            Some(c) if c != is_tool => {
                runs.push((c, start..i));
                start = i;
            }
            _ => {}
        }
        current = Some(is_tool);
    }
    if let Some(c) = current {
        runs.push((c, start..msgs.len()));
    }
    (runs, None)
}

fn system_message(provider: Provider, msg: &Msg) -> Result<Value, PyErr> {
    use serde_json::json;
    Ok(match provider {
        // TruncatedFormatterBase's default: the text blocks as they are.
        Provider::OpenAi | Provider::Anthropic | Provider::DeepSeek => {
            let blocks: Vec<Value> = msg.blocks_of("text")?.into_iter().cloned().collect();
            json!({"role": "system", "content": blocks})
        }
        Provider::DashScope | Provider::Ollama => {
            json!({"role": "system", "content": msg.text_content()?})
        }
        Provider::Gemini => json!({"role": "user", "parts": [{"text": msg.text_content()?}]}),
    })
}

fn history_message(
    provider: Provider,
    env: &MediaEnv,
    group: Group<'_>,
    prompt: &str,
) -> Result<Vec<Value>, PyErr> {
    match provider {
        Provider::OpenAi => openai::history(env, group, prompt),
        Provider::Anthropic => anthropic::history(env, group, prompt),
        Provider::DashScope => dashscope::history(env, group, prompt),
        Provider::Gemini => gemini::history(env, group, prompt),
        Provider::Ollama => ollama::history(env, group, prompt),
        Provider::DeepSeek => deepseek::history(group, prompt),
    }
}

/// `_truncate`: drop the oldest message after the system prompt, or the
/// whole span up to where every tool call opened so far has its result.
pub fn truncate_step(msgs: &[Arc<Msg>], max_tokens: i64) -> Result<Vec<Arc<Msg>>, PyErr> {
    let start = usize::from(msgs.first().is_some_and(|m| m.role == Role::System));
    if start == 1 && msgs.len() == 1 {
        return Err(system_prompt_over_budget(max_tokens));
    }
    let end = truncation_span_end(msgs, start)?;
    let mut kept = msgs[..start].to_vec();
    kept.extend_from_slice(&msgs[end..]);
    Ok(kept)
}

/// The reference's error when only the system prompt is left and it does
/// not fit.
pub fn system_prompt_over_budget(max_tokens: i64) -> PyErr {
    PyErr::value(format!(
        "The system prompt message already exceeds the token limit ({max_tokens} tokens)."
    ))
}

/// Where one truncation step starting at `start` stops (exclusive): the
/// walk keeps a set of open tool-call ids and stops once it is empty.
pub fn truncation_span_end(msgs: &[Arc<Msg>], start: usize) -> Result<usize, PyErr> {
    span_end(msgs, start, |m| {
        ToolIds::of(m).map(|ids| Some(Cow::Owned(ids)))
    })
}

/// [`truncation_span_end`] over items, each one's ids read without
/// unpacking it where it can be ([`MsgItem::tool_ids`]).
pub fn truncation_span_end_of(msgs: &[MsgItem], start: usize) -> Result<usize, PyErr> {
    span_end(msgs, start, MsgItem::tool_ids)
}

/// `ids_of` gives a message's tool ids, or `None` for one without tool
/// blocks.
fn span_end<'a, T>(
    msgs: &'a [T],
    start: usize,
    ids_of: impl Fn(&'a T) -> Result<Option<Cow<'a, ToolIds>>, PyErr>,
) -> Result<usize, PyErr> {
    let mut open: Vec<Value> = Vec::new(); // a Python set, in insertion order
    for (i, item) in msgs.iter().enumerate().skip(start) {
        let Some(ids) = ids_of(item)? else {
            if open.is_empty() {
                return Ok(i + 1);
            }
            continue;
        };
        for id in &ids.uses {
            if !open.contains(id) {
                open.push(id.clone());
            }
        }
        for id in &ids.results {
            open.retain(|x| x != id);
        }
        if open.is_empty() {
            return Ok(i + 1);
        }
    }
    if !open.is_empty() {
        return Err(PyErr::value(format!(
            "The input messages contains tool call(s) that do not have the corresponding tool result(s): {}. ",
            shared::python_set_repr(&open)
        )));
    }
    Ok(msgs.len())
}
