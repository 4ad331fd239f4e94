//! Issue 41's last "done when": every subcommand that reads a session (or
//! a reply), run by the real binary over mutated copies of the bundled
//! test sessions, ends in a result or an error — exit 0, 1 or 2 — never a
//! panic (101), a signal or a hang.
//!
//! The mutations are seeded (the case's name holds its seed): bare `NaN`,
//! `Infinity` and `-Infinity` (Python's `json.dumps` writes them), 10,000
//! nested arrays or objects in a content field, arrays of 100,000
//! elements, invalid UTF-8 and lone surrogates in strings, truncated
//! files, huge and tiny numbers, empty objects, and a value of the wrong
//! type in a random field (and, for one small session, in every field).
//! Each case runs under `format` (1.0.21, 2.0.11, 0.1.6 and Java 2.0.2),
//! `request`, `count`, `truncate`, `tokenize`, `explain`, `lint` (each
//! release), `diff`, `legacy` and `send` (to a 127.0.0.1 server of the
//! test's own, never elsewhere; every command that could fetch media runs
//! `--offline`); replies under `response`. Each run is killed after 20 s
//! and fails the test.
//!
//! `HOSTILE_FUZZ_CASES=N` sets how many random cases (default 70; the
//! systematic ones come on top), `HOSTILE_FUZZ_SEED=S` the first seed. A
//! failing case is kept in `$CARGO_TARGET_TMPDIR/hostile_fuzz/` with the
//! command that failed.

#[path = "support/http.rs"]
mod http;
#[path = "support/rng.rs"]
mod rng;

use rng::Rng;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A run taking this long is a hang (`HOSTILE_FUZZ_LIMIT=S` changes it).
const LIMIT: Duration = Duration::from_secs(20);
/// The same for a heavy case (100,000 elements, 10,000 levels): linear
/// work on them takes up to ~25 s in a debug build on a loaded machine
/// (2.0.11's report of 1,000,000 pydantic errors for 100,000 invalid
/// blocks is 178 MB, as pydantic writes it); quadratic work takes many
/// minutes there (`explain` took 40).
const LIMIT_HEAVY: Duration = Duration::from_secs(60);

const KEY: &str = "sk-fuzz-never-sent-anywhere-else";

/// Sessions the fuzz starts from (all in the repository's tests).
const SESSIONS: [&str; 12] = [
    "tests/golden/cases/library_trip.json",
    "tests/golden/cases/thinking_blocks.json",
    "tests/golden/cases/multiple_tool_calls_one_message.json",
    "tests/golden/cases/tool_result_text_and_image.json",
    "tests/golden/cases/multi_agent_four_speakers.json",
    "tests/golden/cases/memory_state_input.json",
    "tests/golden/cases/bare_array_input.json",
    "tests/golden/cases/audio_blocks.json",
    "tests/golden/cases/tools_nested_schema.json",
    "tests/golden/cases/history_tools_history.json",
    "tests/golden/cases/chat_plain.json",
    "tests/golden/cases/image_base64.json",
];

/// Replies the fuzz starts from, and the provider each is for.
const REPLIES: [(&str, &str); 6] = [
    (
        "tests/responses/cases/anthropic_two_text_blocks_stream.json",
        "anthropic",
    ),
    (
        "tests/responses/cases/dashscope_message_string_whole.json",
        "dashscope",
    ),
    (
        "tests/responses/cases/anthropic_error_event.json",
        "anthropic",
    ),
    (
        "tests/responses/cases/dashscope_error_body.json",
        "dashscope",
    ),
    (
        "tests/responses_v2/cases/anthropic_parallel_tools.json",
        "anthropic",
    ),
    (
        "tests/responses_v2/cases/anthropic_max_tokens_empty.json",
        "anthropic",
    ),
];

const PROVIDERS: [&str; 6] = [
    "openai",
    "anthropic",
    "dashscope",
    "gemini",
    "ollama",
    "deepseek",
];
const PROVIDERS_V2: [&str; 11] = [
    "openai",
    "anthropic",
    "dashscope",
    "gemini",
    "ollama",
    "deepseek",
    "openai_response",
    "minimax",
    "moonshot",
    "xai",
    "volcengine",
];
const PROVIDERS_JAVA: [&str; 7] = [
    "openai",
    "anthropic",
    "dashscope",
    "gemini",
    "ollama",
    "deepseek",
    "glm",
];
const LEGACY_CLASSES: [&str; 5] = [
    "OpenAIFormatter",
    "AnthropicFormatter",
    "DashScopeFormatter",
    "GeminiFormatter",
    "CommonFormatter",
];
const LEGACY_METHODS: [&str; 4] = ["chat", "multi_agent", "auto", "tools"];

