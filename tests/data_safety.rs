//! Data safety: an edit is never lost and a save never writes the
//! wrong file; a session from someone else cannot make formatscope read or
//! fetch without bounds or without asking. One test (or more) per item.
//! Workbench items drive `App::update` with the real I/O executor (files
//! really written); command-line items run the real binary.

#[path = "support/http.rs"]
mod http;
#[path = "support/run.rs"]
mod run;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::document::Disk;
use formatscope::tui::msg::FileResult;
use formatscope::tui::panes::popup::{Pending, Popup};
use formatscope::tui::worker::Computer;
use http::{Reply, Server};
use ratatui::crossterm::event::KeyCode;
use run::*;
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Duration;
use workbench::*;

fn changed(app: &mut App, computer: &mut Computer, path: &Path) -> Vec<PathBuf> {
    send(app, computer, Event::FilesChanged(vec![path.to_path_buf()]))
}

fn two_sessions() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    std::fs::copy(session_path("chat_plain.json"), &a).expect("copy");
    std::fs::copy(session_path("library_trip.json"), &b).expect("copy");
    (dir, a, b)
}

// ---- 1. A save goes only to the file the edits came from ----------------

#[test]
fn item1_edits_stay_with_their_file_when_it_is_deleted_and_a_save_recreates_it_after_asking() {
    let (_dir, a, b) = two_sessions();
    let b_before = std::fs::read(&b).expect("read");
    let (mut app, mut computer) = folder_app(a.parent().expect("dir"), (120, 40));
    assert_eq!(app.path(), Some(&a));
    let n = app.messages().len();
    send(&mut app, &mut computer, key('x'));
    assert!(app.unsaved());

    std::fs::remove_file(&a).expect("delete from outside");
    changed(&mut app, &mut computer, &a);
    assert_eq!(
        app.path(),
        Some(&a),
        "the open file does not change under unsaved edits"
    );
    assert_eq!(app.messages().len(), n - 1, "the edits are kept");
    assert!(matches!(
        app.doc.as_ref().map(|d| &d.disk),
        Some(Disk::Missing { .. })
    ));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("a.json ● (deleted on disk)"), "{screen}");

    // What used to write over b.json: keep, then save.
    send(&mut app, &mut computer, key('k'));
    let writes = send(&mut app, &mut computer, ctrl('s'));
    assert!(
        writes.is_empty(),
        "nothing is written before the user agrees"
    );
    assert!(matches!(app.popup, Some(Popup::Recreate)));
    let writes = send(&mut app, &mut computer, key('y'));
    assert_eq!(writes, vec![a.clone()]);
    assert_eq!(
        std::fs::read(&b).expect("read"),
        b_before,
        "b.json untouched"
    );
    let saved = formatscope::session::read_session(&a).expect("a.json made again");
    assert_eq!(saved.messages.len(), n - 1);
    assert!(!app.unsaved());
}

// ---- 2. Delete, then recreate after a gap -------------------------------

#[test]
fn item2_a_file_deleted_and_written_again_later_comes_back() {
    let (_dir, a, _b) = two_sessions();
    let (mut app, mut computer) = folder_app(a.parent().expect("dir"), (120, 40));
    let original = std::fs::read_to_string(&a).expect("read");
    std::fs::remove_file(&a).expect("delete");
    changed(&mut app, &mut computer, &a);
    assert_eq!(app.path(), Some(&a), "it does not jump to another file");
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&a, original.replace("Canberra", "Canberra (again)")).expect("write");
    changed(&mut app, &mut computer, &a);
    assert_eq!(app.path(), Some(&a));
    assert!(matches!(
        app.doc.as_ref().map(|d| &d.disk),
        Some(Disk::Same)
    ));
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Canberra (again)"));
}

// ---- 3. Undoing every edit makes the file clean -------------------------

#[test]
fn item3_undoing_every_edit_clears_the_unsaved_mark_and_files_switch_again() {
    let (_dir, a, b) = two_sessions();
    let (mut app, mut computer) = folder_app(a.parent().expect("dir"), (120, 40));
    send(&mut app, &mut computer, key('x'));
    send(&mut app, &mut computer, key('d'));
    assert!(app.unsaved());
    send(&mut app, &mut computer, key('u'));
    send(&mut app, &mut computer, key('u'));
    assert!(!app.unsaved());
    assert!(!screen_text(&app, 120, 40).contains('●'));
    send(&mut app, &mut computer, key(']'));
    assert!(app.popup.is_none());
    assert_eq!(app.path(), Some(&b));
}

