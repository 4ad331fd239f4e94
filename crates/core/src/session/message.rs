//! A session's messages as they are held between uses: packed bytes, not
//! JSON trees. A message dict as a `serde_json::Value` costs about four
//! times its text (80 bytes per value, an allocation per key and string);
//! packed it costs its text and a few bytes. The workbench, its worker and
//! the budget model share one packed copy and unpack a message when they
//! read it.

use super::{Msg, Role};
use crate::json::Packed;
use crate::py::{self, PyErr};
use compact_str::CompactString;
use serde_json::Value;
use std::borrow::Cow;
use std::hash::Hasher;
use std::ops::Range;
use std::sync::Arc;

/// One message dict of a session (any JSON value: it is checked when it is
/// formatted, as AgentScope checks it), packed. Cloning shares the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct PackedMessage {
    packed: Packed,
    /// [`Self::key`], hashed once when packed: every job asks for every
    /// message's key, and hashing 30 MB of messages on each was a fifth of
    /// a warm count at 100,000 messages.
    key: u64,
    /// [`Self::may_read_media`], found once when packed: every formatting
    /// run asks it of every message.
    media: bool,
}

/// The `"source"` key's packed bytes, searched for in every message
/// packed (see [`PackedMessage::may_read_media`]): the searcher built once,
/// not for each message (building it, and the key, was 2% of `format
/// --count`'s instructions).
static SOURCE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| {
        memchr::memmem::Finder::new(&crate::json::packed_key("source")).into_owned()
    });

impl PackedMessage {
    pub fn new(value: &Value) -> PackedMessage {
        PackedMessage::from_packed(Packed::pack_one(value))
    }

    /// A message the parser packed.
    pub(crate) fn from_packed(packed: Packed) -> PackedMessage {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        hasher.write(packed.as_bytes());
        PackedMessage {
            key: hasher.finish(),
            media: SOURCE.find(packed.as_bytes()).is_some(),
            packed,
        }
    }

    /// The dict, equal to the one packed (key order and number text kept).
    pub fn value(&self) -> Value {
        self.packed.unpack_one()
    }

    /// A content hash: equal keys, equal dicts (key order included).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// This very message (a clone of it), not only an equal one: what a
    /// cache of something read from it can check cheaply.
    pub fn same(&self, other: &PackedMessage) -> bool {
        self.packed.same(&other.packed)
    }

    /// Whether formatting it may read, fetch or save media: every media
    /// block names its media under a `"source"` key, so a message without
    /// one anywhere never does. (A text that happens to hold the key's
    /// packed bytes only answers yes wrongly, which costs nothing but speed.)
    pub fn may_read_media(&self) -> bool {
        self.media
    }

    /// The string at `span` of its bytes ([`crate::json::View::str_span`]).
    fn str_at(&self, span: Range<u32>) -> Option<&str> {
        self.packed.str_at(span.start as usize..span.end as usize)
    }

    /// The dict read in place (see [`crate::json::View`]).
    pub fn view(&self) -> Option<crate::json::View<'_>> {
        self.packed.view_one()
    }

    /// Its name and texts, read in place, when it is of the plain shape: a
    /// string name; string content, or blocks each with a string type,
    /// whose text blocks each have a string text. `None` for any other.
    pub fn texts(&self) -> Option<Texts<'_>> {
        let [name, content] = self.view()?.get_all(["name", "content"])?;
        let (name, content) = (name?.as_str()?, content?);
        if let Some(text) = content.as_str() {
            return Some(Texts {
                name,
                texts: vec![text],
                only_texts: true,
            });
        }
        let mut texts = Vec::new();
        let mut only_texts = true;
        for block in content.items()? {
            let [typ, text] = block.get_all(["type", "text"])?;
            if typ?.str_bytes()? == b"text" {
                texts.push(text?.as_str()?);
            } else {
                only_texts = false;
            }
        }
        Some(Texts {
            name,
            texts,
            only_texts,
        })
    }

    /// `Msg.from_dict` on this message. A valid one unpacks only its
    /// name and content (all a `Msg` keeps); any other is read whole, for
    /// `Msg.from_dict`'s own error.
    pub fn msg(&self) -> Result<Msg, (PyErr, Option<String>)> {
        let members = self.packed.members_of_first(["name", "content", "role"]);
        if let Some([Some(name), Some(content), Some(role)]) = members {
            if let Some(msg) = Msg::from_members(name, content, &role) {
                return Ok(msg);
            }
        }
        Msg::from_value(self.value())
    }
}

