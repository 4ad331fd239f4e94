//! The pre-tokenizer patterns of o200k_base, cl100k_base, Qwen and the
//! GPT-2 family (legacy Claude), written out by hand: the same pieces as
//! the regexes, in one pass over the text.
//!
//! Why by hand and not a regex crate: fancy-regex (what tiktoken-rs runs,
//! and what we ran) is a backtracking VM, most of a count's time on prose
//! and code, and it gives up on a million spaces (`\s+(?!\S)` keeps a
//! backtrack point per character). regex-automata, which bpe-openai runs
//! with the look-ahead rewritten, has no look-ahead and compiles its
//! Unicode classes when the vocabulary loads (cold start). Each pattern
//! here is a handful of alternatives over eight Unicode classes, which
//! crates/core/build.rs tabulates at compile time from regex-syntax (the tables the
//! regexes matched with), so loading costs nothing and a piece costs a few
//! table lookups per character. Each function below follows its pattern's
//! alternatives in order, with the backtracking resolved by hand (said at
//! each); `pretokenize_tests.rs` checks them against the regexes on random
//! text over every class the patterns name.

/// `\s` (Unicode White_Space).
pub const WS: u8 = 1;
/// `\p{L}`.
pub const LETTER: u8 = 2;
/// `\p{N}`.
pub const NUMBER: u8 = 4;
/// `\p{M}` (crates/core/build.rs's bit 3; no pattern here asks for marks alone, the
/// tests check the table's).
#[allow(dead_code)]
pub const MARK: u8 = 8;
/// o200k's first word class, `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub const UPPERISH: u8 = 16;
/// o200k's second word class, `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub const LOWERISH: u8 = 32;
/// `\p{P}`.
pub const PUNCT: u8 = 64;
/// `\p{S}`.
pub const SYMBOL: u8 = 128;

static CLASSES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/char_classes.bin"));
const BLOCKS: usize = 0x110000 / 128;

/// The class bits of a code point.
#[inline]
pub fn class_of(cp: u32) -> u8 {
    let block = (cp >> 7) as usize;
    let n = u16::from_le_bytes([CLASSES[block * 2], CLASSES[block * 2 + 1]]) as usize;
    CLASSES[BLOCKS * 2 + n * 128 + (cp & 127) as usize]
}

/// ASCII's classes, without the two-level lookup (most text is ASCII).
static ASCII: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        t[i] = if c.is_ascii_uppercase() {
            LETTER | UPPERISH
        } else if c.is_ascii_lowercase() {
            LETTER | LOWERISH
        } else if c.is_ascii_digit() {
            NUMBER
        } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            WS
        } else if matches!(
            c,
            b'$' | b'+' | b'<' | b'=' | b'>' | b'^' | b'`' | b'|' | b'~'
        ) {
            SYMBOL
        } else if c.is_ascii_punctuation() {
            PUNCT
        } else {
            0 // control characters
        };
        i += 1;
    }
    t
};

/// The character at `i` of valid UTF-8: its class bits and its length.
/// Always inlined: left to itself the compiler made it a call, one per
/// character, a tenth of a cold count at 100,000 messages.
#[inline(always)]
fn at(t: &[u8], i: usize) -> (u8, usize) {
    let b = t[i];
    if b < 0x80 {
        return (ASCII[b as usize], 1);
    }
    let (cp, len) = if b < 0xe0 {
        (((b as u32 & 0x1f) << 6) | (t[i + 1] as u32 & 0x3f), 2)
    } else if b < 0xf0 {
        (
            ((b as u32 & 0x0f) << 12) | ((t[i + 1] as u32 & 0x3f) << 6) | (t[i + 2] as u32 & 0x3f),
            3,
        )
    } else {
        (
            ((b as u32 & 0x07) << 18)
                | ((t[i + 1] as u32 & 0x3f) << 12)
                | ((t[i + 2] as u32 & 0x3f) << 6)
                | (t[i + 3] as u32 & 0x3f),
            4,
        )
    };
    (class_of(cp), len)
}

