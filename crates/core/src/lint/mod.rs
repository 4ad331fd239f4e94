//! The linter: what will fail or cost money at the provider or
//! in AgentScope, for one session and the formatters asked for. Each
//! finding has a rule id from [`RULES`], a severity, where it is (message
//! and block, and `file:line:col` when the file's text is given), what is
//! wrong and a one-line fix.
//!
//! Findings about the request are checked on what the formatter really
//! produces (the same code as `format` and the workbench), not guessed from
//! the session: a block is reported dropped because formatting the message
//! without it gives the same request.

mod agentscope;
mod budget;
mod port;
mod probes;
mod provider;
mod release;
mod upgrade;

pub use port::is_port;
pub(crate) use probes::Probes;
pub use upgrade::upgrades_to;

use crate::formatter::{FormatOptions, FormatterId};
use crate::media::MediaEnv;
use crate::session::{InputShape, Session};
use serde_json::{json, Value};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One rule of the catalogue.
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    /// What it checks, in one line.
    pub summary: &'static str,
    /// The usual fix, in one line.
    pub fix: &'static str,
}

/// Every rule the linter can fire.
#[rustfmt::skip]
pub const RULES: &[Rule] = &[
    Rule { id: "agentscope.raises", severity: Severity::Error,
        summary: "AgentScope raises while formatting the session for this formatter",
        fix: "fix the message the error names; `formatscope format` shows the same error" },
    Rule { id: "agentscope.block-dropped", severity: Severity::Warning,
        summary: "a content block does not reach the request: the formatter skips its type",
        fix: "remove the block or pick a formatter that sends it (thinking: Anthropic chat; video: DashScope, Gemini)" },
    Rule { id: "agentscope.image-jpg-media-type", severity: Severity::Warning,
        summary: "a local .jpg image is sent as data:image/jpg, which is not a registered media type",
        fix: "rename the file to .jpeg (AgentScope then sends image/jpeg)" },
    Rule { id: "agentscope.tool-result-media-as-path", severity: Severity::Warning,
        summary: "media in a tool result reach the model as a file path in text, not as media",
        fix: "AgentScope's promote_tool_result_images (and _audios, _videos) sends them as a user message" },
    Rule { id: "agentscope.gemini-history-no-newline", severity: Severity::Info,
        summary: "Gemini's multi-agent history opens with <history> without the newline every other provider has",
        fix: "nothing to fix: expect the first history line glued to the tag in Gemini requests" },
    Rule { id: "agentscope.system-not-first", severity: Severity::Warning,
        summary: "a system message after the first is not the system prompt: AgentScope formats it in place",
        fix: "move the instructions into the first message, or make this one a user message" },
    Rule { id: "v2.raises", severity: Severity::Error,
        summary: "AgentScope 2.0.11 raises on the session where 1.0.21 formats it (lint --agentscope 2.0.11)",
        fix: "fix the message the error names; `formatscope format --agentscope 2.0.11` shows the same error" },
    Rule { id: "v2.audio-x-wav", severity: Severity::Error,
        summary: "a .wav is guessed as audio/x-wav, which 2.0.11's OpenAI-style formatters reject (1.0.21 sent it)",
        fix: "give the source \"media_type\": \"audio/wav\" (or send MP3)" },
    Rule { id: "v2.media-dropped", severity: Severity::Warning,
        summary: "a media block 1.0.21 sends is outside the 2.0.11 formatter's input_types: 2.x skips it",
        fix: "give the source its media type (a known file extension, or \"media_type\"), or pass input_types that hold it (format --input-types)" },
    Rule { id: "v2.block-dropped", severity: Severity::Warning,
        summary: "a block 1.0.21 sends is left out by the 2.0.11 formatter (thinking without a signature in Anthropic)",
        fix: "keep what the block says elsewhere (text), or give thinking its signature" },
    Rule { id: "v2.tool-result-role", severity: Severity::Warning,
        summary: "tool results (or calls) kept in a user or system message: 2.x holds them only in assistant messages",
        fix: "store it as an assistant message (formatscope converts it so, as a migration would)" },
    Rule { id: "v2.tool-result-media.system-reminder", severity: Severity::Info,
        summary: "tool-result media go to the model in a <system-reminder> user message in 2.0.11 (1.0.21 wrote their paths)",
        fix: "nothing to fix: expect one more user message after the tool result" },
    Rule { id: "java.raises", severity: Severity::Error,
        summary: "AgentScope Java 2.0.2 throws on the session where Python 1.0.21 formats it (lint --agentscope java-2.0.2)",
        fix: "fix the message the exception names; `formatscope format --agentscope java-2.0.2` shows it" },
    Rule { id: "java.sends-what-python-rejects", severity: Severity::Warning,
        summary: "AgentScope Java sends a session Python 1.0.21 refuses (a missing local image goes as its path)",
        fix: "fix what Python's error names: the provider gets it from a Java agent" },
    Rule { id: "java.multi-agent.history-prompt-every-group", severity: Severity::Warning,
        summary: "AgentScope Java repeats the conversation-history prompt in every history group (Python: the first only)",
        fix: "expect the instructions once per group from a Java agent, or give the Java formatter a shorter conversation_history_prompt" },
    Rule { id: "java.openai.thinking-reasoning-content", severity: Severity::Info,
        summary: "AgentScope Java sends thinking to OpenAI (reasoning_content, or a [Thinking] history line); Python drops it",
        fix: "nothing to fix: an OpenAI-compatible server that reads reasoning_content sees it from a Java agent only" },
    Rule { id: "java.openai.audio-url-text", severity: Severity::Warning,
        summary: "AgentScope Java sends audio from a file or URL to OpenAI as a \"[Audio URL: ...]\" text part: the model does not hear it",
        fix: "give the audio as base64 data for a Java agent, or send it from Python" },
    Rule { id: "java.openai.system-in-middle", severity: Severity::Info,
        summary: "AgentScope Java sends a later system message as its own system message, splitting the history (Python: a history line)",
        fix: "make it a user message to send the same from both ports" },
    Rule { id: "release.raises", severity: Severity::Error,
        summary: "the release --agentscope names (0.1.6) raises on the session where the default release formats it",
        fix: "fix the message the error names; `formatscope format --agentscope VERSION` shows the same error" },
    Rule { id: "release.lost", severity: Severity::Warning,
        summary: "a block the release's Msg cannot hold (0.1.6: thinking, base64 media): it is left out of the request",
        fix: "give the content as text or a URL, or run a newer release" },
    Rule { id: "release.block-dropped", severity: Severity::Warning,
        summary: "a block the default release sends is skipped by the release's formatter (0.1.6: audio to OpenAI, tools to Gemini)",
        fix: "pick a formatter of that release that sends it, or keep what it says in text" },
    Rule { id: "provider.tool-result-without-call", severity: Severity::Error,
        summary: "a tool result answers no earlier tool call with its id",
        fix: "give it the id of the tool_use block it answers, or delete it" },
    Rule { id: "provider.tool-call-without-result", severity: Severity::Error,
        summary: "a tool call has no tool result after it: OpenAI, Anthropic and DeepSeek reject the request",
        fix: "add the tool_result block with the same id (or delete the call)" },
    Rule { id: "provider.tool-name", severity: Severity::Error,
        summary: "a tool name the provider rejects (OpenAI, Anthropic, DeepSeek: ^[a-zA-Z0-9_-]{1,64}$; Gemini: ^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$)",
        fix: "rename the tool: letters, digits, _ and -, at most 64 characters" },
    Rule { id: "provider.speaker-name", severity: Severity::Error,
        summary: "OpenAI's message name field takes no spaces, <|\\/> or more than 64 characters",
        fix: "rename the speaker (Bob_Smith, not Bob Smith)" },
    Rule { id: "provider.first-turn-user", severity: Severity::Warning,
        summary: "the conversation after the system prompt starts with the assistant: Anthropic and Gemini expect a user turn first",
        fix: "start with a user message" },
    Rule { id: "provider.consecutive-roles", severity: Severity::Info,
        summary: "two consecutive turns of one role in Anthropic's request: the API merges them into one turn",
        fix: "nothing to fix, or merge them yourself to see what the model sees" },
    Rule { id: "provider.empty-text", severity: Severity::Error,
        summary: "an empty text block: Anthropic rejects text content blocks that are empty",
        fix: "delete the block or give it text" },
    Rule { id: "provider.image-count", severity: Severity::Error,
        summary: "more images than the provider takes in one request (Anthropic 100, OpenAI 500, Gemini 3,600)",
        fix: "send fewer images, or truncate older messages" },
    Rule { id: "provider.image-size", severity: Severity::Error,
        summary: "an inline image over the provider's per-image limit (Anthropic 5 MB, OpenAI 20 MB)",
        fix: "downscale or recompress the image" },
    Rule { id: "provider.request-size", severity: Severity::Error,
        summary: "the request body is over the provider's size limit (Anthropic 32 MB, Gemini 20 MB inline, OpenAI 50 MB)",
        fix: "send media by URL instead of inline base64, or fewer of them" },
    Rule { id: "budget.context-window", severity: Severity::Error,
        summary: "the request does not fit the model's context window",
        fix: "set max_tokens so AgentScope truncates, or pick a model with a larger window" },
    Rule { id: "budget.truncation-drops", severity: Severity::Info,
        summary: "the session's budget (max_tokens) makes AgentScope drop the oldest messages",
        fix: "raise max_tokens if those messages matter" },
    Rule { id: "budget.truncation-orphans-tool-result", severity: Severity::Error,
        summary: "truncation would keep a tool result and drop the tool call it answers",
        fix: "raise max_tokens, or shorten the messages before the tool call" },
    Rule { id: "budget.does-not-fit", severity: Severity::Error,
        summary: "AgentScope cannot truncate the request into the session's budget (the system prompt alone, or no progress)",
        fix: "raise max_tokens or shorten the system prompt" },
];

pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// One finding.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    /// The session message and content block it is about.
    pub message: Option<usize>,
    pub block: Option<usize>,
    /// A JSON pointer into the session file, and its 1-based line and
    /// column when the file's text was given.
    pub pointer: Option<String>,
    pub line_col: Option<(usize, usize)>,
    /// The formatters it concerns (empty: all asked for).
    pub formatters: Vec<FormatterId>,
    pub text: String,
    pub fix: String,
}

impl Finding {
    pub fn to_json(&self) -> Value {
        json!({
            "rule": self.rule,
            "severity": self.severity.as_str(),
            "message": self.message,
            "block": self.block,
            "pointer": self.pointer,
            "line": self.line_col.map(|l| l.0),
            "column": self.line_col.map(|l| l.1),
            "formatters": self.formatters.iter().map(|f| f.class_name()).collect::<Vec<_>>(),
            "text": self.text,
            "fix": self.fix,
        })
    }
}

/// What to lint.
pub struct Input<'a> {
    pub session: &'a Session,
    /// The file's text, for line and column.
    pub text: Option<&'a str>,
    pub formatters: Vec<FormatterId>,
    pub env: &'a MediaEnv,
    /// The release the session is upgraded to (`lint --agentscope 2.0.11`):
    /// what it rejects or drops that 1.0.21 accepted is found too.
    pub upgrade: Option<&'static dyn crate::reference::Reference>,
    /// The session's messages unpacked, once for every check and formatter.
    messages: std::sync::OnceLock<Vec<Value>>,
}

