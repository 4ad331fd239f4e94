//! `App::update` driven with message sequences: state and commands, no
//! terminal and no threads.

#[path = "support/long.rs"]
mod long;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::formatter::{Mode, Provider};
use formatscope::tui::app::{Event, Focus};
use formatscope::tui::msg::Command;
use formatscope::tui::panes::popup::{Pending, Popup};
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use workbench::*;

#[test]
fn loading_picks_the_sessions_formatter_and_asks_for_a_preview() {
    let (app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    assert_eq!(app.formatter.provider, Provider::DashScope);
    assert_eq!(app.formatter.mode, Mode::MultiAgent);
    let preview = app.preview.as_ref().expect("a preview");
    assert_eq!(preview.generation, app.generation);
    assert_eq!(
        preview.report.as_ref().map(|r| r.model.model.as_str()),
        Some("qwen-max")
    );
}

#[test]
fn provider_keys_and_m_switch_the_formatter_and_reformat() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let cmds = app.update(key('1'));
    assert_eq!(app.formatter.provider, Provider::OpenAi);
    assert!(matches!(cmds.as_slice(), [Command::Reformat(job)] if job.formatter == app.formatter));
    app.update(key('m'));
    assert_eq!(app.formatter.mode, Mode::Chat);
    let cmds = app.update(key('m'));
    assert_eq!(app.formatter.mode, Mode::MultiAgent);
    assert_eq!(cmds.len(), 1);
    assert!(
        app.update(key('1')).is_empty(),
        "the same provider again changes nothing"
    );
}

#[test]
fn a_stale_preview_is_dropped() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let Command::Reformat(old) = app.update(key('2')).remove(0) else {
        panic!("reformat")
    };
    let Command::Reformat(new) = app.update(key('3')).remove(0) else {
        panic!("reformat")
    };
    let newer = computer.compute(&new);
    app.update(Event::PreviewReady(Box::new(newer)));
    let older = computer.compute(&old);
    app.update(Event::PreviewReady(Box::new(older)));
    assert_eq!(
        app.preview.as_ref().map(|p| p.formatter.provider),
        Some(Provider::DashScope)
    );
}

#[test]
fn a_bad_save_keeps_the_last_good_session_and_fixing_it_recovers() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let before = app.messages().to_vec();
    let cmds = app.update(read(&path, "{\"messages\": ["));
    assert!(cmds.is_empty());
    let error = app.doc.as_ref().and_then(|d| d.load_error.clone());
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.contains("chat_plain.json:1:")),
        "{error:?}"
    );
    assert_eq!(
        app.messages(),
        before.as_slice(),
        "the last good session stays"
    );
    let good = std::fs::read_to_string(session_path("chat_plain.json"))
        .expect("read")
        .replace("Canberra", "Canberra again");
    let cmds = app.update(read(&path, &good));
    run_commands(&mut app, &mut computer, cmds);
    assert!(app.doc.as_ref().is_some_and(|d| d.load_error.is_none()));
    assert_ne!(app.messages(), before.as_slice());
}

#[test]
fn reading_the_same_text_again_does_nothing() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, _) = loaded_app(&path, (120, 40));
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(app.update(read(&path, &text)).is_empty());
}

#[test]
fn editing_a_message_marks_unsaved_and_save_writes_it_atomically() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.update(key('j'));
    app.update(key('e'));
    assert_eq!(app.focus, Focus::Editor);
    // Type inside the first string value of the message: its name.
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::End));
    app.update(code(KeyCode::Left));
    app.update(code(KeyCode::Left));
    let cmds = app.update(key('Z'));
    assert!(app.unsaved(), "{:?}", app.editor.error);
    assert!(matches!(cmds.as_slice(), [Command::Reformat(_)]));
    let cmds = app.update(ctrl('s'));
    let writes = run_commands(&mut app, &mut computer, cmds);
    assert_eq!(writes, vec![path.clone()]);
    assert!(std::fs::read_to_string(&path).expect("read").contains('Z'));
    assert!(!app.unsaved());
}

#[test]
fn invalid_json_in_the_editor_is_reported_and_not_applied() {
    let (mut app, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    let before = app.messages().to_vec();
    app.update(key('e'));
    let cmds = app.update(key('{'));
    assert!(cmds.is_empty());
    assert!(
        app.editor
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("editor:1:")),
        "{:?}",
        app.editor.error
    );
    assert_eq!(app.messages(), before.as_slice());
}

