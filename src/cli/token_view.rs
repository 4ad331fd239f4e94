//! `formatscope tokenize --show` / `--json`: the text with its token
//! boundaries visible, message by message, each with its count. A session
//! file is read as its messages' text (string content, or the `text` of
//! its blocks joined by newlines); any other file is one text. Colours
//! only on a terminal: elsewhere a `│` separates tokens, so the output
//! stays readable in a pipe or a test. Spaces show as `·`, newlines as `↵`,
//! tabs as `→`; other control characters are escaped, never sent raw.

use super::target::mark;
use super::{print_json, usage_error};
pub(crate) use formatscope::tokens::offsets::Piece;
use formatscope::tokens::offsets::{
    encode_with_offsets, has_offsets, message_header, message_piece, visible, TokenSpan,
};
use formatscope::tokens::TokenizerSpec;
use serde_json::{json, Value};
use std::io::{IsTerminal, Write};

/// The messages of a session-shaped JSON text, or the text as one piece.
pub(crate) fn pieces(text: &str) -> Vec<Piece> {
    let messages = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| match v {
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
            text: text.to_string(),
        }],
    }
}

/// A session's top-level string field (`model`, `provider`), for the
/// default tokenizer.
pub(crate) fn session_field(text: &str, key: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    v.get(key)?.as_str().map(str::to_string)
}

/// Prints the token view (`json` false) or the token ids (`json` true).
pub(crate) fn run(spec: TokenizerSpec, text: &str, json: bool) -> i32 {
    if !has_offsets(spec.vocab) {
        return usage_error(format!(
            "{}: token ids are not available for the {} vocabulary yet; `formatscope tokenize` without --show/--json counts it",
            spec.name,
            spec.vocab.name()
        ));
    }
    let mut encoded = Vec::new();
    for (index, p) in pieces(text).into_iter().enumerate() {
        match encode_with_offsets(spec.vocab, &p.text) {
            Some(spans) => encoded.push((p, spans)),
            None => {
                return usage_error(format!(
                    "message {index}: {} gives no token ids for this text (it holds a special-token string or is not NFC); `formatscope tokenize` without --show/--json counts it",
                    spec.vocab.name()
                ))
            }
        }
    }
    if json {
        print_json(&to_json(spec, &encoded));
    } else {
        let colour = std::io::stdout().is_terminal();
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(render(spec, &encoded, colour).as_bytes());
    }
    0
}

fn to_json(spec: TokenizerSpec, encoded: &[(Piece, Vec<TokenSpan>)]) -> Value {
    let messages: Vec<Value> = encoded
        .iter()
        .enumerate()
        .map(|(index, (p, spans))| {
            json!({
                "index": index,
                "role": p.role,
                "tokens": spec.count(&p.text),
                "ids": spans.iter().map(|(id, r)| json!({"id": id, "start": r.start, "end": r.end})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "tokenizer": spec.name,
        "vocab": spec.vocab.name(),
        "exact": spec.exact_count(),
        "tokens": encoded.iter().map(|(p, _)| spec.count(&p.text)).sum::<i64>(),
        "messages": messages,
    })
}

/// The text of every message with its tokens marked.
pub(crate) fn render(
    spec: TokenizerSpec,
    encoded: &[(Piece, Vec<TokenSpan>)],
    colour: bool,
) -> String {
    let mut out = String::new();
    let m = mark(spec.exact_count());
    let mut total = 0;
    for (index, (p, spans)) in encoded.iter().enumerate() {
        let count = spec.count(&p.text);
        total += count;
        out.push_str(&message_header(
            index,
            &p.role,
            count,
            spec.exact_count(),
            spec.name,
        ));
        out.push('\n');
        out.push_str(&marked(&p.text, spans, colour));
        out.push('\n');
    }
    out.push_str(&format!(
        "── {m}{total} tokens in {} message(s) ({})\n",
        encoded.len(),
        spec.describe()
    ));
    out
}

/// One text with alternating shades (colour) or `│` between tokens. A
/// token that ends inside a character is drawn with the next one.
pub(crate) fn marked(text: &str, spans: &[TokenSpan], colour: bool) -> String {
    const SHADES: [&str; 2] = ["\x1b[48;5;236m", "\x1b[48;5;239m"];
    let mut out = String::new();
    let mut start = 0;
    let mut n = 0;
    for (_, r) in spans {
        let end = r.end.min(text.len());
        if end <= start || !text.is_char_boundary(end) {
            continue;
        }
        let token = text.get(start..end).unwrap_or_default();
        if colour {
            out.push_str(SHADES[n % 2]);
        } else if n > 0 {
            out.push('│');
        }
        out.push_str(&visible(token, "↵\n"));
        if colour {
            out.push_str("\x1b[0m");
        }
        start = end;
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_marks_boundaries_spaces_and_newlines() {
        let spec = TokenizerSpec::from_name("o200k_base").expect("shipped");
        let text = "Hi there\nbye\x1b";
        let spans = encode_with_offsets(spec.vocab, text).expect("ids");
        let shown = marked(text, &spans, false);
        assert!(shown.contains('│') && shown.contains("·there") && shown.contains("↵\n"));
        assert!(!shown.contains('\x1b'));
    }

    #[test]
    fn colour_alternates_shades_and_resets_each_token() {
        let spec = TokenizerSpec::from_name("qwen").expect("shipped");
        let text = "a b\n";
        let spans = encode_with_offsets(spec.vocab, text).expect("ids");
        let shown = marked(text, &spans, true);
        assert!(!shown.contains('│'));
        assert!(shown.contains("\x1b[48;5;236m") && shown.contains("\x1b[48;5;239m"));
        assert_eq!(shown.matches("\x1b[0m").count(), spans.len());
    }
}
