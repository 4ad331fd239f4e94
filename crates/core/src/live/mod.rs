//! AgentScope's own traces made into sessions (`formatscope listen`).
//!
//! A running agent reports every formatter and model call over
//! OpenTelemetry (live-tracing.md). [`otlp`] decodes one export into
//! spans; a [`Listener`] keeps what it needs across exports (format spans
//! waiting for their model call, a tool call's raw arguments, each agent's
//! turn count) and turns each model call into a [`Call`]: the session
//! that request came from, what AgentScope recorded of its formatting,
//! and what the trace could not carry. Pure: no sockets, files or clocks;
//! the shell (`cli/listen.rs`) feeds it bodies and writes the sessions.

pub mod check;
pub mod otlp;
pub mod v1;
pub mod v2;

use otlp::Span;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet, VecDeque};

/// Why a call's session could not be rebuilt from its spans: what the
/// trace lacks or holds in a shape AgentScope does not write.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RebuildError {
    /// 1.x: the format span's input was not recorded (or was cut short).
    #[error("the format span has no agentscope.function.input (or it is cut short)")]
    NoFunctionInput,
    /// 1.x: the format span's input has no message list.
    #[error("the format span's input holds no msgs")]
    NoMsgs,
    /// 1.x: an input message that is not a `Msg(...)` repr string.
    #[error("input message {0} is not a Msg repr")]
    NotAMsgRepr(usize),
    /// 1.x: a `Msg(...)` repr that does not read.
    #[error("input message {index} does not read as a Msg: {source}")]
    BadMsgRepr {
        index: usize,
        source: crate::py::LiteralError,
    },
    /// 2.x: the chat span's input messages were not recorded.
    #[error("the chat span has no gen_ai.input.messages (or it is cut short)")]
    NoInputMessages,
    /// 2.x: the chat span's input messages are not a list.
    #[error("gen_ai.input.messages is not a list")]
    InputNotAList,
}

/// A session rebuilt from a call's spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    /// The session object (provider, mode, formatter, model, tools,
    /// request, messages).
    pub session: Map<String, Value>,
    /// The formatter class AgentScope called (1.0.21), or the model
    /// class's default one (2.0.11, where the trace has no formatter).
    pub formatter: String,
    /// The formatted messages AgentScope recorded (1.0.21's format span).
    pub recorded: Option<Value>,
    /// What the trace could not carry, and what the session assumes.
    pub assumed: Vec<String>,
    /// The run (1.0.21) or the agent's session (2.0.11).
    pub conversation: Option<String>,
}

/// One LLM request of the agent's, in call order.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// 1, 2, ...: the order the calls were made in.
    pub number: u64,
    /// The AgentScope release that made it ("1.0.21").
    pub release: String,
    pub trace_id: String,
    /// The chat span (or the format span when the model was not called).
    pub span_id: String,
    /// The agent reply it belongs to (its `invoke_agent` span), if any.
    pub parent_id: String,
    pub rebuilt: Rebuilt,
}

/// What one export told.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    Call(Box<Call>),
    /// An agent's reply ended: the calls under span `reply` were this
    /// agent's, in its `turn`th reply (1, 2, ...).
    Reply {
        reply: String,
        agent: String,
        turn: u64,
    },
    /// A span that should have made a call and could not, and why.
    Problem(String),
}

/// Format spans kept waiting for their model call, at most.
const WAITING: usize = 4096;
/// Span ids and tool-call arguments remembered, at most each.
const REMEMBERED: usize = 65_536;

/// The state kept across exports.
#[derive(Default)]
pub struct Listener {
    calls: u64,
    /// 1.0.21 format spans not yet paired with a chat span, oldest first.
    waiting: VecDeque<Span>,
    /// Every format span's id seen: a format span whose parent is one is
    /// nested (a multi-agent formatter's inner call), not a request.
    format_ids: Remembered<String>,
    /// 2.0.11 tool calls' raw arguments, by call id.
    raw_arguments: HashMap<String, String>,
    raw_order: VecDeque<String>,
    /// Replies seen per agent name.
    turns: HashMap<String, u64>,
}

/// A bounded set: the oldest go first.
struct Remembered<T> {
    set: HashSet<T>,
    order: VecDeque<T>,
}

impl<T> Default for Remembered<T> {
    fn default() -> Self {
        Remembered {
            set: HashSet::new(),
            order: VecDeque::new(),
        }
    }
}

impl<T: std::hash::Hash + Eq + Clone> Remembered<T> {
    fn insert(&mut self, item: T) {
        if self.set.insert(item.clone()) {
            self.order.push_back(item);
            if self.order.len() > REMEMBERED {
                if let Some(old) = self.order.pop_front() {
                    self.set.remove(&old);
                }
            }
        }
    }

    fn contains(&self, item: &T) -> bool {
        self.set.contains(item)
    }
}

impl Listener {
    pub fn new() -> Listener {
        Listener::default()
    }

