//! The rough edges of `count` and `truncate` as a newcomer read them
//! (issue 42, item 4): thousands separators in the human output (never in
//! JSON), "1 step" not "1 steps", a zero never an estimate, what
//! `truncate --help` says truncation counts with, and Java's vendor-SDK
//! requests worded as formatscope's limit.

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The library trip with one message of about 1,500 tokens and, when
/// `tools` is false, no tools, in a fresh folder.
fn long_trip(tools: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("trip.json");
    let mut doc: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/sessions/cases/library_trip.json"),
        )
        .expect("read"),
    )
    .expect("json");
    doc["messages"][9]["content"] = "The library on Elm Street opens at nine. "
        .repeat(150)
        .into();
    if !tools {
        doc.as_object_mut().expect("object").remove("tools");
    }
    std::fs::write(&path, doc.to_string()).expect("write");
    (dir, path)
}

/// Whether `text` holds a count written `1,234`.
fn has_separated_count(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(5)
        .any(|w| w[0].is_ascii_digit() && w[1] == ',' && w[2..].iter().all(char::is_ascii_digit))
}

#[test]
fn count_writes_counts_with_separators_and_json_without() {
    let (_dir, path) = long_trip(true);
    let p = path.to_str().expect("utf-8");
    let out = formatscope(&["count", p]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let human = text(&out.stdout);
    let total = human
        .lines()
        .find(|l| l.starts_with("total "))
        .expect("the total line");
    assert!(total.starts_with("total 1,"), "{human}");
    assert!(total.contains("context window 32,768"), "{human}");
    let conversation = human
        .lines()
        .find(|l| l.trim_start().starts_with("conversation"))
        .expect("the conversation line");
    assert!(has_separated_count(conversation), "{human}");
    assert!(
        human
            .lines()
            .any(|l| l.starts_with("  #9 ") && has_separated_count(l)),
        "{human}"
    );
    // JSON keeps plain numbers.
    let json: Value =
        serde_json::from_slice(&formatscope(&["count", p, "--json"]).stdout).expect("json");
    assert!(json["total"].as_i64().is_some_and(|n| n > 1_000), "{json}");
}

#[test]
fn a_zero_is_not_an_estimate_in_count() {
    let (_dir, path) = long_trip(false);
    let p = path.to_str().expect("utf-8");
    let out = formatscope(&["count", p, "--provider", "anthropic"]);
    let human = text(&out.stdout);
    let schemas = human
        .lines()
        .find(|l| l.trim_start().starts_with("tool schemas"))
        .expect("the tool schemas line");
    assert!(schemas.trim_end().ends_with(" 0"), "{human}");
    assert!(!schemas.contains('≈'), "{human}");
}

#[test]
fn truncate_writes_counts_with_separators_and_steps_in_the_singular() {
    let (_dir, path) = long_trip(true);
    let p = path.to_str().expect("utf-8");
    let out = formatscope(&["truncate", p, "--max-tokens", "20000"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let human = text(&out.stdout);
    assert!(human.contains("fits: 1,"), "{human}");
    assert!(
        human.contains(" tokens of 20,000; nothing dropped"),
        "{human}"
    );
    // A budget that drops the oldest message alone: one step.
    let json: Value = serde_json::from_slice(
        &formatscope(&["truncate", p, "--max-tokens", "20000", "--json"]).stdout,
    )
    .expect("json");
    let before = json["tokens_before"].as_i64().expect("tokens_before");
    assert_eq!(json["max_tokens"], 20_000, "JSON keeps plain numbers");
    let budget = (before - 10).to_string();
    let out = formatscope(&["truncate", p, "--max-tokens", &budget]);
    let human = text(&out.stdout);
    assert!(human.contains(" in 1 step: 1,"), "{human}");
    assert!(!human.contains("1 steps"), "{human}");
}

/// `--token-counter`'s help says what truncation counts with by default:
/// AgentScope's OpenAITokenCounter(gpt-4o), whatever the provider; the
/// provider's tokenizer only when asked.
#[test]
fn truncate_help_says_what_truncation_counts_with() {
    let out = formatscope(&["truncate", "--help"]);
    let help = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        help.contains("else openai:gpt-4o, whatever the provider"),
        "{help}"
    );
    assert!(
        help.contains("not the provider's tokenizer unless asked"),
        "{help}"
    );
}

/// The command's one-line description (src/cli/mod.rs, not this change's
/// file) still says truncation is "counted with the provider's
/// tokenizer": by default it is not.
#[test]
fn truncate_help_does_not_claim_the_providers_tokenizer() {
    let out = formatscope(&["truncate", "--help"]);
    let help = text(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        !help.contains("counted with the provider's tokenizer"),
        "{help}"
    );
}

/// Java's Anthropic and Gemini requests are a formatscope limit, said as
/// one: not an AgentScope error.
#[test]
fn javas_vendor_sdk_requests_are_worded_as_formatscopes_limit() {
    for provider in ["anthropic", "gemini"] {
        let out = formatscope(&[
            "request",
            "tests/sessions/cases/library_trip.json",
            "--agentscope",
            "java-2.0.2",
            "--provider",
            provider,
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: formatscope does not build this for Java 2.0.2: "),
            "{err}"
        );
        assert!(err.contains("not an AgentScope error"), "{err}");
    }
}
