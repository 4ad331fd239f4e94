//! The real binary in tmux, on a server of its own: start it, read the
//! screen, press keys, wait for what a user would see.

// Each test file uses some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    name: String,
    socket: PathBuf,
}

/// tmux run against this workbench's own server, its socket in the test's
/// folder (gone with it): tests run side by side, and on a shared server
/// one test closing the last session stops the server while another's
/// `new-session` is connecting to it ("server exited unexpectedly").
fn tmux(socket: &Path) -> Command {
    let mut command = Command::new("tmux");
    command.arg("-S").arg(socket);
    command
}

impl Tmux {
    pub fn start(dir: &Path, args: &str) -> Tmux {
        Tmux::start_env(dir, args, &[])
    }

    /// With these environment variables set for the workbench only.
    pub fn start_env(dir: &Path, args: &str, env: &[(&str, &str)]) -> Tmux {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let name = format!("formatscope-e2e-{}-{n}", std::process::id());
        let bin = env!("CARGO_BIN_EXE_formatscope");
        let socket = dir.join(format!(".tmux-{n}"));
        let status = tmux(&socket)
            .args(["new-session", "-d", "-s", &name, "-x", "120", "-y", "40"])
            // Its sends are not kept in the tester's own history.
            .args(["-e", "FORMATSCOPE_HISTORY=off"])
            // Nor its recent files in the tester's own state folder.
            .args(["-e", &format!("XDG_STATE_HOME={}/.state", dir.display())])
            // Nor the tester's own profiles, themes or trusted folders.
            .args(["-e", &format!("XDG_CONFIG_HOME={}/.config", dir.display())])
            .args(["-e", &format!("XDG_DATA_HOME={}/.data", dir.display())])
            .args(
                env.iter()
                    .flat_map(|(k, v)| ["-e".to_string(), format!("{k}={v}")]),
            )
            .arg(format!(
                "cd {} && {bin} {args}; echo EXITED $?; stty -a > .stty-after; sleep 30",
                dir.display()
            ))
            .status()
            .expect("tmux is installed (.ci/run installs it)");
        assert!(status.success());
        Tmux { name, socket }
    }

    /// tmux's view of the pane: `#{alternate_on}`, `#{mouse_any_flag}`, ...
    pub fn pane(&self, format: &str) -> String {
        let out = tmux(&self.socket)
            .args(["display-message", "-p", "-t", &self.name, format])
            .output()
            .expect("display-message");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The workbench's process id (the pane's shell's child).
    pub fn app_pid(&self) -> String {
        let shell = self.pane("#{pane_pid}");
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let out = Command::new("pgrep")
                .args(["-P", &shell])
                .output()
                .expect("pgrep");
            let pids = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if let Some(pid) = pids.lines().next() {
                return pid.to_string();
            }
            assert!(Instant::now() < deadline, "no workbench process");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn screen(&self) -> String {
        let out = tmux(&self.socket)
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        let status = tmux(&self.socket)
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .expect("send-keys");
        assert!(status.success());
    }

    /// Polls the screen until `pred` holds (up to 30 s: the suite runs
    /// these workbenches side by side on a loaded 2-core machine, where
    /// one once took over 10 s to show the compare view).
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
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

impl Tmux {
    /// Presses `keys` until the screen shows `what`: for a key the
    /// workbench answers "not yet" to while a background job finishes
    /// (S before the meter has counted the request says "S again once
    /// the meter shows its size"), as a user presses it again. The keys
    /// go 300 ms apart (Escape then H at once would be Alt-H), and each
    /// round waits 3 s for its answer first.
    pub fn press_until(&self, keys: &[&str], what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    std::thread::sleep(Duration::from_millis(300));
                }
                self.keys(&[key]);
            }
            let again = Instant::now() + Duration::from_secs(3);
            while Instant::now() < again {
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
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = tmux(&self.socket).args(["kill-server"]).status();
    }
}

impl Tmux {
    /// The workbench's own screen is up: the alternate screen, mouse on,
    /// no panic message and the app not exited.
    pub fn assert_terminal_is_the_apps(&self, screen: &str) {
        assert_eq!(self.pane("#{alternate_on}"), "1", "{screen}");
        assert_eq!(self.pane("#{mouse_any_flag}"), "1", "{screen}");
        assert!(!screen.contains("panicked at"), "{screen}");
        assert!(!screen.contains("EXITED"), "{screen}");
    }

    /// What `stty -a` said in the pane after the workbench exited (the
    /// start command writes it to `dir/.stty-after`).
    pub fn stty_after(&self, dir: &Path) -> String {
        (0..100)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(50));
                std::fs::read_to_string(dir.join(".stty-after"))
                    .ok()
                    .filter(|s| !s.is_empty())
            })
            .expect("stty -a ran after the exit")
    }

    /// After the workbench exits, the shell's terminal is cooked again:
    /// echo and line editing on, the alternate screen and the mouse off.
    pub fn assert_terminal_restored(&self, dir: &Path) {
        let stty = self.stty_after(dir);
        assert!(
            stty.contains(" icanon") && !stty.contains("-icanon"),
            "raw mode left on:\n{stty}"
        );
        assert!(
            stty.contains(" echo ") && !stty.contains("-echo "),
            "echo left off:\n{stty}"
        );
        assert_eq!(
            self.pane("#{alternate_on}"),
            "0",
            "the alternate screen is left"
        );
        assert_eq!(self.pane("#{mouse_any_flag}"), "0", "mouse capture is off");
    }

    /// `q` quits with 0 and the shell's terminal is cooked again.
    pub fn quit_cleanly(&self, dir: &Path) {
        self.keys(&["q"]);
        self.wait_for("the exit", |s| s.contains("EXITED 0"));
        self.assert_terminal_restored(dir);
    }
}
