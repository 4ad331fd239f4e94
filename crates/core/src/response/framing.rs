//! The byte streams providers send, cut into events as they arrive:
//! server-sent events (OpenAI, Anthropic, DashScope, Gemini) and NDJSON
//! (Ollama). Bytes in, whole events out; a partial line waits for the rest.

use super::{Api, Event};
use crate::json;
use serde_json::Value;

/// The most one line of a stream may hold (an SSE line or an NDJSON
/// line): a server that never ends its line would otherwise grow the
/// buffer until memory runs out. Generous: real events are kilobytes.
pub const LINE_LIMIT: usize = 8 * 1024 * 1024;

/// The most one SSE event may hold (its `data:` lines and comments
/// together): endless comment lines without a blank line are one event
/// that never ends.
pub const EVENT_LIMIT: usize = 8 * 1024 * 1024;

/// Why a stream could not be cut into events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// A line passed [`LINE_LIMIT`].
    #[error("a stream line is longer than the {} MB line limit", LINE_LIMIT / (1024 * 1024))]
    LineTooLong,
    /// An SSE event passed [`EVENT_LIMIT`].
    #[error("a stream event is larger than the {} MB event limit", EVENT_LIMIT / (1024 * 1024))]
    EventTooLarge,
    /// A frame that is not JSON where the SDK expects JSON: why, and the
    /// frame's first characters.
    #[error("a stream event is not JSON ({reason}): {preview}")]
    NotJson { reason: String, preview: String },
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
    /// Comment lines (`:HTTP_STATUS/200` in DashScope's frames).
    pub comments: Vec<String>,
}

/// An incremental SSE decoder (the WHATWG rules the SDKs follow: `\n`,
/// `\r\n` or `\r` line ends, `data:` lines joined with `\n`, an event per
/// blank line).
///
/// Only the bytes of each new chunk are scanned for line ends; `buf` holds
/// just the unfinished line, so one long event costs time linear in its
/// size (rescanning the buffer per chunk made it quadratic).
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The line not yet ended.
    buf: Vec<u8>,
    current: Sse,
    has_data: bool,
    /// Bytes held by `current` (data and comments), against EVENT_LIMIT.
    event_bytes: usize,
    /// A `\r` ended the last chunk: a `\n` at the start of the next one
    /// belongs to it.
    pending_cr: bool,
}

impl SseDecoder {
    /// Events these bytes complete; an error when a line or an event
    /// passes its limit.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Sse>, StreamError> {
        let mut bytes = bytes;
        if self.pending_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.pending_cr = false;
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b != b'\n' && b != b'\r' {
                i += 1;
                continue;
            }
            let mut next = i + 1;
            if b == b'\r' {
                if next < bytes.len() {
                    if bytes[next] == b'\n' {
                        next += 1;
                    }
                } else {
                    self.pending_cr = true;
                }
            }
            let line = if self.buf.is_empty() {
                String::from_utf8_lossy(&bytes[start..i]).into_owned()
            } else {
                self.buf.extend_from_slice(&bytes[start..i]);
                let line = String::from_utf8_lossy(&self.buf).into_owned();
                self.buf.clear();
                line
            };
            if line.len() > LINE_LIMIT {
                return Err(StreamError::LineTooLong);
            }
            if let Some(ev) = self.line(&line)? {
                out.push(ev);
            }
            start = next;
            i = next;
        }
        if self.buf.len() + (bytes.len() - start) > LINE_LIMIT {
            return Err(StreamError::LineTooLong);
        }
        self.buf.extend_from_slice(&bytes[start..]);
        Ok(out)
    }

    /// The end of the stream: an event not closed by a blank line is
    /// dispatched.
    pub fn finish(&mut self) -> Result<Vec<Sse>, StreamError> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf.clear();
            out.extend(self.line(&line)?);
        }
        out.extend(self.line("")?);
        Ok(out)
    }

    fn line(&mut self, line: &str) -> Result<Option<Sse>, StreamError> {
        if line.is_empty() {
            self.event_bytes = 0;
            if !self.has_data && self.current.event.is_none() {
                self.current = Sse::default();
                return Ok(None);
            }
            self.has_data = false;
            return Ok(Some(std::mem::take(&mut self.current)));
        }
        self.event_bytes += line.len() + 1;
        if self.event_bytes > EVENT_LIMIT {
            return Err(StreamError::EventTooLarge);
        }
        if let Some(comment) = line.strip_prefix(':') {
            self.current.comments.push(comment.to_string());
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.current.event = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        Ok(None)
    }
}

