//! The `json_repair` port against the Python library: the cases in
//! `tests/json_repair/cases.json` come from running json_repair 0.59.10
//! (`tests/json_repair/make_cases.py`). A case with `"output"` must be
//! reproduced byte for byte; a case with `"error"` (Python raised) must be
//! an error of `try_repair_json` and `""` from `repair_json`.

use formatscope::response::json_repair::{repair_json, try_repair_json};
use proptest::prelude::*;
use serde_json::Value;

/// `tests/json_repair/cases.json`, or the file `JSON_REPAIR_CASES` names
/// (`make_cases.py --fuzz` writes such files).
fn cases() -> Vec<Value> {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/json_repair/cases.json");
    let path = std::env::var("JSON_REPAIR_CASES").unwrap_or_else(|_| default.to_string());
    let text = std::fs::read_to_string(path).expect("read cases.json");
    let v: Value = serde_json::from_str(&text).expect("parse cases.json");
    v.as_array().expect("a list of cases").clone()
}

#[test]
fn matches_python_json_repair() {
    let cases = cases();
    if std::env::var_os("JSON_REPAIR_CASES").is_none() {
        assert!(cases.len() >= 3000, "only {} cases", cases.len());
    }
    let mut mismatches = Vec::new();
    for case in &cases {
        let input = case["input"].as_str().expect("input is a string");
        match case.get("output").and_then(Value::as_str) {
            Some(expected) => {
                let got = try_repair_json(input);
                if got.as_deref() != Ok(expected) {
                    mismatches.push(format!(
                        "input:    {input:?}\nexpected: {expected:?}\ngot:      {got:?}"
                    ));
                }
            }
            None => {
                let error = case["error"].as_str().unwrap_or("?");
                let got = try_repair_json(input);
                if got.is_ok() || !repair_json(input).is_empty() {
                    mismatches.push(format!(
                        "input:    {input:?}\nexpected: Python raises {error}\ngot:      {got:?}"
                    ));
                }
            }
        }
    }
    let passed = cases.len() - mismatches.len();
    println!("json_repair: {passed}/{} cases pass", cases.len());
    if !mismatches.is_empty() {
        let shown: Vec<&String> = mismatches.iter().take(50).collect();
        panic!(
            "{} of {} cases differ from Python (first {}):\n\n{}",
            mismatches.len(),
            cases.len(),
            shown.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        );
    }
}

/// Python raises past its recursion limit; the port returns an error (and
/// `repair_json` returns `""`), and its stack stays small: this runs on a
/// 2 MiB thread (a spawned thread's default), in debug builds too.
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let run = || {
        for input in deep_inputs() {
            assert!(try_repair_json(&input).is_err(), "{}", &input[..20]);
            assert_eq!(repair_json(&input), "");
        }
        // Just within the limits: valid JSON 993 deep (json.loads), and
        // the repair parser 330 arrays or 247 objects deep.
        let valid = format!("{}{}", "[".repeat(993), "]".repeat(993));
        assert_eq!(repair_json(&valid), valid.replace("][", "], ["));
        assert!(try_repair_json(&"[".repeat(330)).is_ok());
        assert!(try_repair_json(&"{\"a\": ".repeat(247)).is_ok());
        assert!(try_repair_json(&"(".repeat(248)).is_ok());
        assert!(try_repair_json(&"[{\"a\": ".repeat(141)).is_ok());
    };
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(run)
        .expect("spawn")
        .join()
        .expect("no panic");
}

fn deep_inputs() -> Vec<String> {
    vec![
        "[".repeat(100_000),
        "{\"a\": ".repeat(50_000),
        "(".repeat(100_000),
        "[{\"a\": ".repeat(30_000),
        format!("{}{}", "[".repeat(5_000), "]".repeat(5_000)),
        "{\"a\": \"```json".repeat(10_000),
        "[".repeat(331),
        "{\"a\": ".repeat(248),
        "(".repeat(249),
        "[{\"a\": ".repeat(142),
        format!("{}{}", "[".repeat(994), "]".repeat(994)),
        format!("{}1{}", "{\"a\":".repeat(994), "}".repeat(994)),
        "{{{{".repeat(1000),
        "[{\"a\" \"b\"}, ".repeat(1000),
    ]
}

/// Strings built from the characters the parser cares about.
fn jsonish() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "{", "}", "[", "]", "(", ")", "\"", "'", "“", "”", ",", ":", " ", "\n", "\\", "/", "*",
        "#", "`", "```json", "```", "a", "key", "true", "null", "f", "1", "-", ".", "e", "_", "é",
        "中", "😀", "\\u", "\\ud83d", "00e9", "...", "\u{a0}", "²", "٣",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_strings(s in any::<String>()) {
        let _ = repair_json(&s);
    }

    #[test]
    fn never_panics_on_jsonish_strings(s in jsonish()) {
        let out = repair_json(&s);
        // The output is JSON (or empty) and pure ASCII.
        prop_assert!(out.is_ascii());
    }
}