// ---- 4. Text that does not parse yet is an unsaved edit -----------------

/// Opens the editor on message 1 and types a `{` at its start.
fn with_draft(path: &Path) -> (App, Computer) {
    let (mut app, mut computer) = loaded_app(path, (120, 40));
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('e'));
    send(&mut app, &mut computer, key('{'));
    assert!(app.editor.has_draft());
    assert!(app.unsaved(), "a draft is an unsaved edit");
    (app, computer)
}

#[test]
fn item4_a_draft_is_not_dropped_by_a_reload() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = with_draft(&path);
    let disk = std::fs::read_to_string(&path)
        .expect("read")
        .replace("Canberra", "Sydney");
    std::fs::write(&path, &disk).expect("write");
    changed(&mut app, &mut computer, &path);
    assert!(matches!(app.popup, Some(Popup::Conflict { .. })), "it asks");
    send(&mut app, &mut computer, key('k'));
    assert!(app.editor.has_draft(), "the draft is still there");
    assert!(app.editor.text().starts_with('{'));
}

#[test]
fn item4_a_draft_is_not_dropped_by_moving_the_selection() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = with_draft(&path);
    send(&mut app, &mut computer, code(KeyCode::Esc));
    send(&mut app, &mut computer, key('j'));
    assert!(matches!(app.popup, Some(Popup::Draft)));
    assert_eq!(app.list.selected, 1, "the selection stays");
    send(&mut app, &mut computer, key('e'));
    assert!(app.editor.has_draft());
    // Dropping it is the user's choice.
    send(&mut app, &mut computer, code(KeyCode::Esc));
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('d'));
    assert!(!app.editor.has_draft());
    assert!(!app.unsaved());
}

#[test]
fn item4_a_draft_makes_quit_ask() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = with_draft(&path);
    send(&mut app, &mut computer, code(KeyCode::Esc));
    let cmds = app.update(key('q'));
    assert!(cmds.is_empty());
    assert!(matches!(app.popup, Some(Popup::Unsaved(Pending::Quit))));
}

// ---- 5. The conflict prompt keeps both sides ----------------------------

fn conflict(path: &Path) -> (App, Computer) {
    let (mut app, mut computer) = loaded_app(path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    let disk = std::fs::read_to_string(path)
        .expect("read")
        .replace("Canberra", "Perth");
    std::fs::write(path, disk).expect("write");
    changed(&mut app, &mut computer, path);
    assert!(matches!(app.popup, Some(Popup::Conflict { .. })));
    (app, computer)
}

#[test]
fn item5_save_mine_picks_a_free_name_and_never_overwrites_an_earlier_one() {
    let (dir, path) = temp_copy("chat_plain.json");
    let earlier = dir.path().join("chat_plain.mine.json");
    std::fs::write(&earlier, "from an earlier conflict").expect("write");
    let (mut app, mut computer) = conflict(&path);
    let edited = app.messages().to_vec();
    send(&mut app, &mut computer, key('s'));
    assert_eq!(
        std::fs::read_to_string(&earlier).expect("read"),
        "from an earlier conflict"
    );
    let mine = dir.path().join("chat_plain.mine-2.json");
    let saved = formatscope::session::read_session(&mine).expect("mine-2 written");
    assert_eq!(*saved.messages, edited);
    assert!(
        app.status.contains("chat_plain.mine-2.json"),
        "{}",
        app.status
    );
}

#[test]
fn item5_when_save_mine_fails_the_edits_stay() {
    let (dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = conflict(&path);
    let edited = app.messages().to_vec();
    // The folder disappears: nothing can be written beside the file.
    std::fs::remove_dir_all(dir.path()).expect("rm");
    send(&mut app, &mut computer, key('s'));
    match &app.popup {
        Some(Popup::Conflict { error: Some(e), .. }) => {
            assert!(e.contains("could not save yours beside it"), "{e}")
        }
        other => panic!("the prompt stays with the reason: {other:?}"),
    }
    assert_eq!(app.messages(), edited.as_slice());
    assert!(app.unsaved());
}

// ---- 7. A save changes only the edit ------------------------------------

const ONE_SPACE: &str = "{\n \"title\": \"t\",\n \"temperature\": 1e5,\n \"top_p\": 1.50,\n \"seed\": 1E+05,\n \"messages\": [\n  {\"name\": \"a\", \"role\": \"user\", \"content\": \"hi\", \"name\": \"Al\"},\n  {\"name\": \"b\", \"role\": \"user\", \"content\": \"yo\", \"x\": 1e5}\n ]\n}";

#[test]
fn item7_a_save_keeps_the_files_bytes_mode_and_owner_and_reports_duplicate_keys() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("private.json");
    std::fs::write(&path, ONE_SPACE).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    // Another owner (root runs the tests: it may give files away).
    let nobody = 65534;
    let as_nobody = std::os::unix::fs::chown(&path, Some(nobody), Some(nobody)).is_ok();
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    assert!(
        app.status.contains("private.json:7:") && app.status.contains("duplicate key \"name\""),
        "reported on load: {}",
        app.status
    );
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('T'));
    send(&mut app, &mut computer, code(KeyCode::End));
    send(&mut app, &mut computer, key('!'));
    let writes = send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(writes, vec![path.clone()]);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        ONE_SPACE.replace("\"yo\"", "\"yo!\""),
        "only the edit changed"
    );
    let meta = std::fs::metadata(&path).expect("meta");
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o600,
        "a private file stays private"
    );
    if as_nobody {
        assert_eq!(
            (meta.uid(), meta.gid()),
            (nobody, nobody),
            "the owner is kept"
        );
    }
}

