//! `formatscope lint`: one small session per rule (tests/lint/cases/, made
//! by scripts/lint-cases.py), each with its exact findings: rule, severity,
//! message and block, line and column in the file. Sessions over the
//! providers' size limits are generated here. The AgentScope behaviours the
//! rules describe were checked with the reference oracle: a thinking block
//! is dropped by OpenAI, a .jpg goes out as data:image/jpg, truncation keeps
//! a second result of a dropped call.

use formatscope::lint::{Severity, RULES};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lint/cases")
        .join(format!("{name}.json"))
}

/// Runs the binary: (exit code, findings).
fn lint(path: &Path, extra: &[&str]) -> (i32, Vec<Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("lint")
        .arg(path)
        .arg("--json")
        .args(extra)
        .output()
        .expect("the binary runs");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (
        out.status.code().unwrap_or(-1),
        v["findings"].as_array().cloned().unwrap_or_default(),
    )
}

/// (rule, severity, message, block, line, column)
type Expected = (
    &'static str,
    &'static str,
    Option<u64>,
    Option<u64>,
    Option<u64>,
    Option<u64>,
);

/// A case file and the findings it gives.
type Case = (&'static str, &'static [Expected]);

#[rustfmt::skip]
const CASES: &[Case] = &[
    ("raises_unknown_role", &[("agentscope.raises", "error", Some(1), None, Some(9), Some(5))]),
    ("block_dropped_thinking", &[("agentscope.block-dropped", "warning", Some(2), Some(0), Some(23), Some(9))]),
    ("image_jpg", &[("agentscope.image-jpg-media-type", "warning", Some(1), Some(1), Some(17), Some(9))]),
    ("tool_result_media", &[("agentscope.tool-result-media-as-path", "warning", Some(3), Some(0), Some(37), Some(9))]),
    ("gemini_history", &[("agentscope.gemini-history-no-newline", "info", Some(1), None, Some(10), Some(5))]),
    ("system_not_first", &[("agentscope.system-not-first", "warning", Some(2), None, Some(19), Some(5))]),
    ("tool_result_without_call", &[("provider.tool-result-without-call", "error", Some(2), Some(0), Some(23), Some(9))]),
    ("tool_call_without_result", &[("provider.tool-call-without-result", "error", Some(2), Some(0), Some(23), Some(9))]),
    ("tool_name", &[("provider.tool-name", "error", None, None, Some(7), Some(17))]),
    ("speaker_name", &[("provider.speaker-name", "error", Some(1), None, Some(9), Some(5))]),
    ("first_turn_assistant", &[("provider.first-turn-user", "warning", Some(1), None, Some(9), Some(5))]),
    ("consecutive_roles", &[("provider.consecutive-roles", "info", Some(2), None, Some(19), Some(5))]),
    ("empty_text", &[("provider.empty-text", "error", Some(1), None, Some(9), Some(5))]),
    ("truncation_drops", &[("budget.truncation-drops", "info", Some(1), None, Some(10), Some(5))]),
    ("truncation_orphan", &[
        ("budget.truncation-orphans-tool-result", "error", Some(4), None, Some(46), Some(5)),
        ("budget.truncation-drops", "info", Some(1), None, Some(10), Some(5)),
    ]),
    ("does_not_fit", &[("budget.does-not-fit", "error", None, None, None, None)]),
    ("clean", &[]),
];

/// Upgrade findings: the same sessions under `--agentscope 2.0.11` (each
/// formats under 1.0.21). What 2.0.11 makes of each was checked with the
/// 2.x oracle, oracle_v2.py: `name: null` fails Msg validation, a .wav is
/// guessed as audio/x-wav, a file without extension is
/// application/octet-stream and skipped, Anthropic drops thinking without
/// a signature, a user message's tool result moves to an assistant one.
#[rustfmt::skip]
const V2_CASES: &[Case] = &[
    ("v2_raises_name_null", &[("v2.raises", "error", Some(1), None, Some(9), Some(5))]),
    ("v2_audio_wav", &[("v2.audio-x-wav", "error", Some(1), Some(1), Some(17), Some(9))]),
    ("v2_media_dropped", &[("v2.media-dropped", "warning", Some(1), Some(1), Some(17), Some(9))]),
    ("v2_block_dropped", &[("v2.block-dropped", "warning", Some(2), Some(0), Some(23), Some(9))]),
    ("v2_tool_result_role", &[("v2.tool-result-role", "warning", Some(3), None, Some(33), Some(5))]),
    ("v2_tool_result_media", &[
        ("agentscope.tool-result-media-as-path", "warning", Some(3), Some(0), Some(37), Some(9)),
        ("v2.tool-result-media.system-reminder", "info", Some(3), Some(0), Some(37), Some(9)),
    ]),
];

