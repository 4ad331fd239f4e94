//! The workbench's screens, rendered into ratatui's TestBackend and
//! snapshotted with insta (tests/snapshots/). Review changes with
//! `cargo insta review`.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use workbench::*;

#[test]
fn the_library_trip_under_each_provider() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    for (k, name) in ['1', '2', '3', '4', '5', '6'].into_iter().zip([
        "openai",
        "anthropic",
        "dashscope",
        "gemini",
        "ollama",
        "deepseek",
    ]) {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
        let screen = screen_text(&app, 120, 40);
        insta::assert_snapshot!(format!("library_trip_{name}"), screen);
    }
}

#[test]
fn a_session_that_stops_parsing_keeps_the_last_output_marked_stale() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("chat.json");
    std::fs::copy(session_path("chat_plain.json"), &path).expect("copy");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let cmds = app.update(Event::FileRead {
        path: path.clone(),
        result: formatscope::tui::msg::FileResult::Text {
            text: std::sync::Arc::new("{\"messages\": [\n  {\"role\": \"user\",,}\n]}".to_owned()),
            mode: None,
            real: path.clone(),
        },
    });
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("STALE"), "{screen}");
    assert!(
        screen.contains("chat.json:2:"),
        "the error names file:line:col\n{screen}"
    );
    assert!(
        screen.contains("\"role\""),
        "the last good request is still shown"
    );
    insta::assert_snapshot!(
        "error_state",
        screen.replace(&dir.path().display().to_string(), "<TMP>")
    );
}

#[test]
fn the_truncation_preview_says_what_is_dropped_or_why_it_cannot_fit() {
    let (app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("Drops 3 of 11 messages"), "{screen}");
    assert!(screen.contains("OpenAITokenCounter(gpt-4o)"), "{screen}");
    insta::assert_snapshot!("truncation_preview", screen);

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tight.json");
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(session_path("library_trip.json")).expect("read"),
    )
    .expect("json");
    doc["max_tokens"] = serde_json::json!(5);
    std::fs::write(&path, doc.to_string()).expect("write");
    let (app, _) = loaded_app(&path, (120, 40));
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("system prompt alone is over the budget"),
        "{screen}"
    );
}

#[test]
fn a_narrow_terminal_is_usable_and_a_tiny_one_says_so() {
    let (app, _) = loaded_app(&session_path("library_trip.json"), (80, 24));
    let screen = screen_text(&app, 80, 24);
    insta::assert_snapshot!("narrow_80x24", screen);
    let tiny = screen_text(&app, 50, 12);
    assert!(
        tiny.contains("needs a terminal of at least 60×16"),
        "{tiny}"
    );
}

#[test]
fn help_is_generated_from_the_keymap() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    app.update(key('?'));
    let screen = screen_text(&app, 120, 40);
    // Longer than the screen: it says so and scrolls page by page.
    assert!(screen.contains("Keys 1–"), "{screen}");
    let mut seen = screen.clone();
    for _ in 0..5 {
        app.update(Event::Key(KeyEvent::new(
            KeyCode::PageDown,
            KeyModifiers::NONE,
        )));
        seen.push_str(&screen_text(&app, 120, 40));
    }
    for b in formatscope::tui::keymap::BINDINGS {
        // The digits share one line, written from the releases' providers.
        if matches!(b.action, formatscope::tui::keymap::Action::Provider(_)) {
            continue;
        }
        assert!(seen.contains(b.help), "help lacks {:?}", b.help);
    }
    for provider in ["8 MiniMax", "Volcengine (p)", "7 GLM"] {
        assert!(seen.contains(provider), "help lacks {provider}\n{seen}");
    }
    insta::assert_snapshot!("help", screen);
}

#[test]
fn the_selected_message_is_marked_in_the_request() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    for _ in 0..9 {
        app.update(key('j'));
    }
    let terminal = render(&app, 120, 40);
    let buffer = terminal.backend().buffer();
    let area = app.areas.output;
    let marked = (area.y..area.y + area.height)
        .filter(|y| buffer[(area.x + 1, *y)].symbol() == "▌")
        .count();
    assert!(
        marked > 0,
        "the request lines of message #9 carry the provenance mark"
    );
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("Friday: The nearest"),
        "message #9's text is scrolled into view\n{screen}"
    );
}

