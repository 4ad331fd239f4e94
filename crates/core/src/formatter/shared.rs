//! Pieces several providers share.

use crate::json;
use crate::media::MediaEnv;
use crate::py::{self, get_item, py_get, py_str, PyErr};
use crate::session::{Msg, MsgItem, Role, Texts};
use serde_json::Value;
use std::sync::Arc;

/// `block.get(key)`, `None` (JSON null) when absent.
pub fn get_or_null(block: &Value, key: &str) -> Result<Value, PyErr> {
    Ok(py_get(block, key)?.cloned().unwrap_or(Value::Null))
}

/// `block.get(key, default)`.
pub fn get_or(block: &Value, key: &str, default: Value) -> Result<Value, PyErr> {
    Ok(py_get(block, key)?.cloned().unwrap_or(default))
}

/// The block's `type`, as `block.get("type")` reads it.
pub fn block_type(block: &Value) -> Result<Option<&str>, PyErr> {
    Ok(py_get(block, "type")?.and_then(Value::as_str))
}

/// The warning AgentScope logs for a block it skips.
pub fn unsupported_warning(env: &MediaEnv, block: &Value) -> Result<(), PyErr> {
    let typ = get_or_null(block, "type")?;
    env.warn(format!(
        "Unsupported block type {} in the message, skipped.",
        py_str(&typ)
    ));
    Ok(())
}

/// An OpenAI-shaped tool call (OpenAI, DashScope, DeepSeek): the input as
/// `json.dumps(input, ensure_ascii=False)`.
pub fn openai_tool_call(block: &Value) -> Result<Value, PyErr> {
    let arguments = match py_get(block, "input")? {
        Some(input) => py::dumps(input),
        None => "{}".to_string(),
    };
    let id = get_or_null(block, "id")?;
    let function = json::object([
        ("name", get_or_null(block, "name")?),
        ("arguments", Value::String(arguments)),
    ]);
    Ok(Value::Object(json::object([
        ("id", id),
        ("type", Value::from("function")),
        ("function", Value::Object(function)),
    ])))
}

/// A media item found in a tool result: the URL or temp path, and the block.
pub struct ToolMedia {
    pub url: Value,
    pub block: Value,
}

/// `convert_tool_result_to_string(output)`: the text the provider gets for a
/// tool result, and the media it mentions.
pub fn tool_result_text(env: &MediaEnv, output: &Value) -> Result<(Value, Vec<ToolMedia>), PyErr> {
    match output {
        Value::Null => return Ok((Value::String(String::new()), Vec::new())),
        Value::String(_) => return Ok((output.clone(), Vec::new())),
        _ => {}
    }
    let mut lines: Vec<Value> = Vec::new();
    let mut media = Vec::new();
    // A list is read where it is (iterating clones it).
    let blocks = match output {
        Value::Array(items) => std::borrow::Cow::Borrowed(items.as_slice()),
        _ => std::borrow::Cow::Owned(py::iterate(output)?),
    };
    for block in blocks.iter() {
        let typ = match block.as_object().and_then(|map| py::field(map, "type")) {
            Some(typ) => typ,
            None => {
                return Err(PyErr::assertion(format!(
                    "Invalid block: {}, a TextBlock, ImageBlock, AudioBlock, or VideoBlock is expected.",
                    py_str(block)
                )))
            }
        };
        match typ.as_str() {
            Some("text") => lines.push(get_item(block, "text")?.clone()),
            Some(kind @ ("image" | "audio" | "video")) => {
                let Some(source) = block.get("source") else {
                    return Err(PyErr::assertion(format!(
                        "Invalid {kind} block: {}, 'source' key is required.",
                        py_str(block)
                    )));
                };
                let url =
                    match get_item(source, "type")?.as_str() {
                        Some("url") => get_item(source, "url")?.clone(),
                        Some("base64") => Value::String(env.save_base64(
                            get_item(source, "media_type")?,
                            get_item(source, "data")?,
                        )?),
                        _ => {
                            return Err(PyErr::value(format!(
                                "Invalid image source: {}, expected 'url' or 'base64'.",
                                py_str(source)
                            )))
                        }
                    };
                lines.push(Value::String(format!(
                    "The returned {kind} can be found at: {}",
                    py_str(&url)
                )));
                media.push(ToolMedia {
                    url,
                    block: block.clone(),
                });
            }
            _ => {
                return Err(PyErr::value(format!(
                    "Unsupported block type: {}, expected 'text', 'image', 'audio', or 'video'.",
                    py_str(typ)
                )))
            }
        }
    }
    if lines.len() == 1 {
        return Ok((lines.remove(0), media));
    }
    let mut prefixed = Vec::with_capacity(lines.len());
    for line in &lines {
        prefixed.push(Value::String(py::str_concat("- ", line)?));
    }
    Ok((Value::String(py::join_strs("\n", &prefixed)?), media))
}

