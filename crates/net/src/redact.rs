//! A key is never stored or printed. A provider's error may echo the header
//! that carried it (`Incorrect API key provided: Bearer sk-…`), and a
//! server may echo it anywhere in a body (an echo service answers with the
//! request's headers), so every text of a send that is shown or kept has
//! the key replaced by `<API_KEY>`, as the wire view writes it.

use super::{ApiKey, Provider, SendError};
use formatscope_core::wire::API_KEY;
use serde_json::Value;
use std::borrow::Cow;

/// Keys shorter than this are not looked for: they are the placeholders
/// local servers ignore (`x`, `EMPTY`), and replacing every `x` would
/// garble the text while hiding nothing. A provider's key is far longer.
const SHORTEST: usize = 8;

impl ApiKey {
    /// The key's text, when it is long enough to look for.
    fn findable(&self) -> Option<&str> {
        Some(self.0.as_str()).filter(|k| k.len() >= SHORTEST)
    }

    /// `text` with every occurrence of the key replaced by `<API_KEY>`.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        match self.findable() {
            Some(k) if text.contains(k) => Cow::Owned(text.replace(k, API_KEY)),
            _ => Cow::Borrowed(text),
        }
    }

    /// Bytes (a body, maybe not UTF-8) with the key replaced.
    pub fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        let Some(k) = self.findable().map(str::as_bytes) else {
            return Cow::Borrowed(bytes);
        };
        if !bytes.windows(k.len()).any(|w| w == k) {
            return Cow::Borrowed(bytes);
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        while let Some(at) = rest.windows(k.len()).position(|w| w == k) {
            out.extend_from_slice(&rest[..at]);
            out.extend_from_slice(API_KEY.as_bytes());
            rest = &rest[at + k.len()..];
        }
        out.extend_from_slice(rest);
        Cow::Owned(out)
    }

    /// Every string of a JSON value (object keys too) with the key replaced.
    pub fn redact_value(&self, value: &mut Value) {
        if self.findable().is_none() {
            return;
        }
        match value {
            Value::String(s) => {
                if let Cow::Owned(r) = self.redact(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v)),
            Value::Object(map) => {
                let keyed = map.keys().any(|k| matches!(self.redact(k), Cow::Owned(_)));
                if keyed {
                    let old = std::mem::take(map);
                    for (k, mut v) in old {
                        self.redact_value(&mut v);
                        map.insert(self.redact(&k).into_owned(), v);
                    }
                } else {
                    map.values_mut().for_each(|v| self.redact_value(v));
                }
            }
            _ => {}
        }
    }
}

/// Text printed as it streams (a reply shown chunk by chunk), with the key
/// replaced even when it comes split across two pieces: the tail of a
/// piece that could be the start of the key (at most its length less one
/// byte) is held back until the next piece or the end shows whether it
/// is. What comes out is what [`ApiKey::redact`] makes of the whole text.
#[derive(Debug, Default)]
pub struct StreamRedactor {
    key: Option<String>,
    held: String,
}

impl StreamRedactor {
    /// Replaces `key` (none: passes everything through as it comes).
    pub fn new(key: Option<&ApiKey>) -> StreamRedactor {
        StreamRedactor {
            key: key.and_then(ApiKey::findable).map(str::to_string),
            held: String::new(),
        }
    }

    /// What of `text` (after what was held) can be shown now.
    pub fn push(&mut self, text: &str) -> String {
        let Some(key) = self.key.as_deref() else {
            return text.to_string();
        };
        let mut all = std::mem::take(&mut self.held);
        all.push_str(text);
        let mut out = String::with_capacity(all.len());
        let mut rest = all.as_str();
        while let Some(at) = rest.find(key) {
            out.push_str(&rest[..at]);
            out.push_str(API_KEY);
            rest = &rest[at + key.len()..];
        }
        // The key's first byte starts a character, so the held tail does.
        let keep = rest.len() - key_start_at_end(rest.as_bytes(), key.as_bytes());
        out.push_str(&rest[..keep]);
        self.held = rest[keep..].to_string();
        out
    }