    /// The calls (and replies) in one export's spans. Spans are taken in
    /// the order they ended: a format span before its chat span, a tool
    /// before the next model call, the calls before their reply.
    pub fn take(&mut self, mut spans: Vec<Span>) -> Vec<Heard> {
        spans.sort_by_key(|s| s.end_ns);
        for s in spans.iter().filter(|s| v1::is_format(s)) {
            self.format_ids.insert(s.span_id.clone());
        }
        let mut heard = Vec::new();
        for span in spans {
            if v1::is_format(&span) {
                self.waiting.push_back(span);
                if self.waiting.len() > WAITING {
                    if let Some(old) = self.waiting.pop_front() {
                        heard.push(Heard::Problem(format!(
                            "{}: no model call came for it among the next {WAITING} format calls; dropped",
                            old.name
                        )));
                    }
                }
            } else if v1::is_chat(&span) {
                heard.extend(self.chat(span));
            } else if span.text("gen_ai.operation.name") == Some("execute_tool") {
                self.tool(&span);
            } else if span.text("gen_ai.operation.name") == Some("invoke_agent")
                || span.name.starts_with("invoke_agent ")
            {
                let agent = span
                    .text("gen_ai.agent.name")
                    .map(str::to_string)
                    .or_else(|| span.name.strip_prefix("invoke_agent ").map(str::to_string))
                    .unwrap_or_default();
                let turn = self.turns.entry(agent.clone()).or_default();
                *turn += 1;
                heard.push(Heard::Reply {
                    reply: span.span_id,
                    agent,
                    turn: *turn,
                });
            }
        }
        // Nested format spans never make a request.
        let ids = &self.format_ids;
        self.waiting.retain(|f| !ids.contains(&f.parent_id));
        heard
    }

    /// The format spans no model call came for (the model was not called,
    /// or its span was lost), as calls without model and tools: at the end.
    pub fn finish(&mut self) -> Vec<Heard> {
        let ids = &self.format_ids;
        let waiting: Vec<Span> = self
            .waiting
            .drain(..)
            .filter(|f| !ids.contains(&f.parent_id))
            .collect();
        waiting
            .into_iter()
            .map(|f| match v1::rebuild(&f, None) {
                Ok(rebuilt) => Heard::Call(Box::new(self.call(&f, rebuilt))),
                Err(e) => Heard::Problem(format!("{}: {e}", f.name)),
            })
            .collect()
    }

    fn call(&mut self, span: &Span, rebuilt: Rebuilt) -> Call {
        self.calls += 1;
        Call {
            number: self.calls,
            release: span.version.clone(),
            trace_id: span.trace_id.clone(),
            span_id: span.span_id.clone(),
            parent_id: span.parent_id.clone(),
            rebuilt,
        }
    }

    fn chat(&mut self, chat: Span) -> Vec<Heard> {
        if chat.version.starts_with("2.") {
            let rebuilt = v2::rebuild(&chat, &self.raw_arguments);
            return vec![match rebuilt {
                Ok(r) => Heard::Call(Box::new(self.call(&chat, r))),
                Err(e) => Heard::Problem(format!("{}: {e}", chat.name)),
            }];
        }
        let Some((messages, _)) = v1::chat_input(&chat) else {
            return vec![Heard::Problem(format!(
                "{}: no agentscope.function.input (or it is cut short: OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT?)",
                chat.name
            ))];
        };
        let conversation = v1::conversation(&chat);
        // Its format span: the same messages formatted, the latest to end
        // before the call started, in the same run.
        let nested = &self.format_ids;
        let pick = |relaxed: bool| {
            self.waiting
                .iter()
                .enumerate()
                .filter(|(_, f)| !nested.contains(&f.parent_id))
                .filter(|(_, f)| relaxed || f.end_ns <= chat.start_ns)
                .filter(|(_, f)| {
                    conversation.is_none()
                        || v1::conversation(f).is_none()
                        || v1::conversation(f) == conversation
                })
                .filter(|(_, f)| v1::formatted(f).as_ref() == Some(&messages))
                .max_by_key(|(_, f)| f.end_ns)
                .map(|(i, _)| i)
        };
        let Some(at) = pick(false).or_else(|| pick(true)) else {
            return vec![Heard::Problem(format!(
                "{}: no format span formatted these {} messages (a model called without a formatter is not a session)",
                chat.name,
                messages.as_array().map_or(0, Vec::len)
            ))];
        };
        let Some(format) = self.waiting.remove(at) else {
            return Vec::new();
        };
        vec![match v1::rebuild(&format, Some(&chat)) {
            Ok(r) => Heard::Call(Box::new(self.call(&chat, r))),
            Err(e) => Heard::Problem(format!("{}: {e}", format.name)),
        }]
    }

    /// A 2.0.11 tool call's arguments exactly as the model sent them.
    fn tool(&mut self, span: &Span) {
        let (Some(id), Some(args)) = (
            span.text("gen_ai.tool.call.id"),
            span.text("gen_ai.tool.call.arguments"),
        ) else {
            return;
        };
        if self
            .raw_arguments
            .insert(id.to_string(), args.to_string())
            .is_none()
        {
            self.raw_order.push_back(id.to_string());
            if self.raw_order.len() > REMEMBERED {
                if let Some(old) = self.raw_order.pop_front() {
                    self.raw_arguments.remove(&old);
                }
            }
        }
    }
}