/// A mutated file and what it is.
struct Case {
    name: String,
    bytes: Vec<u8>,
    /// `Some(provider)` for a reply (run under `response`), else a session.
    reply: Option<(&'static str, bool)>,
    /// Heavy (10,000 levels, 100,000 elements).
    heavy: bool,
    /// Which of the commands it runs (`session_commands`): heavy cases and
    /// the fields' share them out.
    part: Option<(usize, usize)>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read(root().join(path)).expect("a bundled file");
    serde_json::from_slice(&text).expect("bundled JSON")
}

/// Every node's JSON pointer (the root's is "").
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// Raw JSON text put in place of a node (what `serde_json` cannot hold).
struct Raw(Vec<(String, String)>);

impl Raw {
    /// Replaces the node at `pointer` (or the root) by `text`, verbatim.
    fn put(&mut self, v: &mut Value, pointer: &str, text: String) {
        let mark = format!("@@fuzz{}@@", self.0.len());
        match v.pointer_mut(pointer) {
            Some(node) => *node = Value::String(mark.clone()),
            None => return,
        }
        self.0.push((format!("\"{mark}\""), text));
    }

    fn render(&self, v: &Value, pretty: bool) -> Vec<u8> {
        let mut text = if pretty {
            serde_json::to_string_pretty(v)
        } else {
            serde_json::to_string(v)
        }
        .expect("JSON");
        for (mark, raw) in &self.0 {
            text = text.replace(mark, raw);
        }
        text.into_bytes()
    }
}

const WRONG: [&str; 12] = [
    "null",
    "true",
    "0",
    "-1",
    "1.5",
    "\"\"",
    "\"text\"",
    "[]",
    "{}",
    "[null]",
    "[{}]",
    "{\"type\": 7}",
];
const NUMBERS: [&str; 12] = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "123456789012345678901234567890123456789",
    "18446744073709551616",
    "-9223372036854775809",
    "1E999999999999",
    "0.000000000000000000000000000000000000000000000000000001",
];
/// Bytes that are not UTF-8 (and escapes that are not Unicode).
const BAD_TEXT: [&[u8]; 7] = [
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf8\x88\x80\x80\x80",
    b"\\ud800",
    b"\\udc00x\\ud83d",
];

/// A heavy case runs every `HEAVY_SHARE`th command, a field's case every
/// `FIELD_SHARE`th (in turn, so the cases of a kind run them all).
const HEAVY_SHARE: usize = 3;
const FIELD_SHARE: usize = 6;

/// The mutations that keep a session small (all but 1 and 2).
const LIGHT: [usize; 7] = [0, 3, 4, 5, 6, 7, 8];

/// A pointer among `all`, preferring one whose last part is `key`.
fn pick_pointer(rng: &mut Rng, all: &[String], key: &str) -> String {
    let keyed: Vec<&String> = all
        .iter()
        .filter(|p| p.rsplit('/').next() == Some(key))
        .collect();
    if !keyed.is_empty() && rng.chance(80) {
        return rng.pick(&keyed).to_string();
    }
    if all.is_empty() {
        return String::new();
    }
    rng.pick(all).clone()
}

/// `n` copies of `item`, as a JSON array's text.
fn huge_array(item: &str, n: usize) -> String {
    let mut s = String::with_capacity(n * (item.len() + 1) + 2);
    s.push('[');
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(item);
    }
    s.push(']');
    s
}