/// An incremental NDJSON decoder (Ollama): one JSON value per line. Like
/// the SSE decoder it scans only new bytes and holds only the unfinished
/// line, up to LINE_LIMIT.
#[derive(Debug, Default)]
pub struct LineDecoder {
    buf: Vec<u8>,
}

impl LineDecoder {
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<String>, StreamError> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|b| *b == b'\n') {
            let text = if self.buf.is_empty() {
                String::from_utf8_lossy(&rest[..pos]).trim().to_string()
            } else {
                self.buf.extend_from_slice(&rest[..pos]);
                let text = String::from_utf8_lossy(&self.buf).trim().to_string();
                self.buf.clear();
                text
            };
            if pos > LINE_LIMIT || text.len() > LINE_LIMIT {
                return Err(StreamError::LineTooLong);
            }
            if !text.is_empty() {
                out.push(text);
            }
            rest = &rest[pos + 1..];
        }
        if self.buf.len() + rest.len() > LINE_LIMIT {
            return Err(StreamError::LineTooLong);
        }
        self.buf.extend_from_slice(rest);
        Ok(out)
    }

    pub fn finish(&mut self) -> Vec<String> {
        let text = String::from_utf8_lossy(&self.buf).trim().to_string();
        self.buf.clear();
        if text.is_empty() {
            Vec::new()
        } else {
            vec![text]
        }
    }
}

/// A provider's stream as parser events: its framing, and how its SDK
/// reads each frame.
#[derive(Debug)]
pub struct EventReader {
    api: Api,
    sse: SseDecoder,
    lines: LineDecoder,
}

impl EventReader {
    pub fn new(api: Api) -> EventReader {
        EventReader {
            api,
            sse: SseDecoder::default(),
            lines: LineDecoder::default(),
        }
    }

    /// Events completed by these bytes. A frame that is not JSON where the
    /// SDK expects JSON is an error (`JSONDecodeError`).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, StreamError> {
        if self.api == Api::Ollama {
            let lines = self.lines.push(bytes)?;
            return lines.iter().map(|l| json_event(l)).collect();
        }
        let frames = self.sse.push(bytes)?;
        frames
            .into_iter()
            .filter_map(|f| self.frame(f).transpose())
            .collect()
    }

    pub fn finish(&mut self) -> Result<Vec<Event>, StreamError> {
        if self.api == Api::Ollama {
            let lines = self.lines.finish();
            return lines.iter().map(|l| json_event(l)).collect();
        }
        let frames = self.sse.finish()?;
        frames
            .into_iter()
            .filter_map(|f| self.frame(f).transpose())
            .collect()
    }

    fn frame(&self, f: Sse) -> Result<Option<Event>, StreamError> {
        if f.data.is_empty() && f.event.is_none() {
            return Ok(None);
        }
        match self.api {
            Api::OpenAi | Api::DeepSeek | Api::OpenAiResponses => {
                if f.data.starts_with("[DONE]") {
                    return Ok(Some(Event::Text(f.data)));
                }
                json_event(&f.data).map(Some)
            }
            Api::DashScope if f.event.as_deref() == Some("error") => {
                // `:HTTP_STATUS/400` says the status of an error frame.
                let status = f
                    .comments
                    .iter()
                    .find_map(|c| c.strip_prefix("HTTP_STATUS/"))
                    .and_then(|s| s.trim().parse::<u16>().ok())
                    .unwrap_or(400);
                let data = parse_json(&f.data)?;
                Ok(Some(Event::Json(
                    json!({"event": "error", "status": u64::from(status), "data": data}),
                )))
            }
            _ if f.data.is_empty() => Ok(None),
            _ => json_event(&f.data).map(Some),
        }
    }
}

fn parse_json(text: &str) -> Result<Value, StreamError> {
    let mut v = crate::json::parse(text.as_bytes(), Default::default())
        .map_err(|e| StreamError::NotJson {
            reason: e.to_string(),
            preview: preview(text),
        })?
        .value;
    crate::py::normalize_numbers(&mut v);
    Ok(v)
}

fn json_event(text: &str) -> Result<Event, StreamError> {
    parse_json(text).map(Event::Json)
}