/// [`PackedMessage::texts`]: a message's name, its text blocks' texts in
/// order, and whether it has blocks of any other type.
pub struct Texts<'a> {
    pub name: &'a str,
    pub texts: Vec<&'a str>,
    pub only_texts: bool,
}

impl From<Value> for PackedMessage {
    fn from(value: Value) -> PackedMessage {
        PackedMessage::new(&value)
    }
}

impl From<&Value> for PackedMessage {
    fn from(value: &Value) -> PackedMessage {
        PackedMessage::new(value)
    }
}

impl From<Arc<Value>> for PackedMessage {
    fn from(value: Arc<Value>) -> PackedMessage {
        PackedMessage::new(&value)
    }
}

impl From<&PackedMessage> for PackedMessage {
    fn from(message: &PackedMessage) -> PackedMessage {
        message.clone()
    }
}

impl std::fmt::Debug for PackedMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value().fmt(f)
    }
}

impl serde::Serialize for PackedMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

/// A message as a formatting run holds it: a `Msg` in memory, or a packed
/// session message with what is asked of every message on every run (its
/// role, whether it has tool blocks, its name) known without unpacking.
#[derive(Debug, Clone)]
pub enum MsgItem {
    Live(Arc<Msg>),
    Packed(PackedMsg),
}

#[derive(Debug, Clone)]
pub struct PackedMsg {
    message: PackedMessage,
    role: Role,
    /// `has_tool_blocks()`; `None` when it raises (a block without a type).
    tools: Option<bool>,
    /// Its tool ids, read in place when it was checked (tool blocks of the
    /// plain shape): every plan asks them of each message it drops.
    ids: Option<Arc<ToolIds>>,
    /// `str(msg.name)`, inline where it is short, as speakers' names are
    /// (a long one has a copy of its own). Not one `Arc` shared by every
    /// message of a speaker: giving it to 100,000 messages was a serial
    /// pass of a cold count (3-5 ms of its 190), and every clone and drop
    /// on two cores fought over the one reference count.
    name: CompactString,
    /// Where its one text is in its bytes, when it is of the plain shape
    /// with string content or one text block ([`MsgItem::texts`]): set
    /// only by [`MsgItem::packed`], once the text there was checked as
    /// UTF-8, and never with another `message`.
    text: Option<Range<u32>>,
}

impl PackedMsg {
    /// Its one text ([`PackedMsg::text`]), not checked as UTF-8 again: a
    /// one-group session's edit reads every member's text twice (its
    /// lines with and without the history prompt), and checking 18 MB
    /// each time was a tenth of the edit.
    fn text(&self) -> Option<&str> {
        let span = self.text.clone()?;
        let bytes = self
            .message
            .packed
            .as_bytes()
            .get(span.start as usize..span.end as usize)?;
        debug_assert!(std::str::from_utf8(bytes).is_ok());
        // SAFETY: `text` is set only in `MsgItem::packed`, after these
        // very bytes (the same span of the same message, whose packed
        // bytes are shared and immutable, and nothing here replaces them)
        // were checked there as UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }
}

impl MsgItem {
    /// A session message, checked as `Msg.from_dict` checks it (any thread
    /// can check one).
    pub fn packed(message: PackedMessage) -> Result<MsgItem, (PyErr, Option<String>)> {
        let view = message.view();
        if let Some(plain) = view.and_then(plain_check) {
            let ids = view
                .filter(|_| plain.tools)
                .and_then(tool_ids_in_place)
                .map(Arc::new);
            return Ok(MsgItem::Packed(PackedMsg {
                role: plain.role,
                tools: Some(plain.tools),
                ids,
                name: CompactString::new(plain.name),
                // Checked here once (see `PackedMsg::text`).
                text: plain
                    .text
                    .filter(|span| message.str_at(span.clone()).is_some()),
                message,
            }));
        }
        let msg = message.msg()?;
        Ok(MsgItem::Packed(PackedMsg {
            role: msg.role,
            tools: msg.has_tool_blocks().ok(),
            ids: None,
            name: py::py_str(msg.name()).into(),
            text: None,
            message,
        }))
    }