#[test]
fn a_change_on_disk_with_unsaved_edits_asks_and_each_answer_keeps_its_side() {
    let (dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.update(key('d')); // duplicate: an unsaved edit
    assert!(app.unsaved());
    let disk = std::fs::read_to_string(&path)
        .expect("read")
        .replace("Canberra", "Changed on disk");
    std::fs::write(&path, &disk).expect("write");
    app.update(read(&path, &disk));
    assert!(matches!(app.popup, Some(Popup::Conflict { .. })));
    // s: mine saved beside as NAME.mine.json, the disk version shown.
    let cmds = app.update(key('s'));
    let writes = run_commands(&mut app, &mut computer, cmds);
    let mine = dir.path().join("chat_plain.mine.json");
    assert_eq!(writes, vec![path.clone()]);
    assert!(mine.exists(), "saved beside");
    assert!(!app.unsaved());
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Changed on disk"));

    // k: keep mine.
    app.update(key('d'));
    let disk2 = disk.replace("Changed on disk", "Changed twice");
    std::fs::write(&path, &disk2).expect("write");
    app.update(read(&path, &disk2));
    app.update(key('k'));
    assert!(app.unsaved());
    assert!(app.popup.is_none());
    // r: reload.
    let disk3 = disk2.replace("Changed twice", "Changed thrice");
    std::fs::write(&path, &disk3).expect("write");
    app.update(read(&path, &disk3));
    let cmds = app.update(key('r'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(!app.unsaved());
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Changed thrice"));
}

#[test]
fn add_duplicate_delete_move_undo_and_redo() {
    let (mut app, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    let n = app.messages().len();
    app.update(key('a'));
    assert_eq!(app.messages().len(), n + 1);
    assert_eq!(app.list.selected, 1);
    app.update(key('x'));
    assert_eq!(app.messages().len(), n);
    app.update(key('J'));
    let moved = app.messages().to_vec();
    app.update(key('u'));
    assert_ne!(app.messages(), moved.as_slice());
    app.update(ctrl('r'));
    assert_eq!(app.messages(), moved.as_slice());
}

#[test]
fn quitting_with_unsaved_edits_asks_first() {
    let (mut app, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    app.update(key('d'));
    let cmds = app.update(key('q'));
    assert!(cmds.is_empty());
    assert!(matches!(app.popup, Some(Popup::Unsaved(Pending::Quit))));
    let cmds = app.update(key('d'));
    assert!(cmds.iter().any(|c| matches!(c, Command::Quit)));
    let (mut clean, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    assert!(matches!(clean.update(key('q')).as_slice(), [Command::Quit]));
    let (mut clean, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    assert!(
        matches!(clean.update(ctrl('c')).as_slice(), [Command::Quit]),
        "C-c quits too"
    );
}

#[test]
fn search_jumps_to_matches_counts_them_and_t_shows_tool_schemas() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    app.update(key('/'));
    for c in "search_around".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Enter));
    let plain = app.preview.as_ref().expect("preview").plain.clone();
    assert!(plain
        .get(app.request.scroll)
        .unwrap_or_default()
        .contains("search_around"));
    let hits = plain.iter().filter(|l| l.contains("search_around")).count();
    assert!(
        app.status.contains(&format!("1 of {hits}")),
        "{}",
        app.status
    );
    let first = app.request.scroll;
    app.update(key('n'));
    assert!(app.request.scroll != first || hits == 1);
    assert!(plain
        .get(app.request.scroll)
        .unwrap_or_default()
        .contains("search_around"));
    app.update(key('t'));
    assert!(app.request.show_tools);
    assert!(!app.request.lines(app.preview.as_ref()).is_empty());
}

#[test]
fn folder_mode_lists_sessions_and_follows_files_that_come_and_go() {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in ["chat_plain.json", "library_trip.json"] {
        std::fs::copy(session_path(name), dir.path().join(name)).expect("copy");
    }
    let (mut app, mut computer) = folder_app(dir.path(), (120, 40));
    assert_eq!(app.files.len(), 2);
    assert!(app.doc.is_some());
    let new = dir.path().join("NEW.JSON");
    std::fs::copy(session_path("reasoning.json"), &new).expect("copy");
    send(
        &mut app,
        &mut computer,
        Event::FilesChanged(vec![new.clone()]),
    );
    assert_eq!(
        app.files.len(),
        3,
        "upper-case .JSON files are sessions too"
    );
    std::fs::remove_file(&new).expect("remove");
    send(&mut app, &mut computer, Event::FilesChanged(vec![new]));
    assert_eq!(app.files.len(), 2);
    send(&mut app, &mut computer, key(']'));
    assert_eq!(app.position(), Some(1));
    assert_eq!(app.file_name(), "library_trip.json");
}

#[test]
fn the_mouse_focuses_panes_selects_messages_and_scrolls() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let mouse = |kind, column, row| {
        Event::Mouse(MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    let out = app.areas.output;
    app.update(mouse(
        MouseEventKind::Down(MouseButton::Left),
        out.x + 5,
        out.y + 3,
    ));
    assert_eq!(app.focus, Focus::Output);
    app.update(mouse(MouseEventKind::ScrollDown, out.x + 5, out.y + 3));
    assert_eq!(app.request.scroll, 3);
    let list = app.areas.list;
    app.update(mouse(
        MouseEventKind::Down(MouseButton::Left),
        list.x + 3,
        list.y + 1 + 5,
    ));
    assert_eq!(app.focus, Focus::List);
    assert_eq!(app.list.selected, 5);
    assert_eq!(
        app.editor.for_index,
        Some(5),
        "the editor follows the selection"
    );
}

#[test]
fn typing_in_the_editor_is_one_undo_step() {
    let (mut app, _) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    let before = app.messages().to_vec();
    app.update(key('j'));
    app.update(key('e'));
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::End));
    app.update(code(KeyCode::Left));
    app.update(code(KeyCode::Left));
    for c in "xyz".chars() {
        app.update(key(c));
    }
    assert_ne!(app.messages(), before.as_slice());
    app.update(code(KeyCode::Esc));
    app.update(key('u'));
    assert_eq!(
        app.messages(),
        before.as_slice(),
        "one undo takes back the whole edit"
    );
    assert!(!app.unsaved(), "undoing every edit leaves nothing unsaved");
}

#[test]
fn text_mode_edits_the_text_without_json_escapes() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (120, 40));
    app.update(key('j'));
    app.update(key('T'));
    assert!(app.editor.text_mode);
    assert_eq!(
        app.editor.area.lines(),
        ["Hi, Alice, do you know the nearest library?"]
    );
    app.update(code(KeyCode::End));
    app.update(code(KeyCode::Enter));
    for c in "\"Quoted\" line".chars() {
        app.update(key(c));
    }
    let content = &app.messages()[1].value()["content"];
    assert_eq!(
        content,
        "Hi, Alice, do you know the nearest library?\n\"Quoted\" line"
    );
    assert!(app.unsaved());
    // C-t switches the same message to JSON.
    app.update(ctrl('t'));
    assert!(!app.editor.text_mode);
    assert_eq!(app.editor.area.lines()[0], "{");
}

mod random_use {
    use super::*;
    use proptest::prelude::*;

    fn any_key() -> impl Strategy<Value = Event> {
        let plain = prop::sample::select(vec![
            'j', 'k', 'g', 'G', 'e', 'T', 'a', 'd', 'x', 'K', 'J', 'u', '/', 'n', 'N', 't', 'b',
            'm', '1', '2', '3', '4', '5', '6', 'p', '?', 'q', ']', '[', '{', '"', 'z', ' ', 's',
            'r', 'y',
        ])
        .prop_map(key);
        let special = prop::sample::select(vec![
            KeyCode::Esc,
            KeyCode::Enter,
            KeyCode::Tab,
            KeyCode::Backspace,
            KeyCode::Down,
            KeyCode::Up,
            KeyCode::PageDown,
            KeyCode::End,
        ])
        .prop_map(code);
        let ctrl_keys = prop::sample::select(vec!['r', 's', 'z', 't']).prop_map(ctrl);
        prop_oneof![6 => plain, 3 => special, 1 => ctrl_keys]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::long::cases(40), ..ProptestConfig::default() })]

        /// Any key sequence leaves the model valid: no panic, the selection
        /// in range, the preview never newer than the request, and no file
        /// but the open one ever written.
        #[test]
        fn random_keys_keep_the_model_valid(keys in prop::collection::vec(any_key(), 1..30)) {
            let (_dir, path) = temp_copy("library_trip.json");
            let (mut app, mut computer) = loaded_app(&path, (120, 40));
            let mut generation = app.generation;
            for k in keys {
                let cmds = app.update(k);
                for written in run_commands(&mut app, &mut computer, cmds) {
                    prop_assert_eq!(&written, &path);
                }
                prop_assert!(app.generation >= generation);
                generation = app.generation;
                let n = app.messages().len();
                prop_assert!(n == 0 || app.list.selected < n);
                prop_assert!(app.preview.as_ref().is_none_or(|p| p.generation <= app.generation));
                let _ = screen_text(&app, 120, 40);
            }
        }
    }
}