/// Nothing to format or a message AgentScope rejects: every pane says so
/// (no "counting…" that never ends), and the status line says where and why.
#[test]
fn failures_are_shown_in_every_pane_not_left_counting() {
    let empty = tempfile::tempdir().expect("tempdir");
    let (app, _computer) = folder_app(empty.path(), (120, 30));
    let screen = screen_text(&app, 120, 30);
    assert!(
        screen.contains("this folder has no files that are sessions"),
        "{screen}"
    );
    assert!(!screen.contains("counting…"), "{screen}");
    assert_eq!(
        screen.matches("no session").count(),
        2,
        "budget and truncation\n{screen}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("roles.json");
    std::fs::write(
        &path,
        "{\"messages\": [\n  {\"name\": \"u\", \"role\": \"user\", \"content\": \"hi\"},\n  {\"name\": \"calc\", \"role\": \"tool\", \"content\": \"4\"}\n]}",
    )
    .expect("write");
    let (app, _computer) = loaded_app(&path, (160, 30));
    let screen = screen_text(&app, 160, 30);
    assert!(
        screen.contains(
            "roles.json:3:3: message 1 rejected: role \"tool\" is not one of AgentScope's roles"
        ),
        "{screen}"
    );
    assert!(screen.contains("Why: role \"tool\""), "{screen}");
    assert!(
        screen.contains("no count: the request does not format"),
        "{screen}"
    );
    assert!(!screen.contains("counting…"), "{screen}");
}

/// The wire, text and after-truncation views of the library trip under
/// each provider: what the provider's SDK sends (URL, headers with the key
/// redacted, body), every string of the request unescaped, and the request
/// the truncation leaves.
#[test]
fn the_library_trip_on_the_wire_and_as_text_under_each_provider() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    for (k, name) in ['1', '2', '3', '4', '5', '6'].into_iter().zip([
        "openai",
        "anthropic",
        "dashscope",
        "gemini",
        "ollama",
        "deepseek",
    ]) {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
        for view in ["wire", "text", "after truncation"] {
            let cmds = app.update(key('v'));
            run_commands(&mut app, &mut computer, cmds);
            let screen = screen_text(&app, 120, 40);
            assert!(screen.contains(&format!("· {view} ")), "{screen}");
            let file = view.replace(' ', "_");
            insta::assert_snapshot!(format!("library_trip_{name}_{file}"), screen);
        }
        // Past the token view (tests/tui_tokens.rs), back to the messages.
        for _ in 0..2 {
            let cmds = app.update(key('v'));
            run_commands(&mut app, &mut computer, cmds);
        }
    }
}

#[test]
fn a_streamed_reply_is_shown_with_billed_usage_beside_our_count() {
    use formatscope::net::Outcome;
    use formatscope::response::{ChatResponse, Usage};
    use formatscope::tui::msg::Command;
    use formatscope::tui::panes::reply::ReplyUpdate;
    use std::time::Duration;
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let cmds = app.update(key('S'));
    let id = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(job) => Some(job.id),
            _ => None,
        })
        .expect("a send");
    let response = ChatResponse {
        id: Some("msg_1".into()),
        content: vec![
            serde_json::json!({"type": "thinking", "thinking": "Bob wants the weather.", "signature": ""}),
            serde_json::json!({"type": "text", "text": "Let me check."}),
            serde_json::json!({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}, "raw_input": "{\"city\": \"Paris\"}"}),
        ],
        usage: Some(Usage {
            input_tokens: 512.into(),
            output_tokens: 41.into(),
            time: 1.2,
            metadata: serde_json::Value::Null,
        }),
        metadata: serde_json::Value::Null,
    };
    app.update(Event::Reply {
        id,
        update: ReplyUpdate::Chunk(Box::new(response.clone())),
    });
    insta::assert_snapshot!("reply_streaming", screen_text(&app, 120, 40));
    app.update(Event::Reply {
        id,
        update: ReplyUpdate::Done(Box::new(Outcome {
            final_response: Some(response),
            chunks: 5,
            time_to_first_token: Some(Duration::from_millis(420)),
            total: Duration::from_millis(1500),
            parse_error: None,
            warnings: Vec::new(),
            nothing: None,
        })),
    });
    insta::assert_snapshot!("reply_done", screen_text(&app, 120, 40));
}

