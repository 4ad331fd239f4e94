//! Issue 41, item 2: an export names the key variable of the host it
//! addresses. Through a profile (`key_env = "LOCAL_KEY"`, a local server)
//! `request --as curl` / `--as python` and the workbench's `E` read
//! `$LOCAL_KEY`, never `$OPENAI_API_KEY`: running the script must not send
//! the real OpenAI key to the profile's host.

#[path = "support/run.rs"]
mod run;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use formatscope::tui::msg::Command;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use run::formatscope;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use workbench::*;

const PROFILES: &str = "[profiles.local]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:8000/v1\"\nkey_env = \"LOCAL_KEY\"\n";

fn session(dir: &Path) -> PathBuf {
    let path = dir.join("s.json");
    std::fs::write(
        &path,
        json!({"provider": "openai", "request": {"stream": false, "model": "qwen"},
               "messages": [{"name": "u", "role": "user", "content": "hi"}]})
        .to_string(),
    )
    .expect("write");
    path
}

#[test]
fn request_exports_through_a_profile_read_the_profiles_key_variable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config");
    std::fs::create_dir_all(config.join("formatscope")).expect("mkdir");
    std::fs::write(config.join("formatscope/profiles.toml"), PROFILES).expect("write");
    let session = session(dir.path());
    let run = |format: &str| {
        let out = formatscope(
            &[
                "request",
                session.to_str().expect("utf-8"),
                "--profile",
                "local",
                "--as",
                format,
            ],
            &[("XDG_CONFIG_HOME", config.to_str().expect("utf-8"))],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let curl = run("curl");
    assert!(
        curl.contains("'http://127.0.0.1:8000/v1/chat/completions'"),
        "{curl}"
    );
    assert!(curl.contains("${LOCAL_KEY}"), "{curl}");
    assert!(!curl.contains("OPENAI_API_KEY"), "{curl}");
    let python = run("python");
    assert!(python.contains("os.environ[\"LOCAL_KEY\"]"), "{python}");
    assert!(!python.contains("OPENAI_API_KEY"), "{python}");
    // Without the profile the request goes to OpenAI: its own variable.
    let out = formatscope(
        &["request", session.to_str().expect("utf-8"), "--as", "curl"],
        &[],
    );
    let curl = String::from_utf8_lossy(&out.stdout);
    assert!(curl.contains("${OPENAI_API_KEY}"), "{curl}");
}

#[test]
fn the_workbench_export_through_a_profile_reads_the_profiles_key_variable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = session(dir.path());
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let profiles =
        formatscope::net::profile::Profiles::parse(PROFILES, "profiles.toml").expect("parses");
    app.profiles = Arc::new(Ok(profiles));
    app.profile = Some("local".into());
    let cmds = app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('E'),
        KeyModifiers::NONE,
    )));
    assert!(matches!(cmds.as_slice(), [Command::Export { .. }]));
    run_commands(&mut app, &mut computer, cmds);
    let script = path.with_file_name("s.openai.curl.sh");
    let text = std::fs::read_to_string(&script).expect("the export is written");
    assert!(
        text.starts_with("curl -sS -X POST 'http://127.0.0.1:8000/v1/chat/completions'"),
        "{text}"
    );
    assert!(text.contains("${LOCAL_KEY}"), "{text}");
    assert!(!text.contains("OPENAI_API_KEY"), "{text}");
}