fn preview(text: &str) -> String {
    let t: String = text.chars().take(80).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

/// Events as the wire frames them, for a recorded stream: what a server
/// sends for these events (used by the tests' fake providers and to replay
/// a recording).
pub fn encode(api: Api, events: &[Value]) -> Vec<Vec<u8>> {
    events
        .iter()
        .map(|ev| match (api, ev) {
            (Api::Ollama, v) => format!("{}\n", serde_json::to_string(v).unwrap_or_default()),
            (_, Value::String(s)) => format!("data: {s}\n\n"),
            (Api::Anthropic, v) => format!(
                "event: {}\ndata: {}\n\n",
                v.get("type").and_then(Value::as_str).unwrap_or("message"),
                serde_json::to_string(v).unwrap_or_default()
            ),
            (Api::DashScope, v) if v.get("event").and_then(Value::as_str) == Some("error") => {
                format!(
                    "id:1\nevent:error\n:HTTP_STATUS/{}\ndata:{}\n\n",
                    v.get("status").and_then(Value::as_u64).unwrap_or(400),
                    serde_json::to_string(&v["data"]).unwrap_or_default()
                )
            }
            (Api::DashScope, v) => format!(
                "id:1\nevent:result\n:HTTP_STATUS/200\ndata:{}\n\n",
                serde_json::to_string(v).unwrap_or_default()
            ),
            (_, v) => format!("data: {}\n\n", serde_json::to_string(v).unwrap_or_default()),
        })
        .map(String::into_bytes)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_frames_survive_any_split() {
        let text = "event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: ping\n\ndata: [DONE]\n\n";
        for cut in 0..text.len() {
            let mut d = SseDecoder::default();
            let mut got = d.push(&text.as_bytes()[..cut]).expect("small");
            got.extend(d.push(&text.as_bytes()[cut..]).expect("small"));
            got.extend(d.finish().expect("small"));
            let datas: Vec<&str> = got.iter().map(|s| s.data.as_str()).collect();
            assert_eq!(datas, ["{\"x\":\n1}", "[DONE]"], "cut at {cut}");
            assert_eq!(got[0].event.as_deref(), Some("a"));
        }
    }

    #[test]
    fn sse_read_a_byte_at_a_time_and_past_the_limits() {
        let text = "event: a\r\ndata: {\"x\":\r\ndata: 1}\r\n\r\n: ping\r\rdata: [DONE]\n\n";
        let mut d = SseDecoder::default();
        let mut got = Vec::new();
        for b in text.as_bytes() {
            got.extend(d.push(std::slice::from_ref(b)).expect("small"));
        }
        got.extend(d.finish().expect("small"));
        let datas: Vec<&str> = got.iter().map(|s| s.data.as_str()).collect();
        assert_eq!(datas, ["{\"x\":\n1}", "[DONE]"]);
        let mut d = SseDecoder::default();
        let long = vec![b'x'; LINE_LIMIT / 2];
        assert!(d.push(&long).expect("half").is_empty());
        let err = d.push(&long).and_then(|_| d.push(b"x")).unwrap_err();
        assert_eq!(err, StreamError::LineTooLong);
        assert!(err.to_string().contains("8 MB line limit"), "{err}");
        let mut d = SseDecoder::default();
        let comments = ": c\n".repeat(EVENT_LIMIT / 4 + 1);
        let err = d.push(comments.as_bytes()).unwrap_err();
        assert_eq!(err, StreamError::EventTooLarge);
        assert!(err.to_string().contains("8 MB event limit"), "{err}");
        let mut d = LineDecoder::default();
        assert!(d.push(&long).expect("half").is_empty());
        let err = d.push(&long).and_then(|_| d.push(b"x")).unwrap_err();
        assert_eq!(err, StreamError::LineTooLong);
    }

    #[test]
    fn ndjson_lines_wait_for_their_end() {
        let mut d = LineDecoder::default();
        assert!(d.push(b"{\"a\":").expect("small").is_empty());
        assert_eq!(d.push(b"1}\n{\"b\"").expect("small").len(), 1);
        assert_eq!(d.finish(), ["{\"b\""]);
    }

    #[test]
    fn encoded_streams_read_back_as_the_same_events() {
        for api in Api::ALL {
            let events = vec![json!({"type": "ping", "n": 1}), json!({"n": "中"})];
            let mut r = EventReader::new(api);
            let mut got = Vec::new();
            for frame in encode(api, &events) {
                got.extend(r.push(&frame).expect("json"));
            }
            got.extend(r.finish().expect("json"));
            assert_eq!(got.len(), 2, "{api:?}");
        }
    }
}
