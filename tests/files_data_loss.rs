//! Data safety, files (the "Files (data loss)" part of "Safe against
//! hostile files and servers"): a save replaces the file whole or leaves
//! it as it was, goes only to the file the edits came from, asks before
//! replacing what is read-only, keeps up with large sessions, and an
//! undone edit is no edit. Workbench items drive `App::update` with the
//! real I/O executor (files really written), as tests/data_safety.rs does.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::msg::Command;
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::worker::Computer;
use ratatui::crossterm::event::KeyCode;
use std::path::{Path, PathBuf};
use workbench::*;

fn changed(app: &mut App, computer: &mut Computer, path: &Path) -> Vec<PathBuf> {
    send(app, computer, Event::FilesChanged(vec![path.to_path_buf()]))
}

// ---- 10. Undo in the editor back to the file's text is no edit ----------

#[test]
fn item10_undo_in_the_editor_clears_the_unsaved_mark_and_an_outside_edit_reloads() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('T'));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, key('!'));
    assert!(app.unsaved());
    send(&mut app, &mut computer, ctrl('z'));
    assert!(!app.unsaved(), "the text is the file's again");
    send(&mut app, &mut computer, code(KeyCode::Esc));
    let outside = std::fs::read_to_string(&path)
        .expect("read")
        .replace("Canberra", "Perth");
    std::fs::write(&path, &outside).expect("write");
    changed(&mut app, &mut computer, &path);
    assert!(app.popup.is_none(), "no conflict: {:?}", app.popup);
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Perth"));
}

// ---- 6. A full disk leaves a hard-linked session as it was --------------

/// Runs this test binary again as a child for one test, with `env` set:
/// what the child does to itself (a file size limit) stays in it.
fn in_child(test: &str, env: (&str, &Path)) -> std::process::Output {
    std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(env.0, env.1)
        .output()
        .expect("child")
}

/// Makes writes past `bytes` fail with EFBIG in this process, as a full
/// disk would (without root or a tiny file system).
fn limit_file_size(bytes: u64) {
    // SAFETY: plain system calls on this process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit {
            rlim_cur: bytes,
            rlim_max: libc::RLIM_INFINITY,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
}

const FULL_DISK: &str = "FORMATSCOPE_TEST_FULL_DISK";

#[test]
fn item6_a_hard_linked_session_saved_on_a_full_disk_stays_whole_and_says_why() {
    if let Some(path) = std::env::var_os(FULL_DISK) {
        // The child: the workbench saves a growing edit with no room left.
        let path = PathBuf::from(path);
        let (mut app, mut computer) = loaded_app(&path, (120, 40));
        let len = std::fs::metadata(&path).expect("meta").len();
        send(&mut app, &mut computer, key('j'));
        send(&mut app, &mut computer, key('T'));
        send(&mut app, &mut computer, code(KeyCode::End));
        send(&mut app, &mut computer, key('!'));
        limit_file_size(len);
        send(&mut app, &mut computer, ctrl('s'));
        assert!(app.status.contains("save failed"), "{}", app.status);
        assert!(
            app.status.contains(&path.display().to_string()) && app.status.contains("as it was"),
            "says what and where: {}",
            app.status
        );
        assert!(app.unsaved(), "the edits are kept");
        changed(&mut app, &mut computer, &path);
        assert!(
            app.popup.is_none(),
            "not 'changed on disk': {:?}",
            app.popup
        );
        return;
    }
    let (dir, path) = temp_copy("chat_plain.json");
    let other = dir.path().join("other-name.json");
    std::fs::hard_link(&path, &other).expect("hard link");
    let before = std::fs::read(&path).expect("read");
    let out = in_child(
        "item6_a_hard_linked_session_saved_on_a_full_disk_stays_whole_and_says_why",
        (FULL_DISK, &path),
    );
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(&path).expect("read"), before, "the file");
    assert_eq!(
        std::fs::read(&other).expect("read"),
        before,
        "its other name"
    );
}

// ---- 7. A re-pointed link: the save goes only where the edits came from --