/// A large request is highlighted as it comes on screen, not all at once:
/// drawing a 2,000-message session highlights the few messages in view.
#[test]
fn only_the_messages_on_screen_are_highlighted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("large.json");
    let messages: Vec<serde_json::Value> = (0..2000)
        .map(|i| serde_json::json!({"name": "Bob", "role": "user", "content": format!("message {i}")}))
        .collect();
    std::fs::write(&path, serde_json::json!({"messages": messages}).to_string()).expect("write");
    let (app, _) = loaded_app(&path, (120, 40));
    assert_eq!(app.request.highlighted.cached(), 0, "nothing before a draw");
    screen_text(&app, 120, 40);
    let highlighted = app.request.highlighted.cached();
    assert!(
        (1..=40).contains(&highlighted),
        "{highlighted} messages highlighted for one screen"
    );
}

/// The budget is published as soon as the request is counted, before the
/// truncation plan (which may count it again with the agent's counter);
/// for a model made afresh (a provider switch), its totals even before
/// the `<history>` groups are split among their members.
#[test]
fn counts_are_published_before_the_plan() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let Command::Reformat(job) = app.update(key('1')).remove(0) else {
        panic!("reformat")
    };
    let mut early = Vec::new();
    let done = computer.compute_phased((*job).clone(), &mut |p| early.push(p));
    // Totals, then the split, then the plan, then (in the final preview)
    // the lint findings, which format the request again.
    assert_eq!(early.len(), 3);
    let (totals, split) = (
        early[0].report.as_ref().expect("the totals come first"),
        early[1].report.as_ref().expect("then the split"),
    );
    assert!(totals.messages.is_empty() && !split.messages.is_empty());
    assert_eq!(totals.total, split.total);
    assert_eq!(totals.by_category, split.by_category);
    assert!(
        early[0].plan.is_none() && early[1].plan.is_none(),
        "then the plan"
    );
    assert!(early[2].plan.is_some() && early[2].lint.is_none());
    assert!(done.plan.is_some() && done.lint.is_some());
    app.update(Event::PreviewReady(Box::new(early.remove(0))));
    assert!(screen_text(&app, 120, 40).contains("planning the truncation"));
    // The same job again (as after an edit): the split is kept, so the
    // counts come once.
    let mut again = Vec::new();
    computer.compute_phased(*job, &mut |p| again.push(p));
    assert_eq!(again.len(), 2);
    assert!(!again[0]
        .report
        .as_ref()
        .expect("counts")
        .messages
        .is_empty());
}

