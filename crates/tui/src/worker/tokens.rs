//! The token view's layout (`v` → tokens): each formatted message's text
//! tokenised with the model's tokenizer, once per job on this thread (the
//! pane only draws the rows on screen and moves its cursor). The tokens
//! come from `tokens::offsets`, the same function `formatscope tokenize
//! --show` prints from.

use super::Lines;
use formatscope_core::tokens::offsets::{
    encode_with_offsets, has_offsets, message_header, message_piece, TokenSpan,
};
use formatscope_core::tokens::TokenizerSpec;
use serde_json::Value;
use std::collections::HashMap;
use std::ops::Range;

/// One message of the token view.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenMessage {
    pub role: String,
    pub text: String,
    /// The tokens, tiling `text`; `None` where this vocabulary gives no
    /// ids for this text (a special-token string, not NFC).
    pub spans: Option<Vec<TokenSpan>>,
    /// The tokenizer's count of `text` (scaled where it is an estimate).
    pub count: i64,
    /// This message's first token in the view's numbering.
    pub first: usize,
    /// Its rows (header included).
    pub rows: Range<usize>,
}

/// One row on screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// `── message 3 · user · 12 tokens (o200k_base)`.
    Header(usize),
    /// A line of a message's text: its bytes (with the newline ending it)
    /// and the message's token that holds the first of them.
    Text {
        message: usize,
        bytes: Range<usize>,
        token: usize,
    },
    /// Something said instead of tokens (muted).
    Note(String),
}

/// The token view of one request.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenView {
    pub spec: TokenizerSpec,
    pub messages: Vec<TokenMessage>,
    /// One per line of the preview's `plain` (which holds their text, for
    /// search and copy).
    pub rows: Vec<Row>,
    /// Tokens in all messages (the cursor's range).
    pub total_tokens: usize,
}

impl TokenView {
    /// The message and its token under view-wide token `n`.
    pub fn locate(&self, n: usize) -> Option<(usize, usize)> {
        let m = self
            .messages
            .partition_point(|m| m.first <= n)
            .checked_sub(1)?;
        let message = &self.messages[m];
        let i = n - message.first;
        (i < message.spans.as_ref()?.len()).then_some((m, i))
    }

    /// The row holding the start of token `i` of message `m`.
    pub fn row_of(&self, m: usize, i: usize) -> Option<usize> {
        let message = self.messages.get(m)?;
        let start = message.spans.as_ref()?.get(i)?.1.start;
        let rows = self.rows.get(message.rows.clone())?;
        // A message's rows are its header and notes, then its lines in
        // order: the token's row is the last line starting at or before it.
        let after = rows.partition_point(|r| match r {
            Row::Text { bytes, .. } => bytes.start <= start,
            _ => true,
        });
        let r = message.rows.start + after.checked_sub(1)?;
        matches!(self.rows[r], Row::Text { .. }).then_some(r)
    }
}

/// Tokenises `messages` (the formatted request) and lays them out in rows;
/// the rows' text is the returned lines. A message whose text `previous`
/// (the last job's view) already tokenised with this tokenizer keeps its
/// tokens: an edit tokenises the message it changed, not the request.
pub(super) fn token_view(
    spec: TokenizerSpec,
    messages: &[Value],
    previous: Option<&TokenView>,
) -> (TokenView, Lines) {
    let known: HashMap<&str, &TokenMessage> = previous
        .filter(|p| p.spec == spec)
        .map(|p| p.messages.iter().map(|m| (m.text.as_str(), m)).collect())
        .unwrap_or_default();
    let mut view = TokenView {
        spec,
        messages: Vec::with_capacity(messages.len()),
        rows: Vec::new(),
        total_tokens: 0,
    };
    let mut plain = Lines::new();
    if !has_offsets(spec.vocab) {
        let note = format!(
            "// token ids are not available for the {} vocabulary ({}): the budget pane counts it",
            spec.vocab.name(),
            spec.name
        );
        plain.push(&note);
        view.rows.push(Row::Note(note));
        return (view, plain);
    }
    for (index, value) in messages.iter().enumerate() {
        let piece = message_piece(value);
        let first_row = view.rows.len();
        let (spans, count) = match known.get(piece.text.as_str()) {
            Some(m) => (m.spans.clone(), m.count),
            None => (
                encode_with_offsets(spec.vocab, &piece.text),
                spec.count(&piece.text),
            ),
        };
        plain.push(&message_header(
            index,
            &piece.role,
            count,
            spec.exact_count(),
            spec.name,
        ));
        view.rows.push(Row::Header(index));
        if spans.is_none() {
            let note = format!(
                "  ({} gives no token ids for this text: it holds a special-token string or is not NFC)",
                spec.vocab.name()
            );
            plain.push(&note);
            view.rows.push(Row::Note(note));
        } else if piece.text.is_empty() {
            plain.push("  (no text)");
            view.rows.push(Row::Note("  (no text)".into()));
        }
        lay_out(
            index,
            &piece.text,
            spans.as_deref(),
            &mut view.rows,
            &mut plain,
        );
        let n = spans.as_ref().map_or(0, Vec::len);
        view.messages.push(TokenMessage {
            role: piece.role,
            text: piece.text,
            spans,
            count,
            first: view.total_tokens,
            rows: first_row..view.rows.len(),
        });
        view.total_tokens += n;
    }
    plain.shrink_to_fit();
    (view, plain)
}

