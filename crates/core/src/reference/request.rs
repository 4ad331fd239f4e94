//! What a release is asked for when a request goes on the wire, and what
//! it answers: the same typed values for every release, so `request`,
//! `send` and the workbench's wire view reach any release through
//! [`super::Reference::request`].

use super::{Family, Mode, Raised};
use crate::media::MediaEnv;
use crate::provider::Provider;
use crate::session::Session;
use crate::wire::Wire;
use serde_json::{Map, Value};

/// A session's request under one class of a release.
pub struct WireAsk<'a> {
    pub session: &'a Session,
    pub family: &'a Family,
    pub mode: Mode,
    /// A class the user named (`--formatter`), in the release's spelling;
    /// `None`: the release's class for `family` in `mode`.
    pub class: Option<&'a str>,
    /// The model class's settings: the session's `request` object with
    /// the flags over it. Their meaning is the release's: 2.x reads its
    /// class's `parameters`, `credential` and `client_kwargs` from
    /// `model_kwargs`; 1.0.21 its constructor's arguments.
    pub settings: &'a crate::wire::Settings,
    /// 2.x: `ToolChoice.tools`.
    pub tool_choice_tools: Option<Vec<String>>,
    /// 2.x: the formatter's `input_types`.
    pub input_types: Option<Vec<String>>,
    /// Multi-agent classes: the prompt before the first history block.
    pub history_prompt: Option<String>,
    /// Java, DashScope: the endpoint forced (`text`, `multimodal`).
    pub endpoint: Option<String>,
    pub env: &'a MediaEnv,
}

/// Where a request stopped before anything was sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    /// The release's stage name: `msg`, `format`, `model`, `sdk`, ...
    pub stage: String,
    pub error: Raised,
}

/// A release's answer: the request, typed, and the same in its oracle's
/// shape for printing.
#[derive(Debug, Clone)]
pub struct Requested {
    /// The class that formatted it.
    pub class: String,
    /// The request as the SDK would send it (also when the SDK raises
    /// before sending: its `sdk_error` says so).
    pub wire: Option<Wire>,
    /// Why nothing can be sent, when so.
    pub stopped: Option<Stopped>,
    /// The environment variable the key of this request's host is kept in
    /// (`None`: the API takes no key).
    pub key_variable: Option<&'static str>,
    /// The 1.0.21 provider of the same API, when there is one.
    pub provider: Option<Provider>,
    /// The address the family's requests go to when nothing moves them:
    /// its key goes there unasked (any other host, only when the user
    /// chose it).
    pub home: Option<&'static str>,
    /// How the reply comes: the framing of its stream (SSE, NDJSON).
    pub framing: crate::response::Api,
    /// What the release's request oracle prints for it.
    pub printed: Map<String, Value>,
    /// What AgentScope logs and Python warns, in order.
    pub warnings: Vec<String>,
}

impl Requested {
    /// The request when it can be sent.
    pub fn sendable(&self) -> Option<&Wire> {
        self.wire
            .as_ref()
            .filter(|w| w.sdk_error.is_none() && self.stopped.is_none())
    }
}

/// A release's parsing of one reply, as its model class parses it:
/// responses dumped in the release's own shape (2.x: `ChatResponse`).
pub trait Replies: Send {
    /// One event of a stream: the response the agent receives from it,
    /// when there is one.
    fn push(&mut self, event: &Value) -> Result<Option<Value>, Raised>;
    /// Whether the SDK stops reading here (OpenAI's `[DONE]`).
    fn done(&self) -> bool;
    /// The reply so far, accumulated as the final one will be (for a
    /// pane that shows the latest state).
    fn snapshot(&self) -> Value;
    /// The stream's final response.
    fn finish(self: Box<Self>) -> Value;
    /// A whole (non-streamed) reply.
    fn whole(&mut self, body: &Value) -> Result<Value, Raised>;
    /// What the parsing logged.
    fn warnings(&self) -> Vec<String>;
    /// The reply as the release's agent holds it in its memory, named
    /// `name` (2.x: an `AssistantMsg` of the response's blocks): what
    /// appending it adds to the session.
    fn held(&self, reply: &Value, name: &str) -> Value;
}

/// The environment variable a family's key is usually kept in: the
/// variable its SDK or AgentScope's credential reads.
pub fn key_variable(family: &Family) -> Option<&'static str> {
    if let Some(p) = family.provider {
        return crate::wire::export::key_variable(p);
    }
    match family.id {
        "openai_response" => Some("OPENAI_API_KEY"),
        "minimax" => Some("MINIMAX_API_KEY"),
        "moonshot" => Some("MOONSHOT_API_KEY"),
        "volcengine" => Some("ARK_API_KEY"),
        "xai" => Some("XAI_API_KEY"),
        "glm" => Some("ZAI_API_KEY"),
        _ => None,
    }
}

/// `format`'s options as the command line gives them, for any release:
/// each release takes the ones it has and names the first it has not.
#[derive(Debug, Clone, Default)]
pub struct FormatFlags {
    /// The class, resolved from `--formatter` or `--provider`/`--mode`;
    /// `None`: the release picks from the session's own provider and mode.
    pub class: Option<String>,
    pub count: bool,
    pub tools: bool,
    pub tool_choice: Option<String>,
    pub tool_choice_tools: Option<Vec<String>>,
    pub input_types: Option<Vec<String>>,
    pub history_prompt: Option<String>,
    pub msgs_only: bool,
    pub dump_msgs: bool,
    pub raw: bool,
    pub endpoint: Option<String>,
    pub model: Option<String>,
    pub promote_images: bool,
    pub web_roots: Vec<std::path::PathBuf>,
    /// Flags given that only the default release's formatter has
    /// (truncation, token counters, the other promote flags), by name.
    pub budget_flags: Vec<&'static str>,
}

impl FormatFlags {
    /// The first flag given of `flags` (name, given), for the error.
    pub fn first_of(&self, flags: &[(&'static str, bool)]) -> Option<&'static str> {
        self.budget_flags
            .first()
            .copied()
            .or_else(|| flags.iter().find(|(_, on)| *on).map(|(f, _)| *f))
    }
}