/// One mutation of `base` by kind `kind` (the case's seed drives it).
fn mutate(base: &Value, kind: usize, rng: &mut Rng) -> (Vec<u8>, &'static str, bool) {
    let mut v = base.clone();
    let mut all = Vec::new();
    pointers(&v, String::new(), &mut all);
    let mut raw = Raw(Vec::new());
    let pretty = rng.chance(50);
    match kind {
        // Python's non-numbers, one to three of them anywhere.
        0 => {
            for _ in 0..1 + rng.below(3) {
                let p = pick_pointer(rng, &all, "text");
                let word = *rng.pick(&["NaN", "Infinity", "-Infinity"]);
                raw.put(&mut v, &p, word.into());
            }
            (raw.render(&v, pretty), "nan", false)
        }
        // 10,000 nested arrays (or objects) in a content field.
        1 => {
            let p = pick_pointer(rng, &all, "content");
            let deep = if rng.chance(50) {
                format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))
            } else {
                format!("{}1{}", "{\"a\":".repeat(10_000), "}".repeat(10_000))
            };
            raw.put(&mut v, &p, deep);
            (raw.render(&v, false), "deep", true)
        }
        // An array of 100,000 elements where one was.
        2 => {
            let key = *rng.pick(&["content", "messages", "input", "tools", "output"]);
            let p = pick_pointer(rng, &all, key);
            let item = *rng.pick(&[
                "0",
                "{}",
                "null",
                "\"x\"",
                "[]",
                "{\"type\": \"text\", \"text\": \"x\"}",
                "{\"name\": \"u\", \"role\": \"user\", \"content\": \"hi\"}",
                "{\"type\": \"image\", \"source\": {\"type\": \"url\", \"url\": \"a.png\"}}",
            ]);
            raw.put(&mut v, &p, huge_array(item, 100_000));
            (raw.render(&v, false), "huge", true)
        }
        // Invalid UTF-8 (or lone surrogates) inside strings.
        3 => {
            let mut bytes = raw.render(&v, pretty);
            for _ in 0..1 + rng.below(3) {
                let quotes: Vec<usize> = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'"')
                    .map(|(i, _)| i)
                    .collect();
                if quotes.is_empty() {
                    break;
                }
                let at = *rng.pick(&quotes) + 1;
                let bad = *rng.pick(&BAD_TEXT);
                bytes.splice(at..at, bad.iter().copied());
            }
            (bytes, "utf8", false)
        }
        // Cut short anywhere (a character too).
        4 => {
            let bytes = raw.render(&v, pretty);
            let at = rng.below(bytes.len() + 1);
            (bytes[..at].to_vec(), "truncated", false)
        }
        // Huge, tiny and odd numbers.
        5 => {
            for _ in 0..1 + rng.below(3) {
                let p = rng.pick(&all).clone();
                raw.put(&mut v, &p, rng.pick(&NUMBERS).to_string());
            }
            (raw.render(&v, pretty), "numbers", false)
        }
        // Empty objects.
        6 => {
            for _ in 0..1 + rng.below(3) {
                let p = rng.pick(&all).clone();
                raw.put(&mut v, &p, "{}".into());
            }
            (raw.render(&v, pretty), "empty", false)
        }
        // A value of the wrong type (a few of them).
        7 => {
            for _ in 0..1 + rng.below(4) {
                let p = rng.pick(&all).clone();
                raw.put(&mut v, &p, rng.pick(&WRONG).to_string());
            }
            (raw.render(&v, pretty), "wrong", false)
        }
        // Several of the light ones at once, and text around the value.
        _ => {
            for _ in 0..2 + rng.below(4) {
                let p = rng.pick(&all).clone();
                let text = match rng.below(3) {
                    0 => rng.pick(&NUMBERS).to_string(),
                    1 => rng.pick(&WRONG).to_string(),
                    _ => "{\"type\": \"text\", \"text\": NaN, \"id\": Infinity}".into(),
                };
                raw.put(&mut v, &p, text);
            }
            let mut bytes = raw.render(&v, pretty);
            match rng.below(4) {
                0 => bytes
                    .splice(0..0, b"\xEF\xBB\xBF".iter().copied())
                    .for_each(drop),
                1 => bytes.extend_from_slice(b" trailing"),
                2 => bytes.extend_from_slice(b"\n{}"),
                _ => {}
            }
            (bytes, "mixed", false)
        }
    }
}

