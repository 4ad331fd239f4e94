//! End to end: the real binary in tmux. It opens a session, shows the
//! request, follows a rename-over save from "another editor", switches
//! provider with a key, and restores the terminal when it quits.
//! `.ci/run` installs tmux when it is missing; this test fails (it does not
//! skip) without it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    name: String,
}

impl Tmux {
    fn start(dir: &Path, args: &str) -> Tmux {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("formatscope-e2e-{}-{n}", std::process::id());
        let bin = env!("CARGO_BIN_EXE_formatscope");
        let status = Command::new("tmux")
            .args(["new-session", "-d", "-s", &name, "-x", "120", "-y", "40"])
            .arg(format!(
                "cd {} && {bin} {args}; echo EXITED $?; sleep 30",
                dir.display()
            ))
            .status()
            .expect("tmux is installed (.ci/run installs it)");
        assert!(status.success());
        Tmux { name }
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .expect("send-keys");
        assert!(status.success());
    }

    /// Polls the screen until `pred` holds (up to 10 s).
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

#[test]
fn the_workbench_follows_a_rename_over_save_and_switches_provider() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    let file = dir.path().join("library_trip.json");
    std::fs::copy(sessions.join("library_trip.json"), &file).expect("copy");
    let tmux = Tmux::start(dir.path(), "library_trip.json");

    tmux.wait_for("the request", |s| {
        s.contains("DashScopeMultiAgentFormatter · request") && s.contains("\"role\": \"system\"")
    });

    // Another editor saves by writing a temp file and renaming it over.
    let text = std::fs::read_to_string(&file).expect("read");
    let edited = text.replace(
        "You're a helpful assistant named Friday.",
        "You are Friday, the E2E librarian.",
    );
    let tmp = dir.path().join(".library_trip.json.swp");
    std::fs::write(&tmp, edited).expect("write");
    std::fs::rename(&tmp, &file).expect("rename over");
    tmux.wait_for("the renamed-over save", |s| {
        s.contains("You are Friday, the E2E librarian.")
    });

    tmux.keys(&["1"]);
    tmux.wait_for("OpenAI", |s| {
        s.contains("OpenAIMultiAgentFormatter · request") && s.contains("gpt-4o")
    });

    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
    assert!(
        !screen.contains("Messages ("),
        "the alternate screen is gone after quitting:\n{screen}"
    );
}

#[test]
fn with_no_argument_it_opens_the_sessions_folder_and_shows_the_first_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    let copy = dir.path().join("sessions");
    std::fs::create_dir(&copy).expect("mkdir");
    for entry in std::fs::read_dir(&sessions).expect("sessions/") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            std::fs::copy(&path, copy.join(path.file_name().expect("name"))).expect("copy");
        }
    }
    let tmux = Tmux::start(dir.path(), "");
    tmux.wait_for("the first session", |s| {
        s.contains("chat_plain.json (1/")
            && s.contains("OpenAIChatFormatter · request")
            && s.contains("\"role\": \"system\"")
    });
    tmux.keys(&["]", "]"]);
    tmux.wait_for("the third session", |s| {
        s.contains("library_trip.json (3/") && s.contains("Drops 2 of 11")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}
