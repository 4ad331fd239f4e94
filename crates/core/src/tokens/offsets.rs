//! Token ids with the byte range each covers in its text: what the token
//! view (`formatscope tokenize --show` / `--json`, the workbench's `v`)
//! draws. The tokens are the counters' own: the same pre-tokenizer, and
//! the same path through each piece (the piece as one token, else the
//! backtracking encoder, else merging: `bpe::encode`), with each token's
//! id (its rank). Linear in the text, as counting is (tiktoken-rs's
//! encoder took 164 s and 5 GB on one 100 MB word, and the view's own
//! merging of Qwen pieces was quadratic: 40,000 `!` took 45 s). Where ids
//! are not available (DeepSeek, legacy Claude, Qwen text holding a
//! special-token string or not in NFC) the answer is `None`, never a
//! guess.

use super::encoding::Encoding;
use super::vocab::Vocab;
use serde_json::Value;
use std::ops::Range;
use unicode_normalization::{is_nfc_quick, IsNormalized};

/// One token: its id and the bytes of the text it covers.
pub use super::bpe::TokenSpan;

/// The tokens of `text` under `vocab`, in order; their ranges tile the
/// text. `None` where this vocabulary's ids are not available here.
pub fn encode_with_offsets(vocab: Vocab, text: &str) -> Option<Vec<TokenSpan>> {
    let mut out = Vec::new();
    each_token(vocab, text, |id, r| out.push((id, r)))?;
    Some(out)
}

/// [`encode_with_offsets`], each token handed to `f` as it is found (the
/// command line writes a long text's tokens as they come, never holding
/// them). `None` where this vocabulary's ids are not available here,
/// known before the first token.
pub fn each_token(vocab: Vocab, text: &str, mut f: impl FnMut(u32, Range<usize>)) -> Option<()> {
    if !ids_available(vocab, text) {
        return None;
    }
    // o200k_harmony has o200k_base's ranks and pattern (`counting`):
    // ordinary text has the same ids.
    vocab.counting().encode_ordinary(text, &mut f)
}

