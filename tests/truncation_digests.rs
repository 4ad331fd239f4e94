//! `format --max-tokens` and `truncate` against what AgentScope 1.0.21
//! itself keeps, on generated sessions of 250 to 3,000 messages (past every
//! golden case, and past the 256 units where counting goes parallel), for
//! every formatter at several budgets. The oracle's outcomes are stored as
//! digests (`tests/data/truncation-digests.json`, made by
//! `scripts/truncation-regen.py`): the kept messages' count, their tokens,
//! and the sha256 of the messages as Python's `json.dumps(...,
//! ensure_ascii=False, separators=(",", ":"))` writes them.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn formatscope(args: &[&str]) -> (Option<i32>, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .output()
        .expect("the binary runs");
    let stdout: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code(),
        stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The benchmark session generator, as the oracle's run used it.
fn generate(dir: &Path, case: &Value) -> PathBuf {
    let n = case["n"].as_u64().expect("n").to_string();
    let seed = case["seed"].as_u64().expect("seed").to_string();
    let mut args = vec![
        root().join("benches/gen_session.py").display().to_string(),
        n,
        "--seed".into(),
        seed,
    ];
    if case["one_group"].as_bool() == Some(true) {
        args.push("--one-group".into());
    }
    let out = Command::new("python3")
        .args(&args)
        .output()
        .expect("python3 runs the generator");
    assert!(out.status.success(), "{args:?}");
    let path = dir.join(format!("{}.json", case["name"].as_str().expect("name")));
    std::fs::write(&path, &out.stdout).expect("write the session");
    path
}

fn sha256(messages: &Value) -> String {
    let text = serde_json::to_string(messages).expect("serialise");
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `OpenAIMultiAgentFormatter` → (`openai`, `multi-agent`).
fn provider_and_mode(class: &str) -> (String, &'static str) {
    let (provider, mode) = match class.strip_suffix("MultiAgentFormatter") {
        Some(p) => (p, "multi-agent"),
        None => (
            class
                .strip_suffix("ChatFormatter")
                .expect("a formatter class"),
            "chat",
        ),
    };
    (provider.to_ascii_lowercase(), mode)
}

/// One case: `None` when it agrees, else what differs.
fn check(dir: &Path, case: &Value) -> Option<String> {
    let name = case["name"].as_str().expect("name");
    let class = case["formatter"].as_str().expect("formatter");
    let session = generate(dir, case);
    let session = session.to_str().expect("utf-8 path");
    // A case whose full count raises has no budget: any budget raises so.
    let budget = case["max_tokens"].as_i64().unwrap_or(1000).to_string();
    let (_, out, stderr) = formatscope(&[
        "format",
        session,
        "--formatter",
        class,
        "--max-tokens",
        &budget,
    ]);
    if let Some(kind) = case["error_type"].as_str() {
        let got = (out["error_type"].as_str(), out["error"].as_str());
        return (got != (Some(kind), case["error"].as_str())).then(|| {
            format!(
                "{name}: error {got:?}, AgentScope {kind}: {}",
                case["error"]
            )
        });
    }
    let messages = &out["messages"];
    let kept = messages.as_array().map_or(0, Vec::len) as u64;
    let want = (
        case["kept_messages"].as_u64().unwrap_or_default(),
        case["tokens"].as_i64(),
    );
    if (kept, out["tokens"].as_i64()) != want {
        return Some(format!(
            "{name}: format --max-tokens {budget} keeps {kept} messages, {:?} tokens; AgentScope {want:?} {stderr}",
            out["tokens"]
        ));
    }
    if sha256(messages) != case["sha256"].as_str().unwrap_or_default() {
        return Some(format!(
            "{name}: the kept messages differ from AgentScope's"
        ));
    }
    // `truncate` (the workbench's planner) reaches the same count.
    let (provider, mode) = provider_and_mode(class);
    let (_, plan, stderr) = formatscope(&[
        "truncate",
        session,
        "--provider",
        &provider,
        "--mode",
        mode,
        "--max-tokens",
        &budget,
        "--json",
    ]);
    (plan["tokens_after"].as_i64() != want.1).then(|| {
        format!(
            "{name}: truncate gives {} tokens, AgentScope {:?} {stderr}",
            plan["tokens_after"], want.1
        )
    })
}

#[test]
fn format_max_tokens_keeps_what_agentscope_keeps_at_every_size() {
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/data/truncation-digests.json"))
            .expect("the digests"),
    )
    .expect("JSON");
    let cases: Vec<Value> = data["cases"].as_array().expect("cases").clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<Vec<Value>> = cases
        .chunks(cases.len().div_ceil(threads))
        .map(<[Value]>::to_vec)
        .collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let dir = dir.path();
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|c| check(dir, c))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker"))
            .collect()
    });
    println!(
        "{} of {} AgentScope truncation outcomes (250 to 3,000 messages) agree",
        cases.len() - failures.len(),
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 40);
}