/// Which tool-result media types a formatter promotes, and how it words
/// the wrapper (`image contents` / DashScope's `media contents`).
pub struct Promotion {
    pub images: bool,
    pub audios: bool,
    pub videos: bool,
    pub wording: &'static str,
}

/// The user message AgentScope inserts after a tool result whose media it
/// promotes, or `None` when nothing is promoted.
pub fn promoted_message(
    tool_block: &Value,
    media: &[ToolMedia],
    promotion: &Promotion,
) -> Result<Option<Arc<Msg>>, PyErr> {
    let mut blocks = Vec::new();
    for item in media {
        let kind = get_item(&item.block, "type")?
            .as_str()
            .unwrap_or_default()
            .to_string();
        let enabled = match kind.as_str() {
            "image" => promotion.images,
            "audio" => promotion.audios,
            "video" => promotion.videos,
            _ => false,
        };
        if enabled {
            blocks.push(json!({"type": "text", "text": format!("\n- The {kind} from '{}': ", py_str(&item.url))}));
            blocks.push(json!({"type": kind, "source": {"type": "url", "url": &item.url}}));
        }
    }
    if blocks.is_empty() {
        return Ok(None);
    }
    let name = py_str(get_item(tool_block, "name")?);
    let mut content = vec![json!({
        "type": "text",
        "text": format!("<system-info>The following are the {} from the tool result of '{name}':", promotion.wording),
    })];
    content.extend(blocks);
    content.push(json!({"type": "text", "text": "</system-info>"}));
    Ok(Some(Arc::new(Msg::with_blocks(
        Value::from("user"),
        Role::User,
        content,
    ))))
}

/// The `role: tool` message OpenAI, DashScope, Ollama and DeepSeek emit for
/// a tool result.
pub fn tool_message(block: &Value, text: Value) -> Result<Value, PyErr> {
    Ok(Value::Object(json::object([
        ("role", Value::from("tool")),
        ("tool_call_id", get_or_null(block, "id")?),
        ("content", text),
        ("name", get_or_null(block, "name")?),
    ])))
}

/// Walks a history group in order: text blocks become `name: text` lines;
/// for any other block `media` may return a part, before which the lines
/// so far are flushed into one `text_part` (interleaving). Lines left at
/// the end are flushed too.
fn collect_history(
    msgs: &[Arc<Msg>],
    text_part: impl Fn(String) -> Value,
    mut media: impl FnMut(&Msg, &Value, &str) -> Result<Option<Value>, PyErr>,
) -> Result<Vec<Value>, PyErr> {
    let mut parts = Vec::new();
    // The lines so far, joined by "\n" as they come (one buffer, not a
    // string per line joined after); a line is never empty (`name: `).
    // Sized once for the group's text, with room for `wrap_history`'s tags.
    let mut lines = String::with_capacity(text_len(msgs) + HISTORY_TAGS_ROOM);
    for msg in msgs {
        for block in msg.blocks() {
            let typ = get_item(block, "type")?.as_str().unwrap_or_default();
            if typ == "text" {
                if !lines.is_empty() {
                    lines.push('\n');
                }
                push_history_line(&mut lines, msg, block)?;
                continue;
            }
            if let Some(part) = media(msg, block, typ)? {
                if !lines.is_empty() {
                    parts.push(text_part(std::mem::take(&mut lines)));
                }
                parts.push(part);
            }
        }
    }
    if !lines.is_empty() {
        parts.push(text_part(lines));
    }
    Ok(parts)
}

