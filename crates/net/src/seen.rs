//! What a server sent back, kept so that a body that is not the provider's
//! reply (a login page, a proxy's HTML, an empty body, another API's
//! shape) is reported as what it is instead of an empty "done".

use formatscope_core::response::Api;
use formatscope_core::text::escape_control;
use serde_json::Value;

/// How much of the body is kept to show.
const HEAD: usize = 200;

/// The status, content type, size and first bytes of a response body.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    pub status: u16,
    pub content_type: Option<String>,
    pub bytes: usize,
    head: Vec<u8>,
    /// Reading stopped before the end (see [`Seen::push`]'s caller).
    pub cut: bool,
}

impl Seen {
    pub fn new(status: u16, content_type: Option<String>) -> Seen {
        Seen {
            status,
            content_type,
            ..Seen::default()
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        let room = HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&chunk[..room.min(chunk.len())]);
    }

    /// `the server answered 200 text/html (1,234 bytes): "<!doctype…" — WHY`.
    pub fn describe(&self, why: &str) -> String {
        let ct = self
            .content_type
            .as_deref()
            .unwrap_or("with no content type");
        if self.bytes == 0 {
            return format!(
                "the server answered {} {ct} with an empty body — {why}",
                self.status
            );
        }
        let size = format!(
            "{}{} bytes",
            if self.cut { "over " } else { "" },
            formatscope_core::text::thousands(self.bytes as u64)
        );
        let text = String::from_utf8_lossy(&self.head);
        // A cut in the middle of a UTF-8 sequence shows as U+FFFD: drop it.
        let text = if self.bytes > self.head.len() {
            text.trim_end_matches('\u{fffd}')
        } else {
            &text
        };
        let more = if self.bytes > self.head.len() {
            "…"
        } else {
            ""
        };
        format!(
            "the server answered {} {ct} ({size}): \"{}{more}\" — {why}",
            self.status,
            escape_control(text)
        )
    }
}

/// The provider's name as people write it.
pub fn api_name(api: Api) -> &'static str {
    match api {
        Api::OpenAi => "OpenAI",
        Api::DeepSeek => "DeepSeek",
        Api::Anthropic => "Anthropic",
        Api::DashScope => "DashScope",
        Api::Gemini => "Gemini",
        Api::Ollama => "Ollama",
        Api::OpenAiResponses => "OpenAI Responses",
    }
}

/// Whether the content type is one the provider's reply comes in. The SDKs
/// parse any `…json` type as JSON (the OpenAI SDK tests `endswith("json")`,
/// which `application/x-ndjson` passes too); an SSE stream is
/// `text/event-stream`, an Ollama stream NDJSON. No content type at all is
/// let through: no SDK requires one, and the body is checked anyway.
pub fn content_type_fits(api: Api, stream: bool, content_type: Option<&str>) -> bool {
    let Some(ct) = content_type else {
        return true;
    };
    let media = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    media.ends_with("json") || (stream && api != Api::Ollama && media == "text/event-stream")
}

/// The provider's error body in one line.
pub fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        let t: String = text.trim().chars().take(300).collect();
        return if t.is_empty() {
            "(empty body)".into()
        } else {
            t
        };
    };
    let pick = |v: &Value| -> Option<String> {
        // OpenAI, Gemini, Anthropic: {"error": {"message"}}; DashScope:
        // {"code", "message"}; Ollama: {"error": "..."}.
        let e = v.get("error");
        if let Some(s) = e.and_then(Value::as_str) {
            return Some(s.to_string());
        }
        let m = e
            .and_then(|e| e.get("message"))
            .or_else(|| v.get("message"))?
            .as_str()?
            .to_string();
        let kind = e
            .and_then(|e| e.get("type").or_else(|| e.get("status")))
            .or_else(|| v.get("code"))
            .and_then(Value::as_str);
        Some(match kind {
            Some(k) => format!("{k}: {m}"),
            None => m,
        })
    };
    pick(&v).unwrap_or_else(|| text.trim().chars().take(300).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_came_back_is_said_with_its_size_and_first_bytes_escaped() {
        let mut seen = Seen::new(200, Some("text/html; charset=utf-8".into()));
        let page = format!("<!doctype html>\x1b[2J{}", "x".repeat(1300));
        seen.push(page.as_bytes());
        let said = seen.describe("not an OpenAI reply");
        assert!(
            said.starts_with(
                "the server answered 200 text/html; charset=utf-8 (1,319 bytes): \"<!doctype html>\\e[2Jxxx"
            ),
            "{said}"
        );
        assert!(said.ends_with("x…\" — not an OpenAI reply"), "{said}");
        let empty = Seen::new(200, Some("text/event-stream".into()));
        assert_eq!(
            empty.describe("not an Anthropic reply"),
            "the server answered 200 text/event-stream with an empty body — not an Anthropic reply"
        );
    }

    #[test]
    fn content_types_the_sdks_read() {
        assert!(content_type_fits(
            Api::OpenAi,
            true,
            Some("text/event-stream; charset=utf-8")
        ));
        assert!(content_type_fits(
            Api::OpenAi,
            false,
            Some("application/json")
        ));
        assert!(content_type_fits(
            Api::Ollama,
            true,
            Some("application/x-ndjson")
        ));
        assert!(!content_type_fits(
            Api::Ollama,
            true,
            Some("text/event-stream")
        ));
        assert!(!content_type_fits(
            Api::OpenAi,
            false,
            Some("text/event-stream")
        ));
        assert!(!content_type_fits(Api::Gemini, true, Some("text/html")));
        assert!(content_type_fits(Api::Gemini, true, None));
    }
}