/// `s` sets the model, the budget and the token counter from the
/// workbench: one undo step, saved in the session with C-s.
#[test]
fn settings_set_model_budget_and_counter_and_save_them_in_the_session() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    app.update(key('3')); // DashScope
    app.update(key('s'));
    assert!(matches!(app.popup, Some(Popup::Settings(_))));
    for c in "qwen-max".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Tab));
    for c in "90".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Tab));
    for c in "char".chars() {
        app.update(key(c));
    }
    let cmds = app.update(code(KeyCode::Enter));
    assert!(app.popup.is_none());
    assert!(matches!(cmds.as_slice(), [Command::Reformat(_)]));
    assert!(app.unsaved());
    run_commands(&mut app, &mut computer, cmds);
    let preview = app.preview.as_ref().expect("preview");
    assert_eq!(preview.model.model, "qwen-max");
    assert_eq!(preview.budget, Some(90));
    assert!(
        preview.truncation_label.contains("CharTokenCounter"),
        "{}",
        preview.truncation_label
    );
    let cmds = app.update(ctrl('s'));
    run_commands(&mut app, &mut computer, cmds);
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    assert_eq!(
        (
            &saved["model"],
            &saved["provider"],
            &saved["max_tokens"],
            &saved["token_counter"]
        ),
        (
            &"qwen-max".into(),
            &"dashscope".into(),
            &90.into(),
            &"char".into()
        )
    );
    // One undo step takes all three back.
    app.update(key('u'));
    let session = app.session().expect("session");
    assert_eq!(
        (session.model(), session.max_tokens()),
        (Some("gpt-4o"), Some(120))
    );
}

