//! Issue 41 in the real workbench (tmux), items 6, 7, 10, 14 and 15: a
//! panic on any thread but the interface's ends in an error on screen
//! with the terminal still the app's (before, the panic hook restored the
//! terminal while the app ran on, garbled, its previews stuck at
//! "updating…"), and `S` and `O` against hostile servers and editors end
//! in an error in the reply pane or the status line, never a wait.
//!
//! The panics are made on purpose by a debug build's
//! `FORMATSCOPE_TEST_PANIC=worker|io|send` (the first job of each place
//! named panics; a release build has no such switch).

#[path = "support/endless.rs"]
mod endless;
#[path = "support/provider.rs"]
mod provider;
#[path = "support/tmux.rs"]
mod tmux;

use endless::endless_openai_stream;
use provider::{FakeProvider, Plan};
use std::path::Path;
use std::time::Duration;
use tmux::Tmux;

fn chat(dir: &Path) {
    let sessions = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sessions/cases");
    std::fs::copy(
        sessions.join("chat_plain.json"),
        dir.join("chat_plain.json"),
    )
    .expect("copy");
}

/// Item 7: the worker's first job panics. Its panes say so (not
/// "updating…" for ever), the status names the thread, the terminal stays
/// the app's, and the next job (another provider) computes as usual.
#[test]
fn a_panic_in_the_worker_is_an_error_on_screen_and_the_app_carries_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    chat(dir.path());
    let tmux = Tmux::start_env(
        dir.path(),
        "chat_plain.json",
        &[("FORMATSCOPE_TEST_PANIC", "worker")],
    );
    let screen = tmux.wait_for("the worker's error", |s| {
        s.contains("formatscope failed here (not AgentScope)")
            && s.contains("FORMATSCOPE_TEST_PANIC=worker")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.keys(&["2"]);
    let screen = tmux.wait_for("the next job's request", |s| {
        s.contains("AnthropicChatFormatter · messages") && s.contains("\"role\": \"user\"")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.quit_cleanly(dir.path());
}

/// Item 7: the I/O thread's first command panics; the status says so,
/// the thread lives on (the file is read when asked again) and the
/// terminal stays the app's.
#[test]
fn a_panic_on_the_io_thread_is_an_error_on_screen_and_the_thread_lives_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    chat(dir.path());
    let tmux = Tmux::start_env(
        dir.path(),
        "chat_plain.json",
        &[("FORMATSCOPE_TEST_PANIC", "io")],
    );
    let screen = tmux.wait_for("the I/O thread's error", |s| {
        s.contains("internal error") && s.contains("FORMATSCOPE_TEST_PANIC=io")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    // The file changes on disk: the I/O thread reads it again.
    let file = dir.path().join("chat_plain.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(
        &file,
        text.replace("capital of Australia", "capital of Peru"),
    )
    .expect("write");
    let screen = tmux.wait_for("the file, read", |s| {
        s.contains("OpenAIChatFormatter · messages") && s.contains("capital of Peru")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.quit_cleanly(dir.path());
}

/// An OpenAI session at `base` in `dir`, with `request` merged into its
/// `"request"` object.
fn openai_session(dir: &Path, base: &str, request: serde_json::Value) {
    let mut req = serde_json::json!({"stream": true,
        "model_kwargs": {"client_kwargs": {"base_url": format!("{base}/v1")}}});
    if let (Some(r), serde_json::Value::Object(extra)) = (req.as_object_mut(), request) {
        r.extend(extra);
    }
    let session = serde_json::json!({"provider": "openai", "request": req,
        "messages": [{"name": "Bob", "role": "user", "content": "What is the answer?"}]});
    std::fs::write(dir.join("ask.json"), session.to_string()).expect("write");
}

fn reply_frames() -> Vec<Vec<u8>> {
    let chunk = serde_json::json!({"id": "chatcmpl-h", "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "Forty-two."}, "finish_reason": null}]});
    vec![
        format!("data: {chunk}\n\n").into_bytes(),
        b"data: [DONE]\n\n".to_vec(),
    ]
}

/// Presses `S` once the meter has counted, lets the key
/// go to the test's server, and waits for the reply pane to show `what`.
fn send_and_wait(tmux: &Tmux, what: &str, pred: impl Fn(&str) -> bool) -> String {
    tmux.wait_for("the count", |s| s.contains("context ("));
    tmux.press_until(&["S"], "the question about the host", |s| {
        s.contains("Send your key there?")
    });
    tmux.keys(&["a"]);
    tmux.wait_for(what, pred)
}

/// Item 7: a send task that panics fails its reply pane (it waited for
/// ever), and the next send works.
#[test]
fn a_panic_in_a_send_fails_its_reply_pane_and_the_next_send_works() {
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        reply_frames(),
        Duration::ZERO,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let session = serde_json::json!({"provider": "openai", "request": {"stream": true},
        "messages": [{"name": "Bob", "role": "user", "content": "What is the answer?"}]});
    std::fs::write(dir.path().join("ask.json"), session.to_string()).expect("write");
    // The server is the variable's (a host the user chose): no question.
    let base = format!("{}/v1", server.base());
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[
            ("FORMATSCOPE_TEST_PANIC", "send"),
            ("OPENAI_API_KEY", "sk-hostile"),
            ("OPENAI_BASE_URL", &base),
        ],
    );
    // S waits for the meter's count.
    tmux.wait_for("the count", |s| s.contains("context ("));
    tmux.keys(&["S"]);
    let screen = tmux.wait_for("the send's failure", |s| {
        s.contains("Reply · OpenAI · failed") && s.contains("FORMATSCOPE_TEST_PANIC=send")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    assert!(server.requests().is_empty(), "it panicked before sending");
    tmux.keys(&["S"]);
    let screen = tmux.wait_for("the second send's reply", |s| {
        s.contains("Forty-two.") && s.contains("Reply · OpenAI · done")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.quit_cleanly(dir.path());
}

/// Item 6: 33,000 extra headers; `S` panicked in the HTTP client, wrecking
/// the terminal, and the reply pane waited for ever.
#[test]
fn s_with_33000_extra_headers_fails_in_the_reply_pane() {
    let server = FakeProvider::start(Plan::stream(
        "text/event-stream",
        reply_frames(),
        Duration::ZERO,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let headers: serde_json::Map<String, serde_json::Value> = (0..33_000)
        .map(|i| (format!("X-Extra-{i}"), "v".into()))
        .collect();
    openai_session(
        dir.path(),
        &server.base(),
        serde_json::json!({"call_kwargs": {"extra_headers": headers}}),
    );
    let tmux = Tmux::start_env(dir.path(), "ask.json", &[("OPENAI_API_KEY", "sk-hostile")]);
    tmux.wait_for("the request", |s| {
        s.contains("OpenAIChatFormatter · messages")
    });
    let screen = send_and_wait(&tmux, "the send's failure", |s| {
        s.contains("send failed: nothing was sent: the request has 33,0")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    assert!(server.requests().is_empty());
    tmux.quit_cleanly(dir.path());
}

/// Item 14: an OpenAI body where Anthropic's reply was expected is no
/// reply: the pane says what came back, and `A` appends nothing.
#[test]
fn s_against_another_apis_body_is_no_reply_and_a_appends_nothing() {
    let server = FakeProvider::start(Plan::json(
        200,
        r#"{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny."}}], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}"#,
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let session = serde_json::json!({"provider": "anthropic", "request": {"stream": false,
        "model_kwargs": {"client_kwargs": {"base_url": server.base()}}},
        "messages": [{"name": "Bob", "role": "user", "content": "Weather?"}]});
    std::fs::write(dir.path().join("ask.json"), session.to_string()).expect("write");
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[("ANTHROPIC_API_KEY", "sk-hostile")],
    );
    tmux.wait_for("the request", |s| {
        s.contains("AnthropicChatFormatter · messages")
    });
    let screen = send_and_wait(&tmux, "no reply", |s| {
        s.contains("not an Anthropic reply") && s.contains("failed")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.keys(&["A"]);
    std::thread::sleep(Duration::from_millis(500));
    let screen = tmux.screen();
    assert!(!screen.contains("appended the reply"), "{screen}");
    assert!(screen.contains("Messages (1)"), "{screen}");
    tmux.quit_cleanly(dir.path());
}

/// Item 15: an editor that writes back 300 MB froze the workbench for
/// minutes. Now the status says the edit is too large and where it is
/// kept, at once, and nothing changed.
#[test]
fn o_with_an_editor_writing_300_mb_says_so_at_once_and_keeps_the_edit() {
    let dir = tempfile::tempdir().expect("tempdir");
    chat(dir.path());
    let editor = dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nhead -c 314572800 /dev/zero | tr '\\0' x > \"$1\"\n",
    )
    .expect("script");
    let command = format!("sh {}", editor.display());
    let tmux = Tmux::start_env(
        dir.path(),
        "chat_plain.json",
        &[("VISUAL", ""), ("EDITOR", &command)],
    );
    tmux.wait_for("the request", |s| {
        s.contains("OpenAIChatFormatter · messages")
    });
    tmux.keys(&["O"]);
    let screen = tmux.wait_for("the editor's refusal", |s| {
        s.contains("the edited text is 300 MB")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    assert!(!screen.contains("chat_plain.json ●"), "no edit: {screen}");
    // The status names the kept file (its path may be cut at the edge).
    let kept: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .expect("temp dir")
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("formatscope-message-")
                && e.metadata().is_ok_and(|m| m.len() == 314_572_800)
        })
        .collect();
    assert!(!kept.is_empty(), "the edit is kept");
    for k in kept {
        let _ = std::fs::remove_file(k.path());
    }
    tmux.quit_cleanly(dir.path());
}

/// Item 10: `S` against a stream of content without end: the reply pane
/// fails naming the limit (memory grew to 830 MB in 100 s), the app runs on.
#[test]
fn s_against_an_endless_stream_fails_at_the_body_limit() {
    let port = endless_openai_stream();
    let dir = tempfile::tempdir().expect("tempdir");
    let session = serde_json::json!({"provider": "openai", "request": {"stream": true},
        "messages": [{"name": "Bob", "role": "user", "content": "Talk."}]});
    std::fs::write(dir.path().join("ask.json"), session.to_string()).expect("write");
    let base = format!("http://127.0.0.1:{port}/v1");
    let tmux = Tmux::start_env(
        dir.path(),
        "ask.json",
        &[("OPENAI_API_KEY", "sk-hostile"), ("OPENAI_BASE_URL", &base)],
    );
    tmux.wait_for("the count", |s| s.contains("context ("));
    tmux.keys(&["S"]);
    tmux.wait_for("the stream", |s| s.contains("all work and no play"));
    let screen = tmux.wait_for("the limit", |s| {
        s.contains("Reply · OpenAI · failed") && s.contains("64 MB body limit")
    });
    tmux.assert_terminal_is_the_apps(&screen);
    tmux.quit_cleanly(dir.path());
}