#[test]
fn item7_after_a_link_is_repointed_a_save_asks_and_goes_only_to_the_original() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original = dir.path().join("original.json");
    let other = dir.path().join("other.json");
    std::fs::copy(session_path("chat_plain.json"), &original).expect("copy");
    let other_text = std::fs::read_to_string(session_path("chat_plain.json"))
        .expect("read")
        .replace("Canberra", "Perth");
    std::fs::write(&other, &other_text).expect("write");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&original, &link).expect("link");
    let (mut app, mut computer) = loaded_app(&link, (120, 40));
    send(&mut app, &mut computer, key('d'));
    let edited = app.messages().to_vec();

    std::fs::remove_file(&link).expect("rm link");
    std::os::unix::fs::symlink(&other, &link).expect("re-point");
    changed(&mut app, &mut computer, &link);
    match &app.popup {
        Some(Popup::Conflict { error: Some(e), .. }) => {
            assert!(
                e.contains("now points to"),
                "named as a re-pointed link: {e}"
            )
        }
        other => panic!("it asks, naming the link: {other:?}"),
    }
    send(&mut app, &mut computer, key('k'));
    let writes = send(&mut app, &mut computer, ctrl('s'));
    assert!(writes.len() <= 1);
    assert_eq!(
        std::fs::read_to_string(&other).expect("read"),
        other_text,
        "the link's new target is not written"
    );
    assert!(
        matches!(app.popup, Some(Popup::SaveAsk { .. })),
        "{:?}",
        app.popup
    );
    assert!(screen_text(&app, 120, 40).contains("now points to"));
    send(&mut app, &mut computer, key('o'));
    assert_eq!(std::fs::read_to_string(&other).expect("read"), other_text);
    let saved = formatscope::session::read_session(&original).expect("original saved");
    assert_eq!(*saved.messages, edited, "the edits went to their own file");
    assert!(
        app.status.contains("the file your edits came from"),
        "{}",
        app.status
    );
}

#[test]
fn item7_a_repointed_link_without_edits_is_shown_and_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original = dir.path().join("original.json");
    let other = dir.path().join("other.json");
    std::fs::copy(session_path("chat_plain.json"), &original).expect("copy");
    let other_text = std::fs::read_to_string(&original)
        .expect("read")
        .replace("Canberra", "Perth");
    std::fs::write(&other, &other_text).expect("write");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&original, &link).expect("link");
    let (mut app, mut computer) = loaded_app(&link, (120, 40));
    std::fs::remove_file(&link).expect("rm link");
    std::os::unix::fs::symlink(&other, &link).expect("re-point");
    changed(&mut app, &mut computer, &link);
    assert!(app.status.contains("now points to"), "{}", app.status);
    // Edits from now on belong to the new target, and are saved there.
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, ctrl('s'));
    assert!(app.popup.is_none(), "{:?}", app.popup);
    assert_ne!(std::fs::read_to_string(&other).expect("read"), other_text);
}

// ---- 8. A read-only file is replaced only after asking ------------------

#[test]
fn item8_a_read_only_file_is_replaced_only_after_asking_and_stays_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, path) = temp_copy("chat_plain.json");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let before = std::fs::read_to_string(&path).expect("read");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before);
    assert!(
        matches!(app.popup, Some(Popup::SaveAsk { .. })),
        "{:?}",
        app.popup
    );
    assert!(screen_text(&app, 120, 40).contains("is read-only (-r--r--r--)"));
    send(&mut app, &mut computer, code(KeyCode::Esc));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), before);
    assert!(app.unsaved());
    send(&mut app, &mut computer, ctrl('s'));
    send(&mut app, &mut computer, key('y'));
    assert_ne!(std::fs::read_to_string(&path).expect("read"), before);
    assert!(!app.unsaved());
    let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
    assert_eq!(mode & 0o777, 0o444, "it stays read-only");
}

// ---- 11. A converted file can be saved ----------------------------------

const BODY: &str = r#"{"model": "gpt-4o", "temperature": 0.5, "messages": [
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Capital of Australia?"},
  {"role": "assistant", "content": "Canberra."}
]}
"#;