/// Long lines scroll sideways (and a search match is brought into view),
/// or wrap with `W`.
#[test]
fn the_request_scrolls_sideways_to_a_match_and_wraps() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (100, 30));
    let screen = screen_text(&app, 100, 30);
    assert!(
        !screen.contains("library?\\nAlice"),
        "off to the right at first"
    );
    app.update(key('/'));
    for c in "nearest library?\\nAlice".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Enter));
    assert!(app.request.hscroll > 0, "the match is scrolled into view");
    let screen = screen_text(&app, 100, 30);
    assert!(screen.contains("library?\\nAlice"), "{screen}");
    app.update(key('h'));
    app.update(key('h'));
    let left = app.request.hscroll;
    app.update(key('l'));
    assert!(app.request.hscroll > left);
    let cmds = app.update(key('W'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(app.request.wrap);
    assert_eq!(app.request.hscroll, 0);
    let screen = screen_text(&app, 100, 30);
    assert!(screen.contains("library?\\nAlice"), "{screen}");
}

/// Found by the random-keys property: dropping the edits that added the
/// selected message (quit, then "d") leaves the selection in range.
#[test]
fn dropping_edits_keeps_the_selection_on_a_message() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    for k in [code(KeyCode::PageDown), key('a'), key('q'), key('d')] {
        let cmds = app.update(k);
        run_commands(&mut app, &mut computer, cmds);
    }
    assert!(app.list.selected < app.messages().len());
}

/// `y` copies the request view (OSC 52 through the runtime); `E` writes the
/// request as a curl command beside the session, the key left to `$VAR`.
#[test]
fn y_copies_the_view_and_e_exports_a_curl_command_beside_the_session() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let cmds = app.update(key('v'));
    run_commands(&mut app, &mut computer, cmds);
    let cmds = app.update(key('y'));
    let [Command::Clipboard(text)] = cmds.as_slice() else {
        panic!("y asks for the clipboard: {cmds:?}")
    };
    assert!(
        text.contains("\"url\": \"https://api.anthropic.com/v1/messages\""),
        "{text}"
    );
    assert!(
        app.status.contains("view to the terminal's clipboard (OSC"),
        "{}",
        app.status
    );

    let cmds = app.update(key('E'));
    assert!(matches!(cmds.as_slice(), [Command::Export { .. }]));
    run_commands(&mut app, &mut computer, cmds);
    let script = path.with_file_name("library_trip.anthropic.curl.sh");
    let text = std::fs::read_to_string(&script).expect("the export is written beside the session");
    assert!(
        text.starts_with("curl -sS -X POST 'https://api.anthropic.com/v1/messages'"),
        "{text}"
    );
    assert!(
        text.contains("\"x-api-key: ${ANTHROPIC_API_KEY}\""),
        "{text}"
    );
    assert!(
        app.status.contains("library_trip.anthropic.curl.sh"),
        "{}",
        app.status
    );
}

/// The "after truncation" view is the request AgentScope sends once its
/// truncation has run: the same messages `format --max-tokens` gives.
#[test]
fn the_after_truncation_view_is_agentscopes_truncated_request() {
    use formatscope::pipeline::{self, ReferenceRequest};
    let path = session_path("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    for _ in 0..3 {
        let cmds = app.update(key('v'));
        run_commands(&mut app, &mut computer, cmds);
    }
    let preview = app.preview.as_ref().expect("preview");
    assert_eq!(preview.shown.label(), "after truncation");
    let session = formatscope::session::read_session(&path).unwrap();
    let request = ReferenceRequest {
        formatter: app.formatter,
        options: Default::default(),
        max_tokens: session.max_tokens(),
        count: false,
        tools: false,
        token_counter: None,
    };
    let out = pipeline::run_reference(
        &session,
        &request,
        std::sync::Arc::new(formatscope::media::NoNetwork),
    );
    let reference = out["messages"]
        .as_array()
        .expect("the reference truncates")
        .clone();
    let (want, _, _) = formatscope::tui::worker::pretty_with_spans(
        &reference.iter().collect::<Vec<_>>(),
        &[],
        false,
    );
    let plain = preview.plain.to_vec();
    assert!(
        plain[0].starts_with("// 8 of 11 messages kept"),
        "{}",
        plain[0]
    );
    assert_eq!(&plain[1..], &want.to_vec()[..]);
}

/// A provider switch reads the messages as the last model read them (not
/// again): its counts, split and plan are a fresh model's.
#[test]
fn a_switched_model_counts_as_a_fresh_one() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    let Command::Reformat(first) = app.update(key('1')).remove(0) else {
        panic!("reformat")
    };
    computer.compute(&first);
    for provider in ['2', '3', '4', '5', '6'] {
        let Command::Reformat(job) = app.update(key(provider)).remove(0) else {
            panic!("reformat")
        };
        let switched = computer.compute(&job);
        let (_, mut fresh_computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
        let fresh = fresh_computer.compute(&job);
        assert_eq!(switched.report, fresh.report, "provider {provider}");
        assert_eq!(
            format!("{:?}", switched.plan),
            format!("{:?}", fresh.plan),
            "provider {provider}"
        );
        assert_eq!(
            switched.plain.len(),
            fresh.plain.len(),
            "provider {provider}"
        );
    }
}
