//! Every golden vector (AgentScope 1.0.21's real output, in tests/golden/)
//! against the core, compared as tests/golden/tools/compare.py compares:
//! JSON values (ints and floats apart), warnings ignored, error messages up
//! to the first embedded Python repr.
//!
//! One test per vector (tests/support/trials.rs), named after its expected
//! file: `cargo test --test golden -- library_trip` runs that case's
//! vectors, `-- ::DashScopeMultiAgentFormatter` one formatter's, and
//! `-- --exact golden::library_trip::DashScopeMultiAgentFormatter` one.

mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::media::WebRoot;
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::{compare_outputs, request_from_oracle_args};
use trials::{fail, Suite};

fn main() {
    trials::run(
        vec![
            // The public golden set: 812 vectors made by the reference team.
            Suite::new("golden", suite("tests/golden"), 801),
            // Our own edge cases (tests/oracle/make_cases.py), judged by the same
            // oracle (scripts/oracle-regen.py): odd types, numbers, media, tools,
            // budgets.
            Suite::new("oracle", suite("tests/oracle"), 501),
            // Every golden case counted and truncated with AgentScope's
            // `CharTokenCounter` (`"token_counter": "char"`), by the real
            // AgentScope (scripts/counter-regen.py).
            Suite::new("counters", suite("tests/counters"), 1601),
            // The example sessions in sessions/, judged by the oracle too.
            Suite::new("sessions", suite("tests/sessions"), 61),
        ],
        Vec::new(),
    )
}

/// Outputs as Python's json reads them: AgentScope writes `NaN` and
/// `Infinity` where a session holds them.
fn python_json(text: &str) -> Result<Value, String> {
    formatscope::json::parse(text.as_bytes(), Default::default())
        .map(|p| p.value)
        .map_err(|e| e.to_string())
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    python_json(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One trial per vector the suite's manifest lists, named
/// `SUITE::CASE::FORMATTER[::VARIANT]` after its expected file
/// (`expected/CASE/FORMATTER[.VARIANT].json`).
fn suite(dir: &str) -> Result<Vec<Trial>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let web_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/media/web");
    let manifest = read_json(&root.join("manifest.json"))?;
    let web = Arc::new(WebRoot::new(vec![web_root]));
    let prefix = dir.trim_start_matches("tests/");
    let files = manifest["files"]
        .as_array()
        .ok_or("the manifest has no \"files\" list")?;
    let mut trials = Vec::with_capacity(files.len());
    for entry in files {
        let rel = entry["expected"]
            .as_str()
            .ok_or_else(|| format!("no \"expected\" in {entry}"))?
            .to_string();
        let name = trials::name_from_expected(prefix, &rel);
        let (entry, root, web) = (entry.clone(), root.clone(), web.clone());
        trials.push(Trial::test(name, move || check(&entry, &root, &rel, web)));
    }
    Ok(trials)
}

/// One vector: the oracle's command run in-process, compared with its
/// expected output.
fn check(entry: &Value, root: &Path, rel: &str, web: Arc<WebRoot>) -> Result<(), Failed> {
    let args: Vec<String> = entry["command"]
        .as_array()
        .unwrap()
        .iter()
        .skip(3) // python oracle.py SESSION
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    // The session path as the oracle command names it.
    let case_path = entry["command"][2].as_str().unwrap();
    let case: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(case_path.replace("shared/golden/", "tests/golden/"));
    let session = read_session(&case).map_err(|e| fail(format!("{}: {e:?}", case.display())))?;
    let request: ReferenceRequest = request_from_oracle_args(&args);
    let out = pipeline::run_reference(&session, &request, web);
    let text = serde_json::to_string(&Value::Object(out)).unwrap();
    let dir = std::path::absolute(session.base_dir()).unwrap();
    let mut actual = python_json(&pipeline::portable_paths(&text, &dir)).map_err(fail)?;
    // We say which counter counted; the oracle's shape does not.
    if let Some(spec) = &request.token_counter {
        let said = actual.as_object_mut().unwrap().remove("token_counter");
        if said != Some(Value::String(spec.id())) {
            return Err(fail(format!(
                "token_counter {said:?}, expected {:?}",
                spec.id()
            )));
        }
    }
    let expected = read_json(&root.join(rel)).map_err(fail)?;
    match compare_outputs(&expected, &actual) {
        None => Ok(()),
        Some(problem) => Err(fail(format!(
            "{}/{rel} differs (first difference, ours != expected): {problem}\n\
             oracle command: {}",
            root.display(),
            entry["command"]
        ))),
    }
}