impl<'a> Input<'a> {
    pub fn new(
        session: &'a Session,
        text: Option<&'a str>,
        formatters: Vec<FormatterId>,
        env: &'a MediaEnv,
    ) -> Input<'a> {
        Input {
            session,
            text,
            formatters,
            env,
            upgrade: None,
            messages: std::sync::OnceLock::new(),
        }
    }

    /// The session's message dicts.
    pub(crate) fn messages(&self) -> &[Value] {
        self.messages.get_or_init(|| {
            self.session
                .messages
                .iter()
                .map(crate::session::PackedMessage::value)
                .collect()
        })
    }
}

/// Collects findings; one per (rule, message, block, text), with the
/// formatters it concerns merged.
pub(crate) struct Sink<'a> {
    input: &'a Input<'a>,
    findings: Vec<Finding>,
    /// (rule, message, block, text) → the finding's index: a finding per
    /// message was looked up in all the others (quadratic).
    index: std::collections::HashMap<FindingKey, usize>,
    /// Rule ids and texts of every finding (`add_at` adds one once).
    at_index: std::collections::HashSet<(&'static str, String)>,
    /// Line and column of pointers, built once when the first is needed.
    locator: Option<crate::session::Locator<'a>>,
}

type FindingKey = (&'static str, Option<usize>, Option<usize>, String);

impl Sink<'_> {
    pub(crate) fn add(
        &mut self,
        rule_id: &'static str,
        at: (Option<usize>, Option<usize>),
        formatter: Option<FormatterId>,
        text: String,
    ) {
        let Some(r) = rule(rule_id) else {
            debug_assert!(false, "{rule_id} is not in the catalogue");
            return;
        };
        let key = (r.id, at.0, at.1, text);
        if let Some(f) = self.index.get(&key).and_then(|&i| self.findings.get_mut(i)) {
            if let Some(id) = formatter {
                if !f.formatters.contains(&id) {
                    f.formatters.push(id);
                }
            }
            return;
        }
        let pointer = at.0.map(|m| self.pointer(m, at.1));
        self.index.insert(key.clone(), self.findings.len());
        self.push(r, at, pointer, formatter, key.3);
    }

    /// A finding about a place that is not a message (the tool schemas).
    pub(crate) fn add_at(
        &mut self,
        rule_id: &'static str,
        pointer: String,
        formatter: Option<FormatterId>,
        text: String,
    ) {
        if let Some(r) = rule(rule_id) {
            if !self.at_index.contains(&(r.id, text.clone())) {
                self.push(r, (None, None), Some(pointer), formatter, text);
            }
        }
    }

    fn push(
        &mut self,
        r: &'static Rule,
        at: (Option<usize>, Option<usize>),
        pointer: Option<String>,
        formatter: Option<FormatterId>,
        text: String,
    ) {
        let line_col = match (&pointer, self.input.text) {
            (Some(p), Some(text)) => self
                .locator
                .get_or_insert_with(|| crate::session::Locator::new(text))
                .locate(p),
            _ => None,
        };
        self.at_index.insert((r.id, text.clone()));
        self.findings.push(Finding {
            rule: r.id,
            severity: r.severity,
            message: at.0,
            block: at.1,
            pointer,
            line_col,
            formatters: formatter.into_iter().collect(),
            text,
            fix: r.fix.to_string(),
        });
    }

    /// Where message `m` (and its block `b`) is in the file.
    fn pointer(&self, m: usize, b: Option<usize>) -> String {
        let base = match self.input.session.shape {
            InputShape::BareArray => format!("/{m}"),
            _ => format!("/messages/{m}"),
        };
        let content_is_list = self
            .input
            .messages()
            .get(m)
            .is_some_and(|v| v.get("content").is_some_and(Value::is_array));
        match b {
            Some(b) if content_is_list => format!("{base}/content/{b}"),
            Some(_) => format!("{base}/content"),
            None => base,
        }
    }
}

