//! The rule behind every node: for every golden case (tests/golden/cases,
//! tests/oracle/cases, the bundled sessions), all twelve formatters and
//! the six providers' wire bodies, every output message, every part in it
//! and every object the formatter builds has a direct attribution (source
//! messages and a rule id); every rule that fires is in the catalogue with
//! an explanation, an AgentScope location and an API reference.

use formatscope::budget::formatted_with_spans;
use formatscope::explain::{self, rule, Explained, RULES};
use formatscope::formatter::{message_keys, FormatOptions, FormatterId, Mode, Provider};
use formatscope::media::{MediaEnv, WebRoot};
use formatscope::session::read_session;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        "tests/golden/cases",
        "tests/oracle/cases",
        "tests/sessions/cases",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Objects and array elements below `at` that need a direct attribution:
/// all of them, except inside a node whose rule copies the value as it is.
fn must_cover(v: &Value, at: &str, ex: &Explained, missing: &mut Vec<String>) {
    if let Some(n) = ex.direct(at) {
        if n.rule == "tool_use.input-as-is" {
            return;
        }
    } else if v.is_object() && !at.is_empty() {
        missing.push(at.to_string());
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if x.is_object() || x.is_array() {
                    must_cover(
                        x,
                        &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        ex,
                        missing,
                    );
                }
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                if x.is_object() || x.is_array() {
                    must_cover(x, &p, ex, missing);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn every_node_of_every_golden_request_has_a_rule() {
    let web = Arc::new(WebRoot::new(vec![
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/media/web")
    ]));
    let (mut nodes, mut requests, mut wires) = (0usize, 0usize, 0usize);
    let mut missing_all = Vec::new();
    let mut fired = std::collections::BTreeSet::new();
    for path in cases() {
        let Ok(session) = read_session(&path) else {
            continue;
        };
        let Ok(msgs) = formatscope::pipeline::build_msgs(&session) else {
            continue;
        };
        let keys = message_keys(&session.messages);
        for id in FormatterId::all() {
            let env = MediaEnv::new(session.base_dir(), web.clone());
            let Ok(request) =
                formatted_with_spans(id, &FormatOptions::default(), &msgs, &keys, &env)
            else {
                continue;
            };
            requests += 1;
            let ex = explain::formatted(id, &msgs, &request, "");
            let mut missing = Vec::new();
            for (k, m) in request.messages.iter().enumerate() {
                let at = format!("/{k}");
                if ex.direct(&at).is_none() {
                    missing.push(at.clone());
                }
                must_cover(m, &at, &ex, &mut missing);
            }
            nodes += ex.nodes.len();
            for n in &ex.nodes {
                fired.insert(n.rule);
            }
            for m in missing {
                missing_all.push(format!("{} {id}: {m}", path.display()));
            }
            // The wire body: every top-level key, every message and part.
            let settings = formatscope::wire::Settings::from_session(None).unwrap();
            let Ok(w) = formatscope::wire::build(
                id,
                request.messages.clone(),
                session.tools.as_ref(),
                &settings,
                &mut |_| {},
            ) else {
                continue;
            };
            if w.sdk_error.is_some() {
                continue;
            }
            wires += 1;
            let wx = explain::wire(id, &w.body, &request, &ex);
            for n in &wx.nodes {
                fired.insert(n.rule);
            }
            nodes += wx.nodes.len();
            if let Value::Object(top) = &w.body {
                for k in top.keys() {
                    if wx.direct(&format!("/{k}")).is_none() {
                        missing_all.push(format!("{} {id} wire: /{k}", path.display()));
                    }
                }
            }
            for array in ["/messages", "/input/messages", "/contents"] {
                let Some(Value::Array(items)) = w.body.pointer(array) else {
                    continue;
                };
                for (j, item) in items.iter().enumerate() {
                    let at = format!("{array}/{j}");
                    if wx.direct(&at).is_none() {
                        missing_all.push(format!("{} {id} wire: {at}", path.display()));
                    }
                    for key in ["content", "parts"] {
                        if let Some(Value::Array(parts)) = item.get(key) {
                            for (i, part) in parts.iter().enumerate() {
                                let pat = format!("{at}/{key}/{i}");
                                if part.is_object() && wx.direct(&pat).is_none() {
                                    missing_all
                                        .push(format!("{} {id} wire: {pat}", path.display()));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(
        missing_all.is_empty(),
        "{} nodes without a rule:\n{}",
        missing_all.len(),
        missing_all
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    for id in &fired {
        let r = rule(id).unwrap_or_else(|| panic!("{id} fired but is not in the catalogue"));
        assert!(
            !r.text.is_empty() && !r.agentscope.is_empty() && r.api.starts_with("https://"),
            "{id}"
        );
    }
    assert!(
        requests > 500 && wires > 400,
        "{requests} requests, {wires} wire bodies"
    );
    let unfired: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !fired.contains(id))
        .collect();
    println!("{nodes} nodes attributed in {requests} formatted requests and {wires} wire bodies; {} of {} rules fired (not by these sessions with default settings: {unfired:?})", fired.len(), RULES.len());
}

fn session(v: Value) -> (tempfile::TempDir, formatscope::session::Session) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.json");
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    let s = read_session(&p).unwrap();
    (dir, s)
}

fn explain_of(s: &formatscope::session::Session, id: FormatterId) -> (Explained, Explained, Value) {
    let msgs = formatscope::pipeline::build_msgs(s).unwrap();
    let keys = message_keys(&s.messages);
    let env = MediaEnv::new(s.base_dir(), Arc::new(formatscope::media::NoNetwork));
    let request = formatted_with_spans(id, &FormatOptions::default(), &msgs, &keys, &env).unwrap();
    let ex = explain::formatted(id, &msgs, &request, "");
    let settings = formatscope::wire::Settings::from_session(None).unwrap();
    let w = formatscope::wire::build(
        id,
        request.messages.clone(),
        s.tools.as_ref(),
        &settings,
        &mut |_| {},
    )
    .unwrap();
    let wx = explain::wire(id, &w.body, &request, &ex);
    (ex, wx, w.body)
}

#[test]
fn the_rules_a_teacher_points_at_fire_where_expected() {
    let (_d, s) = session(json!({"messages": [
        {"name": "system", "role": "system", "content": "You are Friday."},
        {"name": "Bob", "role": "user", "content": "Hi"},
        {"name": "Friday", "role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "lookup", "input": {"q": "x"}}]},
        {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "1", "name": "lookup", "output": "done"}]},
        {"name": "Friday", "role": "assistant", "content": "Done."},
    ]}));
    // Anthropic's system prompt leaves messages for the top level.
    let (_, wx, _) = explain_of(&s, FormatterId::new(Provider::Anthropic, Mode::Chat));
    let n = wx.lookup("/system/0/text").unwrap();
    assert_eq!(
        (n.rule, n.messages.clone()),
        ("anthropic.system.top-level", Some(0..1))
    );
    // Gemini's assistant is a model turn; the call is a function_call part
    // from block 0 of message 2; its args are copied as they are.
    let (ex, _, _) = explain_of(&s, FormatterId::new(Provider::Gemini, Mode::Chat));
    let model = ex
        .nodes
        .iter()
        .find(|n| n.rule == "gemini.role.assistant-as-model")
        .unwrap();
    assert_eq!(model.messages, Some(2..3));
    let call = ex.lookup("/2/parts/0/function_call/args/q").unwrap();
    assert_eq!(call.rule, "tool_use.input-as-is");
    let part = ex.direct("/2/parts/0").unwrap();
    assert_eq!(
        (part.rule, part.block),
        ("gemini.tool_use.function-call", Some(0))
    );
    // OpenAI's tool result is a role "tool" message.
    let (ex, wx, _) = explain_of(&s, FormatterId::new(Provider::OpenAi, Mode::Chat));
    assert_eq!(
        ex.direct("/3").unwrap().rule,
        "openai.tool_result.role-tool"
    );
    assert_eq!(
        wx.direct("/stream_options").unwrap().rule,
        "wire.stream-options"
    );
    assert_eq!(
        wx.lookup("/messages/3/tool_call_id").unwrap().rule,
        "openai.tool_result.role-tool"
    );
    // Multi-agent: the two plain messages around the tool run are history.
    let (ex, _, _) = explain_of(&s, FormatterId::new(Provider::DashScope, Mode::MultiAgent));
    assert_eq!(ex.direct("/0").unwrap().rule, "multi_agent.system.first");
    assert_eq!(ex.direct("/1").unwrap().rule, "multi_agent.history.wrap");
    let fired: Vec<&str> = ex.fired().iter().map(|(r, _)| r.id).collect();
    assert!(
        fired.contains(&"dashscope.tool_result.role-tool"),
        "{fired:?}"
    );
}

/// AgentScope 2.0.11's rules are named in the catalogue beside 1.0.21's,
/// each with its place in the 2.0.11 package, found by `rule`, and the
/// upgrade lint's rules that name a formatting rule point at one of them.
#[test]
fn the_2_x_rules_are_in_the_catalogue_with_their_place_in_2_0_11() {
    use formatscope::explain::RULES_V2;
    let mut ids = std::collections::BTreeSet::new();
    for r in RULES.iter().chain(RULES_V2) {
        assert!(ids.insert(r.id), "{} twice", r.id);
    }
    for r in RULES_V2 {
        assert!(r.id.starts_with("v2."), "{}", r.id);
        assert!(r.agentscope.starts_with("agentscope/"), "{}", r.id);
        assert!(
            !r.text.is_empty() && r.api.starts_with("https://"),
            "{}",
            r.id
        );
        assert_eq!(rule(r.id).map(|x| x.id), Some(r.id));
    }
    for id in [
        "v2.hint.user-message",
        "v2.tool-result-media.system-reminder",
    ] {
        assert!(rule(id).is_some(), "{id}");
    }
    // The lint finding and the formatting rule it reports share the id.
    let reminder = "v2.tool-result-media.system-reminder";
    assert!(formatscope::lint::rule(reminder).is_some());
}

/// AgentScope Java 2.0.2's rules are named beside Python's, each with its
/// class (and method) in agentscope-java at v2.0.2.
#[test]
fn the_java_rules_are_in_the_catalogue_with_their_java_class() {
    use formatscope::explain::{RULES_JAVA, RULES_V2};
    let mut ids = std::collections::BTreeSet::new();
    for r in RULES.iter().chain(RULES_V2).chain(RULES_JAVA) {
        assert!(ids.insert(r.id), "{} twice", r.id);
    }
    assert_eq!(
        RULES_JAVA.len(),
        19,
        "the spec's 18 differences and the endpoint routing"
    );
    for r in RULES_JAVA {
        assert!(r.id.starts_with("java."), "{}", r.id);
        assert!(r.agentscope.starts_with("io.agentscope."), "{}", r.id);
        assert!(
            !r.text.is_empty() && r.api.starts_with("https://"),
            "{}",
            r.id
        );
        assert_eq!(rule(r.id).map(|x| x.id), Some(r.id));
    }
}
