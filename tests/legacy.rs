//! AgentScope 0.1.6's formatter API: every vector of the shared
//! set (tests/legacy/, a copy of shared/golden-v0: 524 files over 32 cases)
//! and of ours (tests/legacy/own/, made by scripts/legacy-regen.py with the
//! real 0.1.6 oracle) run in-process and compared as
//! tests/legacy/tools/compare.py compares: JSON values with ints and floats
//! apart, warnings aside, errors by stage, type and message up to the first
//! embedded Python repr (pydantic's reports by their first line).
//! `bash scripts/legacy-cli.sh` runs the same vectors through the binary
//! and compare.py itself.
//!
//! One test per vector (tests/support/trials.rs), named after its expected
//! file: `cargo test --test legacy -- audio_urls` runs that case's vectors,
//! `-- legacy::audio_urls::OpenAIFormatter::chat` one.

#[path = "support/trials.rs"]
mod trials;

use formatscope::legacy::{self, ChatOptions, Class, Method};
use formatscope::media::{MediaEnv, NoNetwork};
use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use trials::{fail, Suite};

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

fn main() {
    trials::run(
        vec![
            // The shared set: a copy of shared/golden-v0.
            Suite::new("legacy", suite("tests/legacy", "legacy"), 524),
            // Ours: scripts/legacy-regen.py with the real 0.1.6 oracle.
            Suite::new("legacy_own", suite("tests/legacy/own", "legacy_own"), 600),
        ],
        vec![trials::test(
            "legacy::the_class_a_model_name_picks_is_0_1_6s",
            the_class_a_model_name_picks_is_0_1_6s,
        )],
    )
}

/// One trial per vector the manifest in `dir` lists, named
/// `NAME::CASE::CLASS::METHOD` after its expected file.
fn suite(dir: &str, name: &str) -> Result<Vec<Trial>, String> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let manifest = std::panic::catch_unwind(|| read(&base.join("manifest.json")))
        .map_err(|_| format!("{dir}/manifest.json cannot be read"))?;
    let files = manifest["files"]
        .as_array()
        .ok_or("the manifest has no \"files\" list")?;
    Ok(files
        .iter()
        .map(|entry| {
            let rel = entry["expected"].as_str().unwrap_or_default().to_string();
            let (entry, base) = (entry.clone(), base.clone());
            Trial::test(trials::name_from_expected(name, &rel), move || {
                check(&entry, &base, &rel)
            })
        })
        .collect())
}

/// One vector: its command run in-process, compared as compare.py does.
fn check(entry: &Value, base: &Path, rel: &str) -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let command: Vec<String> = entry["command"].as_array().unwrap()[2..]
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let expected = comparable(&read(&base.join(rel)));
    let actual = comparable(&run(&command, root));
    if expected == actual {
        return Ok(());
    }
    Err(fail(format!(
        "{}/{rel} differs from our output\n  first difference: {}\n  expected {expected}\n  actual   {actual}",
        base.display(),
        first_difference(&expected, &actual, "$")
    )))
}

/// Where two values first differ, as a path and both sides.
fn first_difference(expected: &Value, actual: &Value, path: &str) -> String {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, x) in e {
                match a.get(k) {
                    None => return format!("{path}.{k}: missing"),
                    Some(y) if x != y => return first_difference(x, y, &format!("{path}.{k}")),
                    Some(_) => {}
                }
            }
            match a.keys().find(|k| !e.contains_key(*k)) {
                Some(k) => format!("{path}.{k}: unexpected"),
                None => format!("{path}: key order"),
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => e
            .iter()
            .zip(a)
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .map(|(i, (x, y))| first_difference(x, y, &format!("{path}[{i}]")))
            .unwrap_or_else(|| format!("{path}: ?")),
        (Value::Array(e), Value::Array(a)) => {
            format!("{path}: {} items, expected {}", a.len(), e.len())
        }
        _ => format!("{path}: {actual}, expected {expected}"),
    }
}

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