/// Port findings: sessions under `--agentscope java-2.0.2`, each formatted
/// by both ports (the Java side checked against the Java vectors' rules:
/// Java's basic base64 decoder refuses "-", which Python's discards).
#[rustfmt::skip]
const JAVA_CASES: &[Case] = &[
    ("java_audio_url", &[("java.openai.audio-url-text", "warning", Some(1), Some(1), Some(17), Some(9))]),
    ("java_history_prompt", &[("java.multi-agent.history-prompt-every-group", "warning", Some(4), None, Some(41), Some(5))]),
    ("java_raises_base64", &[("java.raises", "error", Some(2), None, Some(21), Some(5)), ("agentscope.tool-result-media-as-path", "warning", Some(2), Some(0), Some(25), Some(9))]),
    ("java_sends_rejected", &[("agentscope.raises", "error", None, None, None, None), ("java.sends-what-python-rejects", "warning", Some(1), None, Some(9), Some(5))]),
    ("java_system_in_middle", &[("agentscope.system-not-first", "warning", Some(2), None, Some(15), Some(5)), ("java.multi-agent.history-prompt-every-group", "warning", Some(3), None, Some(20), Some(5)), ("java.openai.system-in-middle", "info", Some(2), None, Some(15), Some(5))]),
    ("java_thinking", &[("agentscope.block-dropped", "warning", Some(2), Some(0), Some(18), Some(9)), ("java.openai.thinking-reasoning-content", "info", Some(2), Some(0), Some(18), Some(9))]),
];

/// `lint --agentscope 0.1.6`: what the legacy release refuses, cannot
/// hold or skips of a session 1.0.21 formats.
#[rustfmt::skip]
const V0_CASES: &[Case] = &[
    ("v0_thinking", &[("release.lost", "warning", Some(1), Some(0), Some(13), Some(9))]),
    ("v0_raises_query_image", &[("release.raises", "error", Some(1), None, Some(9), Some(5))]),
    ("v0_gemini_tools", &[("release.block-dropped", "warning", Some(1), Some(0), Some(13), Some(9)), ("release.block-dropped", "warning", Some(2), Some(0), Some(25), Some(9))]),
];

fn brief(f: &Value) -> Expected {
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    (
        leak(f["rule"].as_str().unwrap_or("")),
        leak(f["severity"].as_str().unwrap_or("")),
        f["message"].as_u64(),
        f["block"].as_u64(),
        f["line"].as_u64(),
        f["column"].as_u64(),
    )
}

#[test]
fn each_case_gives_exactly_its_findings_and_errors_exit_1() {
    let mut fired = BTreeSet::new();
    let suites: [(&[Case], &[&str]); 4] = [
        (CASES, &[]),
        (V2_CASES, &["--agentscope", "2.0.11"]),
        (JAVA_CASES, &["--agentscope", "java-2.0.2"]),
        (V0_CASES, &["--agentscope", "0.1.6"]),
    ];
    for (cases, release) in suites {
        for (name, expected) in cases {
            let (code, findings) = lint(&case(name), release);
            let got: Vec<Expected> = findings.iter().map(brief).collect();
            assert_eq!(got, expected.to_vec(), "{name}: {findings:#?}");
            let errors = expected.iter().any(|e| e.1 == "error");
            assert_eq!(code, if errors { 1 } else { 0 }, "{name}");
            for f in &findings {
                assert!(!f["fix"].as_str().unwrap_or("").is_empty());
                fired.insert(f["rule"].as_str().unwrap_or("").to_string());
            }
        }
    }
    for f in big_cases() {
        fired.insert(f);
    }
    // Every rule of the catalogue has a case that fires it.
    for r in RULES {
        assert!(fired.contains(r.id), "no case fires {}", r.id);
    }
    println!("{} rules, each fired by a case", RULES.len());
}

