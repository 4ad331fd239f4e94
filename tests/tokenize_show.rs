//! `formatscope tokenize --show` / `--json`: the token view on the command
//! line. Ranges tile each message's text, counts equal plain `tokenize`'s,
//! and without a terminal the boundaries are `│` and newlines `↵`.

use serde_json::Value;
use std::process::{Command, Output};

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// The message texts as the view reads them (string content, or blocks' text).
fn texts(session: &str) -> Vec<String> {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(session).expect("reads")).expect("JSON");
    let messages = v["messages"].as_array().expect("messages").clone();
    messages
        .iter()
        .map(|m| match &m["content"] {
            Value::String(s) => s.clone(),
            Value::Array(b) => b
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        })
        .collect()
}

fn check_json(session: &str, tokenizer: &str) {
    let view = json_of(&formatscope(&[
        "tokenize",
        session,
        "--tokenizer",
        tokenizer,
        "--json",
    ]));
    let dir = tempfile::tempdir().expect("temp dir");
    let texts = texts(session);
    let messages = view["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), texts.len());
    for (m, text) in messages.iter().zip(&texts) {
        let mut at = 0;
        for t in m["ids"].as_array().expect("ids") {
            assert_eq!(t["start"].as_u64(), Some(at), "{tokenizer}: {text:?}");
            at = t["end"].as_u64().expect("end");
            assert!(t["id"].is_u64());
        }
        assert_eq!(at as usize, text.len(), "{tokenizer}: ranges tile {text:?}");
        let file = dir.path().join("text.txt");
        std::fs::write(&file, text).expect("writes");
        let plain = json_of(&formatscope(&[
            "tokenize",
            file.to_str().expect("utf-8 path"),
            "--tokenizer",
            tokenizer,
        ]));
        assert_eq!(m["tokens"], plain["tokens"], "{tokenizer}: {text:?}");
    }
}

#[test]
fn json_ranges_tile_and_counts_match_plain_tokenize_qwen() {
    check_json("tests/sessions/cases/library_trip.json", "qwen");
}

#[test]
fn json_ranges_tile_and_counts_match_plain_tokenize_openai() {
    check_json("tests/sessions/cases/library_trip.json", "o200k_base");
    check_json("tests/sessions/cases/chat_plain.json", "cl100k_base");
}

#[test]
fn show_without_a_terminal_marks_boundaries_and_newlines() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.txt");
    std::fs::write(&file, "Where is the library?\nNear the park.\x1b[31m\n").expect("writes");
    let path = file.to_str().expect("utf-8 path");
    for (tokenizer, count) in [
        ("o200k_base", "tokens (o200k_base)"),
        ("qwen", "tokens (qwen)"),
    ] {
        let out = formatscope(&["tokenize", path, "--tokenizer", tokenizer, "--show"]);
        assert!(out.status.success());
        let shown = String::from_utf8(out.stdout).expect("utf-8");
        assert!(shown.contains("Where│·is│·the│·library"), "{shown}");
        assert!(shown.contains("↵\n"), "{shown}");
        assert!(shown.contains(count), "{shown}");
        assert!(
            !shown.contains('\x1b'),
            "control characters escaped: {shown}"
        );
    }
}

#[test]
fn show_labels_an_estimate_and_refuses_a_vocabulary_without_ids() {
    let out = formatscope(&[
        "tokenize",
        "tests/sessions/cases/chat_plain.json",
        "--tokenizer",
        "llama3",
        "--show",
    ]);
    let shown = String::from_utf8(out.stdout).expect("utf-8");
    assert!(shown.contains("· ≈"), "{shown}");
    let out = formatscope(&[
        "tokenize",
        "tests/sessions/cases/chat_plain.json",
        "--tokenizer",
        "deepseek",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn provider_picks_its_tokenizer_like_count() {
    let trip = "tests/sessions/cases/library_trip.json";
    let qwen = json_of(&formatscope(&[
        "tokenize",
        trip,
        "--provider",
        "dashscope",
        "--json",
    ]));
    assert_eq!(qwen["tokenizer"], "qwen");
    // The session's qwen-max is not OpenAI's: OpenAI's default model counts.
    let openai = json_of(&formatscope(&[
        "tokenize",
        trip,
        "--provider",
        "openai",
        "--json",
    ]));
    let count = json_of(&formatscope(&[
        "count",
        trip,
        "--provider",
        "openai",
        "--json",
    ]));
    assert_eq!(openai["tokenizer"], count["tokenizer"]);
    let out = formatscope(&["tokenize", trip, "--provider", "nope", "--show"]);
    assert_eq!(out.status.code(), Some(2));
}
