//! The workbench under AgentScope Java 2.0.2 (`V` until its title shows),
//! with nothing in the workbench naming Java: the library trip's request
//! is Java's DashScope multi-agent one, and Anthropic says why it is not
//! reproduced.

#[path = "support/workbench.rs"]
mod workbench;

use workbench::*;

#[test]
fn the_library_trip_under_agentscope_java() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (140, 44));
    let mut screen = String::new();
    for _ in 0..formatscope::reference::ALL.len() {
        let cmds = app.update(key('V'));
        run_commands(&mut app, &mut computer, cmds);
        screen = screen_text(&app, 140, 44);
        if screen.contains("AgentScope Java 2.0.2") {
            break;
        }
    }
    assert!(
        screen.contains("DashScopeMultiAgentFormatter.format"),
        "{screen}"
    );
    let plain = app.preview.as_ref().expect("preview").plain.join("\n");
    assert!(plain.contains("\"tool_calls\""), "{plain}");
    let cmds = app.update(key('2'));
    run_commands(&mut app, &mut computer, cmds);
    let screen = screen_text(&app, 140, 44);
    assert!(screen.contains("Java SDK"), "{screen}");
}

/// Under Java, the lint panel (L) also says where a Java agent sends the
/// session otherwise: the library trip's OpenAI multi-agent request gives
/// its second history group the whole prompt again.
#[test]
fn the_lint_panel_under_java_names_the_port_differences() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (140, 44));
    let at = formatscope::reference::ALL
        .iter()
        .position(|r| r.version() == "java-2.0.2")
        .expect("Java is a release");
    let mut keys = vec!['V'; at];
    keys.extend(['1', 'L']);
    for k in keys {
        let cmds = app.update(key(k));
        run_commands(&mut app, &mut computer, cmds);
    }
    let findings = app
        .preview
        .as_ref()
        .and_then(|p| p.lint.clone())
        .expect("linted");
    let repeated: Vec<_> = findings
        .iter()
        .filter(|f| f.rule == "java.multi-agent.history-prompt-every-group")
        .map(|f| f.message)
        .collect();
    assert_eq!(repeated, [Some(8)], "{findings:?}");
    let screen = screen_text(&app, 140, 44);
    assert!(
        screen.contains("java.multi-agent.history-prompt"),
        "{screen}"
    );
}