/// Sessions over the size limits, written here: they would weigh
/// megabytes in the repository.
fn big_cases() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let sys = json!({"name": "system", "role": "system", "content": "You are Friday."});
    let image = |data: &str| json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}});
    let mut fired = Vec::new();
    let mut run = |name: &str, session: Value, want: &[&str]| {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, serde_json::to_vec(&session).unwrap()).unwrap();
        let (code, findings) = lint(&path, &[]);
        let rules: Vec<&str> = findings.iter().filter_map(|f| f["rule"].as_str()).collect();
        for w in want {
            assert!(rules.contains(w), "{name}: {rules:?}");
        }
        assert_eq!(code, 1, "{name}");
        fired.extend(rules.iter().map(|r| r.to_string()));
    };
    // 101 tiny inline images for Anthropic (at most 100).
    let tiny = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let many: Vec<Value> = (0..101).map(|_| image(tiny)).collect();
    run(
        "image_count",
        json!({"provider": "anthropic", "messages": [sys, {"name": "Bob", "role": "user", "content": many}]}),
        &["provider.image-count"],
    );
    // One 34 MB image: over Anthropic's 5 MB per image and 32 MB per request.
    let huge = "A".repeat(34 * 1024 * 1024 * 4 / 3);
    run(
        "image_size",
        json!({"provider": "anthropic", "messages": [sys, {"name": "Bob", "role": "user", "content": [image(&huge)]}]}),
        &["provider.image-size", "provider.request-size"],
    );
    // About 12,000 tokens for gpt-4's 8,192.
    let long = "The library opens at nine and closes at six. ".repeat(1200);
    run(
        "context_window",
        json!({"provider": "openai", "model": "gpt-4", "messages": [sys, {"name": "Bob", "role": "user", "content": long}]}),
        &["budget.context-window"],
    );
    fired
}

