//! The `json_repair` port against the Python library: the cases in
//! `tests/json_repair/cases.json` come from running json_repair 0.59.10
//! (`tests/json_repair/make_cases.py`). A case with `"output"` must be
//! reproduced byte for byte; a case with `"error"` (Python raised) must be
//! an error of `try_repair_json` and `""` from `repair_json`.
//!
//! One test per case (tests/support/trials.rs), named by its index and the
//! start of its input: `cargo test --test json_repair -- json_repair::0042`.

#[path = "support/long.rs"]
mod long;
#[path = "support/trials.rs"]
mod trials;

use formatscope::response::json_repair::{repair_json, try_repair_json};
use libtest_mimic::{Failed, Trial};
use proptest::prelude::*;
use serde_json::Value;
use trials::{fail, Suite};

fn main() {
    // A file of `make_cases.py --fuzz`'s has no floor.
    let at_least = match std::env::var_os("JSON_REPAIR_CASES") {
        Some(_) => 0,
        None => 3000,
    };
    trials::run(
        vec![Suite::new("json_repair", case_trials(), at_least)],
        vec![
            trials::test(
                "json_repair::deep_nesting_is_an_error_not_a_stack_overflow",
                deep_nesting_is_an_error_not_a_stack_overflow,
            ),
            trials::test(
                "json_repair::never_panics_on_arbitrary_strings",
                never_panics_on_arbitrary_strings,
            ),
            trials::test(
                "json_repair::never_panics_on_jsonish_strings",
                never_panics_on_jsonish_strings,
            ),
        ],
    )
}

/// `tests/json_repair/cases.json`, or the file `JSON_REPAIR_CASES` names
/// (`make_cases.py --fuzz` writes such files).
fn cases() -> Result<Vec<Value>, String> {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/json_repair/cases.json");
    let path = std::env::var("JSON_REPAIR_CASES").unwrap_or_else(|_| default.to_string());
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    v.as_array()
        .cloned()
        .ok_or_else(|| format!("{path}: not a list of cases"))
}

/// A case's name: its index in the file, and the start of its input in
/// plain characters (`json_repair::0042_{"a"_1,`).
fn case_name(index: usize, input: &str) -> String {
    let start: String = input
        .chars()
        .map(|c| match c {
            ' ' => '_',
            ':' => ';',
            c if c.is_ascii_graphic() => c,
            _ => '.',
        })
        .take(24)
        .collect();
    format!("json_repair::{index:04}_{start}")
}

/// One trial per case: a case with `"output"` is reproduced byte for byte;
/// one with `"error"` (Python raised) is an error of `try_repair_json` and
/// `""` from `repair_json`.
fn case_trials() -> Result<Vec<Trial>, String> {
    Ok(cases()?
        .into_iter()
        .enumerate()
        .map(|(index, case)| {
            let input = case["input"].as_str().unwrap_or_default().to_string();
            Trial::test(case_name(index, &input), move || check(&case, &input))
        })
        .collect())
}

fn check(case: &Value, input: &str) -> Result<(), Failed> {
    let got = try_repair_json(input);
    match case.get("output").and_then(Value::as_str) {
        Some(expected) if got.as_deref() == Ok(expected) => Ok(()),
        Some(expected) => Err(fail(format!(
            "input:    {input:?}\nexpected: {expected:?}\ngot:      {got:?}"
        ))),
        None => {
            let error = case["error"].as_str().unwrap_or("?");
            match got.is_ok() || !repair_json(input).is_empty() {
                false => Ok(()),
                true => Err(fail(format!(
                    "input:    {input:?}\nexpected: Python raises {error}\ngot:      {got:?}"
                ))),
            }
        }
    }
}

/// Python raises past its recursion limit; the port returns an error (and
/// `repair_json` returns `""`), and its stack stays small: this runs on a
/// 2 MiB thread (a spawned thread's default), in debug builds too.
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
    #![proptest_config(ProptestConfig { cases: crate::long::cases(3000), ..ProptestConfig::default() })]

    fn never_panics_on_arbitrary_strings(s in any::<String>()) {
        let _ = repair_json(&s);
    }

    fn never_panics_on_jsonish_strings(s in jsonish()) {
        let out = repair_json(&s);
        // The output is JSON (or empty) and pure ASCII.
        prop_assert!(out.is_ascii());
    }
}
