//! Every golden vector (AgentScope 1.0.21's real output, in tests/golden/)
//! against the core, compared as tests/golden/tools/compare.py compares:
//! JSON values (ints and floats apart), warnings ignored, error messages up
//! to the first embedded Python repr.

mod support;

use formatscope::media::WebRoot;
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use support::{compare_outputs, request_from_oracle_args};

/// The public golden set: 812 vectors made by the reference team.
#[test]
fn every_golden_vector_matches_agentscope() {
    run_suite("tests/golden", 800);
}

/// Our own edge cases (tests/oracle/make_cases.py), judged by the same oracle
/// (scripts/oracle-regen.py): odd types, numbers, media, tools, budgets.
#[test]
fn every_oracle_edge_case_matches_agentscope() {
    run_suite("tests/oracle", 500);
}

/// Every golden case counted and truncated with AgentScope's
/// `CharTokenCounter` (`"token_counter": "char"`), by the real AgentScope
/// (scripts/counter-regen.py).
#[test]
fn every_char_counter_vector_matches_agentscope() {
    run_suite("tests/counters", 1600);
}

/// The example sessions in sessions/, judged by the oracle too.
#[test]
fn every_bundled_session_matches_agentscope() {
    run_suite("tests/sessions", 60);
}

/// Outputs as Python's json reads them: AgentScope writes `NaN` and
/// `Infinity` where a session holds them.
fn python_json(text: &str) -> Value {
    formatscope::json::parse(text.as_bytes(), Default::default())
        .unwrap()
        .value
}

fn run_suite(dir: &str, at_least: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let web_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/media/web");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    let web = Arc::new(WebRoot::new(vec![web_root]));
    let (mut passed, mut failures) = (0, Vec::new());
    for entry in manifest["files"].as_array().unwrap() {
        let args: Vec<String> = entry["command"]
            .as_array()
            .unwrap()
            .iter()
            .skip(3) // python oracle.py SESSION
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        // The session path as the oracle command names it.
        let case_path = entry["command"][2].as_str().unwrap();
        let case = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(case_path.replace("shared/golden/", "tests/golden/"));
        let session = read_session(&case).unwrap();
        let request: ReferenceRequest = request_from_oracle_args(&args);
        let out = pipeline::run_reference(&session, &request, web.clone());
        let text = serde_json::to_string(&Value::Object(out)).unwrap();
        let dir = std::path::absolute(session.base_dir()).unwrap();
        let mut actual = python_json(&pipeline::portable_paths(&text, &dir));
        // We say which counter counted; the oracle's shape does not.
        if let Some(spec) = &request.token_counter {
            let said = actual.as_object_mut().unwrap().remove("token_counter");
            assert_eq!(said, Some(Value::String(spec.id())));
        }
        let rel = entry["expected"].as_str().unwrap();
        let expected = python_json(&std::fs::read_to_string(root.join(rel)).unwrap());
        match compare_outputs(&expected, &actual) {
            None => passed += 1,
            Some(problem) => failures.push(format!("FAIL {rel}: {problem}")),
        }
    }
    for f in &failures {
        println!("{f}");
    }
    println!("{dir}: {passed} passed, {} failed", failures.len());
    assert!(
        passed + failures.len() > at_least,
        "the manifest lists every vector"
    );
    assert!(
        failures.is_empty(),
        "{} golden vectors differ",
        failures.len()
    );
}
