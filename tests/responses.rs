//! Response parsing against AgentScope 1.0.21's model classes: every case in
//! tests/golden/responses/ (copied from shared/golden/responses, made by
//! response_oracle.py), chunk by chunk, as its compare.py judges: JSON
//! values, ints and floats apart, `"<elapsed>"` any number, `"<generated>"`
//! any string, errors by presence and type; warnings too; and every
//! object's key order (AgentScope builds its blocks in a set order).
//!
//! One test per case (tests/support/trials.rs): `cargo test --test
//! responses -- openai_text` runs that case, `-- ::anthropic` a provider's.

mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::response::{parse_recorded, Api, Options};
use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::path::Path;
use support::response_differ as differ;
use trials::{fail, Suite};

fn read(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v = formatscope::json::parse(&bytes, Default::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .value;
    formatscope::py::normalize_numbers(&mut v);
    v
}

fn options(api: Api, args: &[&str]) -> (bool, Options) {
    let mut opts = Options::new(api);
    let mut stream = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "--stream" => stream = true,
            "--model-name" => opts.model_name = it.next().expect("a name").to_string(),
            "--no-stream-tool-parsing" => opts.stream_tool_parsing = false,
            "--structured" => opts.structured = true,
            "--audio-format" => opts.audio_format = it.next().map(|s| s.to_string()),
            "--multimodality" => opts.multimodality = it.next().map(|s| *s == "true"),
            other => panic!("unknown oracle option {other}"),
        }
    }
    (stream, opts)
}

fn main() {
    trials::run(
        vec![
            Suite::new("responses", golden_suite(), 54),
            Suite::new("responses_own", own_suite(), 24),
        ],
        Vec::new(),
    )
}

fn fail_with(failures: Vec<String>) -> Result<(), Failed> {
    match failures.is_empty() {
        true => Ok(()),
        false => Err(fail(failures.join("\n"))),
    }
}

/// One trial per case in tests/golden/responses/manifest.json, named
/// `responses::CASE::PROVIDER`.
fn golden_suite() -> Result<Vec<Trial>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses");
    let manifest = std::panic::catch_unwind(|| read(&root.join("manifest.json")))
        .map_err(|_| "tests/golden/responses/manifest.json cannot be read".to_string())?;
    let cases = manifest["cases"].as_array().ok_or("no \"cases\" list")?;
    Ok(cases
        .iter()
        .map(|case| {
            let command = case["command"].as_str().unwrap_or_default();
            let words: Vec<&str> = command.split_whitespace().collect();
            let file = words.get(2).copied().unwrap_or_default();
            let stem = Path::new(file).file_stem().unwrap_or_default();
            let provider = words.get(4).copied().unwrap_or_default();
            let name = format!("responses::{}::{provider}", stem.to_string_lossy());
            let (case, root) = (case.clone(), root.clone());
            Trial::test(name, move || golden_case(&case, &root))
        })
        .collect())
}

