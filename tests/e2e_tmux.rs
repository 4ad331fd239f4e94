//! End to end: the real binary in tmux. It opens a session, shows the
//! request, follows a rename-over save from "another editor", switches
//! provider with a key, and restores the terminal when it quits, when it
//! is sent a signal (keeping unsaved edits for the next start), and at
//! once while a download hangs.
//! `.ci/run` installs tmux when it is missing; this test fails (it does not
//! skip) without it.

#[path = "support/provider.rs"]
mod provider;
#[path = "support/tmux.rs"]
mod tmux;

use tmux::Tmux;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn the_workbench_follows_a_rename_over_save_and_switches_provider() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    let file = dir.path().join("library_trip.json");
    std::fs::copy(sessions.join("library_trip.json"), &file).expect("copy");
    let tmux = Tmux::start(dir.path(), "library_trip.json");

    tmux.wait_for("the request", |s| {
        s.contains("DashScopeMultiAgentFormatter · messages") && s.contains("\"role\": \"system\"")
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
        s.contains("OpenAIMultiAgentFormatter · messages") && s.contains("gpt-4o")
    });

    // The wire view: what Anthropic receives has the system prompt at the
    // top level of the body, not as a message.
    tmux.keys(&["2", "v"]);
    tmux.wait_for("Anthropic's wire request", |s| {
        s.contains("AnthropicMultiAgentFormatter · wire")
            && s.contains("https://api.anthropic.com/v1/messages")
            && s.contains("\"x-api-key\": \"<API_KEY>\"")
    });
    tmux.keys(&["/"]);
    tmux.keys(&["\"system\": ["]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("the top-level system", |s| {
        s.contains("  \"system\": [") && s.contains(" of 1")
    });

    tmux.keys(&["q"]);
    let screen = tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
    assert!(
        !screen.contains("Messages ("),
        "the alternate screen is gone after quitting:\n{screen}"
    );
}

/// A folder holding `sessions/`, a copy of the bundled sessions (the
/// folder the workbench opens with no argument).
fn folder_with_the_bundled_sessions() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    let copy = dir.path().join("sessions");
    std::fs::create_dir(&copy).expect("mkdir");
    for entry in std::fs::read_dir(&sessions).expect("tests/sessions/cases") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            std::fs::copy(&path, copy.join(path.file_name().expect("name"))).expect("copy");
        }
    }
    dir
}

