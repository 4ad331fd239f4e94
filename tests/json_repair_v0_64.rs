//! json_repair 0.64.2 (what AgentScope 2.0.11 pins) against the port's
//! `try_repair_json_v0_64`: the inputs of `tests/json_repair/cases.json`
//! repaired by 0.64.2 (`repair_json(s, stream_stable=True)`), kept where
//! 0.64.2 differs from 0.59.10; every other input of cases.json must give
//! what it gave 0.59.10. The port knows only some of 0.64.2's changes; the
//! test holds the count of changed cases that match as a floor.

use formatscope::response::json_repair::try_repair_json_v0_64;
use serde_json::Value;

/// Cases known to match.
const FLOOR: usize = 363;

#[test]
fn matches_json_repair_0_64_2_where_it_changed() {
    let read = |name: &str| -> Vec<Value> {
        let path = format!("{}/tests/json_repair/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
    };
    let cases = read("cases_0_64_2.json");
    let changed: std::collections::HashSet<&str> =
        cases.iter().filter_map(|c| c["input"].as_str()).collect();
    let all = read("cases.json");
    let mut broken = Vec::new();
    for case in &all {
        let input = case["input"].as_str().expect("input");
        if changed.contains(input) {
            continue;
        }
        let got = try_repair_json_v0_64(input);
        let ok = match case.get("output").and_then(Value::as_str) {
            Some(want) => got.as_deref() == Ok(want),
            None => got.is_err(),
        };
        if !ok {
            broken.push(input.to_string());
        }
    }
    assert!(
        broken.is_empty(),
        "{} unchanged cases differ, e.g. {:?}",
        broken.len(),
        broken.first()
    );
    let mut passed = 0;
    let mut shown = 0;
    for case in &cases {
        let input = case["input"].as_str().expect("input");
        let got = try_repair_json_v0_64(input);
        let ok = match case.get("output").and_then(Value::as_str) {
            Some(want) => got.as_deref() == Ok(want),
            None => got.is_err(),
        };
        if ok {
            passed += 1;
        } else if shown < 15 {
            shown += 1;
            eprintln!(
                "input {input:?}\n  want {:?}\n  got  {got:?}",
                case.get("output")
            );
        }
    }
    println!(
        "json_repair 0.64.2: {passed} of {} changed cases match",
        cases.len()
    );
    eprintln!(
        "json_repair 0.64.2: {passed} of {} changed cases match",
        cases.len()
    );
    assert!(passed >= FLOOR, "{passed} < {FLOOR}");
}