/// The rows of one message's text: a row per line, each with the token
/// that holds its first byte.
fn lay_out(
    message: usize,
    text: &str,
    spans: Option<&[TokenSpan]>,
    rows: &mut Vec<Row>,
    plain: &mut Lines,
) {
    let mut token = 0;
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .find('\n')
            .map_or(text.len(), |i| start + i + 1);
        if let Some(spans) = spans {
            while token + 1 < spans.len() && spans[token].1.end <= start {
                token += 1;
            }
        }
        let line = text[start..end].trim_end_matches('\n');
        plain.push(&formatscope_core::text::escape_control(line));
        rows.push(Row::Text {
            message,
            bytes: start..end,
            token,
        });
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_follow_lines_and_point_at_their_first_token() {
        let spec = TokenizerSpec::from_name("o200k_base").expect("shipped");
        let messages = vec![
            json!({"role": "system", "content": "Be brief.\nVery."}),
            json!({"role": "user", "content": [{"type": "text", "text": "Hi"}]}),
        ];
        let (view, plain) = token_view(spec, &messages, None);
        assert_eq!(plain.len(), view.rows.len());
        assert_eq!(
            plain.get(0),
            Some("── message 0 · system · 5 tokens (o200k_base)")
        );
        assert_eq!(plain.get(2), Some("Very."));
        let Row::Text { bytes, token, .. } = &view.rows[2] else {
            panic!("a text row");
        };
        assert_eq!(bytes.clone(), 10..15);
        let spans = view.messages[0].spans.as_ref().expect("ids");
        assert!(spans[*token].1.contains(&10));
        assert_eq!(view.total_tokens, 5 + 1);
        assert_eq!(view.locate(5), Some((1, 0)));
        assert_eq!(view.row_of(1, 0), Some(4));
        assert_eq!(view.locate(6), None);
    }

    #[test]
    fn the_last_views_tokens_are_kept_for_unchanged_text() {
        let spec = TokenizerSpec::from_name("qwen").expect("shipped");
        let before = vec![
            json!({"role": "user", "content": "图书馆 in the city"}),
            json!({"role": "assistant", "content": "Two streets away."}),
        ];
        let (old, _) = token_view(spec, &before, None);
        let mut after = before.clone();
        after.insert(0, json!({"role": "system", "content": "Be brief."}));
        let (reused, plain) = token_view(spec, &after, Some(&old));
        let (fresh, fresh_plain) = token_view(spec, &after, None);
        assert_eq!(reused, fresh);
        assert_eq!(plain.to_vec(), fresh_plain.to_vec());
    }

    #[test]
    fn a_vocabulary_without_ids_says_so() {
        let spec = TokenizerSpec::from_name("deepseek").expect("shipped");
        let (view, plain) = token_view(spec, &[json!({"role": "user", "content": "x"})], None);
        assert_eq!(view.total_tokens, 0);
        assert!(plain.get(0).unwrap_or_default().contains("not available"));
    }
}
