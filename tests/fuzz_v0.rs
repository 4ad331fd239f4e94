//! A differential fuzz against the real AgentScope 0.1.6 (the legacy
//! `agentscope.formatters` API): random realistic v0 sessions (seeded; each
//! trial names its seed, class and method), each run through every class ×
//! `format_chat` / `format_multi_agent` / `format_auto` (CommonFormatter's
//! chat also with `require_alternative` / `require_user_last`),
//! `format_tools_json_schemas` and `is_supported_model`, by formatscope
//! (in-process, `formatscope legacy`'s core) and by AgentScope through the
//! reference team's oracle (copies in tests/oracle_v0, run in one Python
//! process by batch.py), compared as the golden-v0 suite compares (JSON
//! values with ints and floats apart, warnings aside, errors by stage, type
//! and message up to the first embedded Python repr, pydantic's reports by
//! their first line).
//!
//! It needs AgentScope 0.1.6: `bash tests/oracle_v0/setup.sh` makes the
//! venv (target/oracle-v0, from the package index) and prints its python;
//! name it in `FORMATSCOPE_ORACLE_V0`. Without it the suite says so and
//! runs nothing. `FUZZ_SEEDS=N` (default 60) sets how many sessions;
//! `FUZZ_WARNINGS=1` compares AgentScope's warnings too.

#[path = "support/rng.rs"]
mod rng;
mod support;
#[path = "support/trials.rs"]
mod trials;

use formatscope::legacy::{self, ChatOptions, Class, Method};
use formatscope::media::{MediaEnv, NoNetwork};
use rng::Rng;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::compare_outputs;

const NAMES: [&str; 9] = [
    "Alice", "Bob", "Friday", "李雷", "user", "agent_7", "O'Brien", "", "Zoë",
];
const WORDS: [&str; 31] = [
    "library",
    "weather",
    "é",
    "北京",
    "📚",
    "\"quoted\"",
    "it's",
    "line\nbreak",
    "tab\there",
    "cr\rlf",
    "C:\\temp",
    "👩\u{200d}💻",
    "\u{2028}",
    "\u{1}\u{1f}\u{7f}\u{85}",
    "\u{a0}nbsp\u{3000}",
    "soft\u{ad}hyphen\u{feff}",
    "\u{e000}\u{e0001}",
    "e\u{301}",
    "𝔘𝔫𝔦",
    "مرحبا",
    "\\'\"",
    "## Conversation History",
    "<tool_use>",
    "{'a': 1}",
    "None",
    "42",
    "",
    " ",
    "ok",
    "Bob: hi",
    "end\n",
];
/// Every word the sessions draw from: with code points Python 3.11's
/// Unicode 14.0 leaves unassigned, which `repr()` escapes (U+0378, the
/// Unicode 15 emoji 🫨 U+1FAE8 and 🩷 U+1FA77).
fn words() -> &'static [&'static str] {
    static WORDS_USED: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    WORDS_USED.get_or_init(|| {
        let mut w = WORDS.to_vec();
        w.extend(["\u{378}", "🫨 🩷"]);
        w
    })
}

/// Numbers as JSON text (Python reads `.`/`e` ones as floats): big ints,
/// `-0`, subnormals, the largest float, ones that round, written oddly.
const NUMBERS: &str = "0 1 -1 42 0.1 1e5 1E5 -0 -0.0 2.0 0.10 1e20 1.5e-7 1e-05 0.0001 1e16 \
    1000000000000000.0 123456789012345678901234567890 -3.25 3.141592653589793 25.5 1e308 \
    5e-324 1.7976931348623157e308 0.30000000000000004 1e22 123456789.123456789 \
    9007199254740993 -1e-300 1.0e+2 1E-2 0e0 -0e0 1e-7 12345678901234567.0";
