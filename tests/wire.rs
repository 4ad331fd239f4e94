//! The wire requests (`formatscope request`'s core) against AgentScope
//! 1.0.21's model classes and their release-day SDKs: every vector in
//! tests/golden/requests/ (copied from shared/golden/requests, made by
//! request_oracle.py), field by field, warnings included, and the body's key
//! order (the bytes the SDK sends follow it).
//!
//! One test per vector (tests/support/trials.rs): `cargo test --test wire
//! -- audio_blocks` runs that case's requests, `-- wire::` our own.

mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::media::{MediaEnv, WebRoot};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use formatscope::wire::Settings;
use libtest_mimic::{Failed, Trial};
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Arc;
use support::{compare_outputs, request_from_oracle_args};
use trials::{fail, Suite};

fn python_json(text: &str) -> Value {
    formatscope::json::parse(text.as_bytes(), Default::default())
        .unwrap()
        .value
}

/// The request oracle's arguments: the formatting ones, and the model's.
fn parse_args(args: &[String]) -> (ReferenceRequest, Settings) {
    let mut settings = Settings::default();
    let mut rest = Vec::new();
    let mut it = args.iter();
    let object = |text: &str| -> Map<String, Value> {
        match python_json(text) {
            Value::Object(m) => m,
            other => panic!("not an object: {other}"),
        }
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--model" => settings.model = it.next().cloned(),
            "--tool-choice" => settings.tool_choice = it.next().cloned(),
            "--stream" => settings.stream = Some(true),
            "--no-stream" => settings.stream = Some(false),
            "--model-kwargs" => settings.model_kwargs = object(it.next().unwrap()),
            "--call-kwargs" => settings.call_kwargs = object(it.next().unwrap()),
            _ => rest.push(arg.clone()),
        }
    }
    (request_from_oracle_args(&rest), settings)
}

fn main() {
    trials::run(
        vec![
            // AgentScope's model classes and their SDKs (request_oracle.py):
            // the whole upstream set.
            Suite::new("requests", suite("tests/golden/requests", "requests/"), 584).exactly(),
            // Our own vectors (scripts/request-regen.py): extra_body and
            // headers, organizations, base URLs, unknown arguments, thinking
            // switches, DashScope's headers, search and endpoints, Ollama's
            // host and images, and the errors the SDKs raise before sending
            // (DashScope's empty conversations, Ollama's images,
            // google-genai's pydantic reports).
            Suite::new("wire", suite("tests/wire", ""), 99),
        ],
        Vec::new(),
    )
}

/// One trial per vector of the manifest in `dir`, named
/// `SUITE::CASE::FORMATTER[::VARIANT]` (our own: `wire::NAME::FORMATTER`).
fn suite(dir: &'static str, expected_prefix: &'static str) -> Result<Vec<Trial>, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let text = std::fs::read_to_string(root.join("manifest.json"))
        .map_err(|e| format!("{dir}/manifest.json: {e}"))?;
    let manifest = formatscope::json::parse(text.as_bytes(), Default::default())
        .map_err(|e| format!("{dir}/manifest.json: {e}"))?
        .value;
    let files = manifest["files"]
        .as_array()
        .ok_or("the manifest has no \"files\" list")?;
    let suite = if expected_prefix.is_empty() {
        "wire"
    } else {
        "requests"
    };
    Ok(files
        .iter()
        .map(|entry| {
            let rel = entry["expected"].as_str().unwrap_or_default();
            let mut name = trials::name_from_expected(suite, rel);
            if expected_prefix.is_empty() {
                let command = entry["command"].as_array().cloned().unwrap_or_default();
                if let Some(i) = command.iter().position(|a| a == "--formatter") {
                    let formatter = command.get(i + 1).and_then(Value::as_str);
                    name = format!("{name}::{}", formatter.unwrap_or_default());
                }
            }
            let (entry, root) = (entry.clone(), root.clone());
            Trial::test(name, move || check(&entry, &root, dir, expected_prefix))
        })
        .collect())
}

/// One vector: the request built in-process against the request oracle's.
fn check(entry: &Value, root: &Path, dir: &str, expected_prefix: &str) -> Result<(), Failed> {
    let exact_errors = dir == "tests/wire";
    let web_root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/media/web");
    // A suite's own web images (the oracle's default root for its sessions).
    let own_web = root.join("media/web");
    let args: Vec<String> = entry["command"].as_array().unwrap()[3..]
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let (request, mut settings) = parse_args(&args);
    let rel = entry["expected"].as_str().unwrap();
    let expected = python_json(
        &std::fs::read_to_string(root.join(rel.trim_start_matches(expected_prefix))).unwrap(),
    );
    let case_path = entry["command"][2].as_str().unwrap();
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(case_path.replace("shared/golden/", "tests/golden/"));
    let session = read_session(&case).unwrap();
    let env = MediaEnv::new(
        session.base_dir(),
        Arc::new(WebRoot::new(vec![own_web.clone(), web_root.clone()])),
    );
    // The manifest writes the JSON arguments with sorted keys; the
    // oracle ran with the order its output records (which the body's
    // key order follows).
    if let Some(Value::Object(used)) = expected.get("model_kwargs") {
        for (key, value) in settings.model_kwargs.iter_mut() {
            if let Some(v) = used.get(key).filter(|v| *v == value) {
                *value = v.clone();
            }
        }
    }
    let out = pipeline::build_request(&session, &request, &settings, &env).to_oracle();
    let text = serde_json::to_string(&Value::Object(out)).unwrap();
    let dir = std::path::absolute(session.base_dir()).unwrap();
    let actual = python_json(&pipeline::portable_paths(&text, &dir));
    if entry.get("match").and_then(Value::as_str) == Some("error_type") {
        // pydantic's full report is not reproduced: the same error at
        // the same stage is.
        let error = |v: &Value| {
            let e = v.get("http_error").unwrap_or(v);
            (e.get("stage").cloned(), e.get("error_type").cloned())
        };
        return match error(&expected) == error(&actual) {
            true => Ok(()),
            false => Err(fail(format!(
                "{rel}: (stage, error_type) {:?} != expected {:?}",
                error(&actual),
                error(&expected)
            ))),
        };
    }
    let problem = compare_outputs(&expected, &actual)
        .or_else(|| {
            (expected.get("warnings") != actual.get("warnings")).then(|| {
                format!(
                    "warnings {:?} != {:?}",
                    actual.get("warnings"),
                    expected.get("warnings")
                )
            })
        })
        .or_else(|| {
            // Our own vectors compare error messages whole, reprs too.
            let message = |v: &Value| v.get("error").cloned();
            (exact_errors && message(&expected) != message(&actual))
                .then(|| format!("error {:?} != {:?}", message(&actual), message(&expected)))
        })
        .or_else(|| {
            // The body's bytes follow its key order.
            let order = |v: &Value| serde_json::to_string(&v.get("http_body")).unwrap();
            (order(&expected) != order(&actual)).then(|| "http_body key order".to_string())
        });
    match problem {
        None => Ok(()),
        Some(p) => Err(fail(format!(
            "{rel} differs (first difference, ours != expected): {p}\noracle command: {}",
            entry["command"]
        ))),
    }
}