#[test]
fn with_no_argument_it_opens_the_sessions_folder_and_shows_the_first_session() {
    let dir = folder_with_the_bundled_sessions();
    let tmux = Tmux::start(dir.path(), "");
    // The picker comes up over the first session; Esc closes it.
    tmux.wait_for("the session picker", |s| {
        s.contains("Open a session in sessions") && s.contains("library_trip.json")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the first session", |s| {
        s.contains("chat_plain.json (1/")
            && s.contains("OpenAIChatFormatter · messages")
            && s.contains("\"role\": \"system\"")
    });
    tmux.keys(&["]", "]"]);
    tmux.wait_for("the third session", |s| {
        s.contains("library_trip.json (3/") && s.contains("Drops 3 of 11")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

/// Esc typed just before another key reaches the workbench in one read
/// (`ESC ]`, which crossterm reads as Alt+]): it is Esc, then the key. The
/// picker closes and both `]` move on, where the picker once kept `> ]]`.
#[test]
fn escape_and_keys_in_one_write_close_the_picker_then_move() {
    let dir = folder_with_the_bundled_sessions();
    let tmux = Tmux::start(dir.path(), "");
    tmux.wait_for("the session picker", |s| {
        s.contains("Open a session in sessions") && s.contains("library_trip.json")
    });
    // One send-keys: the three bytes ESC ] ] in one write to the terminal.
    tmux.keys(&["Escape", "]", "]"]);
    tmux.wait_for("the third session", |s| {
        s.contains("library_trip.json (3/") && !s.contains("Open a session in")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

/// After the workbench exits, the shell's terminal is cooked again: echo
/// and line editing on, the alternate screen and the mouse off.
fn assert_terminal_restored(tmux: &Tmux, dir: &Path) {
    let stty = (0..100)
        .find_map(|_| {
            std::thread::sleep(Duration::from_millis(50));
            std::fs::read_to_string(dir.join(".stty-after"))
                .ok()
                .filter(|s| !s.is_empty())
        })
        .expect("stty -a ran after the exit");
    assert!(
        stty.contains(" icanon") && !stty.contains("-icanon"),
        "raw mode left on:\n{stty}"
    );
    assert!(
        stty.contains(" echo ") && !stty.contains("-echo "),
        "echo left off:\n{stty}"
    );
    assert_eq!(
        tmux.pane("#{alternate_on}"),
        "0",
        "the alternate screen is left"
    );
    assert_eq!(tmux.pane("#{mouse_any_flag}"), "0", "mouse capture is off");
}

#[test]
fn a_signal_restores_the_terminal_and_keeps_unsaved_edits_for_the_next_start() {
    for signal in ["TERM", "HUP", "INT"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
        let file = dir.path().join("chat_plain.json");
        std::fs::copy(sessions.join("chat_plain.json"), &file).expect("copy");
        let before = std::fs::read_to_string(&file).expect("read");
        let tmux = Tmux::start(dir.path(), "chat_plain.json");
        tmux.wait_for("the request", |s| {
            s.contains("OpenAIChatFormatter · messages")
        });
        tmux.keys(&["d"]); // duplicate a message: an unsaved edit
        tmux.wait_for("the unsaved mark", |s| s.contains("chat_plain.json ●"));
        let pid = tmux.app_pid();
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let code = match signal {
            "TERM" => 143,
            "HUP" => 129,
            _ => 130,
        };
        tmux.wait_for("the exit", |s| s.contains(&format!("EXITED {code}")));
        assert_terminal_restored(&tmux, dir.path());
        let screen = tmux.screen();
        assert!(screen.contains("unsaved edits are kept in"), "{screen}");
        assert_eq!(
            std::fs::read_to_string(&file).expect("read"),
            before,
            "the file itself is untouched"
        );
        let recovery = dir.path().join(".chat_plain.json.formatscope-recovery");
        assert!(recovery.exists(), "SIG{signal}: the edits are kept");
        drop(tmux);

        // The next start offers them back.
        let tmux = Tmux::start(dir.path(), "chat_plain.json");
        tmux.wait_for("the offer", |s| s.contains("Recover unsaved edits"));
        tmux.keys(&["r"]);
        tmux.wait_for("the restored edits", |s| s.contains("chat_plain.json ●"));
        tmux.keys(&["C-s"]);
        tmux.wait_for("the save", |s| s.contains("saved chat_plain.json"));
        let saved = formatscope::session::read_session(&file).expect("saved");
        let original = formatscope::session::parse_session(&before, "x").expect("parse");
        assert_eq!(saved.messages.len(), original.messages.len() + 1);
        assert!(!recovery.exists(), "gone once saved");
        tmux.keys(&["q"]);
        tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
    }
}

#[test]
fn quitting_does_not_wait_for_a_download_that_hangs() {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut stream = stream;
                let mut buf = [0u8; 1024];
                let _ = stream.read(&mut buf);
                std::thread::sleep(Duration::from_secs(120)); // never answers
            });
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let session = serde_json::json!({"provider": "gemini", "messages": [
        {"name": "u", "role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": format!("http://127.0.0.1:{port}/slow.png")}}
        ]}
    ]});
    std::fs::write(dir.path().join("slow.json"), session.to_string()).expect("write");
    let tmux = Tmux::start(dir.path(), "slow.json");
    tmux.wait_for("the question", |s| s.contains("download from the network"));
    tmux.keys(&["a"]); // allow: the worker now waits on the download
    std::thread::sleep(Duration::from_millis(500));
    let asked = Instant::now();
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "quit took {:?}",
        asked.elapsed()
    );
    assert_terminal_restored(&tmux, dir.path());
}

