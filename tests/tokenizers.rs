//! Every shipped tokenizer against counts from the real reference tokenizers
//! (tests/tokenizers/make_fixtures.py: Python tiktoken, dashscope, HF
//! tokenizers) on English, Chinese, code, JSON, emoji, long, decomposed and
//! whitespace-heavy texts.

use formatscope::tokens::Vocab;
use serde_json::Value;

fn fixtures() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tokenizers/fixtures.json"
    ))
    .expect("fixtures.json");
    serde_json::from_str(&text).expect("fixtures parse")
}

#[test]
fn every_vocabulary_agrees_with_its_reference_tokenizer_on_every_text() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for fixture in fixtures() {
        let name = fixture["name"].as_str().unwrap_or_default();
        let text = fixture["text"].as_str().unwrap_or_default();
        let counts = fixture["counts"].as_object().expect("counts");
        for (vocab_name, expected) in counts {
            let vocab = Vocab::from_name(vocab_name).expect("known vocabulary");
            let got = vocab.count(text);
            checked += 1;
            if Some(got as u64) != expected.as_u64() {
                failures.push(format!(
                    "{name} / {vocab_name}: got {got}, reference {expected}"
                ));
            }
        }
    }
    assert!(checked >= 150, "only {checked} counts checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
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

/// Whitespace runs of every length around the thresholds a regex or a
/// slicing would show, for every exact tokenizer: no count may move at a
/// cut (a 1,025-space run once counted one token more than tiktoken).
#[test]
fn whitespace_runs_of_every_length_count_as_the_reference_does() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tokenizers/whitespace.json"
    ))
    .expect("whitespace.json");
    let mut failures = Vec::new();
    let mut checked = 0;
    let rows: Vec<Value> = serde_json::from_str(&text).expect("whitespace.json parses");
    for row in rows {
        let kind = row["kind"].as_str().expect("kind");
        let length = row["length"].as_u64().expect("length") as usize;
        let position = row["position"].as_str().expect("position");
        let text = whitespace_text(kind, length, position);
        for (vocab_name, expected) in row["counts"].as_object().expect("counts") {
            let vocab = Vocab::from_name(vocab_name).expect("known vocabulary");
            let got = vocab.count(&text);
            checked += 1;
            if Some(got as u64) != expected.as_u64() {
                failures.push(format!(
                    "{kind} x {length} at the {position} / {vocab_name}: got {got}, reference {expected}"
                ));
            }
        }
    }
    assert!(checked >= 5000, "only {checked} counts checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn specials() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/tokenizers/specials.json"
    ))
    .expect("specials.json");
    serde_json::from_str(&text).expect("specials.json parses")
}

/// Special-token strings typed in a message (`<|im_start|>`, `<tool_call>`,
/// `<|fim_prefix|>`, `<｜User｜>`, `<EOT>`, ...), alone, in sentences,
/// adjacent, half-typed, overlapping, made by NFKC: each vocabulary reads as
/// one token exactly the strings its reference reads as one, and the others
/// as the text they are.
#[test]
fn special_token_strings_in_text_count_as_each_reference_counts_them() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in specials() {
        let name = row["name"].as_str().unwrap_or_default();
        let text = row["text"].as_str().unwrap_or_default();
        for (vocab_name, expected) in row["counts"].as_object().expect("counts") {
            let vocab = Vocab::from_name(vocab_name).expect("known vocabulary");
            let got = vocab.count(text);
            checked += 1;
            if Some(got as u64) != expected.as_u64() {
                failures.push(format!(
                    "{name:?} / {vocab_name}: got {got}, reference {expected}"
                ));
            }
        }
    }
    assert!(checked >= 1000, "only {checked} counts checked");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// AgentScope's `OpenAITokenCounter` calls tiktoken's `encode` with its
/// defaults: a text holding any special token of the model's encoding
/// raises, whichever encoding (o200k_harmony's 1,091 included), and any
/// other text counts as text.
#[test]
fn agentscopes_openai_counter_raises_on_exactly_the_specials_tiktoken_disallows() {
    use formatscope::media::NoNetwork;
    use formatscope::tokens::OpenAiTokenCounter;
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in specials() {
        let name = row["name"].as_str().unwrap_or_default();
        let text = row["text"].as_str().unwrap_or_default();
        let messages = [serde_json::json!({"role": "user", "content": text})];
        for (model, expected) in row["agentscope"].as_object().expect("agentscope") {
            let got = OpenAiTokenCounter::new(model).count(&messages, None, &NoNetwork);
            checked += 1;
            let same = match (&got, expected) {
                (Ok(n), Value::Number(e)) => e.as_i64() == Some(*n),
                (Err(err), Value::Object(e)) => {
                    e["error"] == err.kind && err.message.lines().next() == e["message"].as_str()
                }
                _ => false,
            };
            if !same {
                failures.push(format!(
                    "{name:?} / {model}: got {got:?}, reference {expected}"
                ));
            }
        }
    }
    assert!(checked >= 1000, "only {checked} counts checked");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
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
    #[test]
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
#[test]
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