/// The class of the character at `i`, or 0 past the end.
#[inline]
fn class_at(t: &[u8], i: usize) -> u8 {
    if i < t.len() {
        at(t, i).0
    } else {
        0
    }
}

/// The end of the run of characters from `i` that have any of `bits`.
#[inline]
fn run(t: &[u8], mut i: usize, bits: u8) -> usize {
    while i < t.len() {
        let (k, l) = at(t, i);
        if k & bits == 0 {
            break;
        }
        i += l;
    }
    i
}

/// The patterns written out here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    O200k,
    Cl100k,
    Qwen,
    /// GPT-2's (r50k, p50k, legacy Claude).
    Gpt2,
}

impl Pattern {
    /// The end of the piece that starts at `p` (< `t.len()`).
    #[inline]
    pub fn piece_end(self, t: &[u8], p: usize) -> usize {
        match self {
            // Tried here, inlined where the pieces are counted: most
            // pieces of prose are ASCII words (a call a piece cost a twentieth
            // of counting English).
            Pattern::O200k => o200k_ascii_word(t, p).unwrap_or_else(|| o200k(t, p)),
            Pattern::Cl100k => cl100k(t, p),
            Pattern::Qwen => qwen(t, p),
            Pattern::Gpt2 => gpt2(t, p),
        }
    }

