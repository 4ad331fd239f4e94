//! The tokenizer vocabularies formatscope counts with, all offline: OpenAI's
//! from tiktoken-rs, Qwen, DeepSeek and legacy Claude from `assets/tokenizers`
//! (embedded in the binary). Each loads once per process, on first use or when
//! [`Vocab::warm`] is called from a background thread.

use super::encoding::count_ordinary;
use fancy_regex::Regex;
use rustc_hash::FxHashMap;
use std::collections::HashSet;
use std::sync::OnceLock;
use tiktoken_rs::{CoreBPE, Rank};
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
        if has_long_whitespace_run(text) {
            // The pre-tokenizer regexes backtrack badly on huge whitespace
            // runs (tiktoken-rs errors out after seconds): count such runs
            // in slices. Exact everywhere but at those runs' edges.
            return split_long_whitespace_runs(text)
                .map(|part| self.count_exact(part))
                .sum();
        }
        self.count_exact(text)
    }

    fn count_exact(self, text: &str) -> usize {
        match self {
            Vocab::O200kBase => count_ordinary(tiktoken_rs::o200k_base_singleton(), text),
            Vocab::Cl100kBase => count_ordinary(tiktoken_rs::cl100k_base_singleton(), text),
            Vocab::O200kHarmony => count_ordinary(tiktoken_rs::o200k_harmony_singleton(), text),
            Vocab::Qwen => {
                let text: String = text.nfc().collect();
                count_with_specials(qwen(), &text)
            }
            Vocab::ClaudeLegacy => {
                let text: String = text.nfkc().collect();
                count_with_specials(claude(), &text)
            }
            Vocab::DeepSeek => deepseek().count(text),
        }
    }
}

const LONG_RUN: usize = 1024;

fn has_long_whitespace_run(text: &str) -> bool {
    text.len() >= LONG_RUN
        && text
            .as_bytes()
            .split(|b| !b.is_ascii_whitespace())
            .any(|run| run.len() >= LONG_RUN)
}

/// The text cut before and after every ASCII whitespace run of at least
/// `LONG_RUN` bytes, and such runs cut into `LONG_RUN`-byte slices.
fn split_long_whitespace_runs(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            let run_start = i;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i - run_start >= LONG_RUN {
                if run_start > start {
                    parts.push(&text[start..run_start]);
                }
                let mut s = run_start;
                while s < i {
                    let e = (s + LONG_RUN).min(i);
                    parts.push(&text[s..e]);
                    s = e;
                }
                start = i;
            }
        } else {
            i += 1;
        }
    }
    if start < text.len() {
        parts.push(&text[start..]);
    }
    parts.into_iter()
}

/// `encode(text, allowed_special="all")`; on the regex's backtracking error
/// (long whitespace runs) counts line by line, then in fixed chunks.
fn count_with_specials(bpe: &CoreBPE, text: &str) -> usize {
    let specials = bpe.special_tokens();
    match bpe.encode(text, &specials) {
        Ok((tokens, _)) => tokens.len(),
        Err(_) => text
            .split_inclusive('\n')
            .map(|line| match bpe.encode(line, &specials) {
                Ok((tokens, _)) => tokens.len(),
                Err(_) => chunks(line, 4096)
                    .map(|c| {
                        bpe.encode(c, &specials)
                            .map(|(t, _)| t.len())
                            .unwrap_or(c.len())
                    })
                    .sum(),
            })
            .sum(),
    }
}

/// `text` in pieces of about `size` bytes, cut at character boundaries.
fn chunks(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

fn parse_ranks(data: &str) -> FxHashMap<Vec<u8>, Rank> {
    use base64::Engine;
    let mut ranks = FxHashMap::default();
    for line in data.lines() {
        let mut parts = line.split_whitespace();
        if let (Some(token), Some(rank)) = (parts.next(), parts.next()) {
            if let (Ok(bytes), Ok(rank)) = (
                base64::engine::general_purpose::STANDARD.decode(token),
                rank.parse::<Rank>(),
            ) {
                ranks.insert(bytes, rank);
            }
        }
    }
    ranks
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

fn qwen() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| {
        let ranks = parse_ranks(include_str!("../../assets/tokenizers/qwen.tiktoken"));
        let specials = parse_specials(include_str!("../../assets/tokenizers/qwen.special"));
        CoreBPE::new(ranks, specials, QWEN_PATTERN).expect("the Qwen pattern compiles")
    })
}

