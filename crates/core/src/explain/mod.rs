//! Why each node of a request looks the way it does:
//! every output message, every part inside it and every object the
//! formatter builds is attributed to its source message (and block) and to
//! the rule that made it ([`rules::RULES`]); leaves, and the tool inputs the
//! formatter copies as they are, inherit from the nearest attributed
//! ancestor ([`Explained::lookup`]).
//!
//! The attribution reads the formatter's real output: which input messages
//! made each output message comes from the formatting itself (the spans
//! of [`crate::formatter::Segmented`]), and the rule from the node's shape
//! and its source, as the provider's formatter builds it. A node of a shape
//! no rule describes is left unattributed, and the golden-case test fails
//! on it.

/// A catalogue entry: `r!(id, provider, text, place in AgentScope, API
/// doc)`, shared by the three catalogues.
macro_rules! r {
    ($id:expr, $p:expr, $text:expr, $as:expr, $api:expr) => {
        Rule {
            id: $id,
            provider: $p,
            text: $text,
            agentscope: $as,
            api: $api,
        }
    };
}

pub mod firing;
pub mod rules;
pub mod rules_java;
pub mod rules_v0;
pub mod rules_v2;

use crate::formatter::FormattedRequest;
use crate::formatter::{FormatterId, Mode, Provider};
use crate::session::Msg;
use serde_json::Value;
use std::ops::Range;
use std::sync::Arc;

pub use firing::{Facts, Fired, Firing, MessageFacts};
pub use rules::{Rule, RULES};
pub use rules_java::RULES_JAVA;
pub use rules_v0::RULES_V0;
pub use rules_v2::RULES_V2;

/// A rule of any catalogue: 1.0.21's ([`RULES`]), 2.0.11's ([`RULES_V2`]),
/// Java 2.0.2's ([`RULES_JAVA`]) or 0.1.6's ([`RULES_V0`]).
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .chain(RULES_V2)
        .chain(RULES_JAVA)
        .chain(RULES_V0)
        .find(|r| r.id == id)
}

/// One attributed node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// RFC 6901 pointer into the document explained.
    pub pointer: String,
    /// The session messages it came from (none: not from a message).
    pub messages: Option<Range<usize>>,
    /// The source block, when one block made it.
    pub block: Option<usize>,
    pub rule: &'static str,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Explained {
    pub nodes: Vec<Node>,
}

/// `pointer` is `at` or below it.
fn within(pointer: &str, at: &str) -> bool {
    at.is_empty()
        || pointer == at
        || (pointer.starts_with(at) && pointer.as_bytes().get(at.len()) == Some(&b'/'))
}

fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl Explained {
    /// The node that explains `pointer`: itself, or its nearest attributed
    /// ancestor.
    pub fn lookup(&self, pointer: &str) -> Option<&Node> {
        self.nodes
            .iter()
            .filter(|n| within(pointer, &n.pointer))
            .max_by_key(|n| n.pointer.len())
    }

    /// A node attributed exactly at `pointer`.
    pub fn direct(&self, pointer: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.pointer == pointer)
    }

    /// The rules that fired, in catalogue order, with the source messages
    /// each fired on.
    pub fn fired(&self) -> Vec<(&'static Rule, Vec<usize>)> {
        let mut out: Vec<(&'static Rule, Vec<usize>)> = Vec::new();
        for r in RULES {
            let mut on: Vec<usize> = self
                .nodes
                .iter()
                .filter(|n| n.rule == r.id)
                .filter_map(|n| n.messages.as_ref().map(|m| m.start))
                .collect();
            if self.nodes.iter().any(|n| n.rule == r.id) {
                on.sort_unstable();
                on.dedup();
                out.push((r, on));
            }
        }
        out
    }

    fn add(
        &mut self,
        pointer: String,
        messages: Option<Range<usize>>,
        block: Option<usize>,
        rule: &'static str,
    ) {
        self.nodes.push(Node {
            pointer,
            messages,
            block,
            rule,
        });
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn has_history_tag(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains("<history>") || s.contains("</history>"),
        Value::Array(a) => a.iter().any(has_history_tag),
        Value::Object(m) => m.values().any(has_history_tag),
        _ => false,
    }
}

/// The rule of an output message as a whole.
fn message_rule(
    p: Provider,
    m: &Value,
    history: bool,
    system_first: bool,
    mode: Mode,
) -> &'static str {
    if history {
        return if p == Provider::Gemini {
            "gemini.history.wrap-no-newline"
        } else {
            "multi_agent.history.wrap"
        };
    }
    if system_first && mode == Mode::MultiAgent {
        return "multi_agent.system.first";
    }
    let has = |k: &str| m.get(k).is_some();
    let parts_have = |key: &str, k: &str| {
        m.get(key).and_then(Value::as_array).is_some_and(|a| {
            a.iter()
                .any(|x| x.get(k).is_some() || x.get("type").and_then(Value::as_str) == Some(k))
        })
    };
    match p {
        Provider::OpenAi => match () {
            _ if role(m) == "tool" => "openai.tool_result.role-tool",
            _ if has("tool_calls") => "openai.tool_use.tool-calls",
            _ => "openai.message.role-and-name",
        },
        Provider::Anthropic => match () {
            _ if role(m) == "system" => "anthropic.system.role-in-messages",
            _ if parts_have("content", "tool_result") => "anthropic.tool_result.user-turn",
            _ => "anthropic.message.role-content",
        },
        Provider::DashScope => match () {
            _ if role(m) == "tool" => "dashscope.tool_result.role-tool",
            _ if has("tool_calls") => "dashscope.tool_use.tool-calls",
            _ if m.get("content").is_some_and(Value::is_string) => {
                "dashscope.reformat.plain-text-string"
            }
            _ => "dashscope.message.content-list",
        },
        Provider::Gemini => match () {
            _ if role(m) == "model" => "gemini.role.assistant-as-model",
            _ if parts_have("parts", "function_response") => "gemini.tool_result.function-response",
            _ => "gemini.role.user",
        },
        Provider::Ollama => match () {
            _ if role(m) == "tool" => "ollama.tool_result.role-tool",
            _ if has("tool_calls") => "ollama.tool_use.arguments-object",
            _ => "ollama.message.content-string",
        },
        Provider::DeepSeek => match () {
            _ if role(m) == "tool" => "deepseek.tool_result.role-tool",
            _ if has("tool_calls") => "deepseek.tool_use.tool-calls",
            _ => "deepseek.message.role-content",
        },
    }
}

/// The rule of a part inside a message's content (or parts), and the kind
/// of source block it comes from (for the block index).
fn part_rule(p: Provider, part: &Value, history: bool) -> Option<(&'static str, &'static str)> {
    let kind = part.get("type").and_then(Value::as_str);
    let key = |k: &str| part.get(k).is_some();
    let text_rule = |r: &'static str| Some((if history { history_rule(p) } else { r }, "text"));
    match p {
        Provider::OpenAi => match kind? {
            "text" => text_rule("openai.text.part"),
            "image_url" => {
                let url = part
                    .pointer("/image_url/url")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                Some((
                    if url.starts_with("data:") {
                        "openai.image.base64-inline"
                    } else {
                        "openai.image.url"
                    },
                    "image",
                ))
            }
            "input_audio" => Some(("openai.audio.input-audio", "audio")),
            _ => None,
        },
        Provider::Anthropic => match kind? {
            "text" => text_rule("anthropic.text.block"),
            "image" => Some((
                if part.pointer("/source/type").and_then(Value::as_str) == Some("base64") {
                    "anthropic.image.base64-source"
                } else {
                    "anthropic.image.url-source"
                },
                "image",
            )),
            "thinking" => Some(("anthropic.thinking.kept", "thinking")),
            "tool_use" => Some(("anthropic.tool_use.block", "tool_use")),
            "tool_result" => Some(("anthropic.tool_result.user-turn", "tool_result")),
            _ => None,
        },
        Provider::DashScope => {
            if key("text") {
                return text_rule("dashscope.text.part");
            }
            for media in ["image", "audio", "video"] {
                if let Some(url) = part.get(media).and_then(Value::as_str) {
                    let r = if url.starts_with("data:") {
                        "dashscope.local-media.base64-inline"
                    } else {
                        "dashscope.media.url"
                    };
                    return Some((r, media));
                }
            }
            None
        }
        Provider::Gemini => {
            if key("function_call") {
                Some(("gemini.tool_use.function-call", "tool_use"))
            } else if key("function_response") {
                Some(("gemini.tool_result.function-response", "tool_result"))
            } else if key("inline_data") {
                Some(("gemini.media.inline-data", "media"))
            } else if key("text") {
                text_rule("gemini.text.part")
            } else {
                None
            }
        }
        Provider::DeepSeek => match kind? {
            "text" => text_rule("deepseek.text.part"),
            _ => None,
        },
        Provider::Ollama => None,
    }
}