    pub fn role(&self) -> Role {
        match self {
            MsgItem::Live(m) => m.role,
            MsgItem::Packed(p) => p.role,
        }
    }

    /// `str(msg.name)`: read in place for a packed message.
    pub fn name(&self) -> Cow<'_, str> {
        match self {
            MsgItem::Live(m) => Cow::Owned(py::py_str(m.name())),
            MsgItem::Packed(p) => Cow::Borrowed(&p.name),
        }
    }

    pub fn has_tool_blocks(&self) -> Result<bool, PyErr> {
        match self {
            MsgItem::Packed(PackedMsg { tools: Some(t), .. }) => Ok(*t),
            _ => self.msg()?.has_tool_blocks(),
        }
    }

    /// The tool-call ids it opens and closes ([`ToolIds`]); `None` for a
    /// message without tool blocks. A packed one's were read in place when
    /// it was checked: a plan at 100,000 messages asks them of every
    /// message it drops, and unpacking each into a `Msg` was four fifths
    /// of the plan.
    pub fn tool_ids(&self) -> Result<Option<Cow<'_, ToolIds>>, PyErr> {
        if let MsgItem::Packed(p) = self {
            match (p.tools, &p.ids) {
                (Some(false), _) => return Ok(None),
                (_, Some(ids)) => return Ok(Some(Cow::Borrowed(ids))),
                _ => {}
            }
        }
        ToolIds::of(&*self.msg()?).map(|ids| Some(Cow::Owned(ids)))
    }

    /// Whether formatting it may read, fetch or save media (see
    /// [`PackedMessage::may_read_media`]).
    pub fn may_read_media(&self) -> bool {
        match self {
            MsgItem::Live(m) => m.may_read_media(),
            MsgItem::Packed(p) => p.message.may_read_media(),
        }
    }

    /// The packed message, when it is one.
    pub fn as_packed(&self) -> Option<&PackedMessage> {
        match self {
            MsgItem::Packed(p) => Some(&p.message),
            MsgItem::Live(_) => None,
        }
    }

    /// A packed message's name and texts ([`PackedMessage::texts`]); `None`
    /// for a `Msg`. A message of one text, most of a session, gives them
    /// from where its check found them: reading the message again for
    /// them was a twentieth of a cold count.
    pub fn texts(&self) -> Option<Texts<'_>> {
        let MsgItem::Packed(p) = self else {
            return None;
        };
        match p.text() {
            Some(text) => Some(Texts {
                name: &p.name,
                texts: vec![text],
                only_texts: true,
            }),
            None => p.message.texts(),
        }
    }

    /// The name of a packed message of one text (whose check found its
    /// text), read without the text: a plan asks it of every member of a
    /// history group, and checking each text's UTF-8 again for it was a
    /// fifth of a plan of a one-group session.
    pub fn one_text_name(&self) -> Option<&str> {
        match self {
            MsgItem::Packed(PackedMsg {
                text: Some(_),
                name,
                ..
            }) => Some(name),
            _ => None,
        }
    }

    /// The `Msg` (unpacked anew each time for a packed message).
    pub fn msg(&self) -> Result<Arc<Msg>, PyErr> {
        match self {
            MsgItem::Live(m) => Ok(Arc::clone(m)),
            MsgItem::Packed(p) => p.message.msg().map(Arc::new).map_err(|(e, _)| e),
        }
    }
}

/// The ids of a message's `tool_use` blocks and of its `tool_result`
/// blocks, each in order: what FIFO truncation opens and closes as it drops
/// the message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolIds {
    pub uses: Vec<Value>,
    pub results: Vec<Value>,
}

