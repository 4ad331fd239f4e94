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