/// One recorded response parsed as AgentScope parses it: JSON values, ints
/// and floats apart, `"<elapsed>"` any number, `"<generated>"` any string,
/// errors by presence and type, warnings, and every object's key order.
fn golden_case(case: &Value, root: &Path) -> Result<(), Failed> {
    let mut failures = Vec::new();
    let command = case["command"].as_str().expect("command");
    let words: Vec<&str> = command.split_whitespace().collect();
    // python shared/reference/response_oracle.py FILE --provider P ...
    let file = root.join(words[2].trim_start_matches("shared/golden/responses/"));
    let provider = words[4];
    let api = Api::from_id(provider).expect("provider");
    let (stream, opts) = options(api, &words[5..]);
    let data = read(&file);
    let recorded = parse_recorded(api, &data, stream, &opts).expect("valid input");
    let got = recorded.to_json(api, stream, &opts);
    let expected = read(&root.join(case["expected"].as_str().expect("expected")));
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    for key in ["provider", "stream", "chunks", "final"] {
        let (e, g) = (expected.get(key), got.get(key));
        let d = match (e, g) {
            (None, None) => None,
            (Some(e), Some(g)) => differ(e, g, key),
            _ => Some(format!("{key}: present in one only")),
        };
        if let Some(d) = d {
            failures.push(format!("{name}: {d}"));
        }
    }
    for key in ["chunks", "final"] {
        let (e, g) = (key_order(&expected[key]), key_order(&got[key]));
        if e != g {
            failures.push(format!("{name}: {key}: key order {g:?} != {e:?}"));
        }
    }
    let warnings = |v: &Value| v.get("warnings").cloned().unwrap_or(Value::Array(vec![]));
    if warnings(&expected) != warnings(&got) {
        failures.push(format!(
            "{name}: warnings {} != {}",
            warnings(&expected),
            warnings(&got)
        ));
    }
    for key in ["error", "error_type", "stage"] {
        if expected.get(key).is_some() != got.get(key).is_some() {
            failures.push(format!("{name}: {key} present in one only"));
        }
    }
    if expected.get("error_type") != got.get("error_type") {
        failures.push(format!(
            "{name}: error_type {:?} != {:?}",
            expected.get("error_type"),
            got.get("error_type")
        ));
    }
    fail_with(failures)
}

/// One trial per case of tests/responses/plan.json (tests/responses/
/// make_cases.py, expected files from the response oracle by
/// scripts/response-regen.py): error frames and bodies of every provider,
/// audio, Python-style tool arguments, merged Anthropic text blocks,
/// DashScope's repeated names, Gemini's unpadded signatures, Ollama's
/// ASCII-escaped raw input, the Responses API's tool calls. Named
/// `responses_own::CASE::PROVIDER`.
fn own_suite() -> Result<Vec<Trial>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/responses");
    let plan = std::panic::catch_unwind(|| read(&root.join("plan.json")))
        .map_err(|_| "tests/responses/plan.json cannot be read".to_string())?;
    let plan = plan.as_object().ok_or("plan.json is not an object")?;
    Ok(plan
        .iter()
        .map(|(name, p)| {
            let provider = p["provider"].as_str().unwrap_or_default();
            let trial = format!("responses_own::{name}::{provider}");
            let (name, p, root) = (name.clone(), p.clone(), root.clone());
            Trial::test(trial, move || own_case(&name, &p, &root))
        })
        .collect())
}

/// One of our own cases; error messages must match exactly here.
fn own_case(name: &str, p: &Value, root: &Path) -> Result<(), Failed> {
    let mut failures = Vec::new();
    let api = Api::from_id(p["provider"].as_str().expect("provider")).expect("api");
    let words: Vec<&str> = p["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let (stream, opts) = options(api, &words);
    let data = read(&root.join("cases").join(format!("{name}.json")));
    let got = parse_recorded(api, &data, stream, &opts)
        .expect("valid input")
        .to_json(api, stream, &opts);
    let expected = read(&root.join("expected").join(format!("{name}.json")));
    for key in [
        "chunks",
        "final",
        "warnings",
        "error",
        "error_type",
        "stage",
    ] {
        let d = match (expected.get(key), got.get(key)) {
            (None, None) => None,
            (Some(e), Some(g)) => differ(e, g, key),
            _ => Some(format!("{key}: present in one only")),
        };
        if let Some(d) = d {
            failures.push(format!("{name}: {d}"));
        }
    }
    // AgentScope's blocks are dicts built in a set order, which the
    // stored or printed reply keeps.
    for key in ["chunks", "final"] {
        let (e, g) = (key_order(&expected[key]), key_order(&got[key]));
        if e != g {
            failures.push(format!("{name}: {key}: key order {g:?} != {e:?}"));
        }
    }
    fail_with(failures)
}

/// Every object's keys, in order, with the object's path.
fn key_order(v: &Value) -> Vec<String> {
    fn walk(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                let keys: Vec<&str> = m.keys().map(String::as_str).collect();
                out.push(format!("{path}: {}", keys.join(",")));
                for (k, x) in m {
                    walk(x, &format!("{path}.{k}"), out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{path}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, "$", &mut out);
    out
}
