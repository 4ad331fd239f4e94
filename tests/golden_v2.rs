//! AgentScope 2.0.11's golden vectors (tests/golden_v2, a copy of the
//! reference set): every manifest command run through
//! `formatscope::reference::v2` and judged as `tools/compare.py` judges by
//! default (parsed JSON, `warnings` ignored, error messages compared up to
//! the first embedded Python repr, pydantic reports by their first line).

use formatscope::reference::v2::{self, Options};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Vectors known to pass; the test fails if fewer do.
const FLOOR: usize = 2524;
/// The same for tests/golden_v2_extra: our own cases for rules the
/// reference set does not reach, made by the same oracle (its gen_expected.py
/// with tests/golden_v2_extra/plan.json).
const EXTRA_FLOOR: usize = 1387;

fn root(set: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(set)
}

fn options(args: &[String], web: &Path) -> Options {
    let mut o = Options {
        web_roots: vec![web.to_path_buf()],
        ..Options::default()
    };
    let list = |s: &str| {
        s.split(',')
            .filter(|t| !t.is_empty())
            .map(String::from)
            .collect()
    };
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1).cloned().unwrap_or_default();
        let mut took = true;
        match args[i].as_str() {
            "--formatter" => o.formatter = Some(next),
            "--tool-choice" => o.tool_choice = Some(next),
            "--tool-choice-tools" => o.tool_choice_tools = Some(list(&next)),
            "--input-types" => o.input_types = Some(list(&next)),
            "--conversation-history-prompt" => o.conversation_history_prompt = Some(next),
            flag => {
                took = false;
                match flag {
                    "--count" => o.count = true,
                    "--tools" => o.tools = true,
                    "--msgs-only" => o.msgs_only = true,
                    "--dump-msgs" => o.dump_msgs = true,
                    "--raw" => o.raw = true,
                    other => panic!("unknown oracle flag {other}"),
                }
            }
        }
        i += if took { 2 } else { 1 };
    }
    o
}

/// compare.py's `message_key`.
fn message_key(kind: &str, message: &str) -> String {
    if kind == "ValidationError" {
        let first = message.split('\n').next().unwrap_or("");
        let rest = first.trim_start_matches(|c: char| c.is_ascii_digit());
        if rest.len() < first.len() {
            for head in [" validation errors for ", " validation error for "] {
                if let Some(r) = rest.strip_prefix(head) {
                    return format!("validation error(s) for {r}");
                }
            }
        }
        return first.to_string();
    }
    let cut = ["{'", "[{", "['", "<class '"]
        .iter()
        .filter_map(|p| message.find(p))
        .min()
        .unwrap_or(message.len());
    message[..cut].to_string()
}

fn same_error(exp: &Value, act: Option<&Value>) -> Result<(), String> {
    let Some(act) = act.filter(|a| a.get("error").is_some()) else {
        return Err("expected an error, got none".into());
    };
    for key in ["stage", "error_type"] {
        if exp.get(key) != act.get(key) {
            return Err(format!("{key} {:?} != {:?}", act.get(key), exp.get(key)));
        }
    }
    let kind = exp["error_type"].as_str().unwrap_or("");
    let e = message_key(kind, exp["error"].as_str().unwrap_or(""));
    let a = message_key(kind, act["error"].as_str().unwrap_or(""));
    if e != a {
        return Err(format!("error message {a:?} != {e:?}"));
    }
    Ok(())
}

fn compare(exp: &Value, act: &Value) -> Result<(), String> {
    let (mut exp, mut act) = (exp.clone(), act.clone());
    let (Some(e), Some(a)) = (exp.as_object_mut(), act.as_object_mut()) else {
        return Err("not objects".into());
    };
    for key in ["warnings", "python_warnings"] {
        e.shift_remove(key);
        a.shift_remove(key);
    }
    if e.contains_key("error") {
        same_error(&Value::Object(e.clone()), Some(&Value::Object(a.clone())))?;
        for key in ["error", "error_type", "stage"] {
            e.shift_remove(key);
            a.shift_remove(key);
        }
    } else if a.contains_key("error") {
        return Err(format!(
            "unexpected error: {:?}: {:?}",
            a.get("error_type"),
            a.get("error")
        ));
    }
    for key in ["tools_error", "tokens_error", "tokens_with_tools_error"] {
        match (e.shift_remove(key), a.shift_remove(key)) {
            (Some(x), y) => same_error(&x, y.as_ref()).map_err(|m| format!("{key}: {m}"))?,
            (None, Some(y)) => return Err(format!("unexpected {key}: {y}")),
            (None, None) => {}
        }
    }
    // Objects compare regardless of key order; numbers by their text, so 1 != 1.0.
    if e != a {
        let first = e
            .keys()
            .chain(a.keys())
            .find(|k| e.get(*k) != a.get(*k))
            .cloned()
            .unwrap_or_default();
        return Err(format!("$.{first} differs"));
    }
    Ok(())
}

/// Runs every vector of one set; the failures, and how many there were.
fn run_set(set: &str) -> (Vec<String>, usize) {
    let root = root(set);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root.join("manifest.json")).expect("manifest"))
            .expect("manifest JSON");
    let cases = root.join("cases");
    let web = root.join("media/web");
    let files = manifest["files"].as_array().expect("files");
    let mut failures = Vec::new();
    for entry in files {
        let cmd: Vec<String> = entry["command"]
            .as_array()
            .expect("command")
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect();
        let case = Path::new(&cmd[2]).file_name().expect("case file");
        let expected_rel = entry["expected"].as_str().expect("expected");
        // Python's JSON: an expected file or a case may hold NaN/Infinity.
        let read = |path: &Path| -> Value {
            let bytes = std::fs::read(path).expect("a vector's file");
            formatscope::json::parse(&bytes, Default::default())
                .map(|p| p.value)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let expected = read(&root.join(expected_rel));
        let session = read(&cases.join(case));
        let opts = options(&cmd[3..], &web);
        let verdict = match v2::run(&session, &cases, &opts) {
            Ok(actual) => compare(&expected, &actual),
            Err(e) => Err(format!("usage error: {e}")),
        };
        if let Err(why) = verdict {
            failures.push(format!("{expected_rel}: {why}"));
        }
    }
    (failures, files.len())
}

fn judge(set: &str, floor: usize) {
    let (failures, total) = run_set(set);
    let passed = total - failures.len();
    for f in failures.iter().take(30) {
        eprintln!("FAIL {f}");
    }
    println!("{set}: {passed} of {total} vectors pass");
    eprintln!("{set}: {passed} of {total} vectors pass");
    assert!(
        passed >= floor,
        "{set}: {passed} of {total} vectors pass, fewer than the floor {floor}"
    );
}

#[test]
fn golden_v2_vectors() {
    judge("golden_v2", FLOOR);
}

#[test]
fn golden_v2_extra_vectors() {
    judge("golden_v2_extra", EXTRA_FLOOR);
}