    /// The end of the text: what was held (the start of a key at most,
    /// never all of it).
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// The length of the longest end of `text` that is a proper start of `key`.
fn key_start_at_end(text: &[u8], key: &[u8]) -> usize {
    let most = text.len().min(key.len().saturating_sub(1));
    (1..=most)
        .rev()
        .find(|&n| text[text.len() - n..] == key[..n])
        .unwrap_or(0)
}

/// Every string in `value` with `key` replaced. `growing`: the text is a
/// stream's so far, whose next chunk may finish a key its end begins, so
/// that start is cut too (shown once the rest proves it is not the key).
pub fn redact_strings(value: &mut Value, key: &ApiKey, growing: bool) {
    let Some(k) = key.findable() else {
        return;
    };
    match value {
        Value::String(s) => {
            if s.contains(k) {
                *s = s.replace(k, API_KEY);
            }
            if growing {
                let cut = key_start_at_end(s.as_bytes(), k.as_bytes());
                s.truncate(s.len() - cut);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| redact_strings(v, key, growing)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| redact_strings(v, key, growing)),
        _ => {}
    }
}

/// `text` with `key` replaced, when there is one.
pub fn redact<'a>(text: &'a str, key: Option<&ApiKey>) -> Cow<'a, str> {
    match key {
        Some(k) => k.redact(text),
        None => Cow::Borrowed(text),
    }
}

/// `text` with each of `keys` replaced.
pub fn redact_all<'a>(text: &'a str, keys: &[ApiKey]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for k in keys {
        if let Cow::Owned(r) = k.redact(&out) {
            out = Cow::Owned(r);
        }
    }
    out
}

/// The keys set in the environment's provider variables: what a printed
/// history is cleaned of (rows an older formatscope kept may hold them).
pub fn keys_in_env(env: impl Fn(&str) -> Option<String>) -> Vec<ApiKey> {
    Provider::ALL
        .iter()
        .flat_map(|p| super::key_variables(*p))
        .filter_map(|v| env(v))
        .map(|k| ApiKey(k.trim().to_string()))
        .filter(|k| k.findable().is_some())
        .collect()
}

impl SendError {
    /// The error with `key` replaced in every text it holds (what a server
    /// said, what came back).
    pub fn redacted(self, key: Option<&ApiKey>) -> SendError {
        let Some(key) = key else {
            return self;
        };
        let r = |s: String| key.redact(&s).into_owned();
        match self {
            SendError::Connect { url, reason } => SendError::Connect {
                url: r(url),
                reason: r(reason),
            },
            SendError::Timeout { what, after, url } => SendError::Timeout {
                what,
                after,
                url: r(url),
            },
            SendError::Http {
                status,
                url,
                message,
                retry_after,
            } => SendError::Http {
                status,
                url: r(url),
                message: r(message),
                retry_after: retry_after.map(r),
            },
            SendError::Redirect {
                status,
                url,
                location,
                host,
            } => SendError::Redirect {
                status,
                url: r(url),
                location: r(location),
                host: r(host),
            },
            SendError::Dropped(s) => SendError::Dropped(r(s)),
            SendError::Stream(s) => SendError::Stream(r(s)),
            SendError::NotAReply(s) => SendError::NotAReply(r(s)),
            other @ (SendError::MissingKey { .. } | SendError::Cancelled) => other,
        }
    }
}

