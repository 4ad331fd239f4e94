//! Issue 41, hostile files (lint): numbers Python writes as NaN and
//! Infinity panicked `lint --agentscope 2.0.11`, and lint's block checks
//! were quadratic in the blocks of one message (each block was checked by
//! formatting the whole message without it). The work is counted here,
//! not timed: every block a formatter skips leaves a warning in the media
//! environment, so the warnings count the blocks formatted. Speed is
//! `cargo bench --bench hostile_work` (lint at 1× and 4×).

use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::lint::{self, Finding};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::reference::{self, Family, Formatted, Reference};
use formatscope::session::{parse_session_bytes, Session};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn session(v: &Value) -> Session {
    parse_session_bytes(v.to_string().as_bytes(), "test.json").expect("a session")
}

/// Lints `v` for `ids` (under `release` too): the findings and how many
/// warnings formatting left (one per skipped block formatted).
fn lint(v: &Value, ids: &[FormatterId], release: Option<&str>) -> (Vec<Finding>, usize) {
    let session = session(v);
    let env = MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork));
    let mut input = lint::Input::new(&session, None, ids.to_vec(), &env);
    input.upgrade = release.and_then(reference::by_version);
    let findings = lint::lint(&input);
    (findings, env.warning_count())
}

fn blocks(n: usize, block: impl Fn(usize) -> Value) -> Vec<Value> {
    (0..n).map(block).collect()
}

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn openai() -> FormatterId {
    FormatterId::new(Provider::OpenAi, Mode::Chat)
}

#[test]
fn blocks_of_one_message_are_checked_in_linear_work() {
    // 1,000 unknown blocks: each is formatted a bounded number of times
    // (the block check, the request, the budget), not once per block of
    // its message (about 2,000,000 here).
    let n = 1_000;
    let bogus = blocks(n, |i| json!({"type": "bogus", "x": i}));
    let v = json!({"messages": [{"role": "user", "name": "u", "content": bogus}]});
    let (findings, formatted) = lint(&v, &[openai()], None);
    let dropped = findings
        .iter()
        .filter(|f| f.rule == "agentscope.block-dropped")
        .count();
    assert_eq!(dropped, n, "every unknown block is reported");
    assert!(
        formatted <= 8 * n,
        "{formatted} blocks formatted for {n} blocks: quadratic"
    );
}

#[test]
fn every_provider_checks_its_blocks_in_linear_work() {
    let n = 500;
    let bogus = blocks(n, |i| json!({"type": "bogus", "x": i}));
    let v = json!({"messages": [{"role": "user", "name": "u", "content": bogus}]});
    let ids: Vec<FormatterId> = Provider::ALL
        .iter()
        .map(|p| FormatterId::new(*p, Mode::Chat))
        .collect();
    let (_, formatted) = lint(&v, &ids, None);
    assert!(
        formatted <= 8 * n * ids.len(),
        "{formatted} blocks formatted for {n} blocks and {} formatters",
        ids.len()
    );
}

/// A release that counts the blocks it is given to format.
struct Counting {
    release: &'static dyn Reference,
    blocks: AtomicUsize,
}

impl Reference for Counting {
    fn version(&self) -> &'static str {
        self.release.version()
    }
    fn modes(&self) -> &'static [reference::Mode] {
        self.release.modes()
    }
    fn families(&self) -> &'static [Family] {
        self.release.families()
    }
    fn call(&self, family: &Family, mode: reference::Mode) -> String {
        self.release.call(family, mode)
    }
    fn format(
        &self,
        session: &Session,
        family: &Family,
        mode: reference::Mode,
        env: &MediaEnv,
    ) -> Formatted {
        let blocks: usize = session
            .messages
            .iter()
            .map(|m| m.value()["content"].as_array().map_or(1, Vec::len))
            .sum();
        self.blocks.fetch_add(blocks, Ordering::Relaxed);
        self.release.format(session, family, mode, env)
    }
    fn counts_and_truncates(&self) -> bool {
        self.release.counts_and_truncates()
    }
}

#[test]
fn hint_blocks_under_the_upgrade_are_checked_in_linear_work() {
    // 2.x hint blocks in one assistant message, under --agentscope
    // 2.0.11: the blocks 2.0.11 is given to format are counted.
    let n = 500;
    let mut content = vec![json!({"type": "text", "text": "hi"})];
    content.extend(blocks(
        n,
        |i| json!({"type": "hint", "hint": format!("hint {i}"), "source": "system"}),
    ));
    let v = json!({"messages": [
        {"role": "user", "name": "user", "content": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "name": "Friday", "content": content},
    ]});
    let release = reference::by_version("2.0.11").expect("2.0.11 is shipped");
    let counting: &'static Counting = Box::leak(Box::new(Counting {
        release,
        blocks: AtomicUsize::new(0),
    }));
    let session = session(&v);
    let env = MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork));
    let mut input = lint::Input::new(&session, None, vec![openai()], &env);
    input.upgrade = Some(counting);
    let findings = lint::lint(&input);
    assert!(
        !findings.iter().any(|f| f.rule == "v2.raises"),
        "{findings:?}"
    );
    let formatted = counting.blocks.load(Ordering::Relaxed);
    assert!(
        formatted <= 16 * n,
        "2.0.11 formatted {formatted} blocks for {n} hint blocks: quadratic"
    );
}

