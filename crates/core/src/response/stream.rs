//! Streams without quadratic copies. AgentScope yields cumulative
//! snapshots: every response holds all the text so far, so building each
//! one costs the whole reply, and a reply of n chunks costs n² if every
//! yield is built. The parsers therefore keep their state (append-only
//! text and thinking) and, per yield, only a [`Yield`]: the lengths of that
//! text and thinking, and the few parts that are not append-only. A
//! response is built from it when a caller asks ([`StreamParser::latest`]):
//! exactly the one AgentScope yielded, since a prefix of an append-only
//! string is what it was then.
//!
//! What still runs per chunk, as in AgentScope: the tool-argument repair
//! (`_parse_streaming_json_dict`, "never shrink", which needs every
//! chunk's result) and the structured-output re-parse of the text; both
//! cost the arguments or the text so far per chunk, and their blocks are
//! kept whole in the [`Yield`].

use super::{think, Api, ChatResponse, Event, Options, ParseError, Usage, Warnings};
use serde_json::Value;
use std::borrow::Cow;
use std::time::Instant;

/// A provider's stream parser: one event in, whether AgentScope yields a
/// response for it. Each of the six yields at most one per event and one
/// once the stream is exhausted, so the last yield is all a caller can miss.
pub trait StreamParse {
    /// Whether this event yields a response. `Ok(None)` means the SDK stops
    /// reading here (`[DONE]`).
    fn push(&mut self, event: &Event, warnings: &mut Warnings) -> Result<Option<bool>, ParseError>;

    /// After the last event: whether AgentScope yields once more (the extra
    /// response of `stream_tool_parsing=False`).
    fn finish(&mut self, warnings: &mut Warnings) -> Result<bool, ParseError>;

    /// The last yielded response, built now, as it was yielded.
    fn latest(&self) -> Option<ChatResponse>;

    /// What the last yield holds, without its text.
    fn last_yield(&self) -> Option<&Yield>;

    /// The parser's accumulated thinking and text (a [`Yield`] holds their
    /// lengths).
    fn texts(&self) -> (&str, &str);

    /// The last yielded response as the agent holds it once the stream is
    /// exhausted (Anthropic mutates its usage after yielding).
    fn final_response(&self) -> Option<ChatResponse> {
        self.latest()
    }
}

/// One yielded response, kept without its text: the bytes of the parser's
/// thinking and text it holds (0: no block) and everything else whole.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Yield {
    pub id: Option<String>,
    pub usage: Option<Usage>,
    pub metadata: Value,
    pub thinking: usize,
    pub text: usize,
    /// OpenAI's audio data (bytes of its accumulated base64).
    pub audio: usize,
    /// Anthropic's thinking signature, Gemini's text `thought_signature`,
    /// as they were (each is replaced, not appended to).
    pub signature: Option<String>,
    /// The tool-use blocks, built when yielded.
    pub tools: Vec<Value>,
    /// A response built whole (the extra one at the end): the marks above
    /// are then unused.
    pub whole: Option<ChatResponse>,
}

impl Yield {
    pub fn has_content(&self) -> bool {
        match &self.whole {
            Some(r) => !r.content.is_empty(),
            None => self.thinking + self.text + self.audio > 0 || !self.tools.is_empty(),
        }
    }

    /// The response, its blocks built by the parser from these marks.
    pub fn build(&self, content: impl FnOnce(&Yield) -> Vec<Value>) -> ChatResponse {
        match &self.whole {
            Some(r) => r.clone(),
            None => ChatResponse::new(
                &self.id,
                content(self),
                self.usage.clone(),
                self.metadata.clone(),
            ),
        }
    }
}

/// The first `len` bytes of `s`, a mark a [`Yield`] took (the text has
/// only grown since, so it is a char boundary; never a panic if not).
pub(crate) fn prefix(s: &str, len: usize) -> &str {
    s.get(..len).unwrap_or(s)
}

/// Keeps `r`, built whole, as the last yield: whether there was one.
pub(crate) fn keep_whole(last: &mut Option<Yield>, r: Option<ChatResponse>) -> bool {
    let Some(r) = r else { return false };
    *last = Some(Yield {
        whole: Some(r),
        ..Yield::default()
    });
    true
}

/// A stream parser with the model class's options.
pub struct StreamParser {
    inner: Box<dyn StreamParse + Send>,
    split_think_tags: bool,
    stopped: bool,
    pub warnings: Warnings,
}

impl StreamParser {
    pub fn new(api: Api, opts: &Options, start: Instant) -> StreamParser {
        let inner = super::stream_parser(api, opts, start);
        StreamParser {
            inner,
            split_think_tags: opts.split_think_tags && matches!(api, Api::DashScope | Api::Ollama),
            stopped: false,
            warnings: Vec::new(),
        }
    }

