//! Every shipped tokenizer against counts from the real reference tokenizers
//! (tests/tokenizers/make_fixtures.py: Python tiktoken, dashscope, HF
//! tokenizers) on English, Chinese, code, JSON, emoji, long, decomposed and
//! whitespace-heavy texts.
//!
//! One test per reference count (tests/support/trials.rs), named
//! `tokenizers::SUITE::TEXT::VOCABULARY`: `cargo test --test tokenizers --
//! ::qwen` runs every count of one vocabulary, `-- fixtures::chinese` one
//! text's.

#[path = "support/trials.rs"]
mod trials;

use formatscope::tokens::Vocab;
use libtest_mimic::Trial;
use serde_json::Value;
use trials::{fail, Suite};

fn main() {
    trials::run(
        vec![
            Suite::new(
                "tokenizers::fixtures",
                count_suite("fixtures.json", &row_name),
                150,
            ),
            Suite::new(
                "tokenizers::whitespace",
                count_suite("whitespace.json", &whitespace_name),
                5000,
            ),
            Suite::new(
                "tokenizers::specials",
                count_suite("specials.json", &row_name),
                1000,
            ),
            Suite::new("tokenizers::agentscope", agentscope_suite(), 1000),
        ],
        vec![
            trials::test(
                "tokenizers::a_megabyte_of_spaces_is_counted_without_a_panic",
                a_megabyte_of_spaces_is_counted_without_a_panic,
            ),
            trials::test(
                "tokenizers::a_text_counts_as_its_specials_plus_the_text_between_them",
                a_text_counts_as_its_specials_plus_the_text_between_them,
            ),
            trials::test(
                "tokenizers::each_vocabulary_reads_as_special_exactly_its_references_table",
                each_vocabulary_reads_as_special_exactly_its_references_table,
            ),
        ],
    )
}