#[test]
fn item11_an_openai_body_is_saved_as_a_new_session_file_beside_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = dir.path().join("body.json");
    std::fs::write(&body, BODY).expect("write");
    let earlier = dir.path().join("body.session.json");
    std::fs::write(&earlier, "an earlier save-as").expect("write");
    let (mut app, mut computer) = loaded_app(&body, (120, 40));
    assert!(
        app.status.contains("OpenAI request body") && app.status.contains("session file"),
        "said before the first edit: {}",
        app.status
    );
    send(&mut app, &mut computer, key('d'));
    let edited = app.messages().to_vec();
    send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(std::fs::read_to_string(&body).expect("read"), BODY);
    assert_eq!(
        std::fs::read_to_string(&earlier).expect("read"),
        "an earlier save-as",
        "an existing file is never overwritten"
    );
    let new = dir.path().join("body.session-2.json");
    let saved = formatscope::session::read_session(&new).expect("saved as a session");
    assert_eq!(*saved.messages, edited);
    assert_eq!(
        app.path(),
        Some(&new),
        "edits from now on go to the new file"
    );
    assert!(!app.unsaved());
}

#[test]
fn item11_a_memory_state_is_saved_back_in_its_own_shape() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("memory.json");
    let state = r#"{"friday": {"memory": {"content": [
  [{"id": "1", "name": "user", "role": "user", "content": "hi"}, ["hint"]],
  [{"id": "2", "name": "friday", "role": "assistant", "content": "hello"}, []]
]}}}
"#;
    std::fs::write(&path, state).expect("write");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    assert!(app.status.contains("memory state"), "{}", app.status);
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('T'));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, key('!'));
    send(&mut app, &mut computer, code(KeyCode::Esc));
    send(&mut app, &mut computer, ctrl('s'));
    assert!(!app.unsaved(), "{}", app.status);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        state.replace("\"hello\"", "\"hello!\""),
        "only the edit changed; the pairs and marks stay"
    );
}

// ---- 9. Large sessions: recovery copies only when the edits changed -----

#[test]
fn item9_the_recovery_file_is_written_only_when_the_edits_changed() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, Event::Tick);
    let recovery = formatscope::tui::recovery::path_for(&path);
    assert!(recovery.exists());
    std::fs::write(&recovery, "the copy already made").expect("mark it");
    // Text typed in the editor that changes no value (a space).
    send(&mut app, &mut computer, key('e'));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, key(' '));
    send(&mut app, &mut computer, Event::Tick);
    send(&mut app, &mut computer, Event::Tick);
    assert_eq!(
        std::fs::read_to_string(&recovery).expect("read"),
        "the copy already made",
        "the same edits are not copied again"
    );
    // A real edit is.
    send(&mut app, &mut computer, key('!'));
    send(&mut app, &mut computer, code(KeyCode::Backspace));
    send(&mut app, &mut computer, code(KeyCode::Backspace));
    send(&mut app, &mut computer, key('x'));
    send(&mut app, &mut computer, Event::Tick);
    assert_ne!(
        std::fs::read_to_string(&recovery).expect("read"),
        "the copy already made"
    );
}

/// While the worker recounts an edit, the copy waits for it, a few ticks
/// at most: rendering a large session took a core from the count.
#[test]
fn the_recovery_copy_waits_for_the_recount_a_few_ticks_at_most() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let recovery = formatscope::tui::recovery::path_for(&path);
    // The edit's job is not run: the worker is still recounting.
    let held = app.update(key('d'));
    assert!(
        held.iter().any(|c| matches!(c, Command::Reformat(_))),
        "the edit asks for a recount"
    );
    for _ in 0..3 {
        send(&mut app, &mut computer, Event::Tick);
        assert!(!recovery.exists(), "the copy waits for the recount");
    }
    send(&mut app, &mut computer, Event::Tick);
    assert!(recovery.exists(), "and is written after three ticks");
    let first = std::fs::read_to_string(&recovery).expect("the copy");
    // Once the recount is in, the next edit's copy goes at the next tick.
    run_commands(&mut app, &mut computer, held);
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, Event::Tick);
    let second = std::fs::read_to_string(&recovery).expect("the copy");
    assert_ne!(second, first, "the second edit is in the copy at once");
}