#[test]
fn the_workbench_sends_streams_the_reply_and_appends_it() {
    use provider::{FakeProvider, Plan};
    // A reply streamed slowly enough to be seen growing.
    let frames: Vec<Vec<u8>> = ["The answer", " is forty-two", ", streamed."]
        .iter()
        .map(|t| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"id": "chatcmpl-e2e", "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
            )
            .into_bytes()
        })
        .chain([
            format!(
                "data: {}\n\n",
                serde_json::json!({"id": "chatcmpl-e2e", "choices": [],
                    "usage": {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30}})
            )
            .into_bytes(),
            b"data: [DONE]\n\n".to_vec(),
        ])
        .collect();
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        frames,
        Duration::from_millis(400),
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("ask.json");
    std::fs::write(
        &file,
        format!(
            "{{\"provider\": \"openai\",\n \"request\": {{\"model_kwargs\": {{\"client_kwargs\": {{\"base_url\": \"{}/v1\"}}}}}},\n \"messages\": [{{\"name\": \"Bob\", \"role\": \"user\", \"content\": \"What is the answer?\"}}]}}\n",
            server.base()
        ),
    )
    .expect("write");
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[("OPENAI_API_KEY", "sk-e2e-secret")],
    );
    tmux.wait_for("the request", |s| {
        s.contains("OpenAIChatFormatter · messages")
    });
    tmux.keys(&["S"]);
    // Only the session names the fake server: the key goes after a yes.
    let host = format!("127.0.0.1:{}", server.port);
    tmux.wait_for("the question about the host", |s| {
        s.contains("Send your key there?") && s.contains(&host)
    });
    assert!(
        server.requests().is_empty(),
        "nothing sent before the answer"
    );
    tmux.keys(&["a"]);
    tmux.wait_for("the reply streaming", |s| {
        s.contains("Reply · OpenAI · streaming") && s.contains("The answer")
    });
    let done = tmux.wait_for("the whole reply", |s| {
        s.contains("The answer is forty-two, streamed.") && s.contains("billed 21 in, 9 out")
    });
    assert!(!done.contains("sk-e2e-secret"), "the key never shows");
    assert_eq!(server.requests().len(), 1);
    tmux.keys(&["A"]);
    tmux.wait_for("the appended message", |s| {
        s.contains("appended the reply as message #1")
    });
    tmux.keys(&["C-s"]);
    tmux.wait_for("the save", |s| s.contains("saved"));
    let saved = std::fs::read_to_string(&file).expect("read");
    assert!(
        saved.contains("The answer is forty-two, streamed."),
        "{saved}"
    );
    assert!(!saved.contains("sk-e2e-secret"));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