fn claude() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| {
        let ranks = parse_ranks(include_str!(
            "../../assets/tokenizers/claude_legacy.tiktoken"
        ));
        let specials = [
            ("<EOT>", 0),
            ("<META>", 1),
            ("<META_START>", 2),
            ("<META_END>", 3),
            ("<SOS>", 4),
        ]
        .into_iter()
        .map(|(s, r)| (s.to_string(), r))
        .collect();
        CoreBPE::new(ranks, specials, CLAUDE_PATTERN).expect("the Claude pattern compiles")
    })
}

/// DeepSeek's HF tokenizer: added tokens, then three isolated regex splits
/// (digits, CJK runs, the main pattern; the gaps between matches are pieces
/// too), then byte-level BPE on each piece.
struct DeepSeekTokenizer {
    ranks: FxHashMap<Vec<u8>, Rank>,
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
            ranks: parse_ranks(include_str!("../../assets/tokenizers/deepseek.tiktoken")),
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
                isolated_split(&self.main, piece, &mut |piece, _| n += self.bpe_len(piece));
            });
        });
        n
    }

    fn bpe_len(&self, piece: &str) -> usize {
        let bytes = piece.as_bytes();
        if bytes.is_empty() {
            0
        } else if self.ranks.contains_key(bytes) {
            1
        } else {
            tiktoken_rs::byte_pair_split(bytes, &self.ranks).len()
        }
    }
}

/// HF `Split(pattern, behavior="isolated")`: matches and the gaps between
/// them, in order; `matched` tells which. A regex error (backtracking limit)
/// leaves the rest as one gap.
fn isolated_split(re: &Regex, text: &str, out: &mut dyn FnMut(&str, bool)) {
    let mut last = 0;
    for m in re.find_iter(text) {
        let Ok(m) = m else { break };
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
}

/// The special-token strings of a vocabulary, for callers that must keep
/// user text from being read as one.
pub fn special_tokens(vocab: Vocab) -> HashSet<String> {
    match vocab {
        Vocab::O200kBase => strings(tiktoken_rs::o200k_base_singleton()),
        Vocab::Cl100kBase => strings(tiktoken_rs::cl100k_base_singleton()),
        Vocab::O200kHarmony => strings(tiktoken_rs::o200k_harmony_singleton()),
        Vocab::Qwen => strings(qwen()),
        Vocab::ClaudeLegacy => strings(claude()),
        Vocab::DeepSeek => deepseek().added.iter().cloned().collect(),
    }
}

fn strings(bpe: &CoreBPE) -> HashSet<String> {
    bpe.special_tokens().into_iter().map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cut_at_character_boundaries() {
        let text = "é".repeat(3000);
        let parts: Vec<&str> = chunks(&text, 4095).collect();
        assert_eq!(parts.concat(), text);
        assert!(parts.iter().all(|p| p.len() <= 4096));
    }

    #[test]
    fn long_whitespace_runs_are_sliced_and_nothing_is_lost() {
        let text = format!("a{}b\n{}c", " ".repeat(3000), "\t".repeat(10));
        let parts: Vec<&str> = split_long_whitespace_runs(&text).collect();
        assert_eq!(parts.concat(), text);
        assert_eq!(parts[0], "a");
        assert!(parts.iter().all(|p| p.len() <= 1024 || !p.starts_with(' ')));
    }

    #[test]
    fn names_round_trip() {
        for v in Vocab::ALL {
            assert_eq!(Vocab::from_name(v.name()), Some(v));
        }
    }
}