/// The seeded random cases, then every field of a small session given a
/// value of the wrong type (and Python's NaN), then the replies.
fn cases(count: usize, heavy: usize, first_seed: u64) -> Vec<Case> {
    let bases: Vec<Value> = SESSIONS.iter().map(|p| read_json(p)).collect();
    let mut out = Vec::new();
    // The light kinds in turn (so a short run still has each), then the
    // heavy ones: deep nesting and huge arrays by turns.
    let kinds = (0..count)
        .map(|n| LIGHT[n % LIGHT.len()])
        .chain((0..heavy).map(|n| if n % 2 == 0 { 1 } else { 2 }));
    for (n, kind) in kinds.enumerate() {
        let seed = first_seed + n as u64;
        let mut rng = Rng::new(seed);
        let b = rng.below(bases.len());
        let (bytes, what, heavy) = mutate(&bases[b], kind, &mut rng);
        let base = Path::new(SESSIONS[b])
            .file_stem()
            .unwrap()
            .to_string_lossy();
        // The heavy cases of a kind run a third of the commands each.
        let part = heavy.then(|| ((n - count) / 2, HEAVY_SHARE));
        out.push(Case {
            name: format!("seed{seed}-{what}-{base}"),
            bytes,
            reply: None,
            heavy,
            part,
        });
    }
    // Every field of one small session, each in turn of the wrong type.
    let small = read_json("tests/golden/cases/multiple_tool_calls_one_message.json");
    let mut all = Vec::new();
    pointers(&small, String::new(), &mut all);
    for (i, p) in all.iter().enumerate() {
        let mut v = small.clone();
        let mut raw = Raw(Vec::new());
        let wrong = if i % 3 == 2 {
            "NaN"
        } else {
            WRONG[i % WRONG.len()]
        };
        raw.put(&mut v, p, wrong.into());
        out.push(Case {
            name: format!("field{i}-{}", p.replace('/', "_")),
            bytes: raw.render(&v, false),
            reply: None,
            heavy: false,
            part: Some((i, FIELD_SHARE)),
        });
    }
    for (i, (path, provider)) in REPLIES.iter().enumerate() {
        let base = read_json(path);
        let stream = base.is_array();
        for kind in [0, 3, 4, 5, 6, 7, 8, 2] {
            let seed = first_seed + 10_000 + (i * 10 + kind) as u64;
            let mut rng = Rng::new(seed);
            let (bytes, what, heavy) = mutate(&base, kind, &mut rng);
            out.push(Case {
                name: format!("reply{seed}-{what}-{provider}"),
                bytes,
                reply: Some((provider, stream)),
                heavy,
                part: None,
            });
        }
    }
    out
}

/// The command lines a session case runs under (`S` is its path, `U` the
/// test server's base URL); the providers drawn from the case's seed.
/// `part: Some((k, n))`: every `n`th of them from the `k`th on.
fn session_commands(rng: &mut Rng, part: Option<(usize, usize)>) -> Vec<Vec<String>> {
    let p1 = *rng.pick(&PROVIDERS);
    let p2 = *rng.pick(&PROVIDERS_V2);
    let p0 = *rng.pick(&PROVIDERS);
    let pj = *rng.pick(&PROVIDERS_JAVA);
    let class = *rng.pick(&LEGACY_CLASSES);
    let method = *rng.pick(&LEGACY_METHODS);
    let budget = (20 + rng.below(300)).to_string();
    let lines: Vec<String> = vec![
        "format S --offline".into(),
        format!("format S --offline --provider {p1} --count --tools --max-tokens {budget}"),
        format!("format S --offline --agentscope 2.0.11 --provider {p2} --tools --count"),
        format!("format S --offline --agentscope 0.1.6 --provider {p0}"),
        format!("format S --offline --agentscope java-2.0.2 --provider {pj}"),
        format!("request S --offline --provider {p1}"),
        format!("request S --offline --agentscope 2.0.11 --provider {p2} --as json"),
        format!("count S --offline --provider {p1} --json"),
        format!("truncate S --offline --provider {p1} --max-tokens {budget}"),
        format!("tokenize S --provider {p1}"),
        "tokenize S --tokenizer qwen --json".into(),
        "tokenize S --tokenizer o200k_base --show".into(),
        "explain S --offline --provider all --wire".into(),
        format!("explain S --offline --agentscope 2.0.11 --provider {p2} --json"),
        "lint S --offline --provider all --json".into(),
        format!("lint S --offline --agentscope 0.1.6 --provider {p0}"),
        "lint S --offline --agentscope 2.0.11 --provider all".into(),
        format!("lint S --offline --agentscope java-2.0.2 --provider {pj} --json"),
        format!("diff S --offline --left {p1} --right 2.0.11:{p2}"),
        format!("diff S --offline --left 0.1.6:{p0} --right java-2.0.2:{pj}:wire --json"),
        format!("legacy S --formatter {class} --method {method}"),
        "legacy S --model gpt-4o --method auto --raw".into(),
        "send S --offline --provider openai --no-stream --base-url U/v1 --json".into(),
    ];
    // A heavy case (or a field's case): a part of them, so that the cases
    // of a kind share the list; `--provider all` is one provider there.
    lines
        .into_iter()
        .enumerate()
        .filter(|(i, _)| part.is_none_or(|(k, of)| i % of == k % of))
        .map(|(_, l)| {
            let l = match part {
                Some(_) => l.replace("--provider all", &format!("--provider {p1}")),
                None => l,
            };
            l.split(' ').map(str::to_string).collect()
        })
        .collect()
}

