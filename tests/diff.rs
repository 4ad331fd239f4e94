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
        pipeline::run_request(session, &request, &settings, env)
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/library_trip.json");
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/library_trip.json");
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