    /// Whether the SDK has stopped reading (`[DONE]`).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Whether AgentScope yields a response for this event ([`latest`]
    /// builds it; ask before the next push).
    ///
    /// [`latest`]: StreamParser::latest
    pub fn push(&mut self, event: &Event) -> Result<bool, ParseError> {
        if self.stopped {
            return Ok(false);
        }
        match self.inner.push(event, &mut self.warnings)? {
            None => {
                self.stopped = true;
                Ok(false)
            }
            Some(yielded) => Ok(yielded),
        }
    }

    /// Whether the exhausted stream yields once more.
    pub fn finish(&mut self) -> Result<bool, ParseError> {
        self.inner.finish(&mut self.warnings)
    }

    /// The last yielded response, built now (the cost of the reply so far).
    pub fn latest(&self) -> Option<ChatResponse> {
        let mut r = self.inner.latest()?;
        if self.split_think_tags {
            think::split(&mut r);
        }
        Some(r)
    }

    /// The thinking and text of the last yielded response, as its
    /// `thinking()` and `text()` give them: borrowed, unless think tags are
    /// split (then the response is built).
    pub fn latest_texts(&self) -> Option<(Cow<'_, str>, Cow<'_, str>)> {
        if self.split_think_tags {
            let r = self.latest()?;
            return Some((Cow::Owned(r.thinking()), Cow::Owned(r.text())));
        }
        let y = self.inner.last_yield()?;
        if let Some(r) = &y.whole {
            return Some((Cow::Owned(r.thinking()), Cow::Owned(r.text())));
        }
        let (thinking, text) = self.inner.texts();
        Some((
            Cow::Borrowed(prefix(thinking, y.thinking)),
            Cow::Borrowed(prefix(text, y.text)),
        ))
    }

    /// Whether the last yielded response has content.
    pub fn latest_has_content(&self) -> bool {
        if self.split_think_tags {
            return self.latest().is_some_and(|r| !r.content.is_empty());
        }
        self.inner.last_yield().is_some_and(Yield::has_content)
    }

    /// The tool calls of the last yielded response.
    pub fn latest_tool_calls(&self) -> Vec<Value> {
        match self.inner.last_yield() {
            Some(Yield { whole: Some(r), .. }) => r.tool_calls().cloned().collect(),
            Some(y) => y.tools.clone(),
            None => Vec::new(),
        }
    }

    /// The response an agent keeps once the stream is over.
    pub fn final_response(&self) -> Option<ChatResponse> {
        let mut f = self.inner.final_response()?;
        if self.split_think_tags {
            think::split(&mut f);
        }
        Some(f)
    }
}

/// A response AgentScope yielded, as a send reports it: built whole (a
/// reply that was not streamed) or the stream parser's last yield, built
/// only if asked.
pub struct Yielded<'a> {
    source: Source<'a>,
    again: bool,
}

enum Source<'a> {
    Whole(&'a ChatResponse),
    Stream(&'a StreamParser),
}

impl<'a> Yielded<'a> {
    pub fn whole(r: &'a ChatResponse) -> Self {
        Yielded {
            source: Source::Whole(r),
            again: false,
        }
    }

    pub fn stream(parser: &'a StreamParser) -> Self {
        Yielded {
            source: Source::Stream(parser),
            again: false,
        }
    }

    /// The same response once more, not a new yield: the stream has been
    /// quiet for a while (a view that skipped responses catches up).
    pub fn again(parser: &'a StreamParser) -> Self {
        Yielded {
            source: Source::Stream(parser),
            again: true,
        }
    }

    pub fn is_again(&self) -> bool {
        self.again
    }

    /// The response, built (the cost of the reply so far).
    pub fn response(&self) -> Cow<'a, ChatResponse> {
        match self.source {
            Source::Whole(r) => Cow::Borrowed(r),
            Source::Stream(p) => Cow::Owned(p.latest().unwrap_or_else(empty)),
        }
    }

    /// Its thinking and text, as `thinking()` and `text()` give them.
    pub fn texts(&self) -> (Cow<'a, str>, Cow<'a, str>) {
        match self.source {
            Source::Whole(r) => (Cow::Owned(r.thinking()), Cow::Owned(r.text())),
            Source::Stream(p) => p.latest_texts().unwrap_or_default(),
        }
    }

    /// Whether its thinking and text extend those of every earlier
    /// response of the same stream (prefixes of the parser's append-only
    /// text): true unless think tags are split or it was built whole.
    pub fn appends(&self) -> bool {
        match self.source {
            Source::Whole(_) => false,
            Source::Stream(p) => {
                !p.split_think_tags && p.inner.last_yield().is_some_and(|y| y.whole.is_none())
            }
        }
    }

    pub fn has_content(&self) -> bool {
        match self.source {
            Source::Whole(r) => !r.content.is_empty(),
            Source::Stream(p) => p.latest_has_content(),
        }
    }

    pub fn tool_calls(&self) -> Vec<Value> {
        match self.source {
            Source::Whole(r) => r.tool_calls().cloned().collect(),
            Source::Stream(p) => p.latest_tool_calls(),
        }
    }
}

fn empty() -> ChatResponse {
    ChatResponse::new(&None, Vec::new(), None, Value::Null)
}