const TOOLS: [&str; 4] = ["get_weather", "search", "计算", "run_code"];
/// Media URLs: on the web (with and without a known extension), local
/// files that exist (under the session's folder, relative and absolute),
/// and ones that do not. `ABS/` is the session's folder.
const WEB: [&str; 12] = [
    "https://example.com/cat.png",
    "https://example.com/photo.JPG",
    "HTTPS://EXAMPLE.COM/UPPER.JPEG",
    "https://example.com/anim.gif",
    "https://example.com/pic.webp",
    "https://example.com/fox.png?size=large",
    "https://example.com/page",
    "https://example.com/voice.mp3",
    "https://example.com/clip.mp4",
    "https://example.com/doc.pdf",
    "https://example.com/pic.bmp",
    "http://例子.测试/图片.png",
];
const LOCAL: [&str; 15] = [
    "media/pixel.png",
    "./media/pixel.png",
    "media/PIXEL.PNG",
    "media/photo.jpg",
    "media/photo.jpeg",
    "media/a.b.c.jpeg",
    "media/anim.gif",
    "media/pic.webp",
    "media/pic.bmp",
    "media/sound.wav",
    "media/voice.mp3",
    "media/clip.mp4",
    "media/doc.pdf",
    "ABS/media/pixel.png",
    "ABS/media/photo.jpg",
];
const ODD: [&str; 8] = [
    "media/missing.png",
    "missing.jpg",
    "media",
    "file://media/pixel.png",
    "file:///nonexistent/x.png",
    "data:image/png;base64,iVBORw0KGgo=",
    "C:/x.png",
    "media/missing.mp3",
];
/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xfc, 0xff, 0x9f, 0xa1,
    0x1e, 0x00, 0x07, 0x82, 0x02, 0x7f, 0x3d, 0xc8, 0x48, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The media the sessions point at, in `dir/media`: a real PNG, and a few
/// bytes for the rest (only their existence and bytes matter to 0.1.6).
fn write_media(dir: &Path) {
    let media = dir.join("media");
    std::fs::create_dir_all(&media).expect("the media folder");
    for name in ["pixel.png", "PIXEL.PNG"] {
        std::fs::write(media.join(name), PNG).expect("a PNG");
    }
    for (i, name) in [
        "photo.jpg",
        "photo.jpeg",
        "a.b.c.jpeg",
        "anim.gif",
        "pic.webp",
        "pic.bmp",
        "sound.wav",
        "voice.mp3",
        "clip.mp4",
        "doc.pdf",
    ]
    .iter()
    .enumerate()
    {
        let bytes: Vec<u8> = (0..=(7 + i as u8)).map(|b| b.wrapping_mul(37)).collect();
        std::fs::write(media.join(name), bytes).expect("a media file");
    }
}

fn text(rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    (0..n)
        .map(|_| *rng.pick(words()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn number(rng: &mut Rng) -> Value {
    let numbers: Vec<&str> = NUMBERS.split_whitespace().collect();
    let n = numbers[rng.below(numbers.len())];
    serde_json::from_str(n).expect("a JSON number")
}

/// Any JSON value, objects and arrays nested up to `depth`.
fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 6 } else { 9 }) {
        0 | 1 => number(rng),
        2 => json!(text(rng)),
        3 => json!(rng.chance(50)),
        4 => Value::Null,
        5 => json!(rng.pick(words())),
        6 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => object(rng, depth - 1),
    }
}

fn object(rng: &mut Rng, depth: usize) -> Value {
    let mut m = Map::new();
    for _ in 0..rng.below(4) {
        m.insert(text(rng), value(rng, depth));
    }
    Value::Object(m)
}

fn media_url(rng: &mut Rng, dir: &Path) -> String {
    let url = match rng.below(20) {
        0..=8 => *rng.pick(&WEB),
        9..=16 => *rng.pick(&LOCAL),
        _ => *rng.pick(&ODD),
    };
    url.replace("ABS/", &format!("{}/", dir.display()))
}