/// How a run ended, when it ended badly.
fn run(args: &[String], dir: &Path, limit: Duration) -> Result<Duration, String> {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(dir)
        .env("FORMATSCOPE_HISTORY", "off")
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("OPENAI_API_KEY", KEY)
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("DASHSCOPE_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OLLAMA_HOST")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("did not start: {e}"))?;
    let mut pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        // The first 64 KB (what is said), the rest read and dropped.
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) if kept.len() < 65_536 => kept.extend_from_slice(&buf[..n]),
                Ok(_) => {}
            }
        }
        kept
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                let _ = reader.join();
                return Err(format!("hung: killed after {limit:?}"));
            }
            Err(e) => return Err(format!("wait: {e}")),
        }
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let said = || stderr.chars().take(1_500).collect::<String>();
    if stderr.contains("panicked") {
        return Err(format!("panicked ({status}): {}", said()));
    }
    match status.code() {
        Some(0..=2) => Ok(started.elapsed()),
        Some(code) => Err(format!("exit {code}: {}", said())),
        None => Err(format!("killed by a signal ({status}): {}", said())),
    }
}

/// The reply the test's server gives every send: a plain OpenAI answer.
fn reply() -> http::Reply {
    http::Reply::Bytes(
        200,
        vec![("Content-Type".into(), "application/json".into())],
        br#"{"id": "chatcmpl-f", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."},
            "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}"#
            .to_vec(),
    )
}

#[test]
fn every_subcommand_over_mutated_sessions_ends_without_a_panic() {
    let count: usize = std::env::var("HOSTILE_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(70);
    let first_seed: u64 = std::env::var("HOSTILE_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(41_000);
    let heavy: usize = std::env::var("HOSTILE_FUZZ_HEAVY")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2 * HEAVY_SHARE);
    let limit = std::env::var("HOSTILE_FUZZ_LIMIT")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(LIMIT, Duration::from_secs);
    let server = http::Server::start(|_| reply());
    let base_url = server.url("");
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let cases = cases(count, heavy, first_seed);
    // Each case's file, and its command lines.
    let mut jobs: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let file = dir.join(format!("case{i}.json"));
        std::fs::write(&file, &case.bytes).expect("write");
        let path = file.display().to_string();
        let lines = match case.reply {
            Some((provider, stream)) => {
                let mut l = vec!["response".into(), path.clone(), "--provider".into()];
                l.push(provider.into());
                if stream {
                    l.push("--stream".into());
                }
                vec![l]
            }
            None => {
                let mut rng = Rng::new(first_seed ^ (i as u64) << 8);
                session_commands(&mut rng, case.part)
                    .into_iter()
                    .map(|l| {
                        l.into_iter()
                            .map(|a| match a.as_str() {
                                "S" => path.clone(),
                                "U/v1" => format!("{base_url}/v1"),
                                _ => a,
                            })
                            .collect()
                    })
                    .collect()
            }
        };
        jobs.extend(lines.into_iter().map(|l| (i, l)));
    }
    // The heavy ones first: the long runs overlap the many short ones.
    jobs.sort_by_key(|(i, _)| !cases[*i].heavy);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let times = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::SeqCst);
                let Some((case, args)) = jobs.get(j) else {
                    break;
                };
                let limit = if cases[*case].heavy {
                    limit.max(LIMIT_HEAVY)
                } else {
                    limit
                };
                match run(args, dir, limit) {
                    Ok(took) => times.lock().unwrap().push((took, j)),
                    Err(why) => failures.lock().unwrap().push((*case, args.clone(), why)),
                }
            });
        }
    });
    let took = started.elapsed();
    let mut times = times.into_inner().unwrap();
    times.sort_by_key(|t| std::cmp::Reverse(t.0));
    eprintln!(
        "hostile fuzz: {} runs over {} cases ({} heavy) on {workers} threads in {took:.1?}; {} sends reached the test's server; the slowest runs:",
        jobs.len(),
        cases.len(),
        cases.iter().filter(|c| c.heavy).count(),
        server.count(),
    );
    for (t, j) in times.iter().take(8) {
        let (case, args) = &jobs[*j];
        eprintln!(
            "  {t:.1?}  {} ({})",
            args[..args.len().min(6)].join(" "),
            cases[*case].name
        );
    }
    let failures = failures.into_inner().unwrap();
    if failures.is_empty() {
        return;
    }
    // Kept for reproduction: the case's file and the command.
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile_fuzz");
    let _ = std::fs::create_dir_all(&keep);
    let mut report = String::new();
    for (case, args, why) in &failures {
        let c = &cases[*case];
        let kept: PathBuf = keep.join(format!("{}.json", c.name));
        let _ = std::fs::write(&kept, &c.bytes);
        report.push_str(&format!(
            "\n{}: `formatscope {}`: {why}\n  (kept as {})",
            c.name,
            args.join(" "),
            kept.display()
        ));
    }
    panic!("{} of {} runs failed:{report}", failures.len(), jobs.len());
}

