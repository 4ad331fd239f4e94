//! The tokenizer vocabularies formatscope counts with, all offline: OpenAI's
//! from tiktoken-rs, Qwen, DeepSeek and legacy Claude from `assets/tokenizers`
//! (embedded in the binary). Each loads once per process, on first use or when
//! [`Vocab::warm`] is called from a background thread.

use super::bpe::Ranks;
use super::counting::CountingBpe;
use super::encoding::count_exactly;
use super::whitespace::Runs;
use fancy_regex::Regex;
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::sync::OnceLock;
use tiktoken_rs::Rank;
use unicode_normalization::UnicodeNormalization;

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

/// A rank table build.rs decoded from assets/tokenizers/NAME.tiktoken,
/// with its hash index.
macro_rules! table {
    ($name:literal) => {
        super::counting::StaticRanks::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".ranks")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")),
        )
    };
}

/// cl100k_base's pattern, as tiktoken-rs builds it.
const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";
const QWEN_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
const CLAUDE_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";
const DEEPSEEK_DIGITS: &str = r"\p{N}{1,3}";
const DEEPSEEK_CJK: &str = r"[\x{4e00}-\x{9fa5}\x{3040}-\x{309f}\x{30a0}-\x{30ff}]+";
const DEEPSEEK_MAIN: &str = r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##;

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
                count_exactly(self.counting(), Runs::NewlinesApart, text, &[])
            }
            Vocab::Qwen => {
                let text: String = text.nfc().collect();
                count_with_specials(self.counting(), Runs::NewlinesApart, &text)
            }
            Vocab::ClaudeLegacy => {
                let text: String = text.nfkc().collect();
                count_with_specials(self.counting(), Runs::Plain, &text)
            }
            Vocab::DeepSeek => deepseek().count(text),
        }
    }

    /// The counting BPE of a tiktoken-style vocabulary, loaded once from
    /// the rank table build.rs embedded (DeepSeek, which splits text its own
    /// way, shares o200k_base's only in name: it is never asked for here).
    pub(crate) fn counting(self) -> &'static CountingBpe {
        static O200K: OnceLock<CountingBpe> = OnceLock::new();
        static CL100K: OnceLock<CountingBpe> = OnceLock::new();
        static QWEN: OnceLock<CountingBpe> = OnceLock::new();
        static CLAUDE: OnceLock<CountingBpe> = OnceLock::new();
        let owned = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        match self {
            Vocab::Cl100kBase => CL100K.get_or_init(|| {
                CountingBpe::new(
                    table!("cl100k_base"),
                    CL100K_PATTERN,
                    owned(&[
                        "<|endoftext|>",
                        "<|fim_prefix|>",
                        "<|fim_middle|>",
                        "<|fim_suffix|>",
                        "<|endofprompt|>",
                    ]),
                )
            }),
            Vocab::Qwen => QWEN.get_or_init(|| {
                let specials = parse_specials(include_str!("../../assets/tokenizers/qwen.special"));
                CountingBpe::new(table!("qwen"), QWEN_PATTERN, specials.into_keys().collect())
            }),
            Vocab::ClaudeLegacy => CLAUDE.get_or_init(|| {
                CountingBpe::new(
                    table!("claude_legacy"),
                    CLAUDE_PATTERN,
                    owned(&["<EOT>", "<META>", "<META_START>", "<META_END>", "<SOS>"]),
                )
            }),
            _ => O200K.get_or_init(|| {
                CountingBpe::new(
                    table!("o200k_base"),
                    tiktoken_rs::O200K_BASE_PAT_STR,
                    owned(&["<|endoftext|>", "<|endofprompt|>"]),
                )
            }),
        }
    }
}

/// `encode(text, allowed_special="all")`.
fn count_with_specials(bpe: &CountingBpe, runs: Runs, text: &str) -> usize {
    let allowed: Vec<&str> = bpe.specials().iter().map(String::as_str).collect();
    count_exactly(bpe, runs, text, &allowed)
}