/// One content block; `calls` are the tool-call ids so far.
fn block(rng: &mut Rng, dir: &Path, calls: &mut Vec<String>, role: &str) -> Value {
    match rng.below(20) {
        0..=7 => {
            let mut b = json!({"type": "text", "text": text(rng)});
            if rng.chance(3) {
                b = json!({"type": "text"});
            }
            if rng.chance(10) {
                b["cache_control"] = json!({"type": "ephemeral"});
            }
            b
        }
        8..=12 => {
            let kinds = ["image", "image", "image", "audio", "video", "file"];
            let mut b = json!({"type": rng.pick(&kinds), "url": media_url(rng, dir)});
            if rng.chance(3) {
                b = json!({"type": "image"});
            }
            b
        }
        13..=15 if role != "user" || rng.chance(30) => {
            let id = format!("call_{}", calls.len() + 1);
            calls.push(id.clone());
            let input = object(rng, 2);
            if rng.chance(30) {
                // Keys in another order, and an extra one: validation
                // rebuilds the block.
                json!({"input": input, "name": rng.pick(&TOOLS), "id": id, "type": "tool_use", "extra": 1})
            } else {
                json!({"type": "tool_use", "id": id, "name": rng.pick(&TOOLS), "input": input})
            }
        }
        _ => {
            let id = match calls.is_empty() || rng.chance(10) {
                true => "call_x".to_string(),
                false => rng.pick(calls).clone(),
            };
            let output = match rng.below(5) {
                0 => json!(text(rng)),
                1 => json!([{"type": "text", "text": text(rng)}]),
                2 => object(rng, 2),
                _ => value(rng, 2),
            };
            let mut b = json!({"type": "tool_result", "id": id, "output": output});
            match rng.below(4) {
                0 => {}
                1 => b["name"] = Value::Null,
                _ => b["name"] = json!(rng.pick(&TOOLS)),
            }
            b
        }
    }
}

/// One v0 MSG object (formatters-v0.md §1.2), sometimes one AgentScope
/// refuses (a `tool` role, a `thinking` block, `"text": null`, no role).
fn msg(rng: &mut Rng, dir: &Path, calls: &mut Vec<String>) -> Value {
    let role = match rng.below(20) {
        0..=2 => "system",
        3..=11 => "user",
        _ => "assistant",
    };
    let name = match role {
        "system" if rng.chance(70) => "system",
        "assistant" if rng.chance(50) => "Friday",
        _ => *rng.pick(&NAMES),
    };
    let content = match rng.below(20) {
        0..=5 => json!(text(rng)),
        6..=17 => Value::Array(
            (0..1 + rng.below(4))
                .map(|_| block(rng, dir, calls, role))
                .collect(),
        ),
        18 => {
            let odd = [json!(null), json!(7), json!(2.5), json!(true), json!("")];
            rng.pick(&odd).clone()
        }
        _ => object(rng, 1),
    };
    let mut m = json!({"name": name, "role": role, "content": content});
    if rng.chance(8) {
        let url = if rng.chance(50) {
            json!(media_url(rng, dir))
        } else {
            Value::Array(
                (0..1 + rng.below(3))
                    .map(|_| json!(media_url(rng, dir)))
                    .collect(),
            )
        };
        m["url"] = url;
    }
    if rng.chance(10) {
        m["metadata"] = object(rng, 1);
    }
    if rng.chance(10) {
        m["id"] = json!("f1d2d2f924e986ac86fdf7b36c94bcdf");
        m["timestamp"] = json!("2025-07-04 10:00:00");
    }
    if rng.chance(5) {
        // As Msg.to_dict() writes it (a memory export).
        let mut s = json!({"__module__": "agentscope.message.msg", "__name__": "Msg",
            "id": "0a1b2c", "name": name, "role": role, "content": m["content"].clone(),
            "metadata": m.get("metadata").cloned().unwrap_or(Value::Null),
            "timestamp": "2025-07-04 10:00:00"});
        if rng.chance(10) {
            s["extra"] = json!(1);
        }
        return s;
    }
    if rng.chance(2) {
        match rng.below(4) {
            0 => m["role"] = json!("tool"),
            1 => m["content"] = json!([{"type": "thinking", "thinking": "hmm"}]),
            2 => m["content"] = json!([{"type": "text", "text": null}]),
            _ => {
                m.as_object_mut().map(|o| o.remove("role"));
            }
        }
    }
    m
}

