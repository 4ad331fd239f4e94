//! What every Java formatter shares (`AbstractBaseFormatter`): the text of a
//! message, a tool result as one string (media as file references, base64
//! saved to a temp file), tool-call arguments, and the run's warnings.

use super::jackson;
use super::msg::{Block, Msg, Source};
use crate::media::MediaEnv;
use crate::py::PyErr;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::cell::RefCell;

/// What a formatter works with: the media world, the log lines, and the
/// first exception a conversion threw (Java's `format` ends there; the
/// messages built so far are discarded).
pub struct Ctx<'a> {
    pub env: &'a MediaEnv,
    pub warnings: RefCell<Vec<String>>,
    pub failure: RefCell<Option<PyErr>>,
}

impl<'a> Ctx<'a> {
    pub fn new(env: &'a MediaEnv) -> Self {
        Ctx {
            env,
            warnings: RefCell::new(Vec::new()),
            failure: RefCell::new(None),
        }
    }
    pub fn warn(&self, line: String) {
        self.warnings.borrow_mut().push(line);
    }
    /// Records an exception that escapes the formatter (the first one wins).
    pub fn fail(&self, e: PyErr) {
        self.failure.borrow_mut().get_or_insert(e);
    }
}

/// `extractTextContent(Msg)`: texts (and tool results' texts) joined by `\n`.
pub fn extract_text(msg: &Msg) -> String {
    let mut pieces: Vec<&str> = Vec::new();
    for b in &msg.content {
        match b {
            Block::Text(t) => pieces.push(t),
            Block::ToolResult { output, .. } => {
                for o in output {
                    if let Block::Text(t) = o {
                        pieces.push(t);
                    }
                }
            }
            _ => {}
        }
    }
    pieces.join("\n")
}

/// The id Java invents from the clock for an id-less tool result, written as
/// the vectors write it.
pub fn invented_call_id() -> String {
    "tool_call_<MILLIS>".into()
}

/// `saveBase64DataToTempFile`, made deterministic as the vectors are:
/// `/tmp/agentscope_<first 8 hex of sha256(bytes)>.<subtype>`.
/// A missing media type and data Java's basic decoder refuses throw out of
/// the formatter (`NullPointerException`, `IllegalArgumentException`).
pub fn temp_file(media_type: Option<&str>, data: &str) -> Result<String, PyErr> {
    let Some(media_type) = media_type else {
        return Err(PyErr::new(
            "NullPointerException",
            "Cannot invoke \"String.contains(java.lang.CharSequence)\" because \"mediaType\" is null",
        ));
    };
    let ext = if media_type.contains('/') {
        media_type.split('/').nth(1).unwrap_or("")
    } else {
        media_type
    };
    let bytes = java_base64(data)?;
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Ok(format!("/tmp/agentscope_{hex}.{ext}"))
}

/// `Base64.getDecoder().decode`: the basic alphabet, padding optional, any
/// other character (whitespace too) refused.
fn java_base64(data: &str) -> Result<Vec<u8>, PyErr> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine;
    if let Some(c) = data
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
    {
        return Err(PyErr::new(
            "IllegalArgumentException",
            format!("Illegal base64 character {:x}", c as u32 & 0xff),
        ));
    }
    let engine = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    engine.decode(data.as_bytes()).map_err(|_| {
        PyErr::new(
            "IllegalArgumentException",
            "Input byte array has wrong 4-byte ending unit",
        )
    })
}

/// `convertToolResultToString`: one item as it is, several as `- ` lines.
pub fn tool_result_string(ctx: &Ctx, output: &[Block]) -> String {
    let mut items: Vec<String> = Vec::new();
    for b in output {
        let (kind, source) = match b {
            Block::Text(t) => {
                items.push(t.clone());
                continue;
            }
            Block::Image(s) => ("image", s),
            Block::Audio(s) => ("audio", s),
            Block::Video(s) => ("video", s),
            _ => continue,
        };
        let at = match source {
            Source::Url(u) => u.clone(),
            Source::Base64 { media_type, data } => match temp_file(media_type.as_deref(), data) {
                Ok(path) => path,
                Err(e) => {
                    ctx.fail(e);
                    String::new()
                }
            },
        };
        items.push(format!("The returned {kind} can be found at: {at}"));
    }
    if items.len() == 1 {
        return items.remove(0);
    }
    items
        .iter()
        .map(|s| format!("- {s}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `JsonUtils.resolveToolCallArgsJson`: the raw argument string when it is a
/// JSON object, else the input map as Jackson writes it.
pub fn args_json(
    ctx: &Ctx,
    name: Option<&str>,
    input: &Map<String, Value>,
    raw: Option<&str>,
) -> String {
    if let Some(raw) = raw.filter(|r| !r.is_empty()) {
        if matches!(serde_json::from_str::<Value>(raw), Ok(Value::Object(_))) {
            return raw.to_string();
        }
        ctx.warn(format!(
            "Invalid JSON in tool call content for '{}', falling back to input serialization",
            name.unwrap_or("null")
        ));
    }
    jackson::write(&Value::Object(input.clone()))
}