/// The rows of tests/tokenizers/FILE.
fn rows(file: &str) -> Result<Vec<Value>, String> {
    let path = format!("{}/tests/tokenizers/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

/// A row's name (fixtures.json, specials.json).
fn row_name(row: &Value) -> String {
    row["name"].as_str().unwrap_or_default().to_string()
}

/// A whitespace.json row's name: `KIND_x_LENGTH_at_the_POSITION`.
fn whitespace_name(row: &Value) -> String {
    format!(
        "{}_x_{}_at_the_{}",
        row["kind"].as_str().unwrap_or_default(),
        row["length"],
        row["position"].as_str().unwrap_or_default()
    )
}

/// The text a row counts: its own, or the whitespace run it describes.
fn row_text(row: &Value) -> String {
    match row["text"].as_str() {
        Some(text) => text.to_string(),
        None => whitespace_text(
            row["kind"].as_str().expect("kind"),
            row["length"].as_u64().expect("length") as usize,
            row["position"].as_str().expect("position"),
        ),
    }
}

/// One trial per reference count in FILE (a row's text by one
/// vocabulary), named `SUITE::ROW::VOCABULARY`: each vocabulary agrees with
/// its reference tokenizer (tests/tokenizers/make_fixtures.py: Python
/// tiktoken, dashscope, HF tokenizers). fixtures.json: English, Chinese,
/// code, JSON, emoji, long, decomposed and whitespace-heavy texts;
/// whitespace.json: runs of every length around the thresholds a regex or
/// a slicing would show (a 1,025-space run once counted one token more than
/// tiktoken); specials.json: special-token strings typed in a message
/// (`<|im_start|>`, `<tool_call>`, `<|fim_prefix|>`, `<｜User｜>`, `<EOT>`,
/// ...), alone, in sentences, adjacent, half-typed, overlapping, made by
/// NFKC, each read as one token exactly where its reference does.
fn count_suite(file: &str, name: &dyn Fn(&Value) -> String) -> Result<Vec<Trial>, String> {
    let suite = file.trim_end_matches(".json");
    let mut trials = Vec::new();
    for row in rows(file)? {
        let counts = row["counts"].as_object().ok_or("a row without counts")?;
        let row_name = trials::part(&name(&row));
        for (vocab_name, expected) in counts {
            let (row, vocab_name, expected) = (row.clone(), vocab_name.clone(), expected.clone());
            let trial = format!("tokenizers::{suite}::{row_name}::{vocab_name}");
            trials.push(Trial::test(trial, move || {
                let vocab = Vocab::from_name(&vocab_name)
                    .ok_or_else(|| fail(format!("unknown vocabulary {vocab_name}")))?;
                let text = row_text(&row);
                let got = vocab.count(&text);
                match Some(got as u64) == expected.as_u64() {
                    true => Ok(()),
                    false => Err(fail(format!("{text:?}: got {got}, reference {expected}"))),
                }
            }));
        }
    }
    Ok(trials)
}

fn a_megabyte_of_spaces_is_counted_without_a_panic() {
    let text = " ".repeat(1 << 20);
    for vocab in Vocab::ALL {
        assert!(vocab.count(&text) > 0, "{}", vocab.name());
    }
}

/// The run tests/tokenizers/make_fixtures.py's `whitespace_text` builds.
fn whitespace_text(kind: &str, length: usize, position: &str) -> String {
    let run: String = match kind {
        "spaces_nl" => " ".repeat(length - 1) + "\n",
        "nl_spaces" => "\n".to_string() + &" ".repeat(length - 1),
        _ => {
            let unit = match kind {
                "space" => " ",
                "tab" => "\t",
                "newline" => "\n",
                "crlf" => "\r\n",
                "mix" => " \t \n",
                other => panic!("unknown whitespace kind {other}"),
            };
            unit.chars().cycle().take(length).collect()
        }
    };
    let (before, after) = ("The library opens at nine.", "Bring your card.");
    match position {
        "start" => run + after,
        "middle" => format!("{before}{run}{after}"),
        "end" => format!("{before}{run}"),
        other => panic!("unknown position {other}"),
    }
}

/// AgentScope's `OpenAITokenCounter` calls tiktoken's `encode` with its
/// defaults: a text holding any special token of the model's encoding
/// raises, whichever encoding (o200k_harmony's 1,091 included), and any
/// other text counts as text. One trial per specials.json text and model,
/// named `tokenizers::agentscope::ROW::MODEL`.
fn agentscope_suite() -> Result<Vec<Trial>, String> {
    use formatscope::media::NoNetwork;
    use formatscope::tokens::OpenAiTokenCounter;
    let mut trials = Vec::new();
    for row in rows("specials.json")? {
        let name = trials::part(&row_name(&row));
        let models = row["agentscope"]
            .as_object()
            .ok_or("a row without agentscope")?;
        for (model, expected) in models {
            let text = row["text"].as_str().unwrap_or_default().to_string();
            let (model, expected) = (model.clone(), expected.clone());
            let trial = format!("tokenizers::agentscope::{name}::{model}");
            trials.push(Trial::test(trial, move || {
                let messages = [serde_json::json!({"role": "user", "content": text})];
                let got = OpenAiTokenCounter::new(&model).count(&messages, None, &NoNetwork);
                let same = match (&got, &expected) {
                    (Ok(n), Value::Number(e)) => e.as_i64() == Some(*n),
                    (Err(err), Value::Object(e)) => {
                        e["error"] == err.kind
                            && err.message.lines().next() == e["message"].as_str()
                    }
                    _ => false,
                };
                match same {
                    true => Ok(()),
                    false => Err(fail(format!("{text:?}: got {got:?}, reference {expected}"))),
                }
            }));
        }
    }
    Ok(trials)
}

/// Every string some tokenizer here (or its reference) treats as special:
/// each vocabulary's own table, tiktoken's (o200k_harmony's 1,091 too) and
/// the Qwen2.5/3 template tokens dashscope does not know.
fn special_looking_strings() -> Vec<String> {
    use formatscope::tokens::{special_tokens, Encoding};
    let mut all: std::collections::BTreeSet<String> =
        Vocab::ALL.into_iter().flat_map(special_tokens).collect();
    for e in [
        Encoding::O200kHarmony,
        Encoding::Cl100kBase,
        Encoding::P50kEdit,
    ] {
        all.extend(e.special_texts());
    }
    for s in [
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "<tool_response>",
        "<|vision_start|>",
        "<|image_pad|>",
        "<|fim_prefix|>",
        "<|object_ref_start|>",
        "<|box_start|>",
        "<|file_sep|>",
    ] {
        all.insert(s.to_string());
    }
    all.into_iter().collect()
}

/// Text that cannot join a special string into another one, nor change
/// under NFC or NFKC at its edges.
const PLAIN: &str = "[a-zA-Z0-9 .,!?\n好的天气]{0,12}";

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

    /// A text with special-looking strings in it counts as the sum of its
    /// parts: one per string the vocabulary's reference reads as a special
    /// token, and each stretch between them (with the strings it reads as
    /// text inside) as ordinary text, counted apart.
    fn a_text_counts_as_its_specials_plus_the_text_between_them(
        vocab in proptest::sample::select(Vocab::ALL.to_vec()),
        pieces in proptest::collection::vec(
            (
                proptest::bool::ANY,
                PLAIN,
                proptest::bool::ANY,
                proptest::prelude::any::<proptest::sample::Index>(),
            ),
            1..8,
        ),
    ) {
        let specials = formatscope::tokens::special_tokens(vocab);
        // Half the strings from the vocabulary's own table (Claude has 5 of
        // the ~2,600), the others from all.
        let own: Vec<String> = specials.iter().cloned().collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let all = special_looking_strings();
        let mut text = String::new();
        let mut expected = 0;
        let mut stretch = String::new();
        for (special_first, plain, from_own, index) in &pieces {
            let candidate = if *from_own && !own.is_empty() {
                &own[index.index(own.len())]
            } else {
                &all[index.index(all.len())]
            };
            // A string read as text must not hold one of the vocabulary's
            // specials inside (DeepSeek's `<think>` in some longer string).
            let read_as_special = specials.contains(candidate);
            if !read_as_special && specials.iter().any(|s| candidate.contains(s.as_str())) {
                continue;
            }
            let (first, second) = if *special_first {
                (candidate.as_str(), plain.as_str())
            } else {
                (plain.as_str(), candidate.as_str())
            };
            for part in [first, second] {
                text.push_str(part);
                if part == candidate.as_str() && read_as_special {
                    expected += vocab.count_as_text(&stretch) + 1;
                    stretch.clear();
                } else {
                    stretch.push_str(part);
                }
            }
        }
        expected += vocab.count_as_text(&stretch);
        proptest::prop_assert_eq!(vocab.count(&text), expected, "{:?} {:?}", vocab, text);
    }
}

/// Each vocabulary reads as special exactly its reference's table
/// (vocab.rs says which and where from).
fn each_vocabulary_reads_as_special_exactly_its_references_table() {
    use formatscope::tokens::special_tokens;
    for v in [Vocab::O200kBase, Vocab::Cl100kBase, Vocab::O200kHarmony] {
        assert!(special_tokens(v).is_empty(), "{v:?}: user text is text");
    }
    let qwen = special_tokens(Vocab::Qwen);
    let mut dashscope: std::collections::HashSet<String> =
        ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
            .map(String::from)
            .into();
    dashscope.extend((0..205).map(|i| format!("<|extra_{i}|>")));
    assert_eq!(qwen, dashscope);
    let claude = special_tokens(Vocab::ClaudeLegacy);
    assert_eq!(claude.len(), 5);
    let deepseek = special_tokens(Vocab::DeepSeek);
    assert_eq!(deepseek.len(), 1283, "every added token of tokenizer.json");
    assert!(deepseek.contains("<｜place▁holder▁no▁799｜>"));
    assert!(deepseek.contains("<think>") && deepseek.contains("<｜/table>｜"));
}