/// One tool schema, sometimes one a class refuses (§8).
fn schema(rng: &mut Rng, name: &str) -> Value {
    let mut s = json!({"type": "function", "function": {"name": name,
        "description": text(rng),
        "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": text(rng)},
            "days": {"type": "integer", "minimum": 1, "default": number(rng)}}, "required": ["city"]}}});
    if rng.chance(20) {
        s["function"]
            .as_object_mut()
            .map(|f| f.remove("description"));
    }
    if rng.chance(15) {
        s["function"]
            .as_object_mut()
            .map(|f| f.remove("parameters"));
    }
    if rng.chance(10) {
        s["strict"] = json!(true);
    }
    if rng.chance(10) {
        s = match rng.below(6) {
            0 => json!({"type": "tool", "function": {"name": name}}),
            1 => json!({"function": {"name": name, "description": null}}),
            2 => json!({"type": "function", "function": {"description": text(rng)}}),
            3 => json!(text(rng)),
            4 => json!({"type": "function", "function": ["name"]}),
            _ => json!({"type": "function", "function": "name"}),
        };
    }
    s
}

/// One random v0 session (formatters-v0.md §1.1): its `messages` are the
/// argument list (MSGs, sometimes `null`, a list of MSGs, an empty list,
/// a string), with `tools` and `models` sometimes.
fn session(seed: u64, dir: &Path) -> Value {
    let mut rng = Rng::new(seed);
    let mut calls = Vec::new();
    let mut args = Vec::new();
    if rng.chance(70) {
        args.push(json!({"name": "system", "role": "system", "content": text(&mut rng)}));
    }
    for _ in 0..rng.below(8) {
        let arg = match rng.below(50) {
            0 => Value::Null,
            1 | 2 => Value::Array(
                (0..1 + rng.below(2))
                    .map(|_| msg(&mut rng, dir, &mut calls))
                    .collect(),
            ),
            3 => json!([]),
            4 if rng.chance(30) => json!(text(&mut rng)),
            _ => msg(&mut rng, dir, &mut calls),
        };
        args.push(arg);
    }
    let mut s = json!({"title": format!("fuzz_v0 seed {seed}"), "messages": args});
    if rng.chance(50) {
        let names = ["get_weather", "search", "get_weather", "计算"];
        let n = 1 + rng.below(3);
        let schemas: Vec<(String, Value)> = (0..n)
            .map(|_| {
                let name = rng.pick(&names).to_string();
                let sc = schema(&mut rng, &name);
                (name, sc)
            })
            .collect();
        s["tools"] = match rng.below(10) {
            0..=4 => Value::Array(schemas.into_iter().map(|(_, v)| v).collect()),
            5..=8 => Value::Object(schemas.into_iter().collect()),
            _ => json!(text(&mut rng)),
        };
    }
    if rng.chance(30) {
        let models = [
            "gpt-4o",
            "o1-preview",
            "o3",
            "claude-3-5-sonnet",
            "claude-sonnet-4",
            "qwen-max",
            "qwen2.5-72b",
            "gemini-2.5-flash",
            "GPT-4o",
            " gpt-4o",
            "gpt-",
            "",
            "llama3",
            "gpt-4o\n",
        ];
        s["models"] = Value::Array(
            (0..1 + rng.below(5))
                .map(|_| json!(rng.pick(&models)))
                .collect(),
        );
    }
    s
}

/// The questions a session gets: every class × chat / multi_agent / auto
/// (CommonFormatter's chat with each option pair), and tools and
/// is_supported_model when the session has them.
fn jobs_for(path: &Path, session: &Value) -> Vec<Value> {
    let mut jobs = Vec::new();
    for class in Class::ALL {
        let c = class.name();
        for method in ["chat", "multi_agent", "auto"] {
            if class == Class::Common && method == "chat" {
                for (alt, last) in [(false, false), (true, false), (false, true), (true, true)] {
                    jobs.push(json!({"session": path, "formatter": c, "method": method,
                        "options": {"require_alternative": alt, "require_user_last": last}}));
                }
            } else {
                jobs.push(json!({"session": path, "formatter": c, "method": method}));
            }
        }
        if session.get("tools").is_some() {
            jobs.push(json!({"session": path, "formatter": c, "method": "tools"}));
        }
        if session.get("models").is_some() {
            jobs.push(json!({"session": path, "formatter": c, "method": "is_supported_model"}));
        }
    }
    jobs
}

