//! The workbench under AgentScope Java 2.0.2 (`V` until its title shows),
//! with nothing in the workbench naming Java: the library trip's request
//! is Java's DashScope multi-agent one, and Anthropic says why it is not
//! reproduced.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use workbench::*;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

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