#[test]
fn replies_of_several_providers_stand_side_by_side() {
    use formatscope::response::ChatResponse;
    use formatscope::tui::msg::Command;
    use formatscope::tui::panes::reply::ReplyUpdate;
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    app.update(key('P'));
    app.update(key('1'));
    let cmds = app.update(Event::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    let ids: Vec<u64> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::Send(job) => Some(job.id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    for (id, text) in ids
        .iter()
        .zip(["OpenAI says hello.", "DashScope says 你好."])
    {
        app.update(Event::Reply {
            id: *id,
            update: ReplyUpdate::Chunk(Box::new(ChatResponse {
                id: None,
                content: vec![serde_json::json!({"type": "text", "text": text})],
                usage: None,
                metadata: serde_json::Value::Null,
            })),
        });
    }
    insta::assert_snapshot!("replies_side_by_side", screen_text(&app, 120, 40));
}

#[test]
fn r_shows_the_providers_exact_count_until_the_request_changes() {
    use formatscope::formatter::Provider;
    use formatscope::tui::msg::Command;
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let cmds = app.update(key('3'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(app.update(key('R')).is_empty(), "DashScope has no counter");
    assert!(app.status.contains("no token-counting endpoint"));
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let cmds = app.update(key('R'));
    let generation = cmds
        .iter()
        .find_map(|c| match c {
            Command::RemoteCount(job) => Some(job.id),
            _ => None,
        })
        .expect("a remote count");
    app.update(Event::RemoteCounted {
        generation,
        provider: Provider::Anthropic,
        result: Ok(212),
    });
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("Anthropic counts 212 · exact (ours ≈"),
        "{screen}"
    );
    // Another provider's request is another count.
    let cmds = app.update(key('4'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(!screen_text(&app, 120, 40).contains("counts 212"));
}

/// The compare view (`c`) on the library trip: OpenAI against Anthropic,
/// chat against multi-agent, the formatter's messages against the wire
/// body, before and after truncation. The sides face each other message
/// by message, and the diff's marks say what changed.
#[test]
fn the_compare_view_aligns_two_requests_by_message() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (160, 48));
    for k in ['1', 'm'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    // OpenAI chat on screen; `c` opens the compare view against Anthropic.
    assert_eq!(app.formatter.to_string(), "OpenAIChatFormatter");
    let cmds = app.update(key('c'));
    run_commands(&mut app, &mut computer, cmds);
    let expected = [
        (
            "openai_vs_anthropic",
            "OpenAIChatFormatter",
            "AnthropicChatFormatter",
        ),
        (
            "chat_vs_multi_agent",
            "OpenAIChatFormatter",
            "OpenAIMultiAgentFormatter",
        ),
        (
            "formatter_vs_wire",
            "OpenAIChatFormatter",
            "OpenAIChatFormatter · wire",
        ),
        (
            "before_vs_after_truncation",
            "OpenAIChatFormatter",
            "OpenAIChatFormatter · after truncation",
        ),
    ];
    for (k, (name, left, right)) in expected.into_iter().enumerate() {
        if k > 0 {
            let cmds = app.update(key('C'));
            run_commands(&mut app, &mut computer, cmds);
        }
        let compared = app
            .preview
            .as_ref()
            .and_then(|p| p.compare.clone())
            .expect("the compare view has rows");
        assert_eq!(
            (compared.left.as_str(), compared.right.as_str()),
            (left, right)
        );
        let screen = screen_text(&app, 160, 48);
        assert!(screen.contains("── message 0 "), "{screen}");
        insta::assert_snapshot!(format!("compare_{name}"), screen);
    }
    // After truncation, the dropped messages are on the left only.
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .unwrap();
    let removed_only = compared.rows.iter().any(|r| {
        matches!(r, formatscope::compare::Row::Lines(Some(l), None) if l.mark == Some(formatscope::diff::Mark::Removed))
    });
    assert!(removed_only, "{:#?}", compared.rows);
    // `c` closes it: the request pane is back.
    let cmds = app.update(key('c'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(!screen_text(&app, 160, 48).contains("compare:"));
}

/// Anthropic's wire body moves the system prompt out of `messages`: the
/// compare view shows it facing message 0, marked moved, not as a
/// deletion plus an insertion.
#[test]
fn the_system_prompt_moved_to_the_top_level_is_marked_moved() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (160, 48));
    for k in ['2', 'c', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .unwrap();
    assert!(compared.right.ends_with("· wire"), "{}", compared.right);
    let moved_system = compared.rows.iter().any(|r| {
        matches!(r, formatscope::compare::Row::Lines(_, Some(l))
            if l.pointer.starts_with("/system") && l.mark == Some(formatscope::diff::Mark::Moved))
    });
    assert!(moved_system, "{:#?}", compared.rows);
    assert!(compared.counts.moved >= 1);
}

/// After an edit, the budget pane says how much of the wire body a prompt
/// cache can still reuse since the last save, and the message where it
/// breaks; the compare view's last save / now pair shows the edit.
#[test]
fn an_edit_shows_what_the_prompt_cache_keeps_and_where_it_breaks() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (160, 48));
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 160, 48);
    assert!(
        !screen.contains("prompt cache"),
        "no earlier version yet: {screen}"
    );
    // Delete message 8 (Friday's answer).
    for k in ['j', 'j', 'j', 'j', 'j', 'j', 'j', 'j', 'x'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let cache = app
        .preview
        .as_ref()
        .and_then(|p| p.cache.clone())
        .expect("a cache line")
        .expect("computed");
    assert_eq!(cache.against, "last save");
    assert_eq!(cache.message, Some(8), "{cache:?}");
    assert!(cache.bytes > 0 && cache.bytes < cache.of, "{cache:?}");
    // The budget pane is narrow here: the compact form, with what the
    // reusable prefix saves at Anthropic's cached rate.
    let screen = screen_text(&app, 160, 48);
    assert!(screen.contains("breaks #8 · saves ≈$0.00"), "{screen}");
    // The last save / now pair: message 8 is on the left only.
    for k in ['c', 'C', 'C', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .unwrap();
    assert!(compared.left.ends_with("at last save"), "{}", compared.left);
    // Message 8 opened a `<history>` group: the group changed.
    assert!(
        compared.counts.changed + compared.counts.removed >= 1,
        "{:?}",
        compared.counts
    );
    insta::assert_snapshot!("compare_last_save_vs_now", screen_text(&app, 160, 48));
}

/// Deleting message 5 of a chat: the last save / now pair shows message 5
/// alone, removed, and every other message facing itself, unmarked (by
/// identity, not by index); the cache line breaks at message 5.
#[test]
fn last_save_and_now_face_messages_by_identity_after_a_deletion() {
    let (_dir, path) = long_chat(None);
    let (mut app, mut computer) = loaded_app(&path, (160, 48));
    for k in ['2', 'j', 'j', 'j', 'j', 'j', 'x', 'c', 'C', 'C', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let preview = app.preview.as_ref().expect("a preview");
    let cache = preview
        .cache
        .clone()
        .expect("a cache line")
        .expect("computed");
    assert_eq!(cache.message, Some(5), "{cache:?}");
    assert!(cache.prompt.tokens < cache.prompt.of, "{cache:?}");
    let compared = preview.compare.clone().expect("compared");
    assert!(compared.left.ends_with("at last save"), "{}", compared.left);
    let groups = marked_groups(&compared);
    let marked: Vec<_> = groups.iter().filter(|g| g.1).collect();
    assert_eq!(marked.len(), 1, "{groups:?}");
    assert_eq!(marked[0].0, "message 5 · left only", "{groups:?}");
}

/// Before / after truncation: the messages the plan drops are marked,
/// every message it keeps faces itself, unmarked.
#[test]
fn before_and_after_truncation_face_kept_messages_unmarked() {
    let (_dir, path) = long_chat(Some(150));
    let (mut app, mut computer) = loaded_app(&path, (160, 48));
    for k in ['c', 'C', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let preview = app.preview.as_ref().expect("a preview");
    let plan = preview.plan.clone().expect("a plan").expect("planned");
    assert!(
        !plan.dropped.is_empty() && !plan.kept.is_empty(),
        "{plan:?}"
    );
    let compared = preview.compare.clone().expect("compared");
    assert!(
        compared.right.ends_with("after truncation"),
        "{}",
        compared.right
    );
    let groups = marked_groups(&compared);
    let marked: Vec<String> = groups.iter().filter(|g| g.1).map(|g| g.0.clone()).collect();
    let dropped: Vec<String> = plan
        .dropped
        .iter()
        .map(|i| format!("message {i}"))
        .collect();
    assert_eq!(marked, dropped, "{groups:?}");
}

/// A model change breaks the prompt-cache line at the model (caches are per model).
#[test]
fn a_model_change_breaks_the_cache_line_at_the_model() {
    use formatscope::diff::cache::Break;
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (160, 48));
    let enter = Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let keys = std::iter::once(key('s')).chain("gpt-4o-mini".chars().map(key));
    for k in keys.chain([enter]) {
        let cmds = app.update(k);
        run_commands(&mut app, &mut computer, cmds);
    }
    let cache = app.preview.as_ref().and_then(|p| p.cache.clone());
    let prompt = cache.expect("a cache line").expect("computed").prompt;
    let (before, now) = ("gpt-4o".into(), "gpt-4o-mini".into());
    assert_eq!(prompt.breaks, Some(Break::Model { before, now }));
    assert_eq!(prompt.tokens, 0);
    assert!(screen_text(&app, 160, 48).contains("model changed"));
}

/// `n` and `N` in the compare view jump from one difference to the next.
#[test]
fn n_jumps_to_the_next_difference_in_the_compare_view() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (160, 48));
    for k in ['1', 'm', 'c', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    // Formatter against wire for OpenAI chat: the messages are the same;
    // the body adds the model and the stream options after them.
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .unwrap();
    app.update(key('n'));
    let first = app.compare.scroll;
    assert!(first > 0, "{}", app.status);
    match &compared.rows[first] {
        formatscope::compare::Row::Lines(l, r) => assert!(
            l.as_ref().is_some_and(|x| x.mark.is_some())
                || r.as_ref().is_some_and(|x| x.mark.is_some())
        ),
        other => panic!("{other:?}"),
    }
    app.update(key('n'));
    let second = app.compare.scroll;
    assert!(second > first, "a second difference: {}", app.status);
    app.update(key('N'));
    assert_eq!(app.compare.scroll, first, "N goes back");
}

/// `L` opens the lint panel under the request: the findings for the
/// provider on screen, with rule, place and fix; the message list marks
/// the messages that have findings.
#[test]
fn the_lint_panel_lists_findings_and_the_list_marks_their_messages() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lint/cases/tool_call_without_result.json");
    let (mut app, mut computer) = loaded_app(&path, (140, 40));
    let before = screen_text(&app, 140, 40);
    assert!(
        before.contains("●  2"),
        "the list marks message 2: {before}"
    );
    let cmds = app.update(key('L'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 40);
    assert!(
        screen.contains("Lint: 1 error, 0 warnings, 0 notes"),
        "{screen}"
    );
    assert!(
        screen.contains("[provider.tool-call-without-result]"),
        "{screen}"
    );
    assert!(
        screen.contains("fix: add the tool_result block"),
        "{screen}"
    );
    insta::assert_snapshot!("lint_panel", screen);
}

/// `w` shows the rule behind each line at the right edge of the request
/// and the rules that fired in a panel below: on Anthropic's wire view the
/// system prompt's line says `anthropic.system.top-level`.
#[test]
fn w_shows_the_rule_behind_each_line_and_the_rules_that_fired() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (150, 46));
    for k in ['2', 'm', 'v', 'w'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let why = app
        .preview
        .as_ref()
        .and_then(|p| p.explanation.clone())
        .expect("rules");
    assert_eq!(
        why.line_rules.len(),
        app.preview.as_ref().unwrap().plain.len()
    );
    let system_line = app
        .preview
        .as_ref()
        .unwrap()
        .plain
        .iter()
        .position(|l| l.contains("\"system\": ["))
        .unwrap();
    assert_eq!(
        why.line_rules[system_line],
        Some("anthropic.system.top-level")
    );
    assert_eq!(why.line_sources[system_line], Some(0));
    let screen = screen_text(&app, 150, 46);
    assert!(screen.contains("Rules: "), "{screen}");
    assert!(screen.contains(" wire.messages "), "{screen}");
    assert!(
        screen.contains("anthropic.wire.max-tokens  max_tokens is required"),
        "{screen}"
    );
    insta::assert_snapshot!("why_anthropic_wire", screen);
    // The messages view too, and `w` again hides them.
    let cmds = app.update(key('v'));
    run_commands(&mut app, &mut computer, cmds);
    // Text, after truncation, tokens, then the messages again.
    for _ in 0..3 {
        let cmds = app.update(key('v'));
        run_commands(&mut app, &mut computer, cmds);
    }
    let screen = screen_text(&app, 150, 46);
    assert!(
        screen.contains(" anthropic.system.role-in-messages "),
        "{screen}"
    );
    let cmds = app.update(key('w'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(!screen_text(&app, 150, 46).contains("Rules: "));
}
