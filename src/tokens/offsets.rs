//! Token ids with the byte range each covers in its text: what the token
//! view (`formatscope tokenize --show` / `--json`) draws. Counting never
//! builds ids (it is faster without); this is the slower path that does,
//! for the vocabularies whose ids we can give exactly: OpenAI's through
//! tiktoken-rs, Qwen's by byte-pair merging over the embedded rank table.
//! Where ids are not available (DeepSeek, legacy Claude, Qwen text holding
//! a special-token string or not in NFC) the answer is `None`, never a
//! guess.

use super::bpe::Ranks;
use super::encoding::Encoding;
use super::vocab::{Vocab, QWEN_PATTERN};
use fancy_regex::Regex;
use serde_json::Value;
use std::ops::Range;
use std::sync::OnceLock;
use unicode_normalization::{is_nfc_quick, IsNormalized};

/// One token: its id and the bytes of the text it covers.
pub type TokenSpan = (u32, Range<usize>);

/// The tokens of `text` under `vocab`, in order; their ranges tile the
/// text. `None` where this vocabulary's ids are not available here.
pub fn encode_with_offsets(vocab: Vocab, text: &str) -> Option<Vec<TokenSpan>> {
    match vocab {
        Vocab::O200kBase => tiktoken(Encoding::O200kBase, text),
        Vocab::O200kHarmony => tiktoken(Encoding::O200kHarmony, text),
        Vocab::Cl100kBase => tiktoken(Encoding::Cl100kBase, text),
        Vocab::Qwen => qwen(text),
        Vocab::DeepSeek | Vocab::ClaudeLegacy => None,
    }
}

/// One message's text as the token view counts it, with its role (or
/// `text` for a plain file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub role: String,
    pub text: String,
}

