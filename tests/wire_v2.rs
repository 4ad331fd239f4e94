//! The wire under AgentScope 2.0.11 (`formatscope request --agentscope
//! 2.0.11`'s core) against its eleven model classes and their release-day
//! SDKs: every vector of tests/golden_v2/requests/ (copied from
//! shared/golden-v2/requests, made by request_oracle_v2.py), judged as
//! shared/golden/tools/compare.py judges (parsed JSON, warnings ignored,
//! error messages up to their first Python repr), plus the body's key
//! order, which the bytes the SDK sends follow.
//!
//! One test per vector: `cargo test --test wire_v2 -- library_trip` runs
//! that case's requests.

mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::media::{MediaEnv, WebRoot};
use formatscope::reference::v2::tools::ToolChoice;
use formatscope::reference::v2::wire::{self, FormatterOptions, Settings};
use libtest_mimic::{Failed, Trial};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::compare_outputs;
use trials::{fail, Suite};

fn python_json(bytes: &[u8]) -> Value {
    formatscope::json::parse(bytes, Default::default())
        .expect("Python JSON")
        .value
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden_v2")
}

fn main() {
    trials::run(
        vec![
            Suite::new("requests_v2", suite(false), 2121).exactly(),
            // The same vectors through the command a user runs:
            // `formatscope request CASE --agentscope 2.0.11 ARGS...`.
            Suite::new("requests_v2_cli", suite(true), 2121).exactly(),
        ],
        Vec::new(),
    )
}

fn suite(cli: bool) -> Result<Vec<Trial>, String> {
    let dir = root().join("requests");
    let text = std::fs::read(dir.join("manifest.json")).map_err(|e| format!("manifest: {e}"))?;
    let manifest = python_json(&text);
    let files = manifest["files"].as_array().ok_or("no files list")?;
    Ok(files
        .iter()
        .map(|entry| {
            let rel = entry["expected"].as_str().unwrap_or_default().to_string();
            let suite = if cli {
                "requests_v2_cli"
            } else {
                "requests_v2"
            };
            let name = trials::name_from_expected(suite, &rel);
            let entry = entry.clone();
            Trial::test(name, move || {
                if cli {
                    check_cli(&entry)
                } else {
                    check(&entry)
                }
            })
        })
        .collect())
}

/// The oracle's command line: the class, the model's settings and the
/// formatter's options.
fn parse_args(args: &[String]) -> (String, Settings, FormatterOptions) {
    let (mut class, mut settings, mut options) = (
        String::new(),
        Settings::default(),
        FormatterOptions::default(),
    );
    let object = |text: &str| -> Map<String, Value> {
        match python_json(text.as_bytes()) {
            Value::Object(m) => m,
            other => panic!("not an object: {other}"),
        }
    };
    let list = |s: &str| {
        s.split(',')
            .filter(|t| !t.is_empty())
            .map(String::from)
            .collect()
    };
    let mut choice_tools = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut next = || it.next().cloned().unwrap_or_default();
        match arg.as_str() {
            "--formatter" => class = next(),
            "--model" => settings.model = Some(next()),
            "--tool-choice" => {
                settings.tool_choice = Some(ToolChoice {
                    mode: next(),
                    tools: None,
                })
            }
            "--tool-choice-tools" => choice_tools = Some(list(&next())),
            "--stream" => settings.stream = Some(true),
            "--no-stream" => settings.stream = Some(false),
            "--model-kwargs" => settings.model_kwargs = object(&next()),
            "--call-kwargs" => settings.call_kwargs = object(&next()),
            "--input-types" => options.input_types = Some(list(&next())),
            "--conversation-history-prompt" => options.conversation_history_prompt = Some(next()),
            other => panic!("unexpected oracle argument {other}"),
        }
    }
    if let Some(c) = settings.tool_choice.as_mut() {
        c.tools = choice_tools;
    }
    (class, settings, options)
}

/// The manifest writes JSON arguments with sorted keys; the oracle ran
/// with the order its output records (which the body's order follows).
fn in_recorded_order(given: &mut Map<String, Value>, recorded: Option<&Value>) {
    if let Some(Value::Object(used)) = recorded {
        let mut ordered = Map::new();
        for (k, v) in used {
            if let Some(mine) = given.get(k) {
                ordered.insert(k.clone(), if mine == v { v.clone() } else { mine.clone() });
            }
        }
        for (k, v) in given.iter() {
            if !ordered.contains_key(k) {
                ordered.insert(k.clone(), v.clone());
            }
        }
        *given = ordered;
    }
}

