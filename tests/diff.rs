//! `formatscope diff`'s operations are a real patch: on every golden case
//! and every pair of providers (chat and multi-agent, formatter output and
//! wire body), applied to the left request they give the right one.

use formatscope::diff::{apply, diff};
use formatscope::formatter::{FormatterId, Mode, Provider};
use formatscope::media::{MediaEnv, WebRoot};
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::read_session;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

fn request(
    session: &formatscope::session::Session,
    formatter: FormatterId,
    wire: bool,
    env: &MediaEnv,
) -> Option<Value> {
    let request = ReferenceRequest::plain(formatter);
    let out = if wire {
        let settings =
            formatscope::wire::Settings::from_session(session.settings.get("request")).ok()?;
        pipeline::build_request(session, &request, &settings, env).to_oracle()
    } else {
        pipeline::run_reference_in(session, &request, env)
    };
    out.get(if wire { "http_body" } else { "messages" })
        .cloned()
}

#[test]
fn diff_paths_applied_to_the_left_request_give_the_right_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut cases: Vec<_> = std::fs::read_dir(root.join("cases"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cases.sort();
    let web = Arc::new(WebRoot::new(vec![root.join("media/web")]));
    let (mut pairs, mut ops_total) = (0, 0);
    for case in &cases {
        let Ok(session) = read_session(case) else {
            continue;
        };
        let env = MediaEnv::new(session.base_dir(), web.clone());
        for wire in [false, true] {
            for mode in [Mode::Chat, Mode::MultiAgent] {
                let requests: Vec<(Provider, Value)> = Provider::ALL
                    .iter()
                    .filter_map(|p| {
                        request(&session, FormatterId::new(*p, mode), wire, &env).map(|r| (*p, r))
                    })
                    .collect();
                for (lp, left) in &requests {
                    for (rp, right) in &requests {
                        let ops = diff(left, right);
                        let mut doc = left.clone();
                        apply(&mut doc, &ops).unwrap_or_else(|e| {
                            panic!(
                                "{}: {lp} → {rp} ({mode:?}, wire {wire}): {e}",
                                case.display()
                            )
                        });
                        assert_eq!(
                            &doc,
                            right,
                            "{}: {lp} → {rp} ({mode:?}, wire {wire})",
                            case.display()
                        );
                        if lp == rp {
                            assert!(ops.is_empty());
                        }
                        pairs += 1;
                        ops_total += ops.len();
                    }
                }
            }
        }
    }
    println!(
        "{pairs} request pairs over {} golden cases, {ops_total} operations, all applied",
        cases.len()
    );
    assert!(pairs > 1000, "{pairs}");
}

#[test]
fn anthropics_system_prompt_shows_as_moved_on_the_wire() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/library_trip.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args([
            "diff",
            path.to_str().unwrap(),
            "--left",
            "openai:chat",
            "--right",
            "anthropic:chat:wire",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("OpenAIChatFormatter → AnthropicChatFormatter (wire body):"),
        "{text}"
    );
    assert!(
        text.contains("(moved from /0/content)") || text.contains("moved"),
        "{text}"
    );
}

#[test]
fn two_versions_of_a_session_say_how_much_a_prompt_cache_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/library_trip.json");
    let edited = dir.path().join("edited.json");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "Hi, Alice, do you know the nearest library?",
        "Hi, Alice, where is the nearest library?",
    );
    std::fs::write(&edited, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args([
            "diff",
            path.to_str().unwrap(),
            "--left",
            "openai:chat:wire",
            "--right",
            "openai:chat:wire",
            "--right-session",
            edited.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ops = v["operations"].as_array().unwrap();
    assert_eq!(ops.len(), 1, "{ops:?}");
    let prefix = &v["cache_prefix"];
    assert!(prefix["bytes"].as_u64().unwrap() > 100);
    assert!(prefix["bytes"].as_u64() < prefix["of_bytes"].as_u64());
    // The edit is in the first user message: the system prompt before it
    // stays cached.
    assert_eq!(prefix["breaks_at"], "/messages/1/content/0/text");
}

fn golden(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/cases/{name}.json"))
}

fn run_diff(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("diff")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Issue "Exact everywhere", item 7: a move pairs places of one role (a
/// message's text with a message's text, the system prompt with the
/// system message), never a tool call with a tool schema's name nor a
/// message's text with the whole conversation.
#[test]
fn moves_join_only_places_of_one_role() {
    use formatscope::diff::moves::{role, tokens};
    let web = Arc::new(WebRoot::new(vec![
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/media/web")
    ]));
    let pairs = [
        ((Provider::OpenAi, true), (Provider::Anthropic, true)),
        ((Provider::OpenAi, true), (Provider::Gemini, false)),
        ((Provider::OpenAi, true), (Provider::Gemini, true)),
        ((Provider::OpenAi, false), (Provider::Gemini, false)),
    ];
    let mut moves = 0;
    for case in [
        "tools_nested_schema",
        "parallel_tool_results",
        "truncation_tool_chain",
        "multiple_tool_calls_one_message",
        "library_trip",
    ] {
        let session = read_session(&golden(case)).unwrap();
        let env = MediaEnv::new(session.base_dir(), web.clone());
        for ((lp, lw), (rp, rw)) in pairs {
            let side = |p: Provider, wire: bool| {
                let r = request(&session, FormatterId::new(p, Mode::Chat), wire, &env).unwrap();
                if wire {
                    r
                } else {
                    serde_json::json!({ "messages": r })
                }
            };
            let (left, right) = (side(lp, lw), side(rp, rw));
            let ops = diff(&left, &right);
            let mut doc = left.clone();
            apply(&mut doc, &ops).unwrap();
            assert_eq!(doc, right);
            for op in ops.iter().filter(|o| o.moved.is_some()) {
                let here = format!("{}{}", op.path, op.part.as_deref().unwrap_or(""));
                let there = op.moved.as_deref().unwrap_or_default();
                assert_eq!(
                    role(&tokens(&here)),
                    role(&tokens(there)),
                    "{case}: {lp} → {rp}: {:?}",
                    op.summary()
                );
                let line = op.summary().unwrap_or_default();
                assert!(
                    !(line.starts_with("- /messages") && line.contains("moved to /tools")),
                    "{case}: {line}"
                );
                assert!(!line.starts_with("+ /contents ("), "{case}: {line}");
                moves += 1;
            }
        }
    }
    assert!(moves > 0, "the system prompt still moves");
}

/// `function_call` → `functionCall` and `function_response` →
/// `functionResponse` (Gemini's formatter output against its wire body)
/// are both renames, and nothing else.
#[test]
fn renamed_keys_show_one_way() {
    let path = golden("parallel_tool_results");
    let text = run_diff(&[
        path.to_str().unwrap(),
        "--left",
        "gemini:chat",
        "--right",
        "gemini:chat:wire",
    ]);
    assert!(
        text.contains("/functionCall (renamed from /messages/1/parts/0/function_call)"),
        "{text}"
    );
    assert!(
        text.contains("/functionResponse (renamed from /messages/2/parts/0/function_response)"),
        "{text}"
    );
    assert!(
        text.contains("~ /contents (renamed from /messages)"),
        "{text}"
    );
    for line in text.lines().skip(1) {
        let path = line.split(' ').nth(1).unwrap_or_default();
        let whole = [
            "functionCall",
            "functionResponse",
            "function_call",
            "function_response",
        ]
        .iter()
        .any(|k| path.ends_with(k));
        assert!(!whole || line.contains("renamed"), "{line}");
        assert!(!line.contains("moved"), "{line}");
    }
}

/// The session `text` with `edit` applied to its JSON.
fn edited(dir: &Path, from: &Path, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let mut v: Value = serde_json::from_slice(&std::fs::read(from).unwrap()).unwrap();
    edit(&mut v);
    let to = dir.join(from.file_name().unwrap());
    std::fs::write(&to, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    to
}

fn cache_prefix(left: &Path, right: &Path) -> Value {
    let text = run_diff(&[
        left.to_str().unwrap(),
        "--left",
        "openai:chat:wire",
        "--right",
        "openai:chat:wire",
        "--right-session",
        right.to_str().unwrap(),
        "--json",
    ]);
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cache_prefix"].clone()
}

/// Item 3: a one-word edit of a small request keeps a prefix counted in
/// prompt tokens, as the meter counts the request: never more than its
/// total, and the total is `count`'s.
#[test]
fn the_cache_prefix_counts_prompt_tokens_within_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/chat_plain.json");
    let right = edited(dir.path(), &path, |v| {
        let last = v["messages"].as_array_mut().unwrap().last_mut().unwrap();
        let text = last["content"].as_str().unwrap().replacen("the", "a", 1);
        last["content"] = text.into();
    });
    let p = cache_prefix(&path, &right);
    let (tokens, of) = (
        p["tokens"].as_i64().unwrap(),
        p["of_tokens"].as_i64().unwrap(),
    );
    assert!(0 < tokens && tokens < of, "{p}");
    assert_eq!(p["breaks"], "message", "{p}");
    assert_eq!(p["message"], 5, "{p}");
    let count = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args([
            "count",
            right.to_str().unwrap(),
            "--provider",
            "openai",
            "--mode",
            "chat",
            "--json",
        ])
        .output()
        .unwrap();
    let count: Value = serde_json::from_slice(&count.stdout).unwrap();
    assert_eq!(count["total"], of, "{count}");
    // Unchanged: all of it.
    let same = cache_prefix(&path, &path);
    assert_eq!(same["tokens"], same["of_tokens"], "{same}");
    assert_eq!(same["breaks_at"], Value::Null, "{same}");
}

/// Item 3: no provider reuses a cache across models; a model change
/// breaks the prefix at the model and says so.
#[test]
fn a_model_change_breaks_the_prefix_at_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/chat_plain.json");
    let right = edited(dir.path(), &path, |v| {
        v["request"] = serde_json::json!({"model": "gpt-4o-mini"});
    });
    let p = cache_prefix(&path, &right);
    assert_eq!(p["breaks"], "model", "{p}");
    assert_eq!(p["breaks_at"], "/model", "{p}");
    assert_eq!(p["tokens"], 0, "{p}");
    let text = run_diff(&[
        path.to_str().unwrap(),
        "--left",
        "openai:chat:wire",
        "--right",
        "openai:chat:wire",
        "--right-session",
        right.to_str().unwrap(),
    ]);
    assert!(
        text.contains("the model changed (gpt-4o → gpt-4o-mini)"),
        "{text}"
    );
}

/// The compare view's rows of `left` → `right`: for each group, its
/// heading and whether any line on either side is marked.
fn marked_groups(c: &formatscope::compare::Compared) -> Vec<(String, bool)> {
    use formatscope::compare::Row;
    let mut out: Vec<(String, bool)> = Vec::new();
    for row in &c.rows {
        match row {
            Row::Heading(h) => out.push((h.clone(), false)),
            Row::Lines(l, r) => {
                let marked = [l, r]
                    .iter()
                    .any(|x| x.as_ref().is_some_and(|x| x.mark.is_some()));
                if let Some(last) = out.last_mut() {
                    last.1 |= marked;
                }
            }
        }
    }
    out
}

/// Item 7: after deleting message 5, the compare view's "last save / now"
/// pairs every other message with itself (by content: these messages
/// have no ids), and shows message 5 alone, removed.
#[test]
fn last_save_and_now_pair_messages_by_identity() {
    use formatscope::budget::formatted_with_spans;
    use formatscope::compare::{compare, Identity, Side};
    use formatscope::formatter::{message_keys, FormatOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = golden("long_history");
    let deleted = edited(dir.path(), &path, |v| {
        v["messages"].as_array_mut().unwrap().remove(5);
    });
    let side = |path: &Path, label: &str| {
        let session = read_session(path).unwrap();
        let env = MediaEnv::new(session.base_dir(), Arc::new(formatscope::media::NoNetwork));
        let msgs = pipeline::build_msgs(&session).unwrap();
        let id = FormatterId::new(Provider::OpenAi, Mode::Chat);
        let f = formatted_with_spans(
            id,
            &FormatOptions::default(),
            &msgs,
            &message_keys(&session.messages),
            &env,
        )
        .unwrap();
        let ids = session
            .messages
            .iter()
            .map(|m| Identity::of(&m.value()))
            .collect();
        Side::formatted(label, f.messages, &f.spans).with_identities(ids)
    };
    let c = compare(&side(&path, "last save"), &side(&deleted, "now"));
    let groups = marked_groups(&c);
    let marked: Vec<&(String, bool)> = groups.iter().filter(|g| g.1).collect();
    assert_eq!(marked.len(), 1, "{groups:?}");
    assert_eq!(marked[0].0, "message 5 · left only", "{groups:?}");
    assert_eq!((c.counts.added, c.counts.changed), (0, 0), "{:?}", c.counts);
    // Message 6 of the last save faces message 5 now.
    assert!(groups.iter().any(|g| g.0 == "message 11"), "{groups:?}");
    assert!(!groups.iter().any(|g| g.0 == "message 12"), "{groups:?}");
}

/// Item 7: before / after a truncation that drops message 5, the other
/// messages face themselves, unmarked.
#[test]
fn before_and_after_truncation_pair_messages_by_identity() {
    use formatscope::budget::BudgetModel;
    use formatscope::compare::{compare, Side};
    use formatscope::formatter::FormatOptions;
    let session = read_session(&golden("long_history")).unwrap();
    let id = FormatterId::new(Provider::OpenAi, Mode::Chat);
    let model = BudgetModel::new(
        id,
        FormatOptions::default(),
        formatscope::tokens::models::resolve(id.provider, session.model()),
        session.messages.iter().cloned(),
        session.tools.clone(),
        MediaEnv::new(session.base_dir(), Arc::new(formatscope::media::NoNetwork)),
    )
    .unwrap();
    let kept: Vec<usize> = (0..session.messages.len()).filter(|i| *i != 5).collect();
    let before = model.formatted_by(id, None).unwrap();
    let after = model.formatted_by(id, Some(&kept)).unwrap();
    let c = compare(
        &Side::formatted("before", before.messages, &before.spans),
        &Side::formatted("after truncation", after.messages, &after.spans),
    );
    let groups = marked_groups(&c);
    let marked: Vec<&(String, bool)> = groups.iter().filter(|g| g.1).collect();
    assert_eq!(marked.len(), 1, "{groups:?}");
    assert_eq!(marked[0].0, "message 5", "{groups:?}");
    assert_eq!((c.counts.added, c.counts.changed), (0, 0), "{:?}", c.counts);
}

/// `--left 1.0.21:P --right 2.0.11:P`: what upgrading AgentScope changes
/// in the request for one bundled session, the 2.0.11 side coming from
/// `reference::Reference::format` (so any release in `reference::ALL`
/// diffs the same way), and the operations a real patch between them.
#[test]
fn a_release_prefix_diffs_what_an_upgrade_changes() {
    let trip = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/library_trip.json");
    let trip = trip.to_str().unwrap();
    let openai = run_diff(&[trip, "--left", "1.0.21:openai", "--right", "2.0.11:openai"]);
    assert_eq!(
        openai,
        "1.0.21 OpenAIMultiAgentFormatter.format → 2.0.11 OpenAIMultiAgentFormatter.format: 1 change\n\
         ~ /messages/0/content: \"You're a helpful assistant named Friday.\"\n"
    );
    // Anthropic 2.x wraps only the first history group in <history> tags;
    // Gemini's function calls now carry their id.
    let anthropic = run_diff(&[
        trip,
        "--left",
        "1.0.21:anthropic",
        "--right",
        "2.0.11:anthropic",
    ]);
    assert!(
        anthropic.contains("~ /messages/6/content/0/text: \"Friday: The nearest library is"),
        "{anthropic}"
    );
    let gemini = run_diff(&[trip, "--left", "1.0.21:gemini", "--right", "2.0.11:gemini"]);
    assert!(
        gemini.contains("~ /messages/2/parts/0/function_call/id: \"1\""),
        "{gemini}"
    );
    // The handout puts the releases side by side (the 2.x side without
    // rule notes: explain attributes 1.0.21 requests).
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("upgrade.html");
    run_diff(&[
        trip,
        "--left",
        "1.0.21:anthropic",
        "--right",
        "2.0.11:anthropic",
        "--html",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("2.0.11 AnthropicMultiAgentFormatter.format"),
        "{}",
        &html[..html.len().min(2000)]
    );
    // The default release with a prefix is the path without one.
    let same = run_diff(&[
        trip,
        "--left",
        "1.0.21:ollama:wire",
        "--right",
        "ollama:wire",
    ]);
    assert!(same.contains(": 0 changes"), "{same}");
    // The JSON operations turn 1.0.21's request into 2.0.11's, as the
    // release formats it through the trait.
    let ops: Value = serde_json::from_str(&run_diff(&[
        trip,
        "--left",
        "1.0.21:ollama",
        "--right",
        "2.0.11:ollama",
        "--json",
    ]))
    .unwrap();
    assert!(
        ops["operations"].as_array().is_some_and(|o| o.len() > 5),
        "{ops}"
    );
    let session = read_session(Path::new(trip)).unwrap();
    let env = MediaEnv::new(session.base_dir(), Arc::new(WebRoot::new(Vec::new())));
    let formatter = FormatterId::new(Provider::Ollama, Mode::MultiAgent);
    let left = request(&session, formatter, false, &env).unwrap();
    let release = formatscope::reference::by_version("2.0.11").unwrap();
    let right = release
        .format(
            &session,
            &formatscope::reference::Family::of(Provider::Ollama),
            formatscope::reference::Mode::MultiAgent,
            &env,
        )
        .messages
        .unwrap();
    let ops = diff(
        &serde_json::json!({ "messages": left }),
        &serde_json::json!({ "messages": right }),
    );
    let mut doc = serde_json::json!({ "messages": left });
    apply(&mut doc, &ops).unwrap();
    assert_eq!(doc["messages"], Value::Array(right));
}

/// A release the workbench does not have is bad usage (exit 2), naming
/// the ones it has.
#[test]
fn an_unknown_release_is_bad_usage_naming_the_known_ones() {
    let trip = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases/library_trip.json");
    let run = |left: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_formatscope"))
            .arg("diff")
            .arg(&trip)
            .args(["--left", left, "--right", "openai"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run("3.0.0:openai");
    assert_eq!(code, Some(2));
    assert_eq!(
        err.trim(),
        format!(
            "error: 3.0.0:openai: unknown AgentScope release 3.0.0 (known: {})",
            formatscope::reference::versions()
        )
    );
    let (code, err) = run("java-9.9:openai");
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown AgentScope release java-9.9"), "{err}");
    // Every release's side may be its wire body.
    let (code, err) = run("2.0.11:openai:wire");
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = run("2.0.11:openai:sideways");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("AgentScope 2.0.11 has no mode sideways (chat, multi-agent)"),
        "{err}"
    );
    // Each release's own providers: 1.0.21 has no MiniMax, and says which
    // it has.
    let (code, err) = run("1.0.21:minimax");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("AgentScope 1.0.21 has no formatter for minimax (it has openai, anthropic"),
        "{err}"
    );
}

/// A provider only a later release has is a side like any other: 2.x's
/// MiniMax beside its OpenAI, Java's GLM beside 2.x's OpenAI.
#[test]
fn providers_only_a_later_release_has_are_sides() {
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/library_trip.json");
    let out = run_diff(&[
        session,
        "--left",
        "2.0.11:openai",
        "--right",
        "2.0.11:minimax",
    ]);
    assert!(
        out.starts_with(
            "2.0.11 OpenAIMultiAgentFormatter.format → 2.0.11 MiniMaxMultiAgentFormatter.format"
        ),
        "{out}"
    );
    let out = run_diff(&[
        session,
        "--left",
        "java-2.0.2:glm",
        "--right",
        "2.0.11:volcengine:chat",
    ]);
    assert!(
        out.starts_with(
            "java-2.0.2 GLMMultiAgentFormatter.format → 2.0.11 VolcengineChatFormatter.format"
        ),
        "{out}"
    );
}

/// A Java side goes through the same interface as every release: where the
/// two ports of one framework differ on DashScope (Java writes an empty
/// assistant content as "" and a tool call's arguments compact, in its own
/// key order).
#[test]
fn python_and_java_ports_side_by_side() {
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/library_trip.json");
    let out = run_diff(&[
        session,
        "--left",
        "1.0.21:dashscope",
        "--right",
        "java-2.0.2:dashscope",
    ]);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.contains("java-2.0.2 DashScopeMultiAgentFormatter"),
        "{out}"
    );
    assert!(out.contains("/tool_calls/0/function/arguments"), "{out}");
}
