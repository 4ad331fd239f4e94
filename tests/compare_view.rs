//! The compare view in every reference: it compares under AgentScope
//! 0.1.6 as under 1.0.21.

#[path = "support/workbench.rs"]
mod workbench;

use workbench::*;

/// `V` (AgentScope 0.1.6) then `c` opens a compare view that compares: it
/// stuck at "comparing…", since the 0.1.6 run skipped the compare.
#[test]
fn the_compare_view_opens_under_agentscope_0_1_6() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (140, 40));
    send(&mut app, &mut computer, key('V'));
    send(&mut app, &mut computer, key('c'));
    let preview = app.preview.as_ref().expect("a preview");
    assert!(
        preview.release.is_some(),
        "the request pane still shows 0.1.6"
    );
    assert!(preview.compare.is_some(), "the compare view has its sides");
    let screen = screen_text(&app, 140, 40);
    assert!(!screen.contains("comparing…"), "{screen}");
}