/// The verdict on one output: compare.py's, then the body's key order.
fn judge(rel: &str, expected: &Value, actual: &Value) -> Result<(), Failed> {
    let problem = compare_outputs(expected, actual).or_else(|| {
        let order = |v: &Value| serde_json::to_string(&v.get("http_body")).unwrap_or_default();
        (order(expected) != order(actual)).then(|| "http_body key order".to_string())
    });
    match problem {
        None => Ok(()),
        Some(p) => Err(fail(format!(
            "{rel} differs (first difference, ours != expected): {p}"
        ))),
    }
}

/// One vector through the binary.
fn check_cli(entry: &Value) -> Result<(), Failed> {
    let rel = entry["expected"].as_str().unwrap_or_default();
    let expected =
        python_json(&std::fs::read(root().join(rel)).map_err(|e| fail(format!("{rel}: {e}")))?);
    let command: Vec<String> = entry["command"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a.as_str().unwrap_or_default().to_string())
        .collect();
    let case = root().join("cases").join(
        Path::new(&command[2])
            .file_name()
            .ok_or_else(|| fail("no case"))?,
    );
    let mut args: Vec<String> = vec![
        "request".into(),
        case.display().to_string(),
        "--agentscope".into(),
        "2.0.11".into(),
        "--portable-paths".into(),
        "--web-root".into(),
        root().join("media/web").display().to_string(),
    ];
    let mut rest = command[3..].iter();
    while let Some(arg) = rest.next() {
        args.push(arg.clone());
        // JSON arguments in the order the oracle ran with.
        let recorded = match arg.as_str() {
            "--model-kwargs" => "model_kwargs",
            "--call-kwargs" => "call_kwargs",
            _ => continue,
        };
        let Some(Value::Object(mut given)) = rest.next().map(|t| python_json(t.as_bytes())) else {
            return Err(fail("a JSON argument"));
        };
        in_recorded_order(&mut given, expected.get(recorded));
        if let (Some(Value::Object(p)), Some(r)) = (
            given.get_mut("parameters"),
            expected.pointer(&format!("/{recorded}/parameters")),
        ) {
            in_recorded_order(p, Some(r));
        }
        args.push(Value::Object(given).to_string());
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(&args)
        .output()
        .map_err(|e| fail(e.to_string()))?;
    let code = out.status.code();
    let failed = expected.get("error").is_some() || expected.get("http_error").is_some();
    if code != Some(i32::from(failed)) {
        return Err(fail(format!(
            "{rel}: exit {code:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    judge(rel, &expected, &python_json(&out.stdout))
}

fn check(entry: &Value) -> Result<(), Failed> {
    let rel = entry["expected"].as_str().unwrap_or_default();
    let expected =
        python_json(&std::fs::read(root().join(rel)).map_err(|e| fail(format!("{rel}: {e}")))?);
    let command: Vec<String> = entry["command"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| a.as_str().unwrap_or_default().to_string())
        .collect();
    let case = root().join("cases").join(
        Path::new(&command[2])
            .file_name()
            .ok_or_else(|| fail("no case"))?,
    );
    let (class, mut settings, options) = parse_args(&command[3..]);
    in_recorded_order(&mut settings.model_kwargs, expected.get("model_kwargs"));
    if let (Some(Value::Object(p)), Some(rec)) = (
        settings.model_kwargs.get_mut("parameters"),
        expected.pointer("/model_kwargs/parameters"),
    ) {
        in_recorded_order(p, Some(rec));
    }
    in_recorded_order(&mut settings.call_kwargs, expected.get("call_kwargs"));
    let session = python_json(&std::fs::read(&case).map_err(|e| fail(e.to_string()))?);
    let session_dir = case.parent().unwrap_or(Path::new("/")).to_path_buf();
    let env = MediaEnv::new(
        &session_dir,
        Arc::new(WebRoot::new(vec![root().join("media/web")])),
    );
    let request = wire::request(&session, &env, &class, &settings, &options)
        .map_err(|e| fail(format!("{rel}: usage error: {e}")))?;
    let actual = formatscope::reference::v2::portable(
        Value::Object(request.to_oracle()),
        &std::path::absolute(&session_dir).unwrap_or(session_dir),
    );
    judge(rel, &expected, &actual)
}
