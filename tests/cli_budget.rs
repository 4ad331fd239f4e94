//! `formatscope count`, `tokenize` and `truncate` as a user runs them.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn json_of(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

#[test]
fn count_json_gives_the_breakdown_with_the_providers_tokenizer() {
    let json = json_of(&formatscope(&[
        "count",
        "tests/sessions/cases/library_trip.json",
        "--json",
    ]));
    assert_eq!(json["provider"], "dashscope");
    assert_eq!(json["model"], "qwen-max");
    assert_eq!(json["tokenizer"], "qwen");
    assert_eq!(json["exact"], true);
    let categories = json["categories"].as_object().expect("categories");
    for key in [
        "system_prompt",
        "conversation",
        "tool_calls",
        "tool_results",
        "media",
        "tool_schemas",
    ] {
        assert!(categories.contains_key(key), "{key}");
    }
    let sum: i64 = categories
        .values()
        .map(|c| c["tokens"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(
        json["total"].as_i64(),
        Some(sum),
        "categories add up to the total"
    );
    let messages = json["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 11);
    assert_eq!(messages[1]["name"], "Bob");
    let per_message: i64 = messages
        .iter()
        .map(|m| m["tokens"].as_i64().unwrap_or(0))
        .sum();
    let framing = json["request_framing"].as_i64().expect("framing");
    assert!((1..10).contains(&framing), "{framing}");
    assert_eq!(
        json["messages_total"].as_i64(),
        Some(per_message + framing),
        "messages plus the generation prompt"
    );
}

#[test]
fn count_switches_tokenizer_with_the_provider_and_labels_estimates() {
    let claude = json_of(&formatscope(&[
        "count",
        "tests/sessions/cases/library_trip.json",
        "--json",
        "--provider",
        "anthropic",
    ]));
    assert_eq!(claude["exact"], false);
    assert!(claude["tokenizer"]
        .as_str()
        .unwrap_or_default()
        .starts_with("≈ claude"));
    let gpt4 = json_of(&formatscope(&[
        "count",
        "tests/sessions/cases/library_trip.json",
        "--json",
        "--provider",
        "openai",
        "--model",
        "gpt-4",
    ]));
    assert_eq!(gpt4["tokenizer"], "cl100k_base");
    assert_eq!(gpt4["context_window"], 8192);
}

#[test]
fn tokenize_counts_stdin_and_files() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(["tokenize", "--tokenizer", "o200k_base"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hello world")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let json = json_of(&out);
    assert_eq!(
        json,
        serde_json::json!({"tokenizer": "o200k_base", "exact": true, "tokens": 2})
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.txt");
    std::fs::write(&path, "今天天气很好").expect("write");
    let json = json_of(&formatscope(&[
        "tokenize",
        "--model",
        "deepseek-chat",
        path.to_str().unwrap_or_default(),
    ]));
    assert_eq!(json["tokenizer"], "deepseek");
    assert!(json["tokens"].as_i64().unwrap_or(0) >= 1);
    let gemini = json_of(&formatscope(&[
        "tokenize",
        "--model",
        "gemini-2.5-pro",
        path.to_str().unwrap_or_default(),
    ]));
    assert_eq!(gemini["exact"], false);
}

#[test]
fn truncate_plans_which_messages_go() {
    let json = json_of(&formatscope(&[
        "truncate",
        "tests/sessions/cases/library_trip.json",
        "--max-tokens",
        "150",
        "--json",
    ]));
    assert_eq!(json["fits"], true);
    assert!(json["tokens_after"].as_i64().unwrap_or(i64::MAX) <= 150);
    assert!(json["tokens_before"].as_i64().unwrap_or(0) > 150);
    assert_eq!(json["kept"][0], 0, "the system prompt is kept");
    assert_eq!(json["dropped"][0], 1, "the oldest message goes first");
}

#[test]
fn truncate_says_plainly_why_it_cannot_fit() {
    let out = formatscope(&[
        "truncate",
        "tests/sessions/cases/library_trip.json",
        "--max-tokens",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["fits"], false);
    assert_eq!(json["error_type"], "ValueError");
    assert!(json["reason"]
        .as_str()
        .unwrap_or_default()
        .contains("system prompt alone"));
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    for args in [
        &[
            "count",
            "tests/sessions/cases/library_trip.json",
            "--model",
            "no-such-model",
        ][..],
        &["count", "tests/sessions/cases/no-such-file.json"][..],
        &["count", "tests/sessions/cases/invalid.json"][..],
        &[
            "truncate",
            "tests/sessions/cases/library_trip.json",
            "--max-tokens",
            "0",
        ][..],
        &["tokenize", "--tokenizer", "nope", "Cargo.toml"][..],
        &["tokenize", "--model", "no-such-model", "Cargo.toml"][..],
    ] {
        let out = formatscope(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}

/// `truncate` and `format --max-tokens` count with the same counter by
/// default (AgentScope's `OpenAITokenCounter(gpt-4o)`), so they drop the
/// same messages, and each says what it counted with; the session or
/// `--token-counter` picks another.
#[test]
fn truncate_counts_with_the_agents_token_counter_and_says_which() {
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "truncate",
            "tests/sessions/cases/library_trip.json",
            "--max-tokens",
            "200",
            "--json",
        ];
        args.extend_from_slice(extra);
        json_of(&formatscope(&args))
    };
    let default = plan(&[]);
    assert_eq!(default["token_counter"], "openai:gpt-4o");
    assert_eq!(default["counted_with"], "OpenAITokenCounter(gpt-4o)");
    let format = json_of(&formatscope(&[
        "format",
        "tests/sessions/cases/library_trip.json",
        "--max-tokens",
        "200",
    ]));
    assert_eq!(default["tokens_after"], format["tokens"]);
    assert_eq!(default["dropped"], serde_json::json!([1, 2, 3]));

    let provider = plan(&["--token-counter", "provider"]);
    assert_eq!(provider["counted_with"], "the provider's tokenizer (qwen)");
    assert_eq!(provider["dropped"], serde_json::json!([1, 2]));

    let chars = plan(&["--token-counter", "char"]);
    assert_eq!(chars["counted_with"], "CharTokenCounter()");
    assert_eq!(chars["tokens_before"], 1071);

    let dir = tempfile::tempdir().expect("temp dir");
    let session: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/sessions/cases/library_trip.json"),
        )
        .expect("session"),
    )
    .expect("json");
    let mut own = session.clone();
    own["token_counter"] = "huggingface:qwen".into();
    let path = dir.path().join("trip.json");
    std::fs::write(&path, own.to_string()).expect("write");
    let p = path.to_str().expect("utf-8 path");
    let from_session = json_of(&formatscope(&[
        "truncate",
        p,
        "--max-tokens",
        "200",
        "--json",
    ]));
    assert_eq!(from_session["token_counter"], "huggingface:qwen");

    own["token_counter"] = "tiktoken".into();
    std::fs::write(&path, own.to_string()).expect("write");
    let bad = formatscope(&["truncate", p, "--max-tokens", "200"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown token counter"));
}

/// `count` under a config folder of the test's own (no user price file
/// unless the test writes one).
fn count_with_config(config: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("count")
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

#[test]
fn count_prices_the_input_or_says_the_price_is_unknown() {
    let dir = std::env::temp_dir().join(format!("fs-count-cost-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("formatscope")).expect("temp dir");
    let json = json_of(&count_with_config(
        &dir,
        &["tests/sessions/cases/library_trip.json", "--json"],
    ));
    let total = json["total"].as_f64().expect("total");
    assert_eq!(json["cost"]["per_million"]["input"], 1.6);
    assert_eq!(json["cost"]["source"]["version"], "1.110.2");
    assert_eq!(json["cost"]["source"]["date"], "2026-11-25");
    let usd = json["cost"]["usd"].as_f64().expect("usd");
    assert!((usd - total * 1.6 / 1e6).abs() < 1e-12, "{usd}");
    let text = count_with_config(&dir, &["tests/sessions/cases/library_trip.json"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .nth(2)
            .unwrap_or_default()
            .starts_with("cost $0.000"),
        "{text}"
    );

    let ollama = json_of(&count_with_config(
        &dir,
        &[
            "tests/sessions/cases/library_trip.json",
            "--json",
            "--provider",
            "ollama",
        ],
    ));
    assert_eq!(ollama["cost"], Value::Null);
    assert_eq!(ollama["price"], "unknown");

    let file = dir.join("formatscope").join("prices.json");
    std::fs::write(&file, "{\"prices\": {\n  \"dashscope\": [1, 2}\n}\n").expect("write");
    let bad = count_with_config(&dir, &["tests/sessions/cases/library_trip.json"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains(&format!("{}:2:", file.display())), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