fn history_rule(p: Provider) -> &'static str {
    if p == Provider::Gemini {
        "gemini.history.wrap-no-newline"
    } else {
        "multi_agent.history.wrap"
    }
}

/// A source message's blocks looked up by kind and order, and by id: each
/// index made once, when first asked (a scan per part was quadratic: 5,000
/// text blocks took `explain` 5 s, 20,000 took 99 s).
struct BlockIndex<'a> {
    msg: &'a Msg,
    /// Block positions by type (`media`: image, audio and video together).
    by_kind: Option<std::collections::HashMap<&'a str, Vec<usize>>>,
    /// The first block of each (type, id).
    by_id: Option<std::collections::HashMap<(&'a str, &'a Value), usize>>,
}

impl<'a> BlockIndex<'a> {
    fn new(msg: &'a Msg) -> Self {
        BlockIndex {
            msg,
            by_kind: None,
            by_id: None,
        }
    }

    fn kind_of(b: &'a Value) -> &'a str {
        b.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The `nth` block of `kind` (`media`: image, audio or video).
    fn nth(&mut self, kind: &str, nth: usize) -> Option<usize> {
        let msg = self.msg;
        let by_kind = self.by_kind.get_or_insert_with(|| {
            let mut map: std::collections::HashMap<&'a str, Vec<usize>> = Default::default();
            for (i, b) in msg.blocks().iter().enumerate() {
                let t = Self::kind_of(b);
                map.entry(t).or_default().push(i);
                if matches!(t, "image" | "audio" | "video") {
                    map.entry("media").or_default().push(i);
                }
            }
            map
        });
        by_kind.get(kind)?.get(nth).copied()
    }

    /// The block whose `id` is `id` (a tool call or result).
    fn by_id(&mut self, kind: &str, id: &Value) -> Option<usize> {
        let msg = self.msg;
        let by_id = self.by_id.get_or_insert_with(|| {
            let mut map: std::collections::HashMap<(&'a str, &'a Value), usize> =
                Default::default();
            for (i, b) in msg.blocks().iter().enumerate() {
                if let Some(id) = b.get("id") {
                    map.entry((Self::kind_of(b), id)).or_insert(i);
                }
            }
            map
        });
        by_id.get(&(kind, id)).copied()
    }
}

/// Attributes a formatter's output. `prefix` is the pointer of the list
/// (`""` for the bare list, `/messages` inside `{"messages": [...]}`).
pub fn formatted(
    id: FormatterId,
    msgs: &[Arc<Msg>],
    request: &FormattedRequest,
    prefix: &str,
) -> Explained {
    let p = id.provider;
    let mut out = Explained::default();
    // Each output message's source range: the first span holding it (one
    // pass, not a search per message).
    let mut ranges: Vec<Option<Range<usize>>> = vec![None; request.messages.len()];
    let n = ranges.len();
    for (i, o) in &request.spans {
        for r in &mut ranges[o.start.min(n)..o.end.min(n).max(o.start.min(n))] {
            r.get_or_insert_with(|| i.clone());
        }
    }
    for (k, m) in request.messages.iter().enumerate() {
        let range = ranges[k].clone();
        let single = range
            .as_ref()
            .filter(|r| r.len() == 1)
            .and_then(|r| msgs.get(r.start));
        let mut index = single.map(|src| BlockIndex::new(src));
        let history = id.mode == Mode::MultiAgent
            && !matches!(role(m), "tool" | "assistant" | "model")
            && has_history_tag(m);
        let system_first = k == 0
            && range == Some(0..1)
            && msgs
                .first()
                .is_some_and(|x| x.role == crate::session::Role::System);
        let at = format!("{prefix}/{k}");
        out.add(
            at.clone(),
            range.clone(),
            None,
            message_rule(p, m, history, system_first, id.mode),
        );
        let Value::Object(map) = m else { continue };
        let mut counters: std::collections::HashMap<&'static str, usize> = Default::default();
        for (key, v) in map {
            let here = format!("{at}/{}", token(key));
            match (key.as_str(), v) {
                ("content" | "parts", Value::Array(parts)) => {
                    for (j, part) in parts.iter().enumerate() {
                        let part_at = format!("{here}/{j}");
                        let Some((r, kind)) = part_rule(p, part, history) else {
                            continue;
                        };
                        let block = index.as_mut().and_then(|src| {
                            // Tool calls and results by id (Gemini's call
                            // id can be null: then in order, as the rest).
                            let id = match kind {
                                "tool_use" => {
                                    part.get("id").or_else(|| part.pointer("/function_call/id"))
                                }
                                "tool_result" => part
                                    .get("tool_use_id")
                                    .or_else(|| part.pointer("/function_response/id")),
                                _ => None,
                            };
                            let n = counters.entry(kind).or_insert(0);
                            *n += 1;
                            match id.filter(|i| !i.is_null()) {
                                Some(id) => src.by_id(kind, id),
                                None if history => None,
                                None => src.nth(kind, *n - 1),
                            }
                        });
                        out.add(part_at.clone(), range.clone(), block, r);
                        inner(
                            p,
                            part,
                            &part_at,
                            range.clone(),
                            block,
                            r,
                            history,
                            &mut out,
                        );
                    }
                }
                ("tool_calls", Value::Array(calls)) => {
                    let r = message_rule(p, m, false, false, Mode::Chat);
                    for (j, call) in calls.iter().enumerate() {
                        let call_at = format!("{here}/{j}");
                        let block = index.as_mut().and_then(|src| {
                            call.get("id").and_then(|id| src.by_id("tool_use", id))
                        });
                        out.add(call_at.clone(), range.clone(), block, r);
                        inner(p, call, &call_at, range.clone(), block, r, false, &mut out);
                    }
                }
                ("images", Value::Array(_)) => {
                    out.add(here, range.clone(), None, "ollama.image.base64-inline");
                }
                ("reasoning_content", _) => {
                    out.add(
                        here,
                        range.clone(),
                        None,
                        "deepseek.thinking.reasoning-content",
                    );
                }
                _ => {}
            }
        }
    }
    out
}

/// The objects inside a part or a tool call: the same rule as their part,
/// except the tool inputs copied as they are (attributed once, inherited
/// below).
#[allow(clippy::too_many_arguments)]
fn inner(
    p: Provider,
    v: &Value,
    at: &str,
    range: Option<Range<usize>>,
    block: Option<usize>,
    r: &'static str,
    history: bool,
    out: &mut Explained,
) {
    let Value::Object(map) = v else { return };
    for (key, x) in map {
        let here = format!("{at}/{}", token(key));
        match x {
            Value::Object(_) if matches!(key.as_str(), "input" | "args" | "arguments") => {
                out.add(here, range.clone(), block, "tool_use.input-as-is");
            }
            Value::Object(_) if key == "thought_signature" => {
                out.add(here, range.clone(), block, "gemini.thought-signature.bytes");
            }
            Value::Object(_) => {
                out.add(here.clone(), range.clone(), block, r);
                inner(p, x, &here, range.clone(), block, r, history, out);
            }
            Value::Array(items) => {
                // A tool result's own blocks (Anthropic) are parts again.
                for (j, item) in items.iter().enumerate() {
                    if !item.is_object() {
                        continue;
                    }
                    let item_at = format!("{here}/{j}");
                    let rr = part_rule(p, item, history).map_or(r, |(rr, _)| rr);
                    out.add(item_at.clone(), range.clone(), block, rr);
                    inner(p, item, &item_at, range.clone(), block, rr, history, out);
                }
            }
            _ => {}
        }
    }
}

/// The rule of a wire body's top-level key.
fn wire_key_rule(p: Provider, key: &str) -> &'static str {
    match key {
        "model" => "wire.model",
        "stream" => "wire.stream",
        "stream_options" => "wire.stream-options",
        "messages" => "wire.messages",
        "tools" => "wire.tools",
        "tool_choice" => "wire.tool-choice",
        "system" => "anthropic.system.top-level",
        "max_tokens" if p == Provider::Anthropic => "anthropic.wire.max-tokens",
        "thinking" | "think" | "reasoning_effort" | "enable_thinking" => "wire.thinking",
        "contents" => "gemini.wire.contents",
        "systemInstruction" => "gemini.system.system-instruction",
        "generationConfig" | "toolConfig" => "gemini.wire.config",
        "input" | "parameters" => "dashscope.wire.input-parameters",
        "keep_alive" | "options" => "ollama.wire.keep-alive",
        _ => "wire.generate-kwargs",
    }
}

fn camel(token: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in token.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Attributes a wire body built from a formatted request (`explained` is
/// that request's attribution with prefix `""`): top-level keys by the
/// model class's rules, the conversation's messages and their parts as the
/// formatter made them.
pub fn wire(
    id: FormatterId,
    body: &Value,
    request: &FormattedRequest,
    explained: &Explained,
) -> Explained {
    let p = id.provider;
    let mut out = Explained::default();
    let Value::Object(top) = body else { return out };
    let arrays = ["/messages", "/input/messages", "/contents"];
    let array = arrays
        .iter()
        .find(|a| body.pointer(a).is_some_and(Value::is_array))
        .copied();
    let len = array
        .and_then(|a| body.pointer(a))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let system_first = request.messages.first().map(role) == Some("system");
    let shift = if len == request.messages.len() {
        0
    } else if system_first && len + 1 == request.messages.len() {
        1
    } else {
        usize::MAX
    };
    let system_source = request
        .spans
        .iter()
        .find(|(_, o)| o.contains(&0))
        .map(|(i, _)| i.clone());
    for key in top.keys() {
        let r = wire_key_rule(p, key);
        let source = (r == "anthropic.system.top-level")
            .then(|| system_source.clone())
            .flatten();
        out.add(format!("/{}", token(key)), source, None, r);
    }
    if let Some(Value::Object(m)) = body.get("input").filter(|_| p == Provider::DashScope) {
        for k in m.keys() {
            out.add(
                format!("/input/{}", token(k)),
                None,
                None,
                "dashscope.wire.input-parameters",
            );
        }
    }
    let Some(array) = array.filter(|_| shift != usize::MAX) else {
        return out;
    };
    // Each formatted node, moved to where the body holds it (Gemini's REST
    // keys are camelCase).
    for node in &explained.nodes {
        let mut tokens = node.pointer.trim_start_matches('/').split('/');
        let Some(k) = tokens.next().and_then(|t| t.parse::<usize>().ok()) else {
            continue;
        };
        let Some(j) = k.checked_sub(shift) else {
            continue;
        };
        let rest: Vec<&str> = tokens.collect();
        let plain = format!(
            "{array}/{j}{}",
            rest.iter().map(|t| format!("/{t}")).collect::<String>()
        );
        let camelled = format!(
            "{array}/{j}{}",
            rest.iter()
                .map(|t| format!("/{}", camel(t)))
                .collect::<String>()
        );
        let at = if body.pointer(&plain).is_some() {
            plain
        } else if body.pointer(&camelled).is_some() {
            camelled
        } else {
            continue;
        };
        out.add(at, node.messages.clone(), node.block, node.rule);
    }
    out
}
