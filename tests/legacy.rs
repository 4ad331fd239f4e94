//! AgentScope 0.1.6's formatter API (issue 13): every vector of the shared
//! set (tests/legacy/, a copy of shared/golden-v0: 524 files over 32 cases)
//! and of ours (tests/legacy/own/, made by scripts/legacy-regen.py with the
//! real 0.1.6 oracle) run in-process and compared as
//! tests/legacy/tools/compare.py compares: JSON values with ints and floats
//! apart, warnings aside, errors by stage, type and message up to the first
//! embedded Python repr (pydantic's reports by their first line).
//! `bash scripts/legacy-cli.sh` runs the same vectors through the binary
//! and compare.py itself.

use formatscope::legacy::{self, ChatOptions, Class, Method};
use formatscope::media::{MediaEnv, NoNetwork};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

fn read(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    formatscope::json::parse(&bytes, Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .value
}

/// compare.py's `message_key`.
fn message_key(kind: &str, message: &str) -> String {
    if kind == "ValidationError" {
        let first = message.split('\n').next().unwrap_or("");
        return match first.split_once(" validation error") {
            Some((_, rest)) => format!("validation error(s){}", rest.trim_start_matches('s')),
            None => first.to_string(),
        };
    }
    let cut = ["{'", "[{", "['", "<class '"]
        .iter()
        .filter_map(|m| message.find(m))
        .min()
        .unwrap_or(message.len());
    message[..cut].to_string()
}

/// Warnings dropped, error messages cut to what compare.py compares.
fn comparable(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            let kind = m.get("error_type").and_then(Value::as_str).unwrap_or("");
            for (k, x) in m {
                if k == "warnings" {
                    continue;
                }
                let x = match (k.as_str(), x) {
                    ("error", Value::String(s)) => Value::String(message_key(kind, s)),
                    _ => comparable(x),
                };
                out.insert(k.clone(), x);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

/// One manifest command, run in-process.
fn run(command: &[String], root: &Path) -> Value {
    let arg = |flag: &str| {
        command
            .iter()
            .position(|a| a == flag)
            .and_then(|i| command.get(i + 1))
            .cloned()
    };
    let has = |flag: &str| command.iter().any(|a| a == flag);
    let case = root.join(command[0].replace("shared/golden-v0/", "tests/legacy/"));
    let class = Class::from_name(&arg("--formatter").unwrap()).unwrap();
    let session = legacy::session_object(&read(&case));
    if has("--is-supported") {
        let models: Vec<String> = session["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(formatscope::py::py_str)
            .collect();
        return legacy::supported(class, &models);
    }
    let method = Method::from_name(&arg("--method").unwrap()).unwrap();
    let options = if has("--require-alternative") || has("--require-user-last") {
        Some(ChatOptions {
            require_alternative: has("--require-alternative"),
            require_user_last: has("--require-user-last"),
        })
    } else if class == Class::Common && method == Method::Chat {
        Some(ChatOptions::default())
    } else {
        None
    };
    let env = MediaEnv::new(case.parent().unwrap(), Arc::new(NoNetwork));
    legacy::run(&session, class, method, options, &env).unwrap()
}

fn suite(dir: &str, at_least: usize) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = root.join(dir);
    let manifest = read(&base.join("manifest.json"));
    let (mut passed, mut failures) = (0, Vec::new());
    for entry in manifest["files"].as_array().unwrap() {
        let command: Vec<String> = entry["command"].as_array().unwrap()[2..]
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        let expected = read(&base.join(entry["expected"].as_str().unwrap()));
        let actual = run(&command, root);
        if comparable(&expected) == comparable(&actual) {
            passed += 1;
        } else {
            failures.push(format!(
                "{}\n  expected {}\n  actual   {}",
                entry["expected"],
                comparable(&expected),
                comparable(&actual)
            ));
        }
    }
    println!(
        "{dir}: {passed} of {} vectors match AgentScope 0.1.6",
        passed + failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(passed >= at_least, "only {passed} vectors");
    passed
}

#[test]
fn every_shared_legacy_vector_matches_agentscope_0_1_6() {
    suite("tests/legacy", 524);
}

#[test]
fn every_legacy_case_of_our_own_matches_agentscope_0_1_6() {
    suite("tests/legacy/own", 600);
}

#[test]
fn the_class_a_model_name_picks_is_0_1_6s() {
    assert_eq!(Class::for_model("gpt-4o"), Some(Class::OpenAi));
    assert_eq!(Class::for_model("o1-preview"), Some(Class::OpenAi));
    assert_eq!(
        Class::for_model("claude-3-5-sonnet-latest"),
        Some(Class::Anthropic)
    );
    assert_eq!(Class::for_model("qwen-max"), Some(Class::DashScope));
    assert_eq!(Class::for_model("gemini-2.5-flash"), Some(Class::Gemini));
    // From the start of the name only, case-sensitive: nothing matches.
    for m in [
        "chatgpt-4o-latest",
        "GPT-4o",
        "claude-sonnet-4",
        "qwen2.5-72b",
        "o3",
        "llama3",
    ] {
        assert_eq!(Class::for_model(m), None, "{m}");
    }
    // The binary says which class matched, and uses CommonFormatter when
    // none did.
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/legacy/cases/single_exchange.json");
    for (model, class) in [
        ("claude-3-7-sonnet", "AnthropicFormatter"),
        ("llama3", "CommonFormatter"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .args(["legacy"])
            .arg(&case)
            .args(["--model", model, "--method", "chat"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["formatter"], class);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if class == "CommonFormatter" {
            assert_eq!(v["matched"], Value::Null);
            assert!(
                stderr.contains("no class's is_supported_model matched"),
                "{stderr}"
            );
        } else {
            assert_eq!(v["matched"], class);
            assert!(stderr.contains("is_supported_model matched"), "{stderr}");
        }
    }
}
