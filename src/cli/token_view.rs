//! `formatscope tokenize --show` / `--json`: the text with its token
//! boundaries visible, message by message, each with its count. A session
//! file is read as its messages' text (string content, or the `text` of
//! its blocks joined by newlines); any other file is one text. Colours
//! only on a terminal: elsewhere a `│` separates tokens, so the output
//! stays readable in a pipe or a test. Spaces show as `·`, newlines as `↵`,
//! tabs as `→`; other control characters are escaped, never sent raw.

use super::target::mark;
use super::usage_error;
use super::{success, Exit};
pub(crate) use formatscope::tokens::offsets::Piece;
use formatscope::tokens::offsets::{
    each_token, has_offsets, ids_available, message_header, message_piece, push_visible,
};
use formatscope::tokens::TokenizerSpec;
use serde::ser::{Serialize, SerializeSeq, Serializer};
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// The text as JSON, read once for the tokenizer's choice and the pieces
/// (it was parsed again for each).
pub(crate) fn parse(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

/// The messages of a session-shaped JSON value, or the text as one piece
/// (moved in, not copied: it may be the whole file).
pub(crate) fn pieces(json: Option<Value>, text: String) -> Vec<Piece> {
    let messages = json.and_then(|v| match v {
        Value::Object(mut o) => match o.remove("messages") {
            Some(Value::Array(m)) => Some(m),
            _ => None,
        },
        Value::Array(m) => Some(m),
        _ => None,
    });
    match messages {
        Some(m) if m.iter().all(Value::is_object) => m.iter().map(message_piece).collect(),
        _ => vec![Piece {
            role: "text".into(),
            text,
        }],
    }
}

/// A session's top-level string field (`model`, `provider`), for the
/// default tokenizer.
pub(crate) fn session_field(json: Option<&Value>, key: &str) -> Option<String> {
    json?.get(key)?.as_str().map(str::to_string)
}

/// Prints the token view (`as_json` false) or the token ids (`as_json`
/// true), each message's tokens written as they are found: neither the
/// tokens nor the output are held whole (a JSON value per token took
/// ~260 bytes per byte of text; a 100 MB word, 5 GB).
pub(crate) fn run(spec: TokenizerSpec, json: Option<Value>, text: String, as_json: bool) -> Exit {
    if !has_offsets(spec.vocab) {
        return usage_error(format!(
            "{}: token ids are not available for the {} vocabulary yet; `formatscope tokenize` without --show/--json counts it",
            spec.name,
            spec.vocab.name()
        ));
    }
    let pieces = pieces(json, text);
    // Said before anything is written.
    if let Some(index) = pieces
        .iter()
        .position(|p| !ids_available(spec.vocab, &p.text))
    {
        return usage_error(format!(
            "message {index}: {} gives no token ids for this text (it holds a special-token string or is not NFC); `formatscope tokenize` without --show/--json counts it",
            spec.vocab.name()
        ));
    }
    let counts: Vec<i64> = pieces.iter().map(|p| spec.count(&p.text)).collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if as_json {
        formatscope::text::write_json(&mut out, &view_json(spec, &pieces, &counts))
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
    } else {
        let colour = std::io::stdout().is_terminal();
        render(&mut out, spec, &pieces, &counts, colour)
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => success(),
        // A closed pipe ends the output: nothing to report.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => success(),
        // Any other failure to write stdout (a full disk) is unexpected.
        Err(e) => Err(anyhow::Error::new(e).context("cannot write the token view")),
    }
}

/// `{"tokenizer", "vocab", "exact", "tokens", "messages": [{"index",
/// "role", "tokens", "ids": [{"id", "start", "end"}]}]}`.
#[derive(serde::Serialize)]
struct ViewJson<'a> {
    tokenizer: &'a str,
    vocab: &'a str,
    exact: bool,
    tokens: i64,
    messages: Vec<MessageJson<'a>>,
}

#[derive(serde::Serialize)]
struct MessageJson<'a> {
    index: usize,
    role: &'a str,
    tokens: i64,
    ids: Ids<'a>,
}

/// A text's token ids, found as they are written.
struct Ids<'a> {
    spec: TokenizerSpec,
    text: &'a str,
}

#[derive(serde::Serialize)]
struct IdJson {
    id: u32,
    start: usize,
    end: usize,
}