/// `lint --agentscope 0.1.6` had never been run on Python's non-numbers:
/// every provider of 0.1.6, and every release's lint, on sessions with
/// `NaN`, `Infinity` and `-Infinity` where a formatter takes them (tool
/// inputs and schemas, metadata) and where it raises on them (content,
/// names, roles), end with findings (exit 0 or 1), never a panic.
#[test]
fn lint_under_every_release_takes_nan_and_infinity() {
    // Formatted by every release: the numbers go through to the request.
    let formats = r#"{"provider": "gemini", "mode": "chat", "model": "gemini-2.5-flash",
 "tools": [{"type": "function", "function": {"name": "search", "description": "Find.",
   "parameters": {"type": "object", "properties": {"near": {"type": "number", "minimum": -Infinity,
   "default": NaN}}, "required": []}}}],
 "messages": [
  {"name": "system", "role": "system", "content": "You are Friday."},
  {"name": "Bob", "role": "user", "content": [{"type": "text", "text": "Find it."}], "timestamp": NaN},
  {"name": "Friday", "role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "search",
   "input": {"near": [NaN, Infinity, -Infinity], "radius": 1e400}}]},
  {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "1", "name": "search",
   "output": [{"type": "text", "text": "found"}]}], "metadata": {"score": NaN}},
  {"name": "Bob", "role": "user", "content": "Thanks."}
 ]}"#;
    // Where AgentScope raises on them.
    let raises = r#"{"provider": "gemini", "mode": "chat",
 "tools": [{"type": "function", "function": {"name": "search", "description": NaN,
   "parameters": {"type": "object", "properties": {}, "required": [Infinity]}}}],
 "messages": [
  {"name": Infinity, "role": "user", "content": [{"type": "text", "text": -Infinity},
   {"type": "image", "source": {"type": "url", "url": NaN}},
   {"type": "audio", "source": {"type": "base64", "media_type": NaN, "data": Infinity}}]},
  {"name": "Friday", "role": "assistant", "content": [{"type": "tool_use", "id": NaN, "name": "search",
   "input": NaN}, {"type": "thinking", "thinking": NaN}]},
  {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": NaN, "name": "search",
   "output": [{"type": "text", "text": Infinity}, NaN]}]},
  {"name": "Bob", "role": NaN, "content": NaN}
 ]}"#;
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, session) in [("formats", formats), ("raises", raises)] {
        let file = tmp.path().join(format!("{name}.json"));
        std::fs::write(&file, session).expect("write");
        let path = file.display().to_string();
        let lines: Vec<Vec<String>> = PROVIDERS
            .iter()
            .map(|p| format!("lint S --offline --agentscope 0.1.6 --provider {p}"))
            .chain([
                "lint S --offline --provider all --json".to_string(),
                "lint S --offline --agentscope 2.0.11 --provider all".to_string(),
                "lint S --offline --agentscope java-2.0.2 --provider all".to_string(),
                "legacy S --formatter GeminiFormatter --method chat".to_string(),
                "legacy S --formatter CommonFormatter --method multi_agent".to_string(),
            ])
            .map(|l| {
                l.split(' ')
                    .map(|a| {
                        if a == "S" {
                            path.clone()
                        } else {
                            a.to_string()
                        }
                    })
                    .collect()
            })
            .collect();
        for args in &lines {
            if let Err(why) = run(args, tmp.path(), LIMIT) {
                panic!("{name}: `formatscope {}`: {why}", args.join(" "));
            }
        }
    }
}