    /// The pieces of `text`, in order.
    #[cfg(test)]
    pub fn split<'a>(self, text: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let t = text.as_bytes();
        let mut p = 0;
        std::iter::from_fn(move || {
            if p >= t.len() {
                return None;
            }
            let end = self.piece_end(t, p);
            // Every end is a char boundary: each alternative ends after
            // whole characters.
            let piece = &text[p..end];
            p = end;
            Some(piece)
        })
    }
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` (or case-sensitive) at `i`: its end.
/// Case-insensitive `s` is also U+017F (long s), the only non-ASCII
/// character any of these letters folds to.
#[inline]
fn contraction(t: &[u8], i: usize, fold: bool) -> Option<usize> {
    if t.get(i) != Some(&b'\'') {
        return None;
    }
    let low = |j: usize| -> Option<u8> {
        let b = *t.get(j)?;
        Some(if fold { b.to_ascii_lowercase() } else { b })
    };
    match low(i + 1)? {
        b's' | b't' | b'm' | b'd' => Some(i + 2),
        b'r' | b'v' if low(i + 2) == Some(b'e') => Some(i + 3),
        b'l' if low(i + 2) == Some(b'l') => Some(i + 3),
        0xc5 if fold && t.get(i + 2) == Some(&0xbf) => Some(i + 3),
        _ => None,
    }
}

/// `[^\r\n\p{L}\p{N}]`: may start a word.
#[inline]
fn prefix(t: &[u8], p: usize, k: u8) -> bool {
    k & (LETTER | NUMBER) == 0 && t[p] != b'\r' && t[p] != b'\n'
}

/// A whitespace run from `p`: its end, where its last character starts,
/// and the end of its last `\r` or `\n` (if any).
#[inline]
fn ws_run(t: &[u8], p: usize) -> (usize, usize, Option<usize>) {
    let (mut i, mut last, mut newline) = (p, p, None);
    while i < t.len() {
        let (k, l) = at(t, i);
        if k & WS == 0 {
            break;
        }
        if t[i] == b'\r' || t[i] == b'\n' {
            newline = Some(i + 1);
        }
        last = i;
        i += l;
    }
    (i, last, newline)
}

/// `\s+(?!\S)` then `\s+` over a run `[p, e)` whose last character starts
/// at `last`: the whole run at the end of the text; else all but its last
/// character (the look-ahead backtracks one), unless that leaves nothing.
#[inline]
fn spaces(t: &[u8], p: usize, e: usize, last: usize) -> usize {
    if e == t.len() || last == p {
        e
    } else {
        last
    }
}

/// `[^\s\p{L}\p{N}]+` from `i` (at least one), then `tail` bytes: the end.
#[inline]
fn punct(t: &[u8], i: usize, tail: &[u8]) -> Option<usize> {
    let mut e = i;
    while e < t.len() {
        let (k, l) = at(t, e);
        if k & (WS | LETTER | NUMBER) != 0 {
            break;
        }
        e += l;
    }
    if e == i {
        return None;
    }
    while e < t.len() && tail.contains(&t[e]) {
        e += 1;
    }
    Some(e)
}

/// ` ?` then [`punct`]: the optional space is given back only to fail.
#[inline]
fn spaced_punct(t: &[u8], p: usize, tail: &[u8]) -> Option<usize> {
    if t[p] == b' ' {
        if let Some(e) = punct(t, p + 1, tail) {
            return Some(e);
        }
    }
    punct(t, p, tail)
}

/// o200k's first word alternative from `q` (after the optional prefix):
/// `[UB]*[LB]+` then a contraction, where U is Lu|Lt, L is Ll and B is
/// Lm|Lo|M (in both classes). The star takes the whole UB run; if a LB
/// character follows, the plus takes the LB run after it. Otherwise the
/// star gives back characters until one of them can start the plus: the
/// run's last B, and the plus then stops after it (the run's later
/// characters are U only).
#[inline]
fn o200k_lower(t: &[u8], q: usize) -> Option<usize> {
    let mut i = q;
    let mut last_b = None;
    while i < t.len() {
        let (k, l) = at(t, i);
        if k & UPPERISH == 0 {
            break;
        }
        i += l;
        if k & LOWERISH != 0 {
            last_b = Some(i);
        }
    }
    let end = if class_at(t, i) & LOWERISH != 0 {
        run(t, i, LOWERISH)
    } else {
        last_b?
    };
    Some(contraction(t, end, true).unwrap_or(end))
}

/// o200k's second: `[UB]+[LB]*` then a contraction (nothing to give back).
#[inline]
fn o200k_upper(t: &[u8], q: usize) -> Option<usize> {
    let i = run(t, q, UPPERISH);
    if i == q {
        return None;
    }
    let end = run(t, i, LOWERISH);
    Some(contraction(t, end, true).unwrap_or(end))
}

/// `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
fn o200k(t: &[u8], p: usize) -> usize {
    let (k, l) = at(t, p);
    let pre = prefix(t, p, k);
    // Each word alternative with its prefix, then without (a mark can
    // start a word and be a prefix too).
    if pre {
        if let Some(e) = o200k_lower(t, p + l) {
            return e;
        }
    }
    if let Some(e) = o200k_lower(t, p) {
        return e;
    }
    if pre {
        if let Some(e) = o200k_upper(t, p + l) {
            return e;
        }
    }
    if let Some(e) = o200k_upper(t, p) {
        return e;
    }
    if k & NUMBER != 0 {
        return digits(t, p, 3);
    }
    if let Some(e) = spaced_punct(t, p, b"\r\n/") {
        return e;
    }
    // Only whitespace is left (everything else is a letter, a number, a
    // mark, which the words take, or punctuation's class).
    let (e, last, newline) = ws_run(t, p);
    // `\s*[\r\n]+`: the star gives back down to the run's last newline.
    newline.unwrap_or_else(|| spaces(t, p, e, last))
}

/// o200k's two word alternatives where the word is ASCII letters and the
/// character after it is ASCII: then both are `prefix? [A-Z]* [a-z]*`
/// (at least one letter) and a contraction. An upper-case run followed by
/// a lower-case one is the first alternative, one alone the second, and
/// no ASCII letter is in both classes, so nothing is given back. `None`
/// where the general path decides.
#[inline(always)]
fn o200k_ascii_word(t: &[u8], p: usize) -> Option<usize> {
    let start = ascii_word_start(t, p)?;
    let end = ascii_word_end(t, start, ascii_run(t, start, b'A', 0), b'a', 0)?;
    // The apostrophe looked for here: `contraction` is a call.
    if t.get(end) != Some(&b'\'') {
        return Some(end);
    }
    Some(contraction(t, end, true).unwrap_or(end))
}

