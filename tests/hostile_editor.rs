//! Issue 41, item 15 (the editor's half): an editor that writes back
//! 300 MB froze the workbench for minutes while it took the text in. What
//! is read back is bounded; past the bound the status says so, nothing
//! changes, and the edit stays on disk where the status says.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use formatscope::tui::external::edit;
use std::time::{Duration, Instant};

/// `external::EDIT_LIMIT`: 16 MB.
const EDIT_LIMIT: u64 = 16 << 20;

/// An "editor" that writes `bytes` bytes of `x` over the file it is given.
fn writer_of(bytes: u64) -> String {
    format!("sh -c 'head -c {bytes} /dev/zero | tr \"\\0\" x > \"$0\"'")
}

#[test]
fn an_editor_writing_back_300_mb_is_refused_quickly_and_the_edit_is_kept() {
    let started = Instant::now();
    let err = edit(&writer_of(300 << 20), "a short message", true).unwrap_err();
    assert!(
        err.contains("the edited text is 300 MB, more than the 16 MB"),
        "{err}"
    );
    let kept = err
        .split("your edit is kept in ")
        .nth(1)
        .expect("where the edit is");
    assert_eq!(
        std::fs::metadata(kept).expect("kept").len(),
        300 << 20,
        "the whole edit"
    );
    std::fs::remove_file(kept).expect("remove");
    // Only the limit was read (the editor's own writing takes the time).
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn an_edit_within_the_limit_comes_back_whole() {
    let text = edit(&writer_of(EDIT_LIMIT), "short", true).expect("taken");
    assert_eq!(text.len() as u64, EDIT_LIMIT);
    // A long message may come back as long as twice itself.
    let long = "y".repeat(20 << 20);
    let text = edit(&writer_of(30 << 20), &long, true).expect("taken");
    assert_eq!(text.len(), 30 << 20);
}

/// The app says why and changes nothing: the message on screen is the
/// one it was.
#[test]
fn the_status_says_where_the_refused_edit_is_and_nothing_changes() {
    let (_dir, path) = workbench::temp_copy("chat_plain.json");
    let (mut app, mut computer) = workbench::loaded_app(&path, (120, 40));
    let before = app.messages()[1].value().clone();
    let err = edit(&writer_of(300 << 20), "text", true).unwrap_err();
    let kept = err
        .split("your edit is kept in ")
        .nth(1)
        .expect("kept")
        .to_string();
    let cmds = app.update(Event::ExternalEdited {
        index: 1,
        text_mode: true,
        original: "text".into(),
        result: Err(err),
    });
    workbench::run_commands(&mut app, &mut computer, cmds);
    assert!(
        app.status.contains("more than the 16 MB")
            && app.status.contains(&kept)
            && app.status.ends_with("nothing changed"),
        "{}",
        app.status
    );
    assert_eq!(app.messages()[1].value(), before);
    std::fs::remove_file(kept).expect("remove");
}