/// A history group's members, as the history formatters read them.
pub enum Group<'a> {
    Msgs(&'a [Arc<Msg>]),
    /// Members whose blocks are all texts, read in place
    /// ([`member_texts`]): [`history_parts`] writes their lines.
    Texts(&'a [Texts<'a>]),
}

/// A history group's parts wrapped in its tags: [`collect_history`], then
/// [`wrap_history`] (`text_part` and `new_part` as they take them). A
/// group of members' texts is one part, written once, head first, into a
/// buffer of its size: putting the head in front after had moved the
/// whole text (18 MB in a one-group session of 100,000 messages).
pub fn history_parts(
    group: Group<'_>,
    prompt: &str,
    open: &str,
    text_part: impl Fn(String) -> Value,
    media: impl FnMut(&Msg, &Value, &str) -> Result<Option<Value>, PyErr>,
    new_part: impl Fn(String) -> Value,
) -> Result<Vec<Value>, PyErr> {
    let msgs = match group {
        Group::Msgs(msgs) => msgs,
        Group::Texts(members) => {
            let head = format!("{prompt}{open}");
            let text = lines_text(members, &head).map(|mut text| {
                text.push_str(HISTORY_CLOSE);
                text
            });
            return Ok(Vec::from_iter(text.map(text_part)));
        }
    };
    let mut parts = collect_history(msgs, text_part, media)?;
    wrap_history(&mut parts, prompt, open, new_part)?;
    Ok(parts)
}

/// The names and texts of a history group's session messages whose
/// blocks are all texts (a string name; string content, or text blocks
/// each with a string text), read in place; `None` when a member is of any
/// other shape or not packed (formatted from its `Msg` then). A cold count
/// formats every group of a session, and unpacking each member into a
/// `Msg` for it was a seventh of that count at 100,000 messages. A count
/// finds each member's share by these texts, without reading the members
/// again.
pub fn member_texts(members: &[MsgItem]) -> Option<Vec<Texts<'_>>> {
    // Sized first: collected into an `Option`, the list grew and was
    // copied as it went (100,000 members: 5 MB, several times).
    let mut texts = Vec::with_capacity(members.len());
    for member in members {
        texts.push(member.texts().filter(|t| t.only_texts)?);
    }
    Some(texts)
}