/// [`prefixed_letters`] where the word is ASCII letters and the character
/// after it is ASCII; `None` where the general path decides.
#[inline(always)]
fn ascii_prefixed_letters(t: &[u8], p: usize) -> Option<usize> {
    let start = ascii_word_start(t, p)?;
    ascii_word_end(t, start, start, b'a', ASCII_CASE)
}

/// Where an ASCII word at `p` would start: at `p` on a letter, after it on
/// a one-byte prefix `[^\r\n\p{L}\p{N}]`.
#[inline(always)]
fn ascii_word_start(t: &[u8], p: usize) -> Option<usize> {
    let b = t[p];
    if b.is_ascii_alphabetic() {
        Some(p)
    } else if b < 0x80 && !b.is_ascii_digit() && b != b'\r' && b != b'\n' {
        Some(p + 1)
    } else {
        None
    }
}

/// The end of the word from `start` whose last run ([`ascii_run`]) starts
/// at `i`: `None` when it has no letter, or when the character after it is
/// not ASCII (a letter or mark there may go on with the word).
#[inline(always)]
fn ascii_word_end(t: &[u8], start: usize, i: usize, first: u8, case: u8) -> Option<usize> {
    let end = ascii_run(t, i, first, case);
    (end > start && t.get(end).is_none_or(|&b| b < 0x80)).then_some(end)
}

/// The bit that tells ASCII's two cases apart: or-ed in, both are read as
/// lower case (and no other byte becomes a letter).
const ASCII_CASE: u8 = 0x20;

