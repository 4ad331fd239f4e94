//! The byte streams providers send, cut into events as they arrive:
//! server-sent events (OpenAI, Anthropic, DashScope, Gemini) and NDJSON
//! (Ollama). Bytes in, whole events out; a partial line waits for the rest.

use super::{Api, Event};
use serde_json::{json, Value};

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
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    current: Sse,
    has_data: bool,
    /// A `\r` ended the last chunk: a `\n` at the start of the next one
    /// belongs to it.
    pending_cr: bool,
}

impl SseDecoder {
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Sse> {
        let mut bytes = bytes;
        if self.pending_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.pending_cr = false;
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.buf.len() {
            let b = self.buf[i];
            if b == b'\n' || b == b'\r' {
                let line = String::from_utf8_lossy(&self.buf[start..i]).into_owned();
                let mut next = i + 1;
                if b == b'\r' {
                    if next < self.buf.len() {
                        if self.buf[next] == b'\n' {
                            next += 1;
                        }
                    } else {
                        self.pending_cr = true;
                    }
                }
                if let Some(ev) = self.line(&line) {
                    out.push(ev);
                }
                start = next;
                i = next;
            } else {
                i += 1;
            }
        }
        self.buf.drain(..start);
        out
    }

    /// The end of the stream: an event not closed by a blank line is
    /// dispatched.
    pub fn finish(&mut self) -> Vec<Sse> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf.clear();
            out.extend(self.line(&line));
        }
        out.extend(self.line(""));
        out
    }

    fn line(&mut self, line: &str) -> Option<Sse> {
        if line.is_empty() {
            if !self.has_data && self.current.event.is_none() {
                self.current = Sse::default();
                return None;
            }
            self.has_data = false;
            return Some(std::mem::take(&mut self.current));
        }
        if let Some(comment) = line.strip_prefix(':') {
            self.current.comments.push(comment.to_string());
            return None;
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
        None
    }
}

/// An incremental NDJSON decoder (Ollama): one JSON value per line.
#[derive(Debug, Default)]
pub struct LineDecoder {
    buf: Vec<u8>,
}

impl LineDecoder {
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buf.drain(..=pos).collect();
            let text = String::from_utf8_lossy(&line).trim().to_string();
            if !text.is_empty() {
                out.push(text);
            }
        }
        out
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
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, String> {
        if self.api == Api::Ollama {
            let lines = self.lines.push(bytes);
            return lines.iter().map(|l| json_event(l)).collect();
        }
        let frames = self.sse.push(bytes);
        frames
            .into_iter()
            .filter_map(|f| self.frame(f).transpose())
            .collect()
    }

    pub fn finish(&mut self) -> Result<Vec<Event>, String> {
        if self.api == Api::Ollama {
            let lines = self.lines.finish();
            return lines.iter().map(|l| json_event(l)).collect();
        }
        let frames = self.sse.finish();
        frames
            .into_iter()
            .filter_map(|f| self.frame(f).transpose())
            .collect()
    }

    fn frame(&self, f: Sse) -> Result<Option<Event>, String> {
        if f.data.is_empty() && f.event.is_none() {
            return Ok(None);
        }
        match self.api {
            Api::OpenAI | Api::DeepSeek | Api::OpenAIResponses => {
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
                    json!({"event": "error", "status": status, "data": data}),
                )))
            }
            _ if f.data.is_empty() => Ok(None),
            _ => json_event(&f.data).map(Some),
        }
    }
}

fn parse_json(text: &str) -> Result<Value, String> {
    let mut v = crate::json::parse(text.as_bytes(), Default::default())
        .map_err(|e| format!("a stream event is not JSON ({e}): {}", preview(text)))?
        .value;
    crate::py::normalize_numbers(&mut v);
    Ok(v)
}

fn json_event(text: &str) -> Result<Event, String> {
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
            let mut got = d.push(&text.as_bytes()[..cut]);
            got.extend(d.push(&text.as_bytes()[cut..]));
            got.extend(d.finish());
            let datas: Vec<&str> = got.iter().map(|s| s.data.as_str()).collect();
            assert_eq!(datas, ["{\"x\":\n1}", "[DONE]"], "cut at {cut}");
            assert_eq!(got[0].event.as_deref(), Some("a"));
        }
    }

    #[test]
    fn ndjson_lines_wait_for_their_end() {
        let mut d = LineDecoder::default();
        assert!(d.push(b"{\"a\":").is_empty());
        assert_eq!(d.push(b"1}\n{\"b\"").len(), 1);
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
