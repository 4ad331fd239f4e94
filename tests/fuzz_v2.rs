//! A differential fuzz against the real AgentScope 2.0.11: random
//! realistic sessions (seeded; each trial names its seed and class), each
//! formatted (`format --agentscope 2.0.11 --count --tools`'s core) and
//! built on the wire (`request --agentscope 2.0.11`'s) by formatscope and
//! by AgentScope through the reference team's oracles (copies in
//! tests/oracle_v2, run in one Python process by batch.py), compared as
//! the golden suites compare.
//!
//! It needs AgentScope 2.0.11: `bash tests/oracle_v2/setup.sh` makes the
//! venv (about a minute, from the package index) and prints its python;
//! name it in `FORMATSCOPE_ORACLE_V2` (`.ci/run` does both). Without it the
//! suite says so and runs nothing. `FUZZ_SEEDS=N` (default 60) sets how
//! many sessions.

#[path = "support/rng.rs"]
mod rng;
mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::media::{MediaEnv, WebRoot};
use formatscope::reference::v2::{self, wire, Options, FORMATTERS};
use libtest_mimic::Trial;
use rng::Rng;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::compare_outputs;
use trials::{fail, Suite};

const NAMES: [&str; 6] = ["Bob", "Alice", "Friday", "李雷", "user", "agent_7"];
const WORDS: [&str; 12] = [
    "library",
    "weather",
    "é",
    "北京",
    "📚",
    "\"quoted\"",
    "line\nbreak",
    "tab\there",
    "<history>",
    "42",
    "",
    "ok",
];
/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

fn text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    (0..n)
        .map(|_| *rng.pick(&WORDS))
        .collect::<Vec<_>>()
        .join(" ")
}

fn number(rng: &mut Rng) -> Value {
    match rng.below(4) {
        0 => json!(rng.below(1000)),
        1 => json!(rng.below(1000) as f64 / 8.0),
        2 => json!(-(rng.below(50) as i64)),
        _ => json!(text(rng)),
    }
}