// ---- 8. No write through a planted name; symlinks saved through ---------

#[test]
fn item8_a_symlink_planted_at_the_old_temporary_name_is_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    std::fs::copy(session_path("chat_plain.json"), &path).expect("copy");
    let victim = dir.path().join("victim.txt");
    std::fs::write(&victim, "precious").expect("write");
    // The name the earlier version always used: .NAME.formatscope-PID.tmp.
    let planted = dir
        .path()
        .join(format!(".s.json.formatscope-{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).expect("plant");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    assert!(
        !std::fs::symlink_metadata(&path)
            .expect("meta")
            .file_type()
            .is_symlink(),
        "the session is still a regular file"
    );
    assert_eq!(
        formatscope::session::read_session(&path)
            .expect("saved")
            .messages
            .len(),
        app.messages().len()
    );
    assert!(std::fs::symlink_metadata(&planted)
        .expect("planted")
        .file_type()
        .is_symlink());
}

#[test]
fn item8_a_symlinked_session_is_saved_through_and_stays_a_link() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real_dir = dir.path().join("elsewhere");
    std::fs::create_dir(&real_dir).expect("mkdir");
    let target = real_dir.join("real.json");
    std::fs::copy(session_path("chat_plain.json"), &target).expect("copy");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("link");
    let (mut app, mut computer) = loaded_app(&link, (120, 40));
    let n = app.messages().len();
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, ctrl('s'));
    assert!(std::fs::symlink_metadata(&link)
        .expect("meta")
        .file_type()
        .is_symlink());
    assert_eq!(
        formatscope::session::read_session(&target)
            .expect("target")
            .messages
            .len(),
        n + 1
    );
}

// ---- 9. Outside edits to what is open are seen, never overwritten -------

#[test]
fn item9_an_outside_edit_to_a_symlinks_target_is_seen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real_dir = dir.path().join("elsewhere");
    std::fs::create_dir(&real_dir).expect("mkdir");
    let target = real_dir.join("real.JSON");
    std::fs::copy(session_path("chat_plain.json"), &target).expect("copy");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).expect("link");
    let (mut app, mut computer) = loaded_app(&link, (120, 40));
    let text = std::fs::read_to_string(&target)
        .expect("read")
        .replace("Canberra", "Hobart");
    std::fs::write(&target, text).expect("write");
    // The watcher reports the target's path, in the other folder.
    let real = std::fs::canonicalize(&target).expect("real");
    changed(&mut app, &mut computer, &real);
    assert!(serde_json::to_string(app.messages())
        .expect("json")
        .contains("Hobart"));
}