#[test]
fn under_2_0_11_the_wire_view_export_and_send_are_the_releases_own() {
    use provider::{FakeProvider, Plan};
    // 2.0.11's OpenAI class streams deltas; a usage-only chunk ends it.
    let frames: Vec<Vec<u8>> = ["Twenty", "-one, ", "from 2.x."]
        .iter()
        .map(|t| {
            format!(
                "data: {}\n\n",
                serde_json::json!({"id": "chatcmpl-v2", "object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": {"content": t}, "finish_reason": null}]})
            )
            .into_bytes()
        })
        .chain([
            format!(
                "data: {}\n\n",
                serde_json::json!({"id": "chatcmpl-v2", "choices": [],
                    "usage": {"prompt_tokens": 17, "completion_tokens": 6, "total_tokens": 23}})
            )
            .into_bytes(),
            b"data: [DONE]\n\n".to_vec(),
        ])
        .collect();
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        frames,
        Duration::from_millis(300),
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("ask.json");
    // The 2.x credential's base URL: only the session names it.
    std::fs::write(
        &file,
        format!(
            "{{\"provider\": \"openai\",\n \"request\": {{\"model_kwargs\": {{\"credential\": {{\"base_url\": \"{}/v1\"}}}}}},\n \"messages\": [{{\"name\": \"Bob\", \"role\": \"user\", \"content\": \"How old?\"}}]}}\n",
            server.base()
        ),
    )
    .expect("write");
    let db = dir.path().join("history.db");
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[
            ("OPENAI_API_KEY", "sk-e2e-v2-secret"),
            ("FORMATSCOPE_HISTORY", db.to_str().expect("a path")),
        ],
    );
    tmux.wait_for("the request", |s| s.contains("OpenAIChatFormatter"));
    tmux.keys(&["V"]);
    tmux.wait_for("AgentScope 2.0.11", |s| s.contains("2.0.11"));
    tmux.keys(&["v"]);
    let host = format!("127.0.0.1:{}", server.port);
    tmux.wait_for("the 2.x wire", |s| {
        s.contains("openai.AsyncOpenAI.chat.completions.create") && s.contains(&host)
    });
    tmux.keys(&["E"]);
    tmux.wait_for("the export", |s| s.contains("curl"));
    let script = std::fs::read_dir(dir.path())
        .expect("the folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".sh"))
        .expect("a curl script beside the session");
    let text = std::fs::read_to_string(&script).expect("the script");
    assert!(
        text.contains("${OPENAI_API_KEY}") && text.contains("stream_options"),
        "{text}"
    );
    tmux.press_until(&["S"], "the question about the host", |s| {
        s.contains("Send your key there?") && s.contains(&host)
    });
    assert!(
        server.requests().is_empty(),
        "nothing sent before the answer"
    );
    tmux.keys(&["a"]);
    let done = tmux.wait_for("the whole reply", |s| {
        s.contains("Twenty-one, from 2.x.") && s.contains("billed 17 in, 6 out")
    });
    assert!(!done.contains("sk-e2e-v2-secret"), "the key never shows");
    let got = server.requests();
    assert_eq!(got.len(), 1);
    let body: serde_json::Value = serde_json::from_slice(&got[0].body).expect("JSON");
    assert_eq!(
        body["stream_options"]["include_usage"], true,
        "2.0.11's body"
    );
    tmux.keys(&["A"]);
    tmux.wait_for("the appended message", |s| {
        s.contains("appended the reply as message #1")
    });
    tmux.keys(&["C-s"]);
    tmux.wait_for("the save", |s| s.contains("saved"));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("JSON");
    let last = &saved["messages"][1];
    assert_eq!(last["content"][0]["text"], "Twenty-one, from 2.x.");
    assert_eq!(
        last["finished_reason"], "completed",
        "a 2.x AssistantMsg: {last}"
    );
    // The history is written after the pane has the reply: H again (its
    // list read anew) until the send is there.
    tmux.press_until(&["Escape", "H"], "the send in the history", |s| {
        s.contains("openai · gpt-4o")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the send recorded under the release", |s| {
        s.contains(&format!("AgentScope 2.0.11 · {host}"))
    });
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

#[test]
fn r_asks_anthropic_to_count_and_the_meter_says_exact() {
    use provider::{FakeProvider, Plan};
    let server = FakeProvider::start(Plan::json(200, r#"{"input_tokens": 99}"#));
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("ask.json");
    std::fs::write(
        &file,
        format!(
            "{{\"provider\": \"anthropic\",\n \"request\": {{\"model_kwargs\": {{\"client_kwargs\": {{\"base_url\": \"{}\"}}}}}},\n \"messages\": [{{\"name\": \"Bob\", \"role\": \"user\", \"content\": \"Count me.\"}}]}}\n",
            server.base()
        ),
    )
    .expect("write");
    // The variable names the host the session names: the user chose it.
    let base = server.base();
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[
            ("ANTHROPIC_API_KEY", "sk-e2e-secret"),
            ("ANTHROPIC_BASE_URL", base.as_str()),
        ],
    );
    tmux.wait_for("the request", |s| {
        s.contains("AnthropicChatFormatter · messages")
    });
    tmux.keys(&["R"]);
    tmux.wait_for("the exact count", |s| {
        s.contains("Anthropic counts 99 · exact")
    });
    let got = &server.requests()[0];
    assert_eq!(got.path, "/v1/messages/count_tokens");
    assert_eq!(got.header("x-api-key"), Some("sk-e2e-secret"));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

/// The teaching keys on the real binary: `c` compares two providers side by
/// side, `w` shows the rule behind the lines, `L` the lint findings, `V`
/// switches the reference to AgentScope 0.1.6.
#[test]
fn the_teaching_view_compares_explains_lints_and_switches_to_0_1_6() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    std::fs::copy(
        sessions.join("library_trip.json"),
        dir.path().join("library_trip.json"),
    )
    .expect("copy");
    let tmux = Tmux::start(dir.path(), "library_trip.json");
    tmux.wait_for("the request", |s| {
        s.contains("DashScopeMultiAgentFormatter · messages")
    });
    tmux.keys(&["1", "c"]);
    tmux.wait_for("the compare view", |s| {
        s.contains("compare: two providers")
            && s.contains("OpenAIMultiAgentFormatter")
            && s.contains("AnthropicMultiAgentFormatter")
            && s.contains("── message 0")
    });
    tmux.keys(&["c", "2", "v", "w"]);
    tmux.wait_for("the rules", |s| {
        s.contains(" anthropic.wire.max-tokens ") && s.contains("Rules: ")
    });
    tmux.keys(&["L"]);
    tmux.wait_for("the lint panel", |s| s.contains("Lint: 0 errors"));
    tmux.keys(&["V"]);
    tmux.wait_for("AgentScope 2.0.11", |s| {
        s.contains("AgentScope 2.0.11 AnthropicMultiAgentFormatter.format")
    });
    tmux.keys(&["V"]);
    tmux.wait_for("AgentScope 0.1.6", |s| {
        s.contains("AgentScope 0.1.6 AnthropicFormatter.format_multi_agent")
            && s.contains("has no truncation")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}

#[test]
fn o_opens_the_message_in_the_users_editor_and_the_edit_comes_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    let file = dir.path().join("library_trip.json");
    std::fs::copy(sessions.join("library_trip.json"), &file).expect("copy");
    // The "editor": edits the file it is given in place and exits 0.
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nstty -a > .stty-editor\nsed -i 's/named Friday\\./named Friday, edited in EDITOR./' \"$1\"\n",
    )
    .expect("script");
    let on_disk = std::fs::read_to_string(&file).expect("read");
    // Two words: the variable is split as a shell would (`code -w`).
    let command = format!("sh {}", editor.display());
    let tmux = Tmux::start_env(
        dir.path(),
        "library_trip.json",
        &[("VISUAL", ""), ("EDITOR", &command)],
    );
    tmux.wait_for("the request", |s| {
        s.contains("DashScopeMultiAgentFormatter · messages") && s.contains("named Friday.")
    });
    tmux.keys(&["O"]);
    let screen = tmux.wait_for("the edit from the editor", |s| {
        // (The request pane cuts the line at its edge.)
        s.contains("named Friday, edited in EDIT") && s.contains("edited in the external editor")
    });
    assert!(screen.contains("library_trip.json ●"), "unsaved:\n{screen}");
    // The editor had the terminal as a shell leaves it: cooked, echoing.
    let stty = std::fs::read_to_string(dir.path().join(".stty-editor")).expect("stty ran");
    assert!(
        stty.contains(" icanon") && !stty.contains("-icanon") && !stty.contains("-echo "),
        "the editor got a raw terminal:\n{stty}"
    );
    assert_eq!(
        tmux.pane("#{alternate_on}"),
        "1",
        "the workbench's screen is back"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        on_disk,
        "an edit, not a save"
    );
    // u undoes it as one step.
    tmux.keys(&["u"]);
    tmux.wait_for("the undo", |s| {
        !s.contains("edited in EDIT") && s.contains("named Friday.")
    });
}

#[test]
fn an_editor_that_exits_non_zero_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    let file = dir.path().join("library_trip.json");
    std::fs::copy(sessions.join("library_trip.json"), &file).expect("copy");
    // Edits the file, then fails: the edit is not taken.
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/named Friday\\./named Nobody./' \"$1\"\nexit 3\n",
    )
    .expect("script");
    let command = format!("sh {}", editor.display());
    let tmux = Tmux::start_env(
        dir.path(),
        "library_trip.json",
        &[("VISUAL", &command), ("EDITOR", "false")],
    );
    tmux.wait_for("the request", |s| {
        s.contains("DashScopeMultiAgentFormatter · messages") && s.contains("named Friday.")
    });
    tmux.keys(&["O"]);
    let screen = tmux.wait_for("the editor's failure", |s| {
        s.contains("exited with status 3: nothing changed")
    });
    assert!(!screen.contains("named Nobody."), "{screen}");
    assert!(!screen.contains("library_trip.json ●"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("EXITED 0"));
}