/// The formatter options lint assumes: AgentScope's defaults.
pub(crate) fn options() -> FormatOptions {
    FormatOptions::default()
}

/// Every check, for every formatter asked for. Findings come sorted:
/// errors first, then by message.
pub fn lint(input: &Input<'_>) -> Vec<Finding> {
    let mut sink = Sink {
        input,
        findings: Vec::new(),
        index: Default::default(),
        at_index: Default::default(),
        locator: None,
    };
    provider::session_checks(input, &mut sink);
    let msgs =
        crate::pipeline::build_msgs(input.session).map(|m| m.into_iter().collect::<Vec<_>>());
    for &id in &input.formatters {
        let msgs = match &msgs {
            Ok(m) => m,
            Err(e) => {
                let at = crate::pipeline::invalid_message(input.session).map(|(i, _)| i);
                sink.add(
                    "agentscope.raises",
                    (at, None),
                    Some(id),
                    format!("{}: {}", e.kind, e.message),
                );
                continue;
            }
        };
        let formatted = match formatted(id, msgs, input) {
            Ok(f) => f,
            Err(e) => {
                sink.add(
                    "agentscope.raises",
                    (None, None),
                    Some(id),
                    format!("{}: {}", e.kind, e.message),
                );
                // What a Java agent sends of a session Python refuses.
                if let Some(release) = input.upgrade.filter(|r| port::is_port(*r)) {
                    port::checks(id, release, input, &mut sink);
                }
                continue;
            }
        };
        agentscope::checks(id, msgs, &formatted, input, &mut sink);
        provider::request_checks(id, &formatted, input, &mut sink);
        budget::checks(id, input, &mut sink);
        match input.upgrade {
            Some(release) if port::is_port(release) => port::checks(id, release, input, &mut sink),
            Some(release) if upgrade::upgrades_to(release) => {
                upgrade::checks(id, release, input, &mut sink)
            }
            Some(release) => release::checks(id, release, input, &mut sink),
            None => {}
        }
    }
    let mut findings = sink.findings;
    findings.sort_by_key(|f| (f.severity, f.message.unwrap_or(usize::MAX), f.block));
    findings
}

/// The request `id` makes of the messages, with its spans.
fn formatted(
    id: FormatterId,
    msgs: &[Arc<crate::session::Msg>],
    input: &Input<'_>,
) -> Result<crate::formatter::FormattedRequest, crate::py::PyErr> {
    let keys = crate::formatter::message_keys(&input.session.messages);
    crate::budget::formatted_with_spans(id, &options(), msgs, &keys, input.env)
}

/// The input messages an output message came from. Spans come in output
/// order, so a binary search finds it (a scan per output message was
/// quadratic); the scan stays as the fallback should the order not hold.
pub(crate) fn source_of(spans: &[crate::formatter::Span], out: usize) -> Option<usize> {
    let at = spans.partition_point(|(_, o)| o.end <= out);
    if let Some((i, o)) = spans.get(at) {
        // Every span before `at` ends at or before `out`: this is the first.
        if o.contains(&out) {
            return Some(i.start);
        }
    }
    spans
        .iter()
        .find(|(_, o)| o.contains(&out))
        .map(|(i, _)| i.start)
}
