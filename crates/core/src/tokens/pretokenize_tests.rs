//! The hand-written splitters against the regexes they stand for.

use super::*;
use crate::tokens::vocab::{CL100K_PATTERN, CLAUDE_PATTERN, QWEN_PATTERN};
use fancy_regex::Regex;

/// The regex a hand-written split stands for.
fn regex_of(p: Pattern) -> &'static str {
    match p {
        Pattern::O200k => tiktoken_rs::O200K_BASE_PAT_STR,
        Pattern::Cl100k => CL100K_PATTERN,
        Pattern::Qwen => QWEN_PATTERN,
        Pattern::Gpt2 => CLAUDE_PATTERN,
    }
}
use proptest::prelude::*;

const PATTERNS: [Pattern; 4] = [
    Pattern::O200k,
    Pattern::Cl100k,
    Pattern::Qwen,
    Pattern::Gpt2,
];

fn regex_pieces(re: &Regex, text: &str) -> Vec<String> {
    re.find_iter(text)
        .map(|m| {
            m.expect("short texts do not hit the backtrack limit")
                .as_str()
                .to_string()
        })
        .collect()
}

fn same_pieces(pattern: Pattern, re: &Regex, text: &str) -> Result<(), String> {
    let ours: Vec<&str> = pattern.split(text).collect();
    let theirs = regex_pieces(re, text);
    if ours == theirs {
        Ok(())
    } else {
        Err(format!(
            "{pattern:?} on {text:?}: ours {ours:?}, the regex's {theirs:?}"
        ))
    }
}

fn regexes() -> Vec<(Pattern, Regex)> {
    PATTERNS
        .iter()
        .map(|&p| (p, Regex::new(regex_of(p)).expect("the pattern compiles")))
        .collect()
}

/// One of every class the patterns tell apart, and the characters they
/// name: ASCII letters of both cases, the contractions' letters and
/// U+017F (long s, which case-insensitive `s` matches), Lt, Lm, Lo, marks
/// of all three kinds, numbers of all three kinds, every kind of
/// whitespace, punctuation, symbols, controls, emoji and a private-use
/// character.
const ALPHABET: &[&str] = &[
    "a",
    "b",
    "Z",
    "s",
    "S",
    "t",
    "T",
    "r",
    "R",
    "e",
    "E",
    "v",
    "V",
    "m",
    "M",
    "l",
    "L",
    "d",
    "D",
    "'",
    "ſ",
    "K",
    "é",
    "É",
    "ǅ",
    "ʰ",
    "中",
    "文",
    "א",
    "\u{301}",
    "\u{903}",
    "\u{20dd}",
    "0",
    "7",
    "٣",
    "①",
    "Ⅻ",
    "½",
    " ",
    " ",
    " ",
    "\t",
    "\n",
    "\r",
    "\u{b}",
    "\u{c}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{3000}",
    "\u{200b}",
    ".",
    ",",
    "/",
    "-",
    "!",
    "?",
    "(",
    "$",
    "+",
    "€",
    "©",
    "😀",
    "👍🏽",
    "\u{0}",
    "\u{7f}",
    "\u{e000}",
    "\u{10ffff}",
    "。",
    "、",
    "_",
    "'s",
    "'LL",
    "'re",
];

fn text_strategy() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => proptest::sample::select(ALPHABET).prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