#[test]
fn the_bundled_sessions_that_should_be_clean_are_clean() {
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    // Under their own provider: no error and no warning.
    for name in ["chat_plain.json", "library_trip.json"] {
        let (code, findings) = lint(&sessions.join(name), &[]);
        assert_eq!(code, 0, "{name}");
        let loud: Vec<&Value> = findings
            .iter()
            .filter(|f| f["severity"] != "info")
            .collect();
        assert!(loud.is_empty(), "{name}: {loud:#?}");
    }
    // chat_plain is clean for every provider.
    let (code, findings) = lint(&sessions.join("chat_plain.json"), &["--provider", "all"]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:#?}");
    // multimodal.json and reasoning.json exist to show what providers drop:
    // their findings are warnings, never errors.
    for name in ["multimodal.json", "reasoning.json"] {
        let (code, findings) = lint(&sessions.join(name), &["--provider", "all"]);
        assert_eq!(code, 0, "{name}");
        assert!(
            findings
                .iter()
                .all(|f| f["rule"] == "agentscope.block-dropped"),
            "{name}: {findings:#?}"
        );
    }
}

#[test]
fn the_human_output_says_file_line_col_and_the_fix() {
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("lint")
        .arg(case("speaker_name"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("speaker_name.json:9:5: error[provider.speaker-name]: message 1: OpenAI rejects the name \"Bob Smith\" (fix: rename the speaker"),
        "{text}"
    );
    assert!(
        text.contains("1 error, 0 warnings, 0 notes for OpenAIChatFormatter"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
    // --rules lists the catalogue.
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["lint", "--rules"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), RULES.len());
    assert!(RULES.iter().all(|r| text.contains(r.id)));
    // Severity order in the catalogue type: errors sort first.
    assert!(Severity::Error < Severity::Warning && Severity::Warning < Severity::Info);
}

#[test]
fn a_finding_about_many_messages_names_a_few_and_counts_the_rest() {
    // 2,000 messages, each with a speaker name OpenAI rejects, and a budget
    // that drops all but the last few: one finding per message (located
    // in the file each), and one truncation finding summarising the drops.
    let messages: Vec<Value> = (0..2000)
        .map(|i| json!({"name": "Bob Smith", "role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("message number {i} of the long chat")}))
        .collect();
    let session = json!({"provider": "openai", "max_tokens": 60, "messages": messages});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.json");
    let file = serde_json::to_string_pretty(&session).unwrap();
    std::fs::write(&path, &file).unwrap();
    let (code, findings) = lint(&path, &[]);
    assert_eq!(code, 1);
    let drops: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "budget.truncation-drops")
        .collect();
    assert_eq!(drops.len(), 1, "{findings:?}");
    let text = drops[0]["text"].as_str().unwrap();
    assert!(text.contains("(#0, #1, #2 … and 1,99"), "{text}");
    assert!(text.len() < 200, "{text}");
    let names: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "provider.speaker-name")
        .collect();
    assert_eq!(names.len(), 2000);
    for f in [names[0], names[1234], names[1999]] {
        let at = formatscope::session::locate_pointer(&file, f["pointer"].as_str().unwrap());
        assert_eq!(
            at.map(|(l, c)| json!([l, c])),
            Some(json!([f["line"], f["column"]]))
        );
    }
}

/// `--agentscope 1.0.21` (the default) is today's lint exactly: no
/// upgrade finding; a release formatscope does not have is bad usage.
#[test]
fn the_default_release_has_no_upgrade_findings_and_an_unknown_one_is_usage() {
    let run = |path: &Path, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .arg("lint")
            .arg(path)
            .args(extra)
            .output()
            .expect("the binary runs")
    };
    for (name, _) in V2_CASES {
        let today = run(&case(name), &[]);
        let named = run(&case(name), &["--agentscope", "1.0.21"]);
        assert_eq!(today.stdout, named.stdout, "{name}");
        assert_eq!(today.status.code(), named.status.code(), "{name}");
        assert!(
            !String::from_utf8_lossy(&today.stdout).contains("[v2."),
            "{name}"
        );
    }
    let out = run(&case("clean"), &["--agentscope", "9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&format!(
            "unknown AgentScope release 9.9 (known: {})",
            formatscope::reference::versions()
        )),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn golden_case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/cases")
        .join(format!("{name}.json"))
}

/// Port findings (`--agentscope java-2.0.2`): where a Java agent sends the
/// session differently from Python in a way the provider treats
/// differently, each on the message (and block) that causes it.
#[test]
fn the_java_port_findings_name_where_a_java_agent_sends_otherwise() {
    let at = |f: &Value| {
        (
            f["rule"].as_str().unwrap_or_default().to_string(),
            f["message"].as_u64(),
            f["block"].as_u64(),
        )
    };
    let found = |name: &str, mode: &str| -> Vec<(String, Option<u64>, Option<u64>)> {
        let (_, findings) = lint(
            &golden_case(name),
            &[
                "--agentscope",
                "java-2.0.2",
                "--provider",
                "openai",
                "--mode",
                mode,
                "--offline",
            ],
        );
        findings
            .iter()
            .map(at)
            .filter(|(rule, _, _)| rule.starts_with("java."))
            .collect()
    };
    let rule = "java.multi-agent.history-prompt-every-group".to_string();
    // Three history groups, each after a tool sequence: two repeats.
    assert_eq!(
        found("history_tools_history", "multi_agent"),
        [(rule.clone(), Some(4), None), (rule.clone(), Some(8), None)]
    );
    // Chat has no history groups.
    assert_eq!(found("history_tools_history", "chat"), []);
    // A system message mid-conversation: its own message, splitting the
    // history; the group after it repeats the prompt.
    assert_eq!(
        found("system_in_middle", "multi_agent"),
        [
            (rule, Some(3), None),
            ("java.openai.system-in-middle".to_string(), Some(2), None),
        ]
    );
    // Chat sends each message's first thinking block.
    let thinking = "java.openai.thinking-reasoning-content".to_string();
    assert_eq!(
        found("thinking_blocks", "chat"),
        [
            (thinking.clone(), Some(2), Some(0)),
            (thinking, Some(4), Some(0))
        ]
    );
    // Audio by URL or file: a text part the model only reads.
    let audio = found("audio_blocks", "chat");
    assert!(
        audio.contains(&("java.openai.audio-url-text".to_string(), Some(1), Some(1))),
        "{audio:?}"
    );
    // A missing local image: Python raises, Java sends the path.
    assert_eq!(
        found("err_missing_image_file", "chat"),
        [("java.sends-what-python-rejects".to_string(), Some(0), None)]
    );
    // The rule ids are the formatting rules explain names.
    for id in [
        "java.multi-agent.history-prompt-every-group",
        "java.openai.thinking-reasoning-content",
        "java.openai.audio-url-text",
        "java.openai.system-in-middle",
    ] {
        assert!(formatscope::explain::rule(id).is_some(), "{id}");
        assert!(formatscope::lint::rule(id).is_some(), "{id}");
    }
}
