//! The folder watch sees every way editors save: in place, rename-over
//! (vim, helix, VS Code), a slow rename, and delete-then-recreate.

use formatscope::tui::watch::{is_session_file, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

fn watched() -> (tempfile::TempDir, PathBuf, Receiver<Vec<PathBuf>>, Watcher) {
    watched_with(false)
}

fn watched_with(polling: bool) -> (tempfile::TempDir, PathBuf, Receiver<Vec<PathBuf>>, Watcher) {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("session.json");
    std::fs::write(&file, "{\"messages\": []}").expect("write");
    let (tx, rx) = channel();
    let on_change = move |paths| {
        let _ = tx.send(paths);
    };
    let mut watch = if polling {
        Watcher::polling(on_change).expect("poll")
    } else {
        Watcher::new(on_change).expect("watch")
    };
    assert!(watch.set_dirs(&[dir.path().to_path_buf()]).is_empty());
    std::thread::sleep(Duration::from_millis(200));
    while rx.try_recv().is_ok() {}
    (dir, file, rx, watch)
}

/// Waits up to 3 s for a batch naming `file`.
fn sees(rx: &Receiver<Vec<PathBuf>>, file: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(paths) if paths.iter().any(|p| p == file) => return true,
            Ok(_) => continue,
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn an_in_place_write_is_seen() {
    let (_dir, file, rx, _w) = watched();
    std::fs::write(&file, "{\"messages\": [1]}").expect("write");
    assert!(sees(&rx, &file));
}

#[test]
fn a_rename_over_the_file_is_seen_and_the_watch_survives_it() {
    let (dir, file, rx, _w) = watched();
    for round in 0..2 {
        let tmp = dir.path().join(".session.json.swp");
        std::fs::write(&tmp, format!("{{\"messages\": [{round}]}}")).expect("write");
        std::fs::rename(&tmp, &file).expect("rename");
        assert!(sees(&rx, &file), "round {round}");
    }
    std::fs::write(&file, "{\"messages\": [9]}").expect("write");
    assert!(sees(&rx, &file), "an in-place write after the renames");
}

#[test]
fn a_slow_rename_is_seen() {
    let (dir, file, rx, _w) = watched();
    let tmp = dir.path().join("session.json.tmp~");
    std::fs::write(&tmp, "{\"messages\": [2]}").expect("write");
    std::thread::sleep(Duration::from_millis(400)); // longer than the debounce window
    std::fs::rename(&tmp, &file).expect("rename");
    assert!(sees(&rx, &file));
}

#[test]
fn delete_then_recreate_is_seen() {
    let (_dir, file, rx, _w) = watched();
    std::fs::remove_file(&file).expect("remove");
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(&file, "{\"messages\": [3]}").expect("write");
    assert!(sees(&rx, &file));
}

#[test]
fn when_the_system_watcher_is_unavailable_polling_sees_changes() {
    let (_dir, file, rx, _w) = watched_with(true);
    std::thread::sleep(Duration::from_millis(1100)); // a new mtime second
    std::fs::write(&file, "{\"messages\": [4, 5]}").expect("write");
    assert!(sees(&rx, &file));
}

#[test]
fn only_session_files_are_listed() {
    assert!(is_session_file(Path::new("/x/a.json")));
    assert!(is_session_file(Path::new("/x/A.JSON")));
    assert!(!is_session_file(Path::new("/x/.a.json.formatscope-1.tmp")));
    assert!(!is_session_file(Path::new("/x/.hidden.json")));
    assert!(!is_session_file(Path::new("/x/notes.txt")));
}