/// Runs of ASCII letters of both cases long enough to be read eight bytes
/// at a time (o200k's fast path), each after one character of the
/// alphabet and before another: a prefix, a mark, a non-ASCII letter, an
/// apostrophe, a digit, the end.
fn words_strategy() -> impl Strategy<Value = String> {
    let word = (
        proptest::sample::select(ALPHABET),
        "[a-zA-Z]{0,3}[a-z]{0,19}[A-Z]{0,11}[a-z]{0,3}",
        proptest::sample::select(ALPHABET),
    )
        .prop_map(|(before, letters, after)| format!("{before}{letters}{after}"));
    proptest::collection::vec(word, 1..8).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn long_ascii_words_split_as_the_regexes(text in words_strategy()) {
        for (pattern, re) in regexes() {
            if let Err(e) = same_pieces(pattern, &re, &text) {
                prop_assert!(false, "{}", e);
            }
        }
    }

    #[test]
    fn every_pattern_splits_as_its_regex(text in text_strategy()) {
        for (pattern, re) in regexes() {
            if let Err(e) = same_pieces(pattern, &re, &text) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}

#[test]
fn the_hard_cases_split_as_the_regexes() {
    let texts = [
        "HELLO world",
        "HELLO\u{301}x",
        "\u{301}ABC def",
        "!\u{301}AB ",
        "ǅemo ʰa Ab'S aB'LL x'ſ I'M",
        "don't 'tis 'T 'Re",
        "a  b\t\tc \n\n  d\r\n\r\n",
        "ends with spaces   ",
        "ends with newline and spaces\n  ",
        "12345 ①②③④ ٣٣٣٣",
        " /// comment\n//x\n",
        "a/ /\n/b",
        "中文，标点。English",
        "\u{3000}中\u{a0}x \u{85}y",
        "   ",
        " ",
        "\n",
        "x\u{200b}y",
    ];
    for (pattern, re) in regexes() {
        for text in texts {
            same_pieces(pattern, &re, text).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn english_prose_and_the_sources_split_as_the_regexes() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = vec![
        std::fs::read_to_string(root.join("../../tests/data/english_prose.md"))
            .expect("tests/data/english_prose.md"),
    ];
    for file in [
        "src/tokens/pretokenize.rs",
        "src/tokens/vocab.rs",
        "build.rs",
    ] {
        texts.push(std::fs::read_to_string(root.join(file)).expect("a source"));
    }
    for (pattern, re) in regexes() {
        for text in &texts {
            same_pieces(pattern, &re, text)
                .unwrap_or_else(|e| panic!("{}", &e[..e.len().min(2000)]));
        }
    }
}

/// The compile-time table agrees with the regexes' classes on every code
/// point (a sample of each 128-block: its first, last and a middle one, and
/// all of the first 0x3400, where most class changes are).
#[test]
fn the_class_table_is_the_regexes_classes() {
    let classes: [(u8, &str); 8] = [
        (WS, r"\s"),
        (LETTER, r"\p{L}"),
        (NUMBER, r"\p{N}"),
        (MARK, r"\p{M}"),
        (UPPERISH, r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"),
        (LOWERISH, r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"),
        (PUNCT, r"\p{P}"),
        (SYMBOL, r"\p{S}"),
    ];
    let res: Vec<(u8, Regex)> = classes
        .iter()
        .map(|(bit, class)| (*bit, Regex::new(&format!(r"\A{class}\z")).expect("a class")))
        .collect();
    let points =
        (0..0x3400u32).chain((0x3400..0x110000).filter(|cp| matches!(cp % 128, 0 | 61 | 127)));
    for cp in points {
        let Some(c) = char::from_u32(cp) else {
            continue;
        };
        let mut buf = [0u8; 4];
        let s = c.encode_utf8(&mut buf);
        let (k, len) = at(s.as_bytes(), 0);
        assert_eq!(len, s.len());
        for (bit, re) in &res {
            assert_eq!(
                k & bit != 0,
                re.is_match(s).unwrap_or(false),
                "U+{cp:04X} bit {bit}"
            );
        }
        if cp < 128 {
            assert_eq!(ASCII[cp as usize], class_of(cp), "U+{cp:04X}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whole counts, pieces and merges together, against tiktoken-rs.
    #[test]
    fn openai_counts_are_tiktokens(text in text_strategy()) {
        use crate::tokens::Vocab;
        prop_assert_eq!(
            Vocab::O200kBase.count(&text),
            tiktoken_rs::o200k_base_singleton().encode_ordinary(&text).len()
        );
        prop_assert_eq!(
            Vocab::Cl100kBase.count(&text),
            tiktoken_rs::cl100k_base_singleton().encode_ordinary(&text).len()
        );
    }
}

/// HF's isolated split with the regex: matches and the gaps between.
fn regex_isolated(re: &Regex, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut last = 0;
    for m in re.find_iter(text) {
        let m = m.expect("short texts do not hit the backtrack limit");
        if m.start() > last {
            out.push(text[last..m.start()].to_string());
        }
        out.push(m.as_str().to_string());
        last = m.end();
    }
    if last < text.len() {
        out.push(text[last..].to_string());
    }
    out
}

fn deepseek_pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    deepseek_main_split(text, &mut |p| out.push(p.to_string()));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn deepseeks_main_split_is_its_regexs(text in text_strategy()) {
        let re = Regex::new(crate::tokens::vocab::DEEPSEEK_MAIN).expect("the pattern compiles");
        prop_assert_eq!(deepseek_pieces(&text), regex_isolated(&re, &text));
    }
}

#[test]
fn deepseeks_hard_cases_split_as_its_regex() {
    let re = Regex::new(crate::tokens::vocab::DEEPSEEK_MAIN).expect("the pattern compiles");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../tests/data/english_prose.md"))
        .expect("tests/data/english_prose.md");
    let texts = [
        ".abc -x _Y ~~ ...a",
        "\u{0}\u{200b}x \u{200b} \u{0}\u{e000}",
        "\u{301}ab \u{301} ʰx",
        "a  b\t\tc \n\n  d\r\n\r\n",
        "ends   ",
        " !! $$\n\n x",
        "１２３ ①",
        readme.as_str(),
    ];
    for text in texts {
        assert_eq!(
            deepseek_pieces(text),
            regex_isolated(&re, text),
            "{:?}",
            &text[..text.len().min(80)]
        );
    }
}