/// Whether [`encode_with_offsets`] gives ids for this text. Qwen's are
/// dashscope's encoding of ordinary text: text holding a special-token
/// string or that NFC would change has none here.
pub fn ids_available(vocab: Vocab, text: &str) -> bool {
    match vocab {
        Vocab::O200kBase | Vocab::O200kHarmony | Vocab::Cl100kBase => true,
        Vocab::Qwen => {
            vocab.counting().specials().find(text).is_none()
                && is_nfc_quick(text.chars()) == IsNormalized::Yes
        }
        Vocab::DeepSeek | Vocab::ClaudeLegacy => false,
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
/// `text` of its blocks (Gemini's `parts`) joined by newlines. The CLI (`tokenize --show`)
/// and the workbench's token view both take their text from here, so the
/// two never tokenise different strings.
pub fn message_piece(message: &Value) -> Piece {
    let role = message
        .get("role")
        .or_else(|| message.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("message")
        .to_string();
    // Gemini's messages hold `parts` where the others hold `content`.
    let text = match message.get("content").or_else(|| message.get("parts")) {
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
        "── message {index} · {} · {}{} ({tokenizer})",
        crate::text::escape_control(role),
        if exact { "" } else { "≈" },
        crate::text::count_of(count, "token", "tokens")
    )
}

/// A token's text as the token view draws it: spaces as `·`, newlines as
/// `newline` (the terminal's `↵` and a line break; the workbench, which
/// breaks rows itself, `↵` alone), tabs as `→`, other control characters
/// escaped, never sent raw to a terminal.
pub fn visible(token: &str, newline: &str) -> String {
    let mut out = String::new();
    push_visible(&mut out, token, newline);
    out
}

/// [`visible`] appended to `out` (the view of a long text writes its
/// tokens into one buffer, not a string each).
pub fn push_visible(out: &mut String, token: &str, newline: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::ranks::Ranks;
    use proptest::prelude::*;
    use std::cell::Cell;

    /// Texts the view once took seconds or minutes on (runs of one
    /// character: one pre-tokenizer piece each), and mixed ones.
    fn hostile() -> Vec<String> {
        let mut texts: Vec<String> = ["!", "-", " ", "a", "中", "0", "=", "é", "ab", "😀", "!?"]
            .iter()
            .flat_map(|u| [u.repeat(3), u.repeat(700), u.repeat(5_000)])
            .collect();
        texts.push("Hello, world!\n\n  Where is the library?  3.14159 ünïcödé 图书馆\n".repeat(50));
        texts.push(format!("{}x{}", "a".repeat(2_000), " ".repeat(3_000)));
        texts
    }

    #[test]
    fn the_ids_are_tiktokens() {
        for (vocab, encoding) in [
            (Vocab::O200kBase, Encoding::O200kBase),
            (Vocab::Cl100kBase, Encoding::Cl100kBase),
            (Vocab::O200kHarmony, Encoding::O200kHarmony),
        ] {
            for text in hostile() {
                let ids: Vec<u32> = encode_with_offsets(vocab, &text)
                    .expect("ids")
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect();
                let want = encoding.bpe().encode_ordinary(&text);
                assert!(ids == want, "{vocab:?}: {:?}", &text[..text.len().min(40)]);
            }
        }
    }

    #[test]
    fn qwens_ids_are_its_regex_pieces_merged_as_tiktoken_merges_them() {
        use crate::tokens::vocab::QWEN_PATTERN;
        let map: rustc_hash::FxHashMap<Vec<u8>, u32> = Vocab::Qwen
            .counting()
            .ranks()
            .entries()
            .map(|(b, r)| (b.to_vec(), r))
            .collect();
        let pattern = fancy_regex::Regex::new(QWEN_PATTERN).expect("pattern");
        for text in hostile() {
            let mut want = Vec::new();
            for piece in pattern.find_iter(&text) {
                let piece = piece.expect("matches");
                let bytes = piece.as_str().as_bytes();
                match map.get(bytes) {
                    Some(id) => want.push(*id),
                    None => {
                        let parts = tiktoken_rs::byte_pair_split(bytes, &map);
                        want.extend(parts.iter().filter_map(|p| map.get(*p).copied()));
                    }
                }
            }
            let ids: Vec<u32> = encode_with_offsets(Vocab::Qwen, &text)
                .expect("ids")
                .into_iter()
                .map(|(id, _)| id)
                .collect();
            assert!(ids == want, "{:?}", &text[..text.len().min(40)]);
        }
    }

    /// A vocabulary's ranks, counting the lookups.
    struct Counted<R> {
        ranks: R,
        lookups: Cell<usize>,
    }

    impl<R: Ranks> Ranks for Counted<R> {
        fn rank(&self, bytes: &[u8]) -> Option<u32> {
            self.lookups.set(self.lookups.get() + 1);
            self.ranks.rank(bytes)
        }

        fn links(&self) -> Option<crate::tokens::backtrack_tables::Links> {
            self.ranks.links()
        }
    }

    #[test]
    fn one_long_piece_costs_lookups_linear_in_its_length() {
        // A run of `!` is one Qwen piece: merging it pair by pair, asking
        // about every pair after each merge, was quadratic (20,000 `!`:
        // 12.8 s, 40,000: 45 s). A run of `-` is the backtracking
        // encoder's slowest text: merging takes it.
        for (vocab, unit) in [
            (Vocab::Qwen, "!"),
            (Vocab::O200kBase, "-"),
            (Vocab::Qwen, "a"),
        ] {
            for n in [4_000, 16_000] {
                let piece = unit.repeat(n);
                let counted = Counted {
                    ranks: *vocab.counting().ranks(),
                    lookups: Cell::new(0),
                };
                let mut tokens = Vec::new();
                crate::tokens::bpe::encode(piece.as_bytes(), 0, &counted, &mut |id, r| {
                    tokens.push((id, r))
                })
                .expect("ids");
                assert_eq!(Some(tokens), encode_with_offsets(vocab, &piece));
                let lookups = counted.lookups.get();
                assert!(
                    lookups <= 64 * n,
                    "{vocab:?} {unit:?} × {n}: {lookups} rank lookups"
                );
            }
        }
    }

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

    /// Gemini's request holds `parts`: the token view reads their text,
    /// where it once showed "(no text)" for every message.
    #[test]
    fn geminis_parts_are_a_messages_text() {
        let m = serde_json::json!({"role": "model", "parts": [{"text": "Hi"}, {"text": "there"}]});
        let piece = message_piece(&m);
        assert_eq!(piece.role, "model");
        assert_eq!(piece.text, "Hi\nthere");
    }
}
