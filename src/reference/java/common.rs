//! What every Java formatter shares (`AbstractBaseFormatter`): the text of a
//! message, a tool result as one string (media as file references, base64
//! saved to a temp file), tool-call arguments, and the run's warnings.

use super::jackson;
use super::msg::{Block, Msg, Source};
use crate::media::MediaEnv;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::cell::RefCell;

/// What a formatter works with: the media world and the log lines.
pub struct Ctx<'a> {
    pub env: &'a MediaEnv,
    pub warnings: RefCell<Vec<String>>,
}

impl<'a> Ctx<'a> {
    pub fn new(env: &'a MediaEnv) -> Self {
        Ctx {
            env,
            warnings: RefCell::new(Vec::new()),
        }
    }
    pub fn warn(&self, line: String) {
        self.warnings.borrow_mut().push(line);
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
pub fn temp_file(media_type: Option<&str>, data: &str) -> String {
    use base64::Engine;
    let media_type = media_type.unwrap_or("");
    let ext = media_type.split('/').nth(1).unwrap_or(media_type);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.as_bytes())
        .unwrap_or_default();
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    format!("/tmp/agentscope_{hex}.{ext}")
}

/// `convertToolResultToString`: one item as it is, several as `- ` lines.
pub fn tool_result_string(_ctx: &Ctx, output: &[Block]) -> String {
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
            Source::Base64 { media_type, data } => temp_file(media_type.as_deref(), data),
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