impl super::Outcome {
    /// The outcome with `key` replaced in what it says of the body (the
    /// reply's blocks, a parse error's message, what came back instead of
    /// a reply, the warnings).
    pub fn redact(&mut self, key: Option<&ApiKey>) {
        let Some(key) = key else {
            return;
        };
        let r = |s: &mut String| {
            if let Cow::Owned(x) = key.redact(s) {
                *s = x;
            }
        };
        if let Some(e) = self.parse_error.as_mut() {
            r(&mut e.message);
        }
        // The reply itself may quote the key ("you sent Bearer sk-…"): not
        // on screen, and not into a session by `--append`.
        if let Some(response) = self.final_response.as_mut() {
            for block in &mut response.content {
                redact_strings(block, key, false);
            }
            redact_strings(&mut response.metadata, key, false);
        }
        if let Some(n) = self.nothing.as_mut() {
            r(n);
        }
        self.warnings.iter_mut().for_each(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_replaced_wherever_it_stands() {
        let key = ApiKey("sk-test-1234567890".into());
        assert_eq!(
            key.redact("Incorrect API key provided: Bearer sk-test-1234567890."),
            "Incorrect API key provided: Bearer <API_KEY>."
        );
        assert_eq!(
            &*key.redact_bytes(b"\xffsk-test-1234567890sk-test-1234567890!"),
            b"\xff<API_KEY><API_KEY>!"
        );
        let mut v = serde_json::json!({"sk-test-1234567890": ["a sk-test-1234567890 b", 1]});
        key.redact_value(&mut v);
        assert_eq!(v, serde_json::json!({"<API_KEY>": ["a <API_KEY> b", 1]}));
        // A placeholder key is not looked for.
        assert_eq!(ApiKey("x".into()).redact("x marks"), "x marks");
        let e = SendError::Http {
            status: 401,
            url: "u".into(),
            message: "Bearer sk-test-1234567890".into(),
            retry_after: None,
        }
        .redacted(Some(&key));
        assert_eq!(e.to_string(), "HTTP 401 from u: Bearer <API_KEY>");
    }
    #[test]
    fn a_key_split_across_pieces_never_comes_out() {
        let key = ApiKey("sk-test-1234567890".into());
        let text = "Incorrect API key provided: Bearer sk-test-1234567890. Again: sk-test-1234567890sk-test-12";
        let whole = key.redact(text).into_owned();
        // Every way of cutting the text in two, and in three.
        for a in 0..=text.len() {
            for b in (a..=text.len()).step_by(5) {
                let mut r = StreamRedactor::new(Some(&key));
                let mut out = String::new();
                for piece in [&text[..a], &text[a..b], &text[b..]] {
                    let shown = r.push(piece);
                    assert!(!shown.contains("sk-test-1234567890"));
                    out.push_str(&shown);
                    assert!(!out.contains("sk-test-1234567890"), "{a} {b}: {out}");
                }
                out.push_str(&r.finish());
                assert_eq!(out, whole, "cut at {a} and {b}");
            }
        }
        // One byte at a time, through a multi-byte text.
        let text = "é sk-test-1234567890 東京 sk-test-123";
        let mut r = StreamRedactor::new(Some(&key));
        let mut out = String::new();
        for c in text.chars() {
            out.push_str(&r.push(c.encode_utf8(&mut [0; 4])));
        }
        out.push_str(&r.finish());
        assert_eq!(out, key.redact(text));
        // Without a key (or a placeholder one), nothing is held.
        let mut r = StreamRedactor::new(Some(&ApiKey("x".into())));
        assert_eq!(r.push("sk-"), "sk-");
        let mut r = StreamRedactor::new(None);
        assert_eq!(r.push("sk-"), "sk-");
        // Text that cannot start the key goes out at once.
        let mut r = StreamRedactor::new(Some(&key));
        assert_eq!(r.push("hello s"), "hello ");
        assert_eq!(r.push("o"), "so");
    }

    /// A reply's blocks quote the key: replaced everywhere in them; while
    /// the reply grows, a trailing start of the key is held back too.
    #[test]
    fn a_replys_blocks_never_show_the_key_even_half_arrived() {
        let key = ApiKey("sk-test-1234567890".into());
        let mut block = serde_json::json!({
            "type": "text",
            "text": "you sent sk-test-1234567890 and sk-test-12"
        });
        redact_strings(&mut block, &key, true);
        assert_eq!(block["text"], "you sent <API_KEY> and ");
        let mut call = serde_json::json!({
            "type": "tool_use",
            "input": {"auth": ["Bearer sk-test-1234567890"]}
        });
        redact_strings(&mut call, &key, false);
        assert_eq!(call["input"]["auth"][0], "Bearer <API_KEY>");
        let mut done = serde_json::json!({"type": "text", "text": "ends sk-test-12"});
        redact_strings(&mut done, &key, false);
        assert_eq!(
            done["text"], "ends sk-test-12",
            "a whole reply keeps its end"
        );
    }
}