#[test]
fn item9_a_change_the_watcher_missed_is_not_overwritten() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    let outside = std::fs::read_to_string(&path)
        .expect("read")
        .replace("Canberra", "Darwin");
    std::fs::write(&path, &outside).expect("write"); // no event reaches the app
    send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        outside,
        "not overwritten"
    );
    assert!(
        matches!(app.popup, Some(Popup::Conflict { .. })),
        "it asks instead"
    );
}

#[test]
fn item9_upper_case_json_files_are_listed_and_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let upper = dir.path().join("X.JSON");
    std::fs::copy(session_path("chat_plain.json"), &upper).expect("copy");
    let (app, _) = folder_app(dir.path(), (120, 40));
    assert_eq!(app.files, vec![upper.clone()]);
    assert_eq!(app.path(), Some(&upper));
}

// ---- 10. Without a terminal ---------------------------------------------

#[test]
fn item10_without_a_terminal_it_says_so_and_names_the_subcommands() {
    let out = bin()
        .arg(session_path("chat_plain.json"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the workbench needs a terminal"), "{err}");
    assert!(
        err.contains("format | count | tokenize | truncate"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

// ---- 11. Deleting a message says what and how to undo -------------------

#[test]
fn item11_deleting_a_message_says_which_and_how_to_undo() {
    let (mut app, mut computer) = loaded_app(&session_path("chat_plain.json"), (120, 40));
    send(&mut app, &mut computer, key('j'));
    send(&mut app, &mut computer, key('x'));
    assert!(
        app.status.starts_with("deleted message #1 (") && app.status.ends_with("u undoes it"),
        "{}",
        app.status
    );
    assert!(screen_text(&app, 120, 40).contains("deleted message #1"));
}

// ---- 12. Reads are bounded and never block ------------------------------

/// Runs the binary with a deadline: it must finish well within it.
fn mkfifo(path: &Path) {
    assert!(Process::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo")
        .success());
}

#[test]
fn item12_a_device_or_a_fifo_as_the_session_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run_within(
        &["format", "/dev/zero"],
        dir.path(),
        Duration::from_secs(10),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a regular file (it is a character device)"),
        "{err}"
    );
    let fifo = dir.path().join("s.json");
    mkfifo(&fifo);
    let out = run_within(&["count", "s.json"], dir.path(), Duration::from_secs(10));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it is a FIFO"));
}

#[test]
fn item12_media_that_are_fifos_devices_or_huge_fail_clearly_and_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    mkfifo(&dir.path().join("pipe.png"));
    let sparse = dir.path().join("big.png");
    std::fs::File::create(&sparse)
        .expect("create")
        .set_len(500 * 1024 * 1024)
        .expect("sparse");
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.png")).expect("link");
    for (url, expected) in [
        ("pipe.png", "it is a FIFO"),
        ("zero.png", "it is a character device"),
        ("big.png", "500 MB is larger than the 20 MB limit (media)"),
    ] {
        image_session(dir.path(), url, 1);
        let out = run_within(
            &["format", "s.json", "--formatter", "GeminiChatFormatter"],
            dir.path(),
            Duration::from_secs(20),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{url}: {stdout}");
        assert!(stdout.contains(expected), "{url}: {stdout}");
        assert!(stdout.len() < 10_000, "{url}: nothing large is read");
    }
}

#[test]
fn item12_the_worker_never_blocks_on_a_fifo_in_the_workbench() {
    let dir = tempfile::tempdir().expect("tempdir");
    mkfifo(&dir.path().join("pipe.png"));
    let path = image_session(dir.path(), "pipe.png", 1);
    let done = std::sync::mpsc::channel();
    let tx = done.0;
    std::thread::spawn(move || {
        let (mut app, mut computer) = loaded_app(&path, (120, 40));
        send(&mut app, &mut computer, key('4'));
        let _ = tx.send(app.preview.and_then(|p| p.error));
    });
    let error = done
        .1
        .recv_timeout(Duration::from_secs(20))
        .expect("the worker returns");
    assert!(error.is_some_and(|e| e.contains("FIFO")));
}

// ---- 13. Downloads are bounded ------------------------------------------

fn gzip_bomb() -> Vec<u8> {
    use flate2::write::GzEncoder;
    use std::io::Write;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..200 {
        gz.write_all(&zeros).expect("gzip");
    }
    gz.finish().expect("gzip")
}

#[test]
fn item13_a_gzip_bomb_stops_at_the_media_limit() {
    let bomb = gzip_bomb();
    assert!(bomb.len() < 1024 * 1024, "200 MB in under 1 MB");
    let server = Server::start(move |_| {
        Reply::Bytes(
            200,
            vec![
                ("Content-Encoding".into(), "gzip".into()),
                ("Content-Type".into(), "image/png".into()),
            ],
            bomb.clone(),
        )
    });
    let dir = tempfile::tempdir().expect("tempdir");
    image_session(dir.path(), &server.url("/bomb.png"), 50);
    let out = run_within(
        &["format", "s.json", "--formatter", "GeminiChatFormatter"],
        dir.path(),
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.len() < 1024 * 1024,
        "output stays small: {} bytes",
        stdout.len()
    );
    assert!(
        stdout.contains("Failed to fetch bytes from URL"),
        "AgentScope's error for a failed download: {stdout}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("note: fetched http://127.0.0.1"), "{err}");
}

#[test]
fn item13_a_run_takes_in_at_most_the_request_limit() {
    // 15 MB PNG-ish bodies, each under the item limit: the run stops at 50 MB.
    let body = vec![b'x'; 15 * 1024 * 1024];
    let server = Server::start(move |_| Reply::Bytes(200, Vec::new(), body.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let urls: Vec<serde_json::Value> = (0..8)
        .map(|i| serde_json::json!({"type": "image", "source": {"type": "url", "url": server.url(&format!("/{i}.png"))}}))
        .collect();
    let session = serde_json::json!({"messages": [{"name": "u", "role": "user", "content": urls}]});
    std::fs::write(dir.path().join("s.json"), session.to_string()).expect("write");
    let out = run_within(
        &["format", "s.json", "--formatter", "GeminiChatFormatter"],
        dir.path(),
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.len() < 2 * 1024 * 1024, "{} bytes", stdout.len());
    assert!(server.count() <= 12, "{} downloads", server.count());
}

// ---- 14. Reads outside and downloads are asked for ----------------------

fn outside_session() -> (tempfile::TempDir, PathBuf, PathBuf, Server) {
    let top = tempfile::tempdir().expect("tempdir");
    let sessions = top.path().join("a/b/sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    let secret = top.path().join("secret.png");
    std::fs::copy(session_path("media/pixel.png"), &secret).expect("copy");
    let png = std::fs::read(session_path("media/pixel.png")).expect("png");
    let server = Server::start(move |_| Reply::Bytes(200, Vec::new(), png.clone()));
    let session = serde_json::json!({"messages": [{"name": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "url", "url": "../../../secret.png"}},
        {"type": "image", "source": {"type": "url", "url": server.url("/remote.png")}}
    ]}]});
    let path = sessions.join("s.json");
    std::fs::write(&path, session.to_string()).expect("write");
    (top, path, secret, server)
}

#[test]
fn item14_the_workbench_asks_before_reading_outside_or_fetching() {
    let (_top, path, secret, server) = outside_session();
    let (mut app, _) = loaded_app(&path, (120, 40));
    let web = formatscope::net::fetch::HttpFetcher::new(Duration::from_secs(5));
    let mut computer = Computer::with_web(std::sync::Arc::new(web));
    // OpenAI inlines the local image: asked on opening, for all it names.
    let Some(Popup::Consent { wanted, .. }) = &app.popup else {
        panic!("it asks: {:?}", app.popup);
    };
    let secret = std::fs::canonicalize(&secret).expect("real");
    assert!(wanted.contains(&formatscope::media::Access::Read(secret)));
    assert!(wanted.contains(&formatscope::media::Access::Fetch(
        server.url("/remote.png")
    )));
    assert_eq!(server.count(), 0, "nothing fetched before the answer");
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("wants to read files outside its folder and download"),
        "{screen}"
    );

    send(&mut app, &mut computer, key('a'));
    assert!(app.popup.is_none());
    send(&mut app, &mut computer, key('4')); // Gemini downloads web images
    let plain = app
        .preview
        .as_ref()
        .map(|p| p.plain.join("\n"))
        .unwrap_or_default();
    assert!(
        server.count() > 0,
        "fetched once allowed: {} {plain}",
        app.status
    );
    let preview = app.preview.as_ref().expect("preview");
    assert!(preview.error.is_none(), "{:?}", preview.error);
}

#[test]
fn item14_denied_reads_show_the_reference_error_and_are_not_asked_again() {
    let (_top, path, _secret, server) = outside_session();
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    assert!(matches!(app.popup, Some(Popup::Consent { .. })));
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, key('4'));
    assert!(app.popup.is_none(), "asked once per session file");
    assert_eq!(server.count(), 0);
    assert!(app
        .preview
        .as_ref()
        .and_then(|p| p.error.as_ref())
        .is_some());
}

#[test]
fn item14_the_command_line_reads_as_agentscope_does_and_says_what_it_read() {
    let (_top, path, secret, server) = outside_session();
    let out = run_within(
        &[
            "format",
            path.to_str().expect("utf-8"),
            "--formatter",
            "GeminiChatFormatter",
        ],
        Path::new("."),
        Duration::from_secs(30),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let secret = std::fs::canonicalize(&secret).expect("real");
    assert!(
        err.contains(&format!(
            "note: read {} (outside the session's folder)",
            secret.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("note: fetched {}", server.url("/remote.png"))),
        "{err}"
    );
}

// ---- 15. Control characters never reach the terminal raw ----------------

#[test]
fn item15_names_and_models_are_escaped_in_human_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let evil = "Bob\u{1b}]52;c;ZXZpbA==\u{7}\n  #99  forged";
    let session = serde_json::json!({"model": "gpt-4o\u{1b}[2J", "messages": [
        {"name": evil, "role": "user", "content": "hi"}
    ]});
    std::fs::write(dir.path().join("s.json"), session.to_string()).expect("write");
    for args in [
        vec!["count", "s.json"],
        vec!["truncate", "s.json", "--max-tokens", "1000"],
        vec!["format", "s.json", "--formatter", "NoSuchFormatter"],
    ] {
        let out = run_within(&args, dir.path(), Duration::from_secs(20));
        for stream in [&out.stdout, &out.stderr] {
            assert!(
                !stream.iter().any(|b| *b == 0x1b || *b == 0x07),
                "{args:?}: a raw control byte: {}",
                String::from_utf8_lossy(stream)
            );
        }
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            !text.contains("\n  #99  forged"),
            "{args:?}: a forged row: {text}"
        );
    }
    let out = run_within(&["count", "s.json"], dir.path(), Duration::from_secs(20));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Bob\\e]52;c;ZXZpbA==\\x07\\n"));
}

/// The recovery file a signal or a crash leaves is offered on the next
/// open and restores the edits (item 6; the signal itself is in e2e_tmux).
#[test]
fn item6_a_recovery_file_is_offered_and_restores_the_edits() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    let edited = app.messages().to_vec();
    app.recovery("SIGTERM")
        .expect("unsaved edits")
        .write()
        .expect("write");
    drop(app);
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    assert!(matches!(app.popup, Some(Popup::Recovery { .. })), "offered");
    send(&mut app, &mut computer, key('r'));
    assert_eq!(app.messages(), edited.as_slice());
    assert!(app.unsaved());
    send(&mut app, &mut computer, ctrl('s'));
    assert_eq!(
        *formatscope::session::read_session(&path)
            .expect("saved")
            .messages,
        edited
    );
    assert!(
        !formatscope::tui::recovery::path_for(&path).exists(),
        "the recovery file goes once the edits are saved"
    );
}

#[test]
fn item6_unsaved_edits_are_copied_to_the_recovery_file_every_few_seconds() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    send(&mut app, &mut computer, Event::Tick);
    let recovery = formatscope::tui::recovery::path_for(&path);
    assert!(recovery.exists());
    send(&mut app, &mut computer, key('u'));
    send(&mut app, &mut computer, Event::Tick);
    assert!(!recovery.exists(), "nothing unsaved, nothing kept");
}

#[test]
fn a_file_event_for_the_file_as_it_was_changes_nothing() {
    let (_dir, path) = temp_copy("chat_plain.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('d'));
    let result = formatscope::tui::io::read_file(&path);
    assert!(matches!(result, FileResult::Text { .. }));
    send(
        &mut app,
        &mut computer,
        Event::FileRead {
            path: path.clone(),
            result,
        },
    );
    assert!(app.popup.is_none());
    assert!(app.unsaved());
}

// ---- Keys and hosts: pseudo-files are never media -----------------------
