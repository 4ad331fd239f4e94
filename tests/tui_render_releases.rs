//! The workbench's screens under the other AgentScope releases (0.1.6,
//! 2.0.11 and Java 2.0.2), and their compare views against 1.0.21,
//! rendered into ratatui's TestBackend and snapshotted with insta
//! (tests/snapshots/). Review changes with `cargo insta review`.

#[path = "support/workbench.rs"]
mod workbench;

use ratatui::crossterm::event::KeyCode;
use workbench::*;

/// `V` switches the reference to AgentScope 0.1.6: the provider keys pick
/// its class (Ollama and DeepSeek: CommonFormatter), `m` cycles chat,
/// multi-agent and auto (the header says which branch auto took), and the
/// budget and truncation panes say that 0.1.6 neither counts nor truncates.
#[test]
fn the_library_trip_under_agentscope_0_1_6() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (140, 44));
    // V until 0.1.6 (1.0.21 → 2.0.11 → 0.1.6).
    for _ in 0..legacy_at() {
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    for (k, name, class) in [
        ('1', "openai", "OpenAIFormatter"),
        ('2', "anthropic", "AnthropicFormatter"),
        ('3', "dashscope", "DashScopeFormatter"),
        ('4', "gemini", "GeminiFormatter"),
        ('5', "ollama", "CommonFormatter"),
        ('6', "deepseek", "CommonFormatter"),
    ] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
        let screen = screen_text(&app, 140, 44);
        assert!(
            screen.contains(&format!("AgentScope 0.1.6 {class}.format_multi_agent")),
            "{screen}"
        );
        assert!(screen.contains("has no truncation"), "{screen}");
        insta::assert_snapshot!(format!("legacy_library_trip_{name}"), screen);
    }
    // m: multi-agent → auto (5 speakers: format_auto takes multi-agent).
    let cmds = app.update(key('m'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("CommonFormatter.format_auto → multi_agent"),
        "{screen}"
    );
    // V through the releases after it: back to 1.0.21.
    for _ in legacy_at()..formatscope::reference::ALL.len() {
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    assert!(screen_text(&app, 140, 44).contains("DeepSeek · multi-agent"));
}

/// Where 0.1.6 is in the order `V` cycles the releases.
fn legacy_at() -> usize {
    formatscope::reference::ALL
        .iter()
        .position(|r| r.version() == "0.1.6")
        .expect("0.1.6 is a release")
}

/// What 0.1.6 cannot hold of a 1.0 session is listed, not dropped
/// silently; and the compare view puts 1.0.21 beside 0.1.6.
#[test]
fn a_1_0_session_under_0_1_6_lists_what_it_cannot_hold_and_compares() {
    let (mut app, mut computer) = loaded_app(&session_path("reasoning.json"), (140, 44));
    let mut keys = vec!['1'];
    keys.extend(vec!['V'; legacy_at()]);
    for k in keys {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let plain = app.preview.as_ref().unwrap().plain.join("\n");
    assert!(
        plain.contains("// 0.1.6 cannot hold message 2 block 0: a thinking block"),
        "{plain}"
    );
    let lost = &app.preview.as_ref().unwrap().release.as_ref().unwrap().lost;
    assert!(!lost.is_empty());
    // Back to 1.0.21 (V through the releases after 0.1.6), open the
    // compare view, V until 1.0.21 is against 0.1.6.
    let releases = formatscope::reference::ALL.len();
    let mut keys = vec!['V'; releases - legacy_at()];
    keys.push('c');
    for k in keys {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let right = |app: &formatscope::tui::app::App| {
        app.preview
            .as_ref()
            .and_then(|p| p.compare.clone())
            .map(|c| c.right.clone())
            .unwrap_or_default()
    };
    for _ in 0..releases {
        if right(&app).starts_with("0.1.6 ") {
            break;
        }
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .expect("compared");
    assert!(
        compared.right.starts_with("0.1.6 OpenAIFormatter.format_"),
        "{}",
        compared.right
    );
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("compare: AgentScope 1.0.21 / 0.1.6 (V: another release)"),
        "{screen}"
    );
    insta::assert_snapshot!("compare_1_0_21_vs_0_1_6", screen);
}

/// Under AgentScope 2.0.11 (`V` once) the library trip is formatted by the
/// 2.x class of each provider; 2.x neither truncates in the formatter nor
/// counts with a tokenizer, and the panes say so. The compare view puts
/// 1.0.21 beside it: the upgrade view.
#[test]
fn the_library_trip_under_agentscope_2_0_11() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (140, 44));
    let cmds = app.update(key('V'));
    run_commands(&mut app, &mut computer, cmds);
    for (k, name, class) in [
        ('1', "openai", "OpenAIMultiAgentFormatter"),
        ('2', "anthropic", "AnthropicMultiAgentFormatter"),
        ('3', "dashscope", "DashScopeMultiAgentFormatter"),
        ('4', "gemini", "GeminiMultiAgentFormatter"),
    ] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
        let screen = screen_text(&app, 140, 44);
        assert!(
            screen.contains(&format!("AgentScope 2.0.11 {class}.format")),
            "{screen}"
        );
        assert!(
            screen.contains("does not truncate in the formatter"),
            "{screen}"
        );
        // The provider's tokenizer beside 2.x's own bytes/4 estimate.
        let release = app.preview.as_ref().and_then(|p| p.release.clone());
        let release = release.expect("a release preview");
        assert!(
            matches!(release.counted, Some((Ok(n), _)) if n > 0),
            "{release:?}"
        );
        assert!(release.estimate.is_some_and(|e| e > 0), "{release:?}");
        assert!(
            screen.contains("tokens by the provider's tokenizer"),
            "{screen}"
        );
        let preview = app.preview.as_ref().expect("a preview");
        assert!(preview.error.is_none(), "{:?}", preview.error);
        insta::assert_snapshot!(format!("v2_library_trip_{name}"), screen);
    }
    // A provider 1.0.21 does not have: 8 is 2.x's MiniMax, formatted by its
    // own class; formatscope has no MiniMax tokenizer, so the budget pane
    // says so and shows 2.x's estimate.
    let cmds = app.update(key('8'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("AgentScope 2.0.11 MiniMaxMultiAgentFormatter.format"),
        "{screen}"
    );
    let release = app.preview.as_ref().and_then(|p| p.release.clone());
    let release = release.expect("a release preview");
    assert!(
        matches!(&release.counted, Some((Err(e), _)) if e.contains("no MiniMax tokenizer")),
        "{release:?}"
    );
    assert!(release.estimate.is_some_and(|e| e > 0), "the 2.x estimate");
    insta::assert_snapshot!("v2_library_trip_minimax", screen);
    // The eleventh provider has no digit: the picker (p) lists every 2.x
    // class, Volcengine's last.
    let cmds = app.update(key('p'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(
        screen_text(&app, 140, 44).contains("VolcengineMultiAgentFormatter"),
        "the picker lists the 2.x classes"
    );
    for k in [KeyCode::End, KeyCode::Enter] {
        let cmds = app.update(code(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    assert!(
        screen_text(&app, 140, 44)
            .contains("AgentScope 2.0.11 VolcengineMultiAgentFormatter.format"),
        "{}",
        screen_text(&app, 140, 44)
    );
    // m: chat; V through the releases after 2.0.11 back to 1.0.21; then
    // the upgrade view: 1.0.21 against 2.0.11.
    let releases = formatscope::reference::ALL.len();
    let mut keys = vec!['1', 'm'];
    keys.extend(vec!['V'; releases - 1]);
    keys.extend(['c', 'V']);
    for k in keys {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let compared = app
        .preview
        .as_ref()
        .and_then(|p| p.compare.clone())
        .expect("compared");
    assert!(
        compared
            .right
            .starts_with("2.0.11 OpenAIChatFormatter.format"),
        "{}",
        compared.right
    );
    let screen = screen_text(&app, 140, 44);
    insta::assert_snapshot!("compare_1_0_21_vs_2_0_11", screen);
}

/// Findings and compare headings quote the session (speaker names, tool
/// ids, AgentScope's errors): a control character in them never reaches
/// the terminal.
#[test]
fn control_characters_in_findings_and_compare_notes_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil.json");
    let session = serde_json::json!({"provider": "openai", "messages": [
        {"name": "system", "role": "system", "content": "x"},
        {"name": "Bob \u{1b}[2J", "role": "user", "content": "hi"},
        {"name": "F", "role": "assistant", "content": [{"type": "tool_use", "id": "\u{1b}]0;pwned\u{7}", "name": "t\u{1b}[31m", "input": {}}]},
    ]});
    std::fs::write(&path, serde_json::to_vec(&session).unwrap()).unwrap();
    let (mut app, mut computer) = loaded_app(&path, (140, 40));
    let cmds = app.update(key('L'));
    run_commands(&mut app, &mut computer, cmds);
    let findings = app.preview.as_ref().and_then(|p| p.lint.clone()).unwrap();
    assert!(findings.iter().any(|f| f.rule == "provider.speaker-name"));
    assert!(findings
        .iter()
        .any(|f| f.rule == "provider.tool-call-without-result"));
    let screen = screen_text(&app, 140, 40);
    assert!(screen.contains("Lint: "), "{screen}");
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}'),
        "{screen:?}"
    );
    for k in ['c', 'C', 'C', 'C'] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let screen = screen_text(&app, 140, 40);
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}'),
        "{screen:?}"
    );
}

/// Under AgentScope Java 2.0.2 (`V` until it) the library trip is
/// formatted by the Java classes; the compare view's releases pair, `V`
/// until Java, shows a teacher where the Python and Java ports differ.
#[test]
fn the_library_trip_under_agentscope_java() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (140, 44));
    let at = formatscope::reference::ALL
        .iter()
        .position(|r| r.version() == "java-2.0.2")
        .expect("Java is a release");
    for _ in 0..at {
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    for (k, name, class) in [
        ('1', "openai", "OpenAIMultiAgentFormatter"),
        ('3', "dashscope", "DashScopeMultiAgentFormatter"),
    ] {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
        let screen = screen_text(&app, 140, 44);
        assert!(
            screen.contains(&format!("AgentScope Java 2.0.2 {class}")),
            "{screen}"
        );
        let preview = app.preview.as_ref().expect("a preview");
        assert!(preview.error.is_none(), "{:?}", preview.error);
        insta::assert_snapshot!(format!("java_library_trip_{name}"), screen);
    }
    // 7: GLM, a provider only Java has here.
    let cmds = app.update(key('7'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("AgentScope Java 2.0.2 GLMMultiAgentFormatter.format"),
        "{screen}"
    );
    let release = app.preview.as_ref().and_then(|p| p.release.clone());
    assert!(
        matches!(release.and_then(|r| r.counted), Some((Err(e), _)) if e.contains("no GLM tokenizer")),
        "Java's GLM is not counted"
    );
    insta::assert_snapshot!("java_library_trip_glm", screen);
    // 2: Anthropic, which Java writes with the vendor's SDK.
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(screen.contains("vendor's Java SDK"), "{screen}");
    let cmds = app.update(key('3'));
    run_commands(&mut app, &mut computer, cmds);
    // Back to 1.0.21, chat (messages face their source one to one), the
    // compare view, V until its right side is Java's.
    let releases = formatscope::reference::ALL.len();
    let mut keys = vec!['V'; releases - at];
    keys.extend(['m', 'c']);
    for k in keys {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let right = |app: &formatscope::tui::app::App| {
        app.preview
            .as_ref()
            .and_then(|p| p.compare.clone())
            .map(|c| c.right.clone())
            .unwrap_or_default()
    };
    for _ in 0..releases {
        if right(&app).starts_with("java-2.0.2 ") {
            break;
        }
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    assert!(
        right(&app).starts_with("java-2.0.2 DashScope"),
        "{}",
        right(&app)
    );
    insta::assert_snapshot!("compare_python_vs_java", screen_text(&app, 140, 44));
}

/// A vision model on DashScope (`qwen-vl-max`) is routed by Java to the
/// multimodal endpoint, whose content is a list of `{"text": ...}` parts;
/// the workbench under Java shows that request.
#[test]
fn the_library_trip_under_java_on_dashscopes_multimodal_endpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("library_trip.json");
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(session_path("library_trip.json")).expect("read"),
    )
    .expect("json");
    doc["model"] = serde_json::json!("qwen-vl-max");
    std::fs::write(&path, doc.to_string()).expect("write");
    let (mut app, mut computer) = loaded_app(&path, (140, 44));
    let at = formatscope::reference::ALL
        .iter()
        .position(|r| r.version() == "java-2.0.2")
        .expect("Java is a release");
    for _ in 0..at {
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
    }
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("DashScopeMultiAgentFormatter.formatMultiModal"),
        "{screen}"
    );
    let preview = app.preview.as_ref().expect("a preview");
    assert!(preview.error.is_none(), "{:?}", preview.error);
    insta::assert_snapshot!("java_library_trip_dashscope_multimodal", screen);
    // v: the wire view, the body Java's DashScope model class sends, byte
    // for byte, and the endpoint it goes to.
    let cmds = app.update(key('v'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("DashScopeChatModel.stream")
            && screen.contains("aigc/multimodal-generation"),
        "{screen}"
    );
    let plain = app.preview.as_ref().expect("preview").plain.join("\n");
    assert!(
        plain.contains("{\"model\":\"qwen-vl-max\",\"input\":{\"messages\":["),
        "{plain}"
    );
    insta::assert_snapshot!("java_library_trip_dashscope_multimodal_wire", screen);
}