impl ToolIds {
    /// `msg`'s, read as AgentScope reads them (`get_content_blocks(type)`,
    /// then `block["id"]`), raising where it raises.
    pub fn of(msg: &Msg) -> Result<ToolIds, PyErr> {
        let ids = |typ: &str| -> Result<Vec<Value>, PyErr> {
            let blocks = msg.blocks_of(typ)?;
            blocks
                .into_iter()
                .map(|block| py::get_item(block, "id").cloned())
                .collect()
        };
        Ok(ToolIds {
            uses: ids("tool_use")?,
            results: ids("tool_result")?,
        })
    }
}

/// [`ToolIds::of`] a message dict read in place, when every block is a
/// dict with a `"type"` and each tool block has an `"id"`; `None` for any
/// other shape, which is read as a `Msg` (and raises as it raises).
fn tool_ids_in_place(message: crate::json::View<'_>) -> Option<ToolIds> {
    let mut ids = ToolIds::default();
    for block in message.get("content")?.items()? {
        let list = match block.get("type")?.as_str() {
            Some("tool_use") => &mut ids.uses,
            Some("tool_result") => &mut ids.results,
            _ => continue,
        };
        list.push(block.get("id")?.value());
    }
    Some(ids)
}

/// [`MsgItem::packed`]'s check of a message dict of the plain shape, read
/// in place (unpacking one is a tree of allocations; a session is mostly
/// these): a string name, a role AgentScope knows, and string content or
/// blocks that each have a `"type"`. `None` for any other dict, which is
/// checked as a `Msg` (and raises as `Msg.from_dict` raises).
fn plain_check(message: crate::json::View<'_>) -> Option<Plain<'_>> {
    let [name, role, content] = message.get_all(["name", "role", "content"])?;
    let name = name?.as_str()?;
    let role = Role::named(role?.as_str()?)?;
    let content = content?;
    let mut tools = false;
    let text = if content.is_string() {
        content.str_span()
    } else {
        let mut blocks = 0;
        let mut text = None;
        for block in content.items()? {
            // A block that is no dict has no "type": checked as a `Msg`.
            let [typ, body] = block.get_all(["type", "text"])?;
            let typ = typ?.str_bytes();
            tools |= matches!(typ, Some(b"tool_use" | b"tool_result"));
            blocks += 1;
            if typ == Some(b"text") {
                text = body.and_then(|b| b.str_span());
            }
        }
        text.filter(|_| blocks == 1)
    };
    let text =
        text.and_then(|span| Some(u32::try_from(span.start).ok()?..u32::try_from(span.end).ok()?));
    Some(Plain {
        role,
        tools,
        name,
        text,
    })
}

/// What [`plain_check`] finds of a message of the plain shape.
struct Plain<'a> {
    role: Role,
    /// Whether it has tool blocks.
    tools: bool,
    name: &'a str,
    /// Its text's place, when it is one text ([`PackedMsg::text`]).
    text: Option<Range<u32>>,
}

impl From<Arc<Msg>> for MsgItem {
    fn from(msg: Arc<Msg>) -> MsgItem {
        MsgItem::Live(msg)
    }
}

/// Items as `Msg`s (packed ones unpacked), for a formatter run.
pub fn msgs_of(items: &[MsgItem]) -> Result<Vec<Arc<Msg>>, PyErr> {
    items.iter().map(MsgItem::msg).collect()
}

