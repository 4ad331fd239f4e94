//! Which rules of a release's catalogue shaped a session's request, read
//! from the session's messages: for the releases whose nodes are not
//! attributed one by one (2.0.11, Java 2.0.2, 0.1.6), each release's
//! module says which of its rules a message's blocks, role, the provider
//! and the mode call for ([`Firing`]); the facts it reads are here, the
//! same for every release ([`Facts`]).

use super::Rule;
use crate::session::Session;
use serde_json::Value;

/// A rule that fired and the session messages it shaped (none: the
/// request as a whole).
pub type Fired = (&'static Rule, Vec<usize>);

/// What a release's rules look at in one session message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageFacts {
    pub role: String,
    /// The block types, in order (a string content is one `text`).
    pub kinds: Vec<String>,
    /// A tool result holds an image, audio or video.
    pub tool_media: bool,
    /// The local paths its image, audio and video blocks name (neither a
    /// web nor a `data:` URL, nor base64 data), as written: never looked
    /// up, since a session may name any path.
    pub local_media: Vec<String>,
}

impl MessageFacts {
    /// Whether a block of `kind` is in the message.
    pub fn has(&self, kind: &str) -> bool {
        self.kinds.iter().any(|k| k == kind)
    }

    /// Media of any release's spelling: image, audio, video, 2.x data.
    pub fn media(&self) -> bool {
        ["image", "audio", "video", "data"]
            .iter()
            .any(|k| self.has(k))
    }

    /// Tool calls of any release's spelling (`tool_use`, 2.x `tool_call`).
    pub fn calls(&self) -> bool {
        self.has("tool_use") || self.has("tool_call")
    }

    /// Tool calls or results.
    pub fn tools(&self) -> bool {
        self.calls() || self.has("tool_result")
    }

    /// Only text blocks (and at least one).
    pub fn text_only(&self) -> bool {
        !self.kinds.is_empty() && self.kinds.iter().all(|k| k == "text")
    }
}

/// The facts of every message of a session, in order.
#[derive(Debug, Clone, Default)]
pub struct Facts(pub Vec<MessageFacts>);

impl Facts {
    pub fn of(session: &Session) -> Facts {
        Facts(
            session
                .messages
                .iter()
                .map(|m| message_facts(&m.value()))
                .collect(),
        )
    }

    /// The messages `test` holds for.
    pub fn which(&self, test: impl Fn(&MessageFacts) -> bool) -> Vec<usize> {
        (0..self.0.len()).filter(|i| test(&self.0[*i])).collect()
    }

    /// The messages `test` holds for, given the whole list and the index
    /// (for rules about neighbours and positions).
    pub fn which_at(&self, test: impl Fn(&[MessageFacts], usize) -> bool) -> Vec<usize> {
        (0..self.0.len()).filter(|i| test(&self.0, *i)).collect()
    }

    /// Every message.
    pub fn all(&self) -> Vec<usize> {
        (0..self.0.len()).collect()
    }
}

fn message_facts(message: &Value) -> MessageFacts {
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut facts = MessageFacts {
        role,
        ..MessageFacts::default()
    };
    match message.get("content") {
        Some(Value::String(text)) if !text.is_empty() => facts.kinds.push("text".into()),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
                facts.kinds.push(kind.to_string());
                if let Some(path) = local_source(block) {
                    facts.local_media.push(path);
                }
                if kind == "tool_result" {
                    facts.tool_media |= holds_media(block.get("output"));
                }
            }
        }
        _ => {}
    }
    facts
}

fn holds_media(output: Option<&Value>) -> bool {
    let Some(Value::Array(blocks)) = output else {
        return false;
    };
    blocks.iter().any(|b| {
        matches!(
            b.get("type").and_then(Value::as_str),
            Some("image" | "audio" | "video" | "data")
        )
    })
}

/// The local path a media block's source names, if it names one.
fn local_source(block: &Value) -> Option<String> {
    let kind = block.get("type").and_then(Value::as_str)?;
    if !matches!(kind, "image" | "audio" | "video" | "data") {
        return None;
    }
    let source = block.get("source")?;
    let url = match source.get("type").and_then(Value::as_str) {
        Some("url") => source.get("url").and_then(Value::as_str)?,
        _ => return None,
    };
    let lower = url.to_ascii_lowercase();
    if ["http://", "https://", "data:"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return None;
    }
    Some(url.strip_prefix("file://").unwrap_or(url).to_string())
}

/// The rules of one catalogue that fired, in the catalogue's order.
pub struct Firing {
    catalogue: &'static [Rule],
    fired: Vec<(usize, Vec<usize>)>,
}

impl Firing {
    pub fn new(catalogue: &'static [Rule]) -> Firing {
        Firing {
            catalogue,
            fired: Vec::new(),
        }
    }

    /// `id` shaped `messages`; nothing when there are none.
    pub fn on(&mut self, id: &str, messages: Vec<usize>) {
        if !messages.is_empty() {
            self.add(id, messages);
        }
    }

    /// `id` shaped the request as a whole.
    pub fn whole(&mut self, id: &str) {
        self.add(id, Vec::new());
    }

    fn add(&mut self, id: &str, messages: Vec<usize>) {
        let at = self.catalogue.iter().position(|r| r.id == id);
        debug_assert!(at.is_some(), "no rule {id} in the catalogue");
        if let Some(at) = at {
            let slot = match self.fired.iter().position(|(i, _)| *i == at) {
                Some(slot) => slot,
                None => {
                    self.fired.push((at, Vec::new()));
                    self.fired.len() - 1
                }
            };
            let on = &mut self.fired[slot].1;
            on.extend(messages);
            on.sort_unstable();
            on.dedup();
        }
    }

    /// The fired rules, in the catalogue's order.
    pub fn done(mut self) -> Vec<Fired> {
        self.fired.sort_by_key(|(i, _)| *i);
        self.fired
            .into_iter()
            .map(|(i, on)| (&self.catalogue[i], on))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_facts_of_a_message_name_its_blocks_and_its_local_media() {
        let facts = message_facts(&json!({"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "url", "url": "../nowhere/x.png"}},
            {"type": "image", "source": {"type": "url", "url": "https://e.com/x.png"}},
            {"type": "tool_result", "id": "1", "name": "f", "output": [
                {"type": "audio", "source": {"type": "base64", "media_type": "audio/wav", "data": "AA=="}}]}
        ]}));
        assert_eq!(facts.kinds, ["text", "image", "image", "tool_result"]);
        assert!(facts.media() && facts.tool_media && !facts.calls());
        assert_eq!(facts.local_media, ["../nowhere/x.png"]);
    }

    #[test]
    fn a_rule_fires_once_with_its_messages_in_the_catalogues_order() {
        let mut f = Firing::new(crate::explain::RULES_V2);
        f.whole("v2.count.bytes-estimate");
        f.on("v2.msg.blocks-by-role", vec![2, 0]);
        f.on("v2.msg.blocks-by-role", vec![1, 2]);
        f.on("v2.hint.user-message", vec![]);
        let fired = f.done();
        let ids: Vec<&str> = fired.iter().map(|(r, _)| r.id).collect();
        assert_eq!(ids, ["v2.msg.blocks-by-role", "v2.count.bytes-estimate"]);
        assert_eq!(fired[0].1, [0, 1, 2]);
    }
}