/// A job's trial name: `v0_seed_17_OpenAIFormatter_format_auto`.
fn trial_name(seed: u64, job: &Value) -> String {
    let class = job["formatter"].as_str().unwrap_or_default();
    let method = match job["method"].as_str().unwrap_or_default() {
        "tools" => "format_tools_json_schemas".to_string(),
        "is_supported_model" => "is_supported_model".to_string(),
        m => format!("format_{m}"),
    };
    let mut name = format!("v0_seed_{seed}_{class}_{method}");
    for opt in ["require_alternative", "require_user_last"] {
        if job["options"][opt] == json!(true) {
            name.push('_');
            name.push_str(opt);
        }
    }
    name
}

fn oracle() -> Option<PathBuf> {
    std::env::var_os("FORMATSCOPE_ORACLE_V0")
        .map(PathBuf::from)
        .filter(|p| p.exists())
}

/// One question: its trial name, the job and AgentScope's answer.
struct Case {
    name: String,
    job: Value,
    expected: Value,
}

/// The sessions written, every question asked of the oracle (one
/// process); `None`, having said so, when there is no oracle.
fn prepare() -> Option<Vec<Case>> {
    let Some(python) = oracle() else {
        println!("fuzz_v0: no AgentScope 0.1.6 (set FORMATSCOPE_ORACLE_V0 to the python `bash tests/oracle_v0/setup.sh` prints); nothing run");
        return None;
    };
    let seeds: u64 = std::env::var("FUZZ_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    // The sessions stay there after the run (each failure names its file);
    // canonical, so the oracle's `<SESSION_DIR>` rewriting sees our path.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_v0");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the sessions' folder");
    let dir = dir.canonicalize().expect("the sessions' folder");
    write_media(&dir);
    let mut jobs = Vec::new();
    let mut names = Vec::new();
    for seed in 1..=seeds {
        let path = dir.join(format!("seed_{seed}.json"));
        let s = session(seed, &dir);
        std::fs::write(&path, s.to_string()).expect("write a session");
        for job in jobs_for(&path, &s) {
            names.push(trial_name(seed, &job));
            jobs.push(job);
        }
    }
    let started = std::time::Instant::now();
    let mut answers = ask_oracle(&python, &jobs);
    let raised = answers
        .values()
        .filter(|a| a.get("error").is_some())
        .count();
    println!(
        "fuzz_v0: {seeds} sessions, {} questions to AgentScope 0.1.6: {} answered in {:.1}s, {raised} of them errors",
        jobs.len(),
        answers.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        answers.len(),
        jobs.len(),
        "the oracle answers every question"
    );
    Some(
        jobs.into_iter()
            .zip(names)
            .enumerate()
            .map(|(i, (job, name))| Case {
                name,
                job,
                expected: answers.remove(&i).unwrap_or(Value::Null),
            })
            .collect(),
    )
}

/// One question: formatscope's answer against AgentScope's.
fn check(case: &Case) -> Result<(), String> {
    let warnings = std::env::var_os("FUZZ_WARNINGS").is_some_and(|v| v == "1");
    let job = &case.job;
    let actual = ours(job)?;
    let path = job["session"].as_str().unwrap_or_default();
    match differ(&case.expected, &actual, warnings) {
        None => Ok(()),
        Some(d) => Err(format!(
            "{} {} {} of {path}: {d}\n  expected {}\n  actual   {}\nsession: {}",
            job["formatter"].as_str().unwrap_or_default(),
            job["method"].as_str().unwrap_or_default(),
            job.get("options").unwrap_or(&json!({})),
            comparable(&case.expected),
            comparable(&actual),
            std::fs::read_to_string(path).unwrap_or_default()
        )),
    }
}

/// With `harness = false` (Cargo.toml's `[[test]] name = "fuzz_v0"`): one
/// libtest-mimic trial per question, named after its seed, class and
/// method, so `cargo test --test fuzz_v0 -- v0_seed_17_` runs one session.
fn main() {
    use libtest_mimic::Trial;
    use trials::{fail, Suite};
    let Some(cases) = prepare() else {
        trials::run(Vec::new(), Vec::new())
    };
    let trials: Vec<Trial> = cases
        .into_iter()
        .map(|case| Trial::test(case.name.clone(), move || check(&case).map_err(fail)))
        .collect();
    trials::run(vec![Suite::new("fuzz_v0", Ok(trials), 1)], Vec::new())
}

/// golden-v0's verdict (tests/legacy.rs, tools/compare.py): the shared
/// comparator on both sides with pydantic's reports cut to their first
/// line, then the whole objects (formatter, method, options, auto_branch
/// next to an error too); warnings only when asked.
fn differ(expected: &Value, actual: &Value, warnings: bool) -> Option<String> {
    for key in ["usage_error", "oracle_crash"] {
        if let Some(e) = expected.get(key) {
            return Some(format!("the oracle could not answer: {e}"));
        }
    }
    let (e, a) = (comparable(expected), comparable(actual));
    if let Some(d) = compare_outputs(&e, &a) {
        return Some(d);
    }
    if e != a {
        let keys = ["formatter", "method", "options", "auto_branch"];
        let k = keys.iter().find(|k| e.get(**k) != a.get(**k));
        return Some(format!("{} differs", k.unwrap_or(&"the output")));
    }
    let w = |v: &Value| v.get("warnings").cloned().unwrap_or(json!([]));
    if warnings && w(expected) != w(actual) {
        return Some(format!("warnings {} != {}", w(actual), w(expected)));
    }
    None
}

/// tests/legacy.rs's `message_key`: pydantic's report by its first line,
/// other messages up to the first embedded Python repr.
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
            let kind = m.get("error_type").and_then(Value::as_str).unwrap_or("");
            let out = m
                .iter()
                .filter(|(k, _)| k.as_str() != "warnings")
                .map(|(k, x)| match (k.as_str(), x) {
                    ("error", Value::String(s)) => (k.clone(), json!(message_key(kind, s))),
                    _ => (k.clone(), comparable(x)),
                })
                .collect();
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

/// Every job through the oracle in one process: its answers by job.
fn ask_oracle(python: &Path, jobs: &[Value]) -> HashMap<usize, Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle_v0/batch.py");
    let mut child = std::process::Command::new(python)
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the oracle's python runs");
    let input = serde_json::to_vec(jobs).expect("JSON");
    let mut stdin = child.stdin.take().expect("stdin");
    // Written from a thread: the answers fill the pipe meanwhile.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("the oracle finishes");
    writer
        .join()
        .expect("the writer")
        .expect("the jobs are written");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .enumerate()
        .map(|(i, l)| (i, serde_json::from_str(l).expect("an oracle line is JSON")))
        .collect()
}