/// `id text` lines.
fn parse_specials(data: &str) -> FxHashMap<String, Rank> {
    data.lines()
        .filter_map(|line| {
            let (id, text) = line.split_once(' ')?;
            Some((text.to_string(), id.parse().ok()?))
        })
        .collect()
}

/// DeepSeek's HF tokenizer: added tokens, then three isolated regex splits
/// (digits, CJK runs, the main pattern; the gaps between matches are pieces
/// too), then byte-level BPE on each piece.
struct DeepSeekTokenizer {
    ranks: super::counting::StaticRanks,
    added: Vec<String>,
    digits: Regex,
    cjk: Regex,
    main: Regex,
}

fn deepseek() -> &'static DeepSeekTokenizer {
    static TOK: OnceLock<DeepSeekTokenizer> = OnceLock::new();
    TOK.get_or_init(|| {
        let mut added: Vec<String> =
            parse_specials(include_str!("../../assets/tokenizers/deepseek.special"))
                .into_keys()
                .collect();
        // Longest first, so a token that contains another wins.
        added.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        DeepSeekTokenizer {
            ranks: table!("deepseek"),
            added,
            digits: Regex::new(DEEPSEEK_DIGITS).expect("digit pattern"),
            cjk: Regex::new(DEEPSEEK_CJK).expect("CJK pattern"),
            main: Regex::new(DEEPSEEK_MAIN).expect("DeepSeek pattern"),
        }
    })
}

impl DeepSeekTokenizer {
    fn count(&self, text: &str) -> usize {
        let mut n = 0;
        let mut rest = text;
        // Added tokens are matched before any splitting, leftmost first.
        while !rest.is_empty() {
            let next = self.added_token_at_or_after(rest);
            match next {
                Some((pos, len)) => {
                    n += self.count_plain(&rest[..pos]) + 1;
                    rest = &rest[pos + len..];
                }
                None => {
                    n += self.count_plain(rest);
                    break;
                }
            }
        }
        n
    }

    fn added_token_at_or_after(&self, text: &str) -> Option<(usize, usize)> {
        // Every added token starts with '<' or '｜' except a few plain ones;
        // a quick scan for those characters keeps ordinary text fast.
        if !text.contains(['<', '｜', '▁']) {
            return None;
        }
        let mut best: Option<(usize, usize)> = None;
        for token in &self.added {
            if let Some(pos) = text.find(token.as_str()) {
                if best.is_none_or(|(p, l)| pos < p || (pos == p && token.len() > l)) {
                    best = Some((pos, token.len()));
                }
            }
        }
        best
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
        let regex = |t: &str| {
            let mut n = 0;
            let complete = isolated_split(&self.main, t, &mut |piece, _| n += self.bpe_len(piece));
            complete.then_some(n)
        };
        regex(gap)
            .or_else(|| {
                super::whitespace::count(gap, Runs::NewlinesApart, &regex, &|piece| {
                    super::bpe::count(piece, &self.ranks)
                })
            })
            // Not reached: every piece left to the regex is short.
            .unwrap_or(gap.len())
    }

    fn bpe_len(&self, piece: &str) -> usize {
        let bytes = piece.as_bytes();
        if bytes.is_empty() {
            0
        } else if self.ranks.rank(bytes).is_some() {
            1
        } else {
            // Long pieces (80,000 letters in one word) merge in O(n log n).
            super::bpe::count(bytes, &self.ranks)
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

/// The special-token strings of a vocabulary, for callers that must keep
/// user text from being read as one.
pub fn special_tokens(vocab: Vocab) -> HashSet<String> {
    match vocab {
        Vocab::O200kHarmony => tiktoken_rs::o200k_harmony_singleton()
            .special_tokens()
            .into_iter()
            .map(String::from)
            .collect(),
        Vocab::DeepSeek => deepseek().added.iter().cloned().collect(),
        _ => vocab.counting().specials().iter().cloned().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in Vocab::ALL {
            assert_eq!(Vocab::from_name(v.name()), Some(v));
        }
    }
}
