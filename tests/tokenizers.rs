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