/// `head`, then the members' lines (`name: text`, joined by "\n") as
/// [`collect_history`] writes them, in one buffer with room for the
/// closing tag; `None` when there are no lines (no part then).
fn lines_text(members: &[Texts<'_>], head: &str) -> Option<String> {
    let len: usize = members
        .iter()
        .flat_map(|m| m.texts.iter().map(|text| m.name.len() + text.len() + 3))
        .sum();
    if len == 0 {
        return None;
    }
    let mut out = String::with_capacity(head.len() + len + HISTORY_CLOSE.len());
    out.push_str(head);
    let mut first = true;
    for member in members {
        for text in &member.texts {
            if !first {
                out.push('\n');
            }
            first = false;
            out.push_str(member.name);
            out.push_str(": ");
            out.push_str(text);
        }
    }
    Some(out)
}

/// What closes a history group's text (in its last text part).
const HISTORY_CLOSE: &str = "\n</history>";

/// Room a history group's text buffer leaves for `<history>\n` and
/// `\n</history>`, so wrapping it does not grow it.
const HISTORY_TAGS_ROOM: usize = 32;

/// The bytes of a history group's lines (`name: text` and a newline each)
/// where names and texts are strings: the buffer's size, read before the
/// lines are written so it is not grown and copied as they come.
fn text_len(msgs: &[Arc<Msg>]) -> usize {
    let mut len = 0;
    for msg in msgs {
        let name = msg.name().as_str().map_or(0, str::len);
        for block in msg.blocks() {
            if let Ok(Some(Value::String(text))) = py_get(block, "text") {
                len += name + text.len() + 3;
            }
        }
    }
    len
}

/// `f"{msg.name}: {block['text']}"`, a history line.
pub fn history_line(msg: &Msg, block: &Value) -> Result<String, PyErr> {
    let mut line = String::new();
    push_history_line(&mut line, msg, block)?;
    Ok(line)
}

/// [`history_line`] appended to `out`.
fn push_history_line(out: &mut String, msg: &Msg, block: &Value) -> Result<(), PyErr> {
    let text = get_item(block, "text")?;
    py::push_py_str(out, msg.name());
    out.push_str(": ");
    py::push_py_str(out, text);
    Ok(())
}

/// Wraps a history group's parts in `<prompt><history>` ... `</history>`:
/// into the first/last text part when it is a non-empty text, else as parts
/// of their own made by `new_part`.
fn wrap_history(
    parts: &mut Vec<Value>,
    prompt: &str,
    open: &str,
    new_part: impl Fn(String) -> Value,
) -> Result<(), PyErr> {
    if parts.is_empty() {
        return Ok(());
    }
    let head = format!("{prompt}{open}");
    match py_get(&parts[0], "text")? {
        // The head goes in front in place, in the room `collect_history`
        // left (a group of text alone is one part, first and last: room
        // for the closing tag too).
        Some(Value::String(text)) if !text.is_empty() => {
            if let Some(Value::String(text)) = parts[0].get_mut("text") {
                text.reserve(head.len() + HISTORY_CLOSE.len());
                text.insert_str(0, &head);
            }
        }
        Some(other) if py::truthy(other) => {
            let joined = py::str_concat(&head, other)?;
            parts[0]["text"] = Value::String(joined);
        }
        _ => parts.insert(0, new_part(head)),
    }
    let last = parts.len() - 1;
    match py_get(&parts[last], "text")? {
        Some(Value::String(text)) if !text.is_empty() => {
            if let Some(Value::String(text)) = parts[last].get_mut("text") {
                text.push_str(HISTORY_CLOSE);
            }
        }
        Some(other) if py::truthy(other) => {
            return Err(PyErr::type_error(format!(
                "unsupported operand type(s) for +=: '{}' and 'str'",
                py::type_name(other)
            )))
        }
        _ => parts.push(new_part("</history>".to_string())),
    }
    Ok(())
}

/// `"\n".join(part.get(key, "") for part in parts)`.
pub fn join_field(parts: &[Value], key: &str) -> Result<String, PyErr> {
    let empty = Value::String(String::new());
    let mut texts = Vec::with_capacity(parts.len());
    for part in parts {
        texts.push(py_get(part, key)?.unwrap_or(&empty));
    }
    py::join_strs("\n", texts)
}

/// [`join_field`] of parts no longer needed: one part's string is taken,
/// not copied (a history group of text alone).
pub fn join_field_owned(mut parts: Vec<Value>, key: &str) -> Result<String, PyErr> {
    if let [only] = parts.as_mut_slice() {
        if let Some(Value::String(text)) = only.get_mut(key) {
            return Ok(std::mem::take(text));
        }
    }
    join_field(&parts, key)
}

/// A Python set of tool ids as `repr()` prints it (insertion order; Python's
/// own order depends on string hashing).
pub fn python_set_repr(items: &[Value]) -> String {
    let inner: Vec<String> = items.iter().map(py::py_repr).collect();
    format!("{{{}}}", inner.join(", "))
}

/// For a local file path or URL given to a media resolver: the string after
/// `removeprefix("file://")`.
pub fn strip_file_scheme(url: &Value) -> Result<&str, PyErr> {
    let s = py::get_str_method_target(url, "removeprefix")?;
    Ok(s.strip_prefix("file://").unwrap_or(s))
}