/// A message's text as the token view counts it: string content, or the
/// `text` of its blocks joined by newlines. The CLI (`tokenize --show`)
/// and the workbench's token view both take their text from here, so the
/// two never tokenise different strings.
pub fn message_piece(message: &Value) -> Piece {
    let role = message
        .get("role")
        .or_else(|| message.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("message")
        .to_string();
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    Piece { role, text }
}

/// The head line of one message in the token view, the same in the
/// terminal and the workbench: `── message 3 · user · ≈12 tokens (gemini)`.
pub fn message_header(
    index: usize,
    role: &str,
    count: i64,
    exact: bool,
    tokenizer: &str,
) -> String {
    format!(
        "── message {index} · {} · {}{count} tokens ({tokenizer})",
        crate::text::escape_control(role),
        if exact { "" } else { "≈" }
    )
}

/// A token's text as the token view draws it: spaces as `·`, newlines as
/// `newline` (the terminal's `↵` and a line break; the workbench, which
/// breaks rows itself, `↵` alone), tabs as `→`, other control characters
/// escaped, never sent raw to a terminal.
pub fn visible(token: &str, newline: &str) -> String {
    let mut out = String::new();
    for c in token.chars() {
        match c {
            ' ' => out.push('·'),
            '\n' => out.push_str(newline),
            '\t' => out.push('→'),
            c => {
                let mut buf = [0u8; 4];
                out.push_str(&crate::text::escape_control(c.encode_utf8(&mut buf)));
            }
        }
    }
    out
}

/// Whether [`encode_with_offsets`] gives ids for this vocabulary at all.
pub fn has_offsets(vocab: Vocab) -> bool {
    !matches!(vocab, Vocab::DeepSeek | Vocab::ClaudeLegacy)
}

/// The bytes a token id stands for, where the vocabulary can say.
pub fn decode_token(vocab: Vocab, id: u32) -> Option<Vec<u8>> {
    match vocab {
        Vocab::O200kBase => Encoding::O200kBase.bpe().decode_bytes(&[id]).ok(),
        Vocab::O200kHarmony => Encoding::O200kHarmony.bpe().decode_bytes(&[id]).ok(),
        Vocab::Cl100kBase => Encoding::Cl100kBase.bpe().decode_bytes(&[id]).ok(),
        _ => None,
    }
}

fn tiktoken(encoding: Encoding, text: &str) -> Option<Vec<TokenSpan>> {
    let bpe = encoding.bpe();
    let mut at = 0;
    let mut out = Vec::new();
    for id in bpe.encode_ordinary(text) {
        let len = bpe.decode_bytes(&[id]).ok()?.len();
        out.push((id, at..at + len));
        at += len;
    }
    (at == text.len()).then_some(out)
}

/// Qwen as dashscope encodes ordinary text: the pattern's pieces, each
/// merged pair by pair, lowest rank first (tiktoken's algorithm).
fn qwen(text: &str) -> Option<Vec<TokenSpan>> {
    let counting = Vocab::Qwen.counting();
    if counting.specials().find(text).is_some() || is_nfc_quick(text.chars()) != IsNormalized::Yes {
        return None;
    }
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = PATTERN
        .get_or_init(|| Regex::new(QWEN_PATTERN).ok())
        .as_ref()?;
    let mut out = Vec::new();
    for piece in pattern.find_iter(text) {
        let piece = piece.ok()?;
        merge(
            &text.as_bytes()[piece.range()],
            piece.start(),
            counting.ranks(),
            &mut out,
        )?;
    }
    let tiled = out.last().map_or(0, |(_, r)| r.end) == text.len();
    tiled.then_some(out)
}

/// Byte-pair merges of one piece (starting at `base` in the text).
fn merge(piece: &[u8], base: usize, ranks: &impl Ranks, out: &mut Vec<TokenSpan>) -> Option<()> {
    if let Some(id) = ranks.rank(piece) {
        out.push((id, base..base + piece.len()));
        return Some(());
    }
    // Part boundaries; merge the adjacent pair with the lowest rank.
    let mut bounds: Vec<usize> = (0..=piece.len()).collect();
    loop {
        let best = (0..bounds.len().saturating_sub(2))
            .filter_map(|i| ranks.rank(&piece[bounds[i]..bounds[i + 2]]).map(|r| (r, i)))
            .min();
        match best {
            Some((_, i)) => {
                bounds.remove(i + 1);
            }
            None => break,
        }
    }
    for w in bounds.windows(2) {
        let id = ranks.rank(&piece[w[0]..w[1]])?;
        out.push((id, base + w[0]..base + w[1]));
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tiles(spans: &[TokenSpan], text: &str) -> bool {
        let mut at = 0;
        for (_, r) in spans {
            if r.start != at || r.end <= r.start {
                return false;
            }
            at = r.end;
        }
        at == text.len()
    }

    #[test]
    fn counts_agree_with_the_counter() {
        let text = "Hello, world!\n\n  Where is the library?  3.14159 ünïcödé 图书馆\n";
        for vocab in [Vocab::O200kBase, Vocab::Cl100kBase, Vocab::Qwen] {
            let spans = encode_with_offsets(vocab, text).expect("ids");
            assert!(tiles(&spans, text), "{vocab:?}");
            assert_eq!(spans.len(), vocab.count(text), "{vocab:?}");
        }
        assert!(encode_with_offsets(Vocab::DeepSeek, text).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn ranges_tile_and_decode_back(text in "[a-zA-Z0-9 \n\t.,!é图]{0,80}") {
            for vocab in [Vocab::O200kBase, Vocab::Cl100kBase, Vocab::Qwen] {
                let spans = encode_with_offsets(vocab, &text).expect("ids");
                prop_assert!(tiles(&spans, &text));
                prop_assert_eq!(spans.len(), vocab.count(&text));
                if vocab != Vocab::Qwen {
                    let mut back = Vec::new();
                    for (id, r) in &spans {
                        let bytes = decode_token(vocab, *id).expect("decodes");
                        prop_assert_eq!(&bytes[..], &text.as_bytes()[r.clone()]);
                        back.extend(bytes);
                    }
                    prop_assert_eq!(back, text.as_bytes().to_vec());
                } else {
                    for (id, r) in &spans {
                        let piece = &text.as_bytes()[r.clone()];
                        prop_assert_eq!(Vocab::Qwen.counting().ranks().rank(piece), Some(*id));
                    }
                }
            }
        }
    }
}