/// `Msg`s as items (kept as they are).
pub fn live_items(msgs: &[Arc<Msg>]) -> Vec<MsgItem> {
    msgs.iter().cloned().map(MsgItem::Live).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_packed_item_answers_like_its_msg() {
        let dict = json!({"name": "Bob", "role": "assistant", "content": [
            {"type": "tool_use", "id": "1", "name": "f", "input": {"b": 1.50, "a": 2}}]});
        let message = PackedMessage::new(&dict);
        assert_eq!(message.value(), dict);
        let item = MsgItem::packed(message.clone()).expect("a valid message");
        let msg = Msg::from_dict(&dict).expect("a valid message");
        assert_eq!(item.role(), Role::Assistant);
        assert_eq!(&*item.name(), "Bob");
        assert!(item.has_tool_blocks().expect("typed blocks"));
        assert_eq!(*item.msg().expect("unpacks"), msg);
        assert_eq!(PackedMessage::new(&message.value()).key(), message.key());
        let reordered = json!({"role": "assistant", "name": "Bob", "content": dict["content"]});
        assert_ne!(PackedMessage::new(&reordered).key(), message.key());
    }

    /// The texts a message's check kept are those read from it again, for
    /// every shape: string content, one text block, one block of another
    /// type, a text block without a string text, several blocks.
    #[test]
    fn the_texts_kept_by_the_check_are_the_texts_read_again() {
        let image = json!({"type": "image", "source": {"type": "url", "url": "http://x/a.png"}});
        let contents = [
            json!("just a string, \u{e9}t\u{e9}"),
            json!([{"type": "text", "text": "one block"}]),
            json!([{"text": "text first", "type": "text"}]),
            json!([image.clone()]),
            json!([{"type": "text"}]),
            json!([{"type": "text", "text": 3}]),
            json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]),
            json!([{"type": "text", "text": "a"}, image]),
            json!([{"type": "tool_use", "id": "1", "name": "f", "input": {}}]),
            json!([]),
        ];
        for content in contents {
            let dict = json!({"name": "Bob", "role": "user", "content": content});
            let message = PackedMessage::new(&dict);
            let item = MsgItem::packed(message.clone()).expect("a valid message");
            let kept = item
                .texts()
                .map(|t| (t.name.to_string(), t.texts, t.only_texts));
            let read = message
                .texts()
                .map(|t| (t.name.to_string(), t.texts, t.only_texts));
            assert_eq!(kept, read, "{content}");
        }
    }

    /// Each message keeps its own name, short or long, as `str(msg.name)`.
    #[test]
    fn a_message_keeps_its_name() {
        let long = "A speaker whose name runs past twenty-four bytes";
        for (name, want) in [(json!("Bob"), "Bob"), (json!(long), long), (json!(""), "")] {
            let dict = json!({"name": name, "role": "user", "content": "1"});
            let item = MsgItem::packed(PackedMessage::new(&dict)).expect("valid");
            assert_eq!(item.name(), want);
        }
    }

    #[test]
    fn a_block_without_a_type_raises_when_asked_as_it_did() {
        let dict = json!({"name": "a", "role": "user", "content": [{"text": "x"}]});
        let item = MsgItem::packed(PackedMessage::new(&dict)).expect("from_dict accepts it");
        let err = item
            .has_tool_blocks()
            .expect_err("blocks_of reads block[\"type\"]");
        assert_eq!(err.kind, "KeyError");
        let err = MsgItem::packed(PackedMessage::new(
            &json!({"name": "a", "role": "tool", "content": ""}),
        ))
        .expect_err("role tool");
        assert_eq!(err.0.kind, "AssertionError");
    }

    /// The tool ids read in place are the `Msg`'s, and a shape they cannot
    /// be read from in place raises as the `Msg` does.
    #[test]
    fn tool_ids_read_in_place_are_the_msgs() {
        let messages = [
            json!({"name": "F", "role": "assistant", "content": [
                {"type": "text", "text": "x"},
                {"type": "tool_use", "id": "1", "name": "f", "input": {}},
                {"type": "tool_use", "id": 2.50, "name": "g", "input": {}},
                {"type": "tool_result", "id": {"a": [1]}, "output": "o"}]}),
            json!({"name": "F", "role": "user", "content": [
                {"type": "tool_result", "id": "1", "output": []},
                {"type": "tool_result", "id": "1", "output": []}]}),
            json!({"name": "F", "role": "user", "content": [
                {"type": "tool_result", "output": "no id"}]}),
            json!({"name": "F", "role": "user", "content": [
                {"type": "tool_use", "id": null}, {"text": "no type"}]}),
            json!({"name": "F", "role": "user", "content": [{"type": 3, "id": "7"}]}),
            json!({"name": "F", "role": "user", "content": "plain"}),
        ];
        let mut in_place = 0;
        for value in messages {
            let packed = PackedMessage::new(&value);
            let long_way = Msg::from_value(packed.value())
                .map_err(|(e, _)| e)
                .and_then(|m| ToolIds::of(&m));
            if let Some(ids) = packed.view().and_then(tool_ids_in_place) {
                in_place += 1;
                assert_eq!(Ok(&ids), long_way.as_ref(), "{value}");
            }
            let Ok(item) = MsgItem::packed(packed) else {
                continue;
            };
            let asked = item.tool_ids();
            match (&long_way, &asked) {
                (Ok(ids), Ok(Some(got))) => assert_eq!(ids, &**got, "{value}"),
                (Ok(ids), Ok(None)) => assert_eq!(ids, &ToolIds::default(), "{value}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{value}"),
                (a, b) => panic!("{value}: {a:?} but {b:?}"),
            }
        }
        assert_eq!(in_place, 3);
    }

    /// A message read in place is checked as one unpacked into a `Msg`:
    /// same role, tool blocks and name, and the odd shapes go the long way.
    #[test]
    fn a_plain_message_read_in_place_checks_as_a_msg() {
        let messages = [
            json!({"name": "Bob", "role": "user", "content": "hi"}),
            json!({"name": "Bob", "role": "assistant", "content": [{"type": "text", "text": "x"}]}),
            json!({"name": "F", "role": "assistant", "content": [
                {"type": "text", "text": "x"}, {"type": "tool_use", "id": "1", "name": "f", "input": {}}]}),
            json!({"name": "s", "role": "system", "content": [{"type": "tool_result", "id": "1"}]}),
            json!({"name": "s", "role": "system", "content": [{"type": 3}]}),
            json!({"name": "s", "role": "system", "content": []}),
            json!({"name": "s", "role": "system", "content": [{"text": "no type"}]}),
            json!({"name": "s", "role": "system", "content": ["not a block"]}),
            json!({"name": 7, "role": "user", "content": "a number's name"}),
            json!({"name": null, "role": "user", "content": []}),
            json!({"name": "t", "role": "tool", "content": "x"}),
            json!({"name": "t", "role": "user", "content": 5}),
            json!({"role": "user", "content": "no name"}),
            json!({"role": "user", "name": "extra keys", "content": "x", "url": {"a": [1]}}),
            json!({"content": [], "name": "keys in another order", "role": "user"}),
            json!(["not a dict"]),
        ];
        let mut plain = 0;
        for value in messages {
            let packed = PackedMessage::new(&value);
            let whole = Msg::from_value(packed.value());
            // Unpacking only the members a `Msg` keeps: the same `Msg`, or
            // the same error.
            match (&whole, packed.msg()) {
                (Ok(a), Ok(b)) => assert_eq!(*a, b, "{value}"),
                (Err(a), Err(b)) => assert_eq!(a.0.to_string(), b.0.to_string(), "{value}"),
                (a, b) => panic!("{value}: {a:?} but {b:?}"),
            }
            let long_way = whole.map(|m| (m.role, m.has_tool_blocks().ok(), py::py_str(m.name())));
            match packed.view().and_then(plain_check) {
                Some(Plain { role, tools, .. }) => {
                    plain += 1;
                    let Ok(expected) = long_way else {
                        panic!("{value}: read in place, but Msg.from_dict raises");
                    };
                    // The name the item keeps.
                    let Ok(item) = MsgItem::packed(packed.clone()) else {
                        panic!("{value}: read in place, but the check raises");
                    };
                    let name = item.name().to_string();
                    assert_eq!((role, Some(tools), name), expected, "{value}");
                }
                None => assert!(
                    long_way.is_err()
                        || value["name"].as_str().is_none()
                        || value["content"][0].get("type").is_none(),
                    "{value}: a plain message went the long way"
                ),
            }
            let checked = MsgItem::packed(packed.clone());
            assert_eq!(checked.is_ok(), packed.msg().is_ok(), "{value}");
        }
        assert_eq!(plain, 8);
    }
}