impl Serialize for Ids<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut failed = None;
        let found = each_token(self.spec.vocab, self.text, |id, r| {
            if failed.is_none() {
                let id = IdJson {
                    id,
                    start: r.start,
                    end: r.end,
                };
                failed = seq.serialize_element(&id).err();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if found.is_none() {
            return Err(serde::ser::Error::custom("no token ids for this text"));
        }
        seq.end()
    }
}

fn view_json<'a>(spec: TokenizerSpec, pieces: &'a [Piece], counts: &[i64]) -> ViewJson<'a> {
    ViewJson {
        tokenizer: spec.name,
        vocab: spec.vocab.name(),
        exact: spec.exact_count(),
        tokens: counts.iter().sum(),
        messages: pieces
            .iter()
            .zip(counts)
            .enumerate()
            .map(|(index, (p, &tokens))| MessageJson {
                index,
                role: &p.role,
                tokens,
                ids: Ids {
                    spec,
                    text: &p.text,
                },
            })
            .collect(),
    }
}

/// The text of every message with its tokens marked, into `out`.
fn render(
    out: &mut impl Write,
    spec: TokenizerSpec,
    pieces: &[Piece],
    counts: &[i64],
    colour: bool,
) -> std::io::Result<()> {
    let m = mark(spec.exact_count());
    for (index, (p, &count)) in pieces.iter().zip(counts).enumerate() {
        let header = message_header(index, &p.role, count, spec.exact_count(), spec.name);
        writeln!(out, "{header}")?;
        let mut marker = Marker::new(&p.text, colour);
        let mut written = Ok(());
        let found = each_token(spec.vocab, &p.text, |_, r| {
            marker.token(r.end);
            if marker.buf.len() >= FLUSH && written.is_ok() {
                written = out.write_all(marker.buf.as_bytes());
                marker.buf.clear();
            }
        });
        written?;
        if found.is_none() {
            return Err(std::io::Error::other("no token ids for this text"));
        }
        out.write_all(marker.buf.as_bytes())?;
        out.write_all(b"\n")?;
    }
    writeln!(
        out,
        "── {m}{} tokens in {} message(s) ({})",
        counts.iter().sum::<i64>(),
        pieces.len(),
        spec.describe()
    )
}

/// Bytes of drawn text written at a time.
const FLUSH: usize = 64 * 1024;

/// One text drawn token by token: alternating shades (colour) or `│`
/// between tokens, into `buf`. A token that ends inside a character is
/// drawn with the next one.
struct Marker<'t> {
    text: &'t str,
    colour: bool,
    /// The end of the last token drawn, and how many were.
    start: usize,
    n: usize,
    buf: String,
}

impl<'t> Marker<'t> {
    fn new(text: &'t str, colour: bool) -> Marker<'t> {
        Marker {
            text,
            colour,
            start: 0,
            n: 0,
            buf: String::new(),
        }
    }

    /// The token that ends at `end`.
    fn token(&mut self, end: usize) {
        const SHADES: [&str; 2] = ["\x1b[48;5;236m", "\x1b[48;5;239m"];
        let end = end.min(self.text.len());
        if end <= self.start || !self.text.is_char_boundary(end) {
            return;
        }
        let token = self.text.get(self.start..end).unwrap_or_default();
        if self.colour {
            self.buf.push_str(SHADES[self.n % 2]);
        } else if self.n > 0 {
            self.buf.push('│');
        }
        push_visible(&mut self.buf, token, "↵\n");
        if self.colour {
            self.buf.push_str("\x1b[0m");
        }
        self.start = end;
        self.n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use formatscope::tokens::offsets::{encode_with_offsets, TokenSpan};

    fn shown(text: &str, spans: &[TokenSpan], colour: bool) -> String {
        let mut marker = Marker::new(text, colour);
        for (_, r) in spans {
            marker.token(r.end);
        }
        marker.buf
    }

    #[test]
    fn plain_marks_boundaries_spaces_and_newlines() {
        let spec = TokenizerSpec::from_name("o200k_base").expect("shipped");
        let text = "Hi there\nbye\x1b";
        let spans = encode_with_offsets(spec.vocab, text).expect("ids");
        let shown = shown(text, &spans, false);
        assert!(shown.contains('│') && shown.contains("·there") && shown.contains("↵\n"));
        assert!(!shown.contains('\x1b'));
    }

    #[test]
    fn colour_alternates_shades_and_resets_each_token() {
        let spec = TokenizerSpec::from_name("qwen").expect("shipped");
        let text = "a b\n";
        let spans = encode_with_offsets(spec.vocab, text).expect("ids");
        let shown = shown(text, &spans, true);
        assert!(!shown.contains('│'));
        assert!(shown.contains("\x1b[48;5;236m") && shown.contains("\x1b[48;5;239m"));
        assert_eq!(shown.matches("\x1b[0m").count(), spans.len());
    }
}