#[test]
fn a_block_sent_only_beside_others_is_not_reported_dropped() {
    // DeepSeek sends thinking (reasoning_content) only with text or tool
    // calls; two empty thinking blocks send "\n" where one sends nothing:
    // each is checked with its message's text and its sibling beside it.
    let v = json!({"messages": [
        {"role": "user", "name": "u", "content": "q"},
        {"role": "assistant", "name": "a", "content": [
            {"type": "thinking", "thinking": "why"},
            {"type": "text", "text": "because"},
        ]},
        {"role": "assistant", "name": "a", "content": [
            {"type": "thinking", "thinking": ""},
            {"type": "thinking", "thinking": ""},
            {"type": "text", "text": "ok"},
        ]},
        {"role": "assistant", "name": "a", "content": [{"type": "thinking", "thinking": "alone"}]},
    ]});
    let deepseek = FormatterId::new(Provider::DeepSeek, Mode::Chat);
    let (findings, _) = lint(&v, &[deepseek], None);
    let dropped: Vec<(Option<usize>, Option<usize>)> = findings
        .iter()
        .filter(|f| f.rule == "agentscope.block-dropped")
        .map(|f| (f.message, f.block))
        .collect();
    assert_eq!(dropped, [(Some(3), Some(0))]);
}

#[test]
fn many_tiny_images_to_gemini_are_checked_in_linear_work() {
    let n = 600;
    let mut content = vec![json!({"type": "text", "text": "look"})];
    content.extend(blocks(n, |_| {
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}})
    }));
    // And one unknown block per image, so the work shows in the count.
    content.extend(blocks(n, |i| json!({"type": "bogus", "x": i})));
    let v = json!({"messages": [{"role": "user", "name": "u", "content": content}]});
    let gemini = FormatterId::new(Provider::Gemini, Mode::Chat);
    let (findings, formatted) = lint(&v, &[gemini], None);
    assert!(!findings
        .iter()
        .any(|f| f.rule == "agentscope.block-dropped" && f.block.is_some_and(|b| b <= n)));
    assert!(
        formatted <= 8 * n,
        "{formatted} blocks formatted: quadratic"
    );
}

#[test]
fn many_tool_calls_in_one_message_pair_up_by_set() {
    let n = 3_000;
    let calls = blocks(
        n,
        |i| json!({"type": "tool_use", "id": format!("c{i}"), "name": "f", "input": {}}),
    );
    let results = blocks(
        n,
        |i| json!({"type": "tool_result", "id": format!("c{i}"), "name": "f", "output": "ok"}),
    );
    let v = json!({"messages": [
        {"role": "user", "name": "u", "content": "q"},
        {"role": "assistant", "name": "a", "content": calls},
        {"role": "system", "name": "s", "content": results},
    ]});
    let (findings, _) = lint(&v, &[openai()], None);
    assert!(!findings
        .iter()
        .any(|f| f.rule.starts_with("provider.tool-")));
}

/// Python's `json.dumps` writes NaN, Infinity and -Infinity; the session
/// reader takes them.
fn nan_sessions() -> Vec<(&'static str, String)> {
    vec![
        (
            "a block field",
            r#"{"messages": [{"role": "user", "name": "u", "content": [{"type": "text", "text": "hi"}, {"type": "bogus", "v": NaN, "w": Infinity}]}]}"#.into(),
        ),
        (
            "a tool call's input",
            r#"{"messages": [{"role": "user", "name": "u", "content": "hi"}, {"role": "assistant", "name": "a", "content": [{"type": "tool_use", "id": "1", "name": "f", "input": {"x": Infinity, "y": -Infinity}}]}, {"role": "system", "name": "s", "content": [{"type": "tool_result", "id": "1", "name": "f", "output": [{"type": "text", "text": "ok"}]}]}]}"#.into(),
        ),
        (
            "the text and ids",
            r#"{"messages": [{"role": "assistant", "name": "a", "content": [{"type": "tool_use", "id": NaN, "name": "f", "input": {}}, {"type": "text", "text": NaN}]}, {"role": "system", "name": "s", "content": [{"type": "tool_result", "id": -Infinity, "name": "f", "output": "x"}]}]}"#.into(),
        ),
        (
            "the settings and metadata",
            r#"{"temperature": NaN, "max_tokens": 10, "messages": [{"role": "user", "name": "u", "content": "hi", "metadata": {"a": NaN}}]}"#.into(),
        ),
        (
            "media sources",
            r#"{"messages": [{"role": "user", "name": "u", "content": [{"type": "image", "source": {"type": "url", "url": NaN}}, {"type": "audio", "source": {"type": "url", "url": "a.wav", "media_type": Infinity}}]}]}"#.into(),
        ),
    ]
}

#[test]
fn nan_and_infinity_never_panic_lint() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (what, text) in nan_sessions() {
        let path = dir.path().join("nan.json");
        std::fs::write(&path, &text).expect("writes");
        // 0.1.6 goes through crates/core/src/legacy/, which has its own fix.
        for release in [None, Some("2.0.11"), Some("java-2.0.2")] {
            for mode in ["chat", "multi_agent"] {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_formatscope"));
                cmd.args([
                    "lint",
                    "--provider",
                    "all",
                    "--offline",
                    "--json",
                    "--mode",
                    mode,
                ])
                .arg(&path);
                if let Some(r) = release {
                    cmd.args(["--agentscope", r]);
                }
                let out = cmd.output().expect("runs");
                let code = out.status.code();
                assert!(
                    matches!(code, Some(0 | 1)),
                    "{what} under {release:?} {mode}: exit {code:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let v: Value = serde_json::from_slice(&out.stdout).expect("JSON findings");
                assert!(v["findings"].is_array(), "{what}");
            }
        }
    }
}