/// One random session: speakers, text, thinking, tool calls and their
/// results (strings and blocks), images, sometimes tools.
fn session(seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let mut messages = Vec::new();
    if rng.chance(70) {
        messages.push(json!({"role": "system", "name": "system", "content": text(&mut rng)}));
    }
    let mut call = 0;
    for _ in 0..1 + rng.below(7) {
        let name = *rng.pick(&NAMES);
        match rng.below(6) {
            0 | 1 => {
                messages.push(json!({"role": "user", "name": name, "content": text(&mut rng)}))
            }
            2 => {
                let mut blocks = vec![json!({"type": "text", "text": text(&mut rng)})];
                // Media the way sessions give them: inline, on the web
                // (served from the fixtures), missing, in other kinds.
                let media = [
                    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}),
                    json!({"type": "image", "source": {"type": "url", "url": "https://example.com/images/cat.png"}}),
                    json!({"type": "image", "source": {"type": "url", "url": "https://example.com/images/missing.png"}}),
                    json!({"type": "audio", "source": {"type": "url", "url": "https://example.com/audio/hello.mp3"}}),
                    json!({"type": "audio", "source": {"type": "url", "url": "https://example.com/audio/hello.wav"}}),
                    json!({"type": "video", "source": {"type": "url", "url": "https://example.com/video/clip.mp4"}}),
                    json!({"type": "image", "source": {"type": "url", "url": "no_such_file.png"}}),
                    json!({"type": "image", "source": {"type": "url", "url": "data:image/png;base64,iVBORw0KGgo="}}),
                ];
                if rng.chance(60) {
                    blocks.push(rng.pick(&media).clone());
                }
                if rng.chance(20) {
                    blocks.push(json!({"type": "text", "text": ""}));
                }
                messages.push(json!({"role": "user", "name": name, "content": blocks}));
            }
            3 => {
                let mut blocks = Vec::new();
                if rng.chance(40) {
                    blocks.push(json!({"type": "thinking", "thinking": text(&mut rng)}));
                }
                if rng.chance(60) {
                    blocks.push(json!({"type": "text", "text": text(&mut rng)}));
                }
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "done"}));
                }
                messages.push(json!({"role": "assistant", "name": "Friday", "content": blocks}));
            }
            _ => {
                call += 1;
                let id = format!("call_{call}");
                let mut input = Map::new();
                for _ in 0..rng.below(3) {
                    input.insert(text(&mut rng), number(&mut rng));
                }
                let mut call_block =
                    json!({"type": "tool_use", "id": id, "name": "get_weather", "input": input});
                // The raw argument string a model wrote, sometimes broken.
                if rng.chance(30) {
                    let raw = [
                        "{\"city\": \"Paris\"}",
                        "{\"city\": \"Par",
                        "[1, 2]",
                        "",
                        "{'a': 1}",
                        "{\"a\": 1 \"b\": 2}",
                    ];
                    call_block["raw_input"] = json!(rng.pick(&raw));
                }
                messages
                    .push(json!({"role": "assistant", "name": "Friday", "content": [call_block]}));
                let output = if rng.chance(50) {
                    json!(text(&mut rng))
                } else {
                    json!([{"type": "text", "text": text(&mut rng)}])
                };
                messages.push(json!({"role": if rng.chance(50) { "system" } else { "user" }, "name": "system",
                    "content": [{"type": "tool_result", "id": id, "name": "get_weather", "output": output}]}));
            }
        }
    }
    let mut s = json!({"messages": messages});
    if rng.chance(50) {
        s["tools"] = json!([{"type": "function", "function": {"name": "get_weather",
            "description": text(&mut rng),
            "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": text(&mut rng)},
                "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}}}]);
    }
    s
}

/// The classes a seed's session goes through: three of the 22.
fn classes(seed: u64) -> Vec<&'static str> {
    let mut rng = Rng::new(seed ^ 0xC1A5);
    let mut out: Vec<&str> = Vec::new();
    while out.len() < 3 {
        let c = *rng.pick(&FORMATTERS);
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn oracle() -> Option<PathBuf> {
    std::env::var_os("FORMATSCOPE_ORACLE_V2")
        .map(PathBuf::from)
        .filter(|p| p.exists())
}

fn main() {
    let Some(python) = oracle() else {
        println!("fuzz_v2: no AgentScope 2.0.11 (set FORMATSCOPE_ORACLE_V2 to the python `bash tests/oracle_v2/setup.sh` prints); nothing run");
        trials::run(Vec::new(), Vec::new())
    };
    let seeds: u64 = std::env::var("FUZZ_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let dir = tempfile::tempdir().expect("a temp dir");
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden_v2/media/web");
    let mut jobs = Vec::new();
    for seed in 1..=seeds {
        let path = dir.path().join(format!("seed_{seed}.json"));
        std::fs::write(&path, session(seed).to_string()).expect("write a session");
        let mut rng = Rng::new(seed ^ 0x5E77);
        for class in classes(seed) {
            jobs.push(
                json!({"session": path, "kind": "format", "formatter": class, "web_root": web}),
            );
            // The model class's settings: a tool choice, no stream, its
            // parameters (the ones every class has).
            let mut job =
                json!({"session": path, "kind": "request", "formatter": class, "web_root": web});
            if rng.chance(40) {
                let modes = ["auto", "none", "required", "get_weather", "no_such_tool"];
                job["tool_choice"] = json!({"mode": rng.pick(&modes)});
            }
            if rng.chance(30) {
                job["stream"] = json!(false);
            }
            if rng.chance(40) {
                let mut p = Map::new();
                if rng.chance(50) {
                    p.insert("max_tokens".into(), json!(1 + rng.below(4096)));
                }
                if rng.chance(50) {
                    p.insert("thinking_enable".into(), json!(rng.chance(50)));
                }
                job["model_kwargs"] = json!({"parameters": p});
            }
            jobs.push(job);
        }
    }
    let answers = ask_oracle(&python, &jobs);
    let raised = answers
        .values()
        .filter(|a| a.get("error").is_some() || a.get("http_error").is_some())
        .count();
    println!(
        "fuzz_v2: {seeds} sessions, {} questions to AgentScope 2.0.11: {} answered, {raised} of them errors",
        jobs.len(),
        answers.len()
    );
    assert_eq!(
        answers.len(),
        jobs.len(),
        "the oracle answers every question"
    );
    let answers = Arc::new(answers);
    let trials: Vec<Trial> = jobs
        .iter()
        .enumerate()
        .map(|(i, job)| {
            let path = PathBuf::from(job["session"].as_str().unwrap_or_default());
            let seed = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (kind, class) = (
                job["kind"].as_str().unwrap_or_default().to_string(),
                job["formatter"].as_str().unwrap_or_default().to_string(),
            );
            let settings = settings_of(job);
            let answers = Arc::clone(&answers);
            let web = web.clone();
            Trial::test(format!("fuzz_v2::{seed}::{class}::{kind}"), move || {
                let expected = answers
                    .get(&i)
                    .ok_or_else(|| fail("the oracle gave no answer"))?;
                let actual = ours(&path, &class, &kind, &web, &settings)?;
                match compare_outputs(expected, &actual) {
                    None => Ok(()),
                    Some(d) => Err(fail(format!(
                        "{kind} {class} of {}: {d}\nsession: {}",
                        path.display(),
                        std::fs::read_to_string(&path).unwrap_or_default()
                    ))),
                }
            })
        })
        .collect();
    trials::run(vec![Suite::new("fuzz_v2", Ok(trials), 1)], Vec::new())
}

/// A request job's model settings, as the oracle is given them.
fn settings_of(job: &Value) -> wire::Settings {
    wire::Settings {
        model: None,
        stream: job.get("stream").and_then(Value::as_bool),
        tool_choice: job.get("tool_choice").map(|c| v2::tools::ToolChoice {
            mode: c["mode"].as_str().unwrap_or_default().to_string(),
            tools: None,
        }),
        model_kwargs: job
            .get("model_kwargs")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        call_kwargs: Map::new(),
    }
}

/// Every job through the oracle in one process: its answers by job.
fn ask_oracle(python: &Path, jobs: &[Value]) -> HashMap<usize, Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle_v2/batch.py");
    let mut child = std::process::Command::new(python)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the oracle's python runs");
    let input = serde_json::to_vec(jobs).expect("JSON");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("the jobs are written");
    let out = child.wait_with_output().expect("the oracle finishes");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .enumerate()
        .map(|(i, l)| (i, serde_json::from_str(l).expect("an oracle line is JSON")))
        .collect()
}

/// formatscope's answer to the same question, in the oracle's shape.
fn ours(
    path: &Path,
    class: &str,
    kind: &str,
    web: &Path,
    settings: &wire::Settings,
) -> Result<Value, libtest_mimic::Failed> {
    let session: Value =
        serde_json::from_slice(&std::fs::read(path).map_err(|e| fail(e.to_string()))?)
            .map_err(|e| fail(e.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    if kind == "format" {
        let opts = Options {
            formatter: Some(class.to_string()),
            count: true,
            tools: true,
            web_roots: vec![web.to_path_buf()],
            ..Options::default()
        };
        return v2::run(&session, &dir, &opts).map_err(|e| fail(e.0));
    }
    let env = MediaEnv::new(&dir, Arc::new(WebRoot::new(vec![web.to_path_buf()])));
    let request = wire::request(
        &session,
        &env,
        class,
        settings,
        &wire::FormatterOptions::default(),
    )
    .map_err(|e| fail(e.0))?;
    Ok(v2::portable(
        Value::Object(request.to_oracle()),
        &std::path::absolute(&dir).unwrap_or(dir),
    ))
}
