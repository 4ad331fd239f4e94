//! AgentScope Java 2.0.2's golden vectors (tests/golden_java, a copy of the
//! reference set): every manifest command run through
//! `formatscope::reference::java` from the case's folder, web media from
//! media/web, and judged as `tools/compare.py --wire-bytes` judges (parsed
//! JSON, `warnings` ignored, errors by stage and type, `request_text` byte
//! for byte, Java identity hashes read as one).

use formatscope::media::{MediaEnv, WebRoot};
use formatscope::reference::java::{self, Options};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Vectors known to pass; the test fails if fewer do.
const FLOOR: usize = 480;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden_java")
}

fn options(args: &[String]) -> Options {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let next = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--formatter" => o.formatter = next,
            "--endpoint" => o.endpoint = next,
            "--model" => o.model = next,
            "--conversation-history-prompt" => o.conversation_history_prompt = next,
            "--promote-tool-result-images" => {
                o.promote_tool_result_images = true;
                i += 1;
                continue;
            }
            other => panic!("unknown oracle flag {other}"),
        }
        i += 2;
    }
    o
}

/// compare.py's identity-hash rule: `Name@1a2b3c` reads as `Name@<IDENTITY>`.
fn identity(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("Source@") {
        let (head, tail) = rest.split_at(at + "Source@".len());
        out.push_str(head);
        let n = tail
            .chars()
            .take_while(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
            .count();
        if n > 0 && n <= 8 {
            out.push_str("<IDENTITY>");
            rest = &tail[n..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn load(text: &str) -> Value {
    serde_json::from_str(&identity(text)).expect("vector is JSON")
}

/// ints and floats kept apart, as compare.py's `typed`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.is_f64() == y.is_f64() && x.as_f64() == y.as_f64()
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn compare(exp: &Value, act: &Value) -> Result<(), String> {
    let (mut exp, mut act) = (exp.clone(), act.clone());
    let (Some(e), Some(a)) = (exp.as_object_mut(), act.as_object_mut()) else {
        return Err("not objects".into());
    };
    e.shift_remove("warnings");
    a.shift_remove("warnings");
    if e.contains_key("error") {
        if !a.contains_key("error") {
            return Err("expected an error, got none".into());
        }
        for key in ["stage", "error_type"] {
            if e.get(key) != a.get(key) {
                return Err(format!("{key} {:?} != {:?}", a.get(key), e.get(key)));
            }
        }
        for key in ["error", "error_type", "stage", "cause"] {
            e.shift_remove(key);
            a.shift_remove(key);
        }
    } else if a.contains_key("error") {
        return Err(format!(
            "unexpected error: {:?}: {:?}",
            a.get("error_type"),
            a.get("error")
        ));
    } else {
        let (et, at) = (
            e.shift_remove("request_text"),
            a.shift_remove("request_text"),
        );
        if et != at {
            let (et, at) = (
                et.and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
                at.and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default(),
            );
            let i = et
                .chars()
                .zip(at.chars())
                .take_while(|(x, y)| x == y)
                .count();
            let show = |s: &str| s.chars().skip(i).take(70).collect::<String>();
            return Err(format!(
                "request_text differs at {i}: {:?} != {:?}",
                show(&at),
                show(&et)
            ));
        }
    }
    for key in e.keys().chain(a.keys()) {
        match (e.get(key), a.get(key)) {
            (Some(x), Some(y)) if same(x, y) => {}
            (x, y) => {
                let cut = |v: Option<&Value>| {
                    v.map(|v| v.to_string().chars().take(300).collect::<String>())
                };
                return Err(format!("{key}: {:?} != {:?}", cut(y), cut(x)));
            }
        }
    }
    Ok(())
}

#[test]
fn golden_java_vectors() {
    let root = root();
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest is JSON");
    let cases = root.join("cases");
    let web = root.join("media").join("web");
    let mut passed = 0;
    let mut total = 0;
    let mut per_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for entry in manifest["files"].as_array().expect("files") {
        total += 1;
        let cmd: Vec<String> = entry["command"]
            .as_array()
            .expect("command")
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let case = Path::new(&cmd[2])
            .file_name()
            .expect("case file")
            .to_owned();
        let session: Value =
            serde_json::from_str(&std::fs::read_to_string(cases.join(&case)).expect("case"))
                .expect("case is JSON");
        let opts = options(&cmd[3..]);
        let env = MediaEnv::new(&cases, Arc::new(WebRoot::new(vec![web.clone()])));
        let rel = entry["expected"].as_str().expect("expected");
        let expected = load(&std::fs::read_to_string(root.join(rel)).expect("vector"));
        let result = match java::run(&session, &env, &opts) {
            Ok(out) => compare(&expected, &load(&out.to_string())),
            Err(e) => Err(format!("usage error: {e}")),
        };
        let class = entry["formatter"].as_str().unwrap_or("").to_string();
        let slot = per_class.entry(class).or_default();
        slot.1 += 1;
        match result {
            Ok(()) => {
                passed += 1;
                slot.0 += 1;
            }
            Err(why) => failures.push(format!("FAIL {rel}: {why}")),
        }
    }
    for f in &failures {
        println!("{f}");
    }
    for (class, (p, t)) in &per_class {
        println!("{class}: {p} of {t}");
    }
    println!("{passed} of {total} vectors pass");
    assert!(
        passed >= FLOOR,
        "{passed} of {total} vectors pass, fewer than the floor {FLOOR}"
    );
}

/// Java on the wire: every vector that formats sends, through the model
/// class's wire (`request --agentscope java-2.0.2`'s core), exactly the
/// vector's body bytes to the endpoint its class and endpoint name, with
/// the Java client's headers; and a non-streaming call flips only the
/// streaming fields.
#[test]
fn golden_java_vectors_go_on_the_wire_byte_for_byte() {
    let root = root();
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest is JSON");
    let cases = root.join("cases");
    let web = root.join("media").join("web");
    let mut checked = 0;
    for entry in manifest["files"].as_array().expect("files") {
        let rel = entry["expected"].as_str().expect("expected");
        let expected = load(&std::fs::read_to_string(root.join(rel)).expect("vector"));
        let Some(text) = expected.get("request_text").and_then(Value::as_str) else {
            continue;
        };
        let cmd: Vec<String> = entry["command"]
            .as_array()
            .expect("command")
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let case = Path::new(&cmd[2])
            .file_name()
            .expect("case file")
            .to_owned();
        let session: Value =
            serde_json::from_str(&std::fs::read_to_string(cases.join(&case)).expect("case"))
                .expect("case is JSON");
        let opts = options(&cmd[3..]);
        let env = MediaEnv::new(&cases, Arc::new(WebRoot::new(vec![web.clone()])));
        let (_, wire) = java::wire::request(&session, &env, &opts, true, None).expect("a request");
        let wire = wire.expect("a wire request");
        assert_eq!(
            identity(&wire.body_bytes()),
            identity(text),
            "{rel}: body bytes"
        );
        let formatter = entry["formatter"].as_str().unwrap_or_default();
        let endpoint = entry["endpoint"].as_str();
        let url = match (formatter, endpoint) {
            (_, Some("multimodal")) => {
                "https://dashscope.aliyuncs.com/api/v1/services/aigc/multimodal-generation/generation"
            }
            (f, _) if f.starts_with("DashScope") => {
                "https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation"
            }
            (f, _) if f.starts_with("Ollama") => "http://localhost:11434/api/chat",
            (f, _) if f.starts_with("DeepSeek") => "https://api.deepseek.com/v1/chat/completions",
            (f, _) if f.starts_with("GLM") => {
                "https://open.bigmodel.cn/api/paas/v4/chat/completions"
            }
            _ => "https://api.openai.com/v1/chat/completions",
        };
        assert_eq!(wire.url, url, "{rel}");
        let has = |h: &str| wire.headers.contains_key(h);
        assert_eq!(
            has("authorization"),
            !formatter.starts_with("Ollama"),
            "{rel}"
        );
        assert_eq!(
            has("x-dashscope-sse"),
            formatter.starts_with("DashScope"),
            "{rel}"
        );
        // Without streaming: the same body but its streaming fields.
        let (_, calm) = java::wire::request(&session, &env, &opts, false, None).expect("a request");
        let calm = calm.expect("a wire request").body;
        let mut streaming = wire.body.clone();
        if let Some(p) = streaming
            .get_mut("parameters")
            .and_then(Value::as_object_mut)
        {
            p.insert("incremental_output".into(), Value::Bool(false));
        } else if let Some(b) = streaming.as_object_mut() {
            b.insert("stream".into(), Value::Bool(false));
            b.shift_remove("stream_options");
        }
        assert_eq!(calm, streaming, "{rel}: non-streaming body");
        checked += 1;
    }
    assert_eq!(checked, 456, "every vector that formats");
}

/// What AgentScope Java 2.0.2's own tests assert of a message whose
/// metadata holds `"_cache_control": true` (`OpenAICacheControlTest`,
/// `DashScopeCacheControlTest`, `metadataMarking` / `metadataFalse`): the
/// OpenAI and DashScope converters mark the message itself, last;
/// `false` (or the string "true") marks nothing; Ollama has no marker;
/// the DashScope multi-agent text path builds its messages itself.
#[test]
fn a_cache_control_marker_in_metadata_goes_on_the_message() {
    let session = serde_json::json!({"messages": [
        {"role": "system", "name": "system", "content": "Be brief.", "metadata": {"_cache_control": true}},
        {"role": "user", "name": "user", "content": "Important context", "metadata": {"_cache_control": true}},
        {"role": "user", "name": "user", "content": "Not marked", "metadata": {"_cache_control": false}},
        {"role": "user", "name": "user", "content": "A string is not TRUE", "metadata": {"_cache_control": "true"}}
    ]});
    let env = MediaEnv::new(root(), Arc::new(WebRoot::new(vec![])));
    let run = |formatter: &str, endpoint: Option<&str>| {
        let opts = Options {
            formatter: Some(formatter.into()),
            endpoint: endpoint.map(String::from),
            ..Options::default()
        };
        let out = java::run(&session, &env, &opts).expect("a run");
        out["messages"].as_array().cloned().expect("messages")
    };
    let marker = serde_json::json!({"type": "ephemeral"});
    for (formatter, endpoint) in [
        ("OpenAIChatFormatter", None),
        ("GLMFormatter", None),
        ("DeepSeekFormatter", None),
        ("DashScopeChatFormatter", Some("text")),
        ("DashScopeChatFormatter", Some("multimodal")),
    ] {
        let m = run(formatter, endpoint);
        assert_eq!(m[0]["cache_control"], marker, "{formatter} {endpoint:?}");
        assert_eq!(m[1]["cache_control"], marker, "{formatter} {endpoint:?}");
        let last_key = m[1].as_object().and_then(|o| o.keys().next_back().cloned());
        assert_eq!(last_key.as_deref(), Some("cache_control"), "the last field");
        assert!(
            m[2].get("cache_control").is_none(),
            "{formatter}: false marks nothing"
        );
        assert!(
            m[3].get("cache_control").is_none(),
            "{formatter}: a string marks nothing"
        );
    }
    for m in run("OllamaChatFormatter", None) {
        assert!(m.get("cache_control").is_none(), "Ollama has none");
    }
    // Multi-agent: the OpenAI system message goes through the converter,
    // merged history does not; DashScope's text path marks nothing.
    let m = run("OpenAIMultiAgentFormatter", None);
    assert_eq!(m[0]["cache_control"], marker);
    assert!(
        m[1].get("cache_control").is_none(),
        "a merged history message"
    );
    for m in run("DashScopeMultiAgentFormatter", Some("text")) {
        assert!(m.get("cache_control").is_none());
    }
}

/// A message without a role is a Java `Msg` with a null role: the OpenAI
/// family and DashScope's chat formatter throw `NullPointerException`
/// when they format; DashScope's multi-agent text path never reads the
/// role and puts the message in the history by its name.
#[test]
fn a_message_without_a_role_fails_where_java_reads_the_role() {
    let session = serde_json::json!({"messages": [
        {"role": "system", "name": "system", "content": "Be brief."},
        {"name": "Bob", "content": "Hello, who is there?"},
        {"role": "user", "name": "Alice", "content": "Me."}
    ]});
    let env = MediaEnv::new(root(), Arc::new(WebRoot::new(vec![])));
    let run = |formatter: &str| {
        let opts = Options {
            formatter: Some(formatter.into()),
            ..Options::default()
        };
        java::run(&session, &env, &opts).expect("a run")
    };
    for formatter in [
        "OpenAIChatFormatter",
        "OpenAIMultiAgentFormatter",
        "DeepSeekFormatter",
        "GLMFormatter",
        "DashScopeChatFormatter",
        "OllamaChatFormatter",
    ] {
        let out = run(formatter);
        assert_eq!(
            out["error_type"], "NullPointerException",
            "{formatter}: {out}"
        );
        assert_eq!(out["stage"], "format", "{formatter}");
    }
    let out = run("DashScopeMultiAgentFormatter");
    assert!(out.get("error").is_none(), "{out}");
    let history = out["messages"][1]["content"].as_str().expect("the history");
    assert!(history.contains("Bob: Hello, who is there?"), "{history}");
    assert!(history.contains("Alice: Me."), "{history}");
}