/// The end of the run of ASCII bytes from `i` that are `first..=first +
/// 25` (`b'A'` or `b'a'`) once `case` is or-ed in: one case's letters, or
/// both's with [`ASCII_CASE`]. Eight bytes at a time, without a branch per
/// letter: most pieces of prose are words, and a mispredicted exit per
/// word was a quarter of a count of English.
#[inline(always)]
fn ascii_run(t: &[u8], mut i: usize, first: u8, case: u8) -> usize {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let spread = |b: u8| u64::from_le_bytes([b; 8]);
    // Per byte x below 0x80 (the high bits cleared first, so no sum
    // carries into the next byte): x + (0x80 - first) has its high bit
    // set from `first` on, x + (0x80 - first - 26) from past the last.
    let (from, past) = (spread(0x80 - first), spread(0x80 - first - 26));
    while let Some(chunk) = t.get(i..i + 8) {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        let x = (w | spread(case)) & LOW;
        let inside = (x + from) & !(x + past) & !w & HIGH;
        let outside = !inside & HIGH;
        if outside != 0 {
            return i + (outside.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while t
        .get(i)
        .is_some_and(|&b| b < 0x80 && (b | case).wrapping_sub(first) < 26)
    {
        i += 1;
    }
    i
}

/// `\p{N}{1,max}` from `p`.
#[inline]
fn digits(t: &[u8], p: usize, max: usize) -> usize {
    let mut i = p;
    for _ in 0..max {
        if i >= t.len() {
            break;
        }
        let (k, l) = at(t, i);
        if k & NUMBER == 0 {
            break;
        }
        i += l;
    }
    i
}

/// `[^\r\n\p{L}\p{N}]?\p{L}+` (possessive or not: the same, since without
/// the prefix the first character is no letter).
#[inline]
fn prefixed_letters(t: &[u8], p: usize, k: u8, l: usize) -> Option<usize> {
    if let Some(e) = ascii_prefixed_letters(t, p) {
        return Some(e);
    }
    if k & LETTER != 0 {
        return Some(run(t, p, LETTER));
    }
    if prefix(t, p, k) && class_at(t, p + l) & LETTER != 0 {
        return Some(run(t, p + l, LETTER));
    }
    None
}

/// `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
/// (the possessive quantifiers change nothing: what follows each cannot
/// match what it would give back).
fn cl100k(t: &[u8], p: usize) -> usize {
    if let Some(e) = contraction(t, p, true) {
        return e;
    }
    let (k, l) = at(t, p);
    if let Some(e) = prefixed_letters(t, p, k, l) {
        return e;
    }
    if k & NUMBER != 0 {
        return digits(t, p, 3);
    }
    if let Some(e) = spaced_punct(t, p, b"\r\n") {
        return e;
    }
    let (e, last, newline) = ws_run(t, p);
    if e == t.len() {
        return e; // `\s++$`
    }
    // `\s*[\r\n]`: down to the last newline; else `\s+(?!\S)`, else `\s`
    // (one character, which is what `spaces` leaves then).
    newline.unwrap_or_else(|| spaces(t, p, e, last))
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
fn qwen(t: &[u8], p: usize) -> usize {
    if let Some(e) = contraction(t, p, true) {
        return e;
    }
    let (k, l) = at(t, p);
    if let Some(e) = prefixed_letters(t, p, k, l) {
        return e;
    }
    if k & NUMBER != 0 {
        return p + l;
    }
    if let Some(e) = spaced_punct(t, p, b"\r\n") {
        return e;
    }
    let (e, last, newline) = ws_run(t, p);
    newline.unwrap_or_else(|| spaces(t, p, e, last))
}

/// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
fn gpt2(t: &[u8], p: usize) -> usize {
    if let Some(e) = contraction(t, p, false) {
        return e;
    }
    let q = if t[p] == b' ' { p + 1 } else { p };
    for bits in [LETTER, NUMBER] {
        // ` ?X+`: with the space if X follows it, else without (which
        // fails on the space).
        if class_at(t, q) & bits != 0 {
            return run(t, q, bits);
        }
    }
    if let Some(e) = spaced_punct(t, p, b"") {
        return e;
    }
    let (e, last, _) = ws_run(t, p);
    spaces(t, p, e, last)
}

/// DeepSeek's main split (the third of its isolated splits, on the gaps
/// the digit and CJK splits leave):
/// `[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
/// The end of the match at `p`, or None where nothing matches there (a
/// control or format character, say, that no word follows): HF keeps what
/// lies between matches as pieces too.
pub fn deepseek_main(t: &[u8], p: usize) -> Option<usize> {
    let (k, l) = at(t, p);
    if t[p].is_ascii_punctuation() && t.get(p + 1).is_some_and(u8::is_ascii_alphabetic) {
        let mut e = p + 1;
        while e < t.len() && t[e].is_ascii_alphabetic() {
            e += 1;
        }
        return Some(e);
    }
    // `[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+`: with the prefix if a
    // letter or mark follows it, else from here (a mark is both).
    let word = LETTER | MARK;
    let prefixable = k & (LETTER | PUNCT | SYMBOL) == 0 && t[p] != b'\r' && t[p] != b'\n';
    if prefixable && class_at(t, p + l) & word != 0 {
        return Some(run(t, p + l, word));
    }
    if k & word != 0 {
        return Some(run(t, p, word));
    }
    // ` ?[\p{P}\p{S}]+[\r\n]*`.
    let q = if t[p] == b' ' && class_at(t, p + 1) & (PUNCT | SYMBOL) != 0 {
        p + 1
    } else {
        p
    };
    if class_at(t, q) & (PUNCT | SYMBOL) != 0 {
        let mut e = run(t, q, PUNCT | SYMBOL);
        while e < t.len() && (t[e] == b'\r' || t[e] == b'\n') {
            e += 1;
        }
        return Some(e);
    }
    if k & WS == 0 {
        return None;
    }
    let (e, last, newline) = ws_run(t, p);
    Some(newline.unwrap_or_else(|| spaces(t, p, e, last)))
}

/// [`deepseek_main`]'s isolated split of `text`: each match, and each
/// stretch between matches, in order.
pub fn deepseek_main_split(text: &str, out: &mut dyn FnMut(&str)) {
    let t = text.as_bytes();
    let (mut p, mut gap) = (0, 0);
    while p < t.len() {
        match deepseek_main(t, p) {
            Some(e) => {
                if gap < p {
                    out(&text[gap..p]);
                }
                out(&text[p..e]);
                p = e;
                gap = e;
            }
            None => p += at(t, p).1,
        }
    }
    if gap < t.len() {
        out(&text[gap..]);
    }
}

#[cfg(test)]
#[path = "pretokenize_tests.rs"]
mod tests;