/// formatscope's answer to the same question, in the oracle's shape:
/// `formatscope legacy SESSION --formatter CLASS --method METHOD`'s core
/// (the session read as Python's `json` reads it).
fn ours(job: &Value) -> Result<Value, String> {
    let path = PathBuf::from(job["session"].as_str().unwrap_or_default());
    let bytes = formatscope::session::read_session_bytes(&path).map_err(|e| e.to_string())?;
    let mut parsed = formatscope::json::parse(&bytes, Default::default())
        .map_err(|e| format!("{}: {e}", path.display()))?
        .value;
    formatscope::py::normalize_numbers(&mut parsed);
    let session = legacy::session_object(&parsed);
    let class =
        Class::from_name(job["formatter"].as_str().unwrap_or_default()).ok_or("unknown class")?;
    let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let method = job["method"].as_str().unwrap_or_default();
    let out = if method == "is_supported_model" {
        let models: Vec<String> = session["models"]
            .as_array()
            .map(|m| m.iter().map(formatscope::py::py_str).collect())
            .unwrap_or_default();
        legacy::supported(class, &models)
    } else {
        let method = Method::from_name(method).ok_or("unknown method")?;
        let options = job.get("options").map(|o| ChatOptions {
            require_alternative: o["require_alternative"] == json!(true),
            require_user_last: o["require_user_last"] == json!(true),
        });
        let env = MediaEnv::new(&dir, Arc::new(NoNetwork));
        legacy::run(&session, class, method, options, &env).map_err(|e| e.to_string())?
    };
    // Absolute paths as the oracle writes them.
    Ok(formatscope::reference::v2::portable(out, &dir))
}
