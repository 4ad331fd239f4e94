//! Replies under AgentScope 2.0.11: every vector of tests/responses_v2
//! (made by scripts/response-oracle-v2.py with the real 2.0.11 model
//! classes and their SDKs) parsed by `formatscope::reference::v2::reply`,
//! whole or streamed: each response the agent receives and the final one,
//! compared as the vectors' README says (`<generated>` any string,
//! `<elapsed>` any number, objects regardless of key order).

mod support;

use formatscope::reference::v2::reply::{parse_whole, Clock, Protocol, Stream};
use formatscope::reference::v2::Family;
use serde_json::{json, Value};
use std::path::Path;
use support::response_differ;

fn family(class: &str) -> Family {
    match class {
        "OpenAIChatModel" => Family::OpenAi,
        "OpenAIResponseModel" => Family::Responses,
        "AnthropicChatModel" => Family::Anthropic,
        "MiniMaxChatModel" => Family::MiniMax,
        "DashScopeChatModel" => Family::DashScope,
        "DeepSeekChatModel" => Family::DeepSeek,
        "MoonshotChatModel" => Family::Moonshot,
        "VolcengineChatModel" => Family::Volcengine,
        "GeminiChatModel" => Family::Gemini,
        "OllamaChatModel" => Family::Ollama,
        other => panic!("no such class {other}"),
    }
}

/// What the oracle prints for a case, from our parser.
fn run(case: &Value, protocol: Protocol, stream: bool, spoken: bool) -> Value {
    let clock = Clock(std::time::Instant::now());
    let stamp = "2026-11-27 00:00:00.000";
    let mut chunks = Vec::new();
    let outcome = if stream {
        let mut s = Stream::new(protocol, clock);
        let mut failed = None;
        for event in case.as_array().expect("a stream case is a list of events") {
            match s.push(event) {
                Ok(Some(delta)) => chunks.push(delta.dump(stamp)),
                Ok(None) => {}
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
            if s.done() {
                break;
            }
        }
        match failed {
            Some(e) => Err(e),
            None => {
                let last = s.finish().dump(stamp);
                chunks.push(last.clone());
                Ok(last)
            }
        }
    } else {
        parse_whole(protocol, case, clock, spoken).map(|r| {
            let last = r.dump(stamp);
            chunks.push(last.clone());
            last
        })
    };
    match outcome {
        Ok(last) => json!({"chunks": chunks, "final": last}),
        Err(e) => {
            json!({"chunks": chunks, "final": null, "error": e.message, "error_type": e.kind, "stage": "parse"})
        }
    }
}

#[test]
fn every_2_0_11_reply_vector_parses_as_agentscope_does() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/responses_v2");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(root.join("manifest.json")).expect("manifest"))
            .expect("JSON");
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in manifest["files"].as_array().expect("files") {
        let expected: Value = serde_json::from_slice(
            &std::fs::read(root.join(entry["expected"].as_str().unwrap_or_default()))
                .expect("expected"),
        )
        .expect("JSON");
        // An HTTP error status is the send's to report, before any parsing.
        if expected["options"].get("http_status").is_some() {
            continue;
        }
        let case: Value = serde_json::from_slice(
            &std::fs::read(root.join(entry["case"].as_str().unwrap_or_default())).expect("case"),
        )
        .expect("JSON");
        let class = entry["model_class"].as_str().unwrap_or_default();
        let protocol = Protocol::of(family(class)).expect("a protocol");
        let stream = entry["stream"].as_bool().unwrap_or(false);
        let spoken = expected["options"].get("voice").is_some();
        let got = run(&case, protocol, stream, spoken);
        let mut want = serde_json::Map::new();
        for key in ["chunks", "final", "error", "error_type", "stage"] {
            if let Some(v) = expected.get(key) {
                want.insert(key.into(), v.clone());
            }
        }
        checked += 1;
        if let Some(d) = response_differ(&Value::Object(want), &got, "$") {
            failures.push(format!("{}: {d}", entry["case"]));
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} differ",
        failures.len()
    );
    assert_eq!(checked, 80, "every vector but the two HTTP errors");
}
