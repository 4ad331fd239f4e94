//! Keys and hosts: a session from someone else cannot make formatscope
//! send a key where nobody chose, read outside its folder or a pseudo-file,
//! or fetch from a host nobody was asked about. Workbench items drive
//! `App::update` with the real I/O executor; command-line items run the
//! real binary; servers are started on 127.0.0.1.

#[path = "support/http.rs"]
mod http;
#[path = "support/run.rs"]
mod run;
#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::{App, Event};
use formatscope::tui::panes::popup::Popup;
use formatscope::tui::worker::Computer;
use http::{Reply, Server};
use ratatui::crossterm::event::KeyCode;
use run::*;
use std::path::{Path, PathBuf};
use std::time::Duration;
use workbench::*;

#[test]
fn keys_proc_self_environ_is_never_media_directly_as_file_url_or_through_a_symlink() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink("/proc/self/environ", dir.path().join("env.png")).expect("link");
    let marker = "FORMATSCOPE_MARKER_KEY=sk-marker-5e1f";
    for url in [
        "/proc/self/environ",
        "file:///proc/self/environ",
        "env.png",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ] {
        image_session(dir.path(), url, 1);
        let out = bin()
            .args(["request", "s.json", "--provider", "anthropic"])
            .current_dir(dir.path())
            .env("FORMATSCOPE_MARKER_KEY", "sk-marker-5e1f")
            .output()
            .expect("run");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        for needle in [
            "sk-marker-5e1f".to_string(),
            // What the environment looks like in base64, wherever the
            // marker falls in the 3-byte groups.
            formatscope::py::b64encode(marker.as_bytes())[4..20].to_string(),
            formatscope::py::b64encode(&marker.as_bytes()[1..])[4..20].to_string(),
            formatscope::py::b64encode(&marker.as_bytes()[2..])[4..20].to_string(),
        ] {
            assert!(!stdout.contains(&needle), "{url}: {stdout}");
            assert!(!stderr.contains(&needle), "{url}: {stderr}");
        }
        if Path::new(url).exists() || !url.starts_with("/sys") {
            assert!(stdout.contains("pseudo-file"), "{url}: {stdout}");
            assert!(stdout.contains("OSError"), "{url}: {stdout}");
        }
    }
}

// ---- Keys and hosts: reads are free only under the session's own folder --

/// A session in `top/sessions` naming `../media/pixel.png`: its parent.
fn parent_media_session() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let top = tempfile::tempdir().expect("tempdir");
    let sessions = top.path().join("sessions");
    std::fs::create_dir_all(&sessions).expect("mkdir");
    std::fs::create_dir_all(top.path().join("media")).expect("mkdir");
    let image = top.path().join("media/pixel.png");
    std::fs::copy(session_path("media/pixel.png"), &image).expect("copy");
    let session = serde_json::json!({"messages": [{"name": "u", "role": "user", "content": [
        {"type": "image", "source": {"type": "url", "url": "../media/pixel.png"}}
    ]}]});
    let path = sessions.join("s.json");
    std::fs::write(&path, session.to_string()).expect("write");
    (top, path, std::fs::canonicalize(&image).expect("real"))
}

#[test]
fn keys_the_workbench_asks_before_reading_the_sessions_parent_folder() {
    let (_top, path, image) = parent_media_session();
    let (app, _) = loaded_app(&path, (120, 40));
    let Some(Popup::Consent { wanted, .. }) = &app.popup else {
        panic!("it asks: {:?}", app.popup);
    };
    assert_eq!(wanted, &vec![formatscope::media::Access::Read(image)]);
}

#[test]
fn keys_the_command_line_reads_the_parent_as_agentscope_does_and_says_so() {
    let (_top, path, image) = parent_media_session();
    let out = run_within(
        &[
            "format",
            path.to_str().expect("utf-8"),
            "--provider",
            "openai",
        ],
        Path::new("."),
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "note: read {} (outside the session's folder)",
            image.display()
        )),
        "{err}"
    );
}

// ---- Keys and hosts: S asks before a key goes where only the session says --

/// Runs the send commands among `cmds` for real (the workbench's sender
/// task) and feeds what they report back to the app.
fn run_sends(app: &mut App, cmds: Vec<formatscope::tui::msg::Command>) -> Vec<String> {
    use formatscope::tui::msg::Command;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = formatscope::net::client(Default::default()).expect("client");
    let mut statuses = Vec::new();
    for cmd in cmds {
        let Command::Send(job) = cmd else { continue };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        runtime.block_on(formatscope::tui::sender::run(client.clone(), *job, tx));
        while let Ok(msg) = rx.try_recv() {
            app.update(msg);
            statuses.push(app.status.clone());
        }
    }
    statuses
}

#[test]
fn keys_the_workbench_asks_once_per_host_before_a_key_goes_where_only_the_session_says() {
    // Only this test sends from the workbench; the key is a dummy.
    std::env::set_var("OPENAI_API_KEY", "sk-test-workbench-2b1e");
    std::env::remove_var("OPENAI_BASE_URL");
    let server = Server::start(|_| {
        Reply::Bytes(
            200,
            vec![("content-type".into(), "application/json".into())],
            br#"{"id": "c", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}"#.to_vec(),
        )
    });
    let host = format!("127.0.0.1:{}", server.port);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    let session = serde_json::json!({"provider": "openai",
        "request": {"stream": false, "model_kwargs": {"client_kwargs": {"base_url": server.url("/v1")}}},
        "messages": [{"name": "u", "role": "user", "content": "hi"}]});
    std::fs::write(&path, session.to_string()).expect("write");

    // Said no: nothing sent, and not asked again.
    let (mut app, _) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('S'));
    run_sends(&mut app, cmds);
    let Some(Popup::SendHost { host: asked, .. }) = &app.popup else {
        panic!("it asks: {:?} {}", app.popup, app.status);
    };
    assert_eq!(asked.to_string(), host);
    assert!(screen_text(&app, 120, 40).contains(&host));
    assert_eq!(server.count(), 0, "nothing sent before the answer");
    assert!(app.update(key('d')).is_empty());
    let cmds = app.update(key('S'));
    run_sends(&mut app, cmds);
    assert!(app.popup.is_none(), "asked once per host");
    assert!(app.status.contains(&host), "{}", app.status);
    assert_eq!(server.count(), 0);

    // Said yes: sent, and the status line names the host.
    let (mut app, _) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('S'));
    run_sends(&mut app, cmds);
    assert!(matches!(app.popup, Some(Popup::SendHost { .. })));
    let cmds = app.update(key('a'));
    let statuses = run_sends(&mut app, cmds);
    assert_eq!(server.count(), 1, "{statuses:?}");
    assert!(
        statuses.iter().any(|s| s.contains(&format!("at {host}"))),
        "{statuses:?}"
    );
    // Asked once: the next send goes without a question.
    let cmds = app.update(key('S'));
    run_sends(&mut app, cmds);
    assert!(app.popup.is_none());
    assert_eq!(server.count(), 2);
}

// ---- Keys and hosts: each host a media redirect reaches is asked or named --

/// A session whose image is on `first`, which redirects to `second`
/// (another host: `localhost` rather than 127.0.0.1).
fn redirected_image_session() -> (tempfile::TempDir, PathBuf, Server, Server, String) {
    let png = std::fs::read(session_path("media/pixel.png")).expect("png");
    let second = Server::start(move |_| Reply::Bytes(200, Vec::new(), png.clone()));
    let target = format!("http://localhost:{}/moved.png", second.port);
    let location = target.clone();
    let first = Server::start(move |_| {
        Reply::Bytes(302, vec![("Location".into(), location.clone())], Vec::new())
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = image_session(dir.path(), &first.url("/pic.png"), 1);
    (dir, path, first, second, target)
}

#[test]
fn keys_the_command_line_names_each_host_a_media_redirect_reaches() {
    let (dir, _path, first, second, target) = redirected_image_session();
    let out = run_within(
        &["format", "s.json", "--formatter", "GeminiChatFormatter"],
        dir.path(),
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("note: fetched {}", first.url("/pic.png"))),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "note: fetched {target} (redirected from {})",
            first.url("/pic.png")
        )),
        "{err}"
    );
    assert_eq!(second.count(), 1);
}

#[test]
fn keys_the_workbench_asks_for_each_host_a_media_redirect_reaches() {
    for allow in [false, true] {
        let (_dir, path, first, second, target) = redirected_image_session();
        let (mut app, _) = loaded_app(&path, (120, 40));
        let web = formatscope::net::fetch::HttpFetcher::new(Duration::from_secs(5));
        let mut computer = Computer::with_web(std::sync::Arc::new(web));
        send(&mut app, &mut computer, key('4')); // Gemini downloads web images
        assert!(matches!(app.popup, Some(Popup::Consent { .. })));
        assert_eq!(first.count(), 0, "nothing fetched before the answer");
        send(&mut app, &mut computer, key('a'));
        assert!(first.count() > 0, "the first host was allowed");
        assert_eq!(second.count(), 0, "the redirect's host was not asked for");
        let Some(Popup::Consent { wanted, .. }) = &app.popup else {
            panic!("it asks about the redirect: {:?}", app.popup);
        };
        assert!(
            wanted.iter().any(|a| a.to_string().contains(&target)),
            "{wanted:?}"
        );
        let screen = screen_text(&app, 120, 40);
        assert!(screen.contains("redirected from"), "{screen}");
        send(&mut app, &mut computer, key(if allow { 'a' } else { 'd' }));
        assert!(app.popup.is_none(), "asked once");
        let error = app.preview.as_ref().and_then(|p| p.error.clone());
        if allow {
            assert!(second.count() > 0);
            assert!(error.is_none(), "{error:?}");
        } else {
            assert_eq!(second.count(), 0);
            let error = error.expect("the fetch failed");
            assert!(error.contains("Failed to fetch"), "{error}");
        }
    }
}

// ---- Replies: a body that is not the provider's reply is said, not "done" --

#[test]
fn replies_the_workbench_says_what_came_back_when_it_is_not_a_reply() {
    use formatscope::tui::panes::reply::Phase;
    // Ollama sends no key, so its session host is used without asking.
    // An OpenAI body parses, in Ollama's class, to an empty response:
    // today's "done" with nothing in it.
    let server = Server::start(|_| {
        Reply::Bytes(
            200,
            vec![("content-type".into(), "application/json".into())],
            br#"{"id": "c", "choices": [{"index": 0, "message": {"content": "Captive portal"}}]}"#
                .to_vec(),
        )
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    let session = serde_json::json!({"provider": "ollama",
        "request": {"stream": false, "model": "qwen3", "model_kwargs": {"host": server.url("")}},
        "messages": [{"name": "u", "role": "user", "content": "hi"}]});
    std::fs::write(&path, session.to_string()).expect("write");
    let (mut app, _) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('S'));
    let statuses = run_sends(&mut app, cmds);
    assert_eq!(server.count(), 1, "{statuses:?}");
    let said = "the server answered 200 application/json (80 bytes): \"{\"id\": \"c\", \"choices\": [{\"index\": 0, \"message\": {\"content\": \"Captive portal\"}}]}\" — not an Ollama reply";
    assert_eq!(app.replies[0].phase, Phase::Failed(said.into()));
    assert!(app.status.contains(said), "{}", app.status);
    assert!(app.replies[0].final_reply().is_none(), "nothing to append");
    let screen = screen_text(&app, 120, 40);
    assert!(!screen.contains("done"), "{screen}");
    assert!(screen.contains("Captive portal"), "{screen}");
}

// ---- Sends: a large request shows where it goes and asks first ----------

#[test]
fn sends_a_large_request_shows_host_model_and_tokens_and_asks_first() {
    use formatscope::tui::msg::Command;
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, _) = loaded_app(&path, (120, 40));
    let tokens = app
        .preview
        .as_ref()
        .and_then(|p| p.report.as_ref())
        .map(|r| r.total)
        .expect("the meter counted the request");
    assert!(tokens > 100, "{tokens}");
    // The threshold is a setting (`s`, "ask to send at"), the workbench's.
    app.update(key('s'));
    // Up from the first field twice: "ask to send at" (the profile is last).
    app.update(code(KeyCode::Up));
    app.update(code(KeyCode::Up));
    for c in "100".chars() {
        app.update(key(c));
    }
    app.update(code(KeyCode::Enter));
    assert!(app.popup.is_none(), "{:?}", app.popup);
    assert_eq!(app.confirm_send_at, 100, "{}", app.status);
    assert!(!app.unsaved(), "not a session setting");

    // S at or above it: nothing sent; host, model and count shown.
    let cmds = app.update(key('S'));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(
        matches!(app.popup, Some(Popup::ConfirmSend(_))),
        "{:?}",
        app.popup
    );
    let screen = screen_text(&app, 120, 40);
    for want in [
        format!("the request is {tokens} tokens"),
        "DashScope → dashscope.aliyuncs.com · qwen-max".to_string(),
        "y  send".to_string(),
    ] {
        assert!(screen.contains(&want), "{want}\n{screen}");
    }
    insta::assert_snapshot!("confirm_send", screen);
    assert!(app.update(key('n')).is_empty());
    assert!(app.popup.is_none() && !app.sending());
    // y sends.
    app.update(key('S'));
    let cmds = app.update(key('y'));
    assert!(matches!(cmds.as_slice(), [Command::Send(_)]), "{cmds:?}");
    for id in cmds.iter().filter_map(|c| match c {
        Command::Send(job) => Some(job.id),
        _ => None,
    }) {
        app.update(Event::Reply {
            id,
            update: formatscope::tui::panes::reply::ReplyUpdate::Cancelled,
        });
    }
    // P asks too, for every provider picked.
    app.update(key('P'));
    app.update(key('1'));
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    let Some(Popup::ConfirmSend(ask)) = &app.popup else {
        panic!("{:?}", app.popup);
    };
    assert_eq!(ask.targets.len(), 2, "{:?}", ask.targets);
    assert!(
        ask.targets[0].starts_with("OpenAI → api.openai.com · "),
        "{:?}",
        ask.targets
    );
    // Below the threshold, S sends at once.
    app.update(code(KeyCode::Esc));
    app.confirm_send_at = tokens as u64 + 1;
    let cmds = app.update(key('S'));
    assert!(matches!(cmds.as_slice(), [Command::Send(_)]), "{cmds:?}");
}

// ---- Text: what the text view and the T editor show ----------------------

/// Item 22: the text view shows a tab, ESC, BEL and a lone combining mark
/// as the JSON view escapes them; `T` does not open such text in a text
/// area that would hide them (it edits it as JSON, and says why), and a
/// text it does open is saved back exactly, final newline included.
#[test]
fn text_controls_and_lone_marks_are_shown_and_t_keeps_the_exact_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    let session = serde_json::json!({"provider": "openai", "messages": [
        {"name": "u", "role": "user", "content": "col1\tcol2\u{1b}[31mred\u{7} \u{301}"},
        {"name": "u", "role": "user", "content": "hello\n"}]});
    std::fs::write(&path, session.to_string()).expect("write");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    for _ in 0..2 {
        let cmds = app.update(key('v'));
        run_commands(&mut app, &mut computer, cmds);
    }
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("col1\\tcol2\\e[31mred\\x07 \u{25cc}"),
        "{screen}"
    );

    // T on it: edited as JSON, where each is an escape; the status says why.
    app.update(key('T'));
    assert!(!app.editor.text_mode);
    assert!(app.status.contains("the text holds \\t"), "{}", app.status);
    assert!(
        app.editor
            .text()
            .contains(r#""col1\tcol2\u001b[31mred\u0007 "#),
        "{}",
        app.editor.text()
    );
    app.update(code(KeyCode::Esc));

    // A plain text opens in T and round-trips, its final newline kept.
    app.update(key('j'));
    app.update(key('T'));
    assert!(app.editor.text_mode, "{}", app.status);
    app.update(key('!'));
    assert_eq!(app.messages()[1].value()["content"], "!hello\n");
}

/// Before the meter has counted the request (a large session's first
/// count, or a count that failed) its size is unknown: `S` does not send
/// it unseen.
#[test]
fn sends_a_request_not_counted_yet_is_not_sent_unseen() {
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, _) = loaded_app(&path, (120, 40));
    if let Some(p) = app.preview.as_mut() {
        p.report = None;
    }
    let cmds = app.update(key('S'));
    assert!(cmds.is_empty(), "{cmds:?}");
    assert!(app.status.contains("not counted yet"), "{}", app.status);
}

/// Under another release (`V`), `S` sends the release's own request, and
/// from the same size on asks first (the size counted with the provider's
/// tokenizer, as its budget pane shows it); `y` sends it as the release
/// builds it.
#[test]
fn a_large_request_under_another_release_asks_first_too() {
    use formatscope::tui::msg::Command;
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('V'));
    run_commands(&mut app, &mut computer, cmds);
    assert!(app.reference().version() != formatscope::reference::default().version());
    app.confirm_send_at = 100;
    assert!(app.update(key('S')).is_empty());
    let Some(Popup::ConfirmSend(ask)) = &app.popup else {
        panic!("{:?} {}", app.popup, app.status);
    };
    assert!(!ask.families.is_empty() && ask.tokens >= 100, "{ask:?}");
    assert!(
        ask.targets[0].starts_with(&app.reference().title()),
        "{:?}",
        ask.targets
    );
    let cmds = app.update(key('y'));
    let [Command::Send(job)] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert!(job.release.is_some(), "the release's own request");
    // Below the threshold it goes at once.
    app.update(Event::Reply {
        id: job.id,
        update: formatscope::tui::panes::reply::ReplyUpdate::Cancelled,
    });
    app.confirm_send_at = u64::MAX;
    let cmds = app.update(key('S'));
    assert!(matches!(cmds.as_slice(), [Command::Send(_)]), "{cmds:?}");
}

/// `P` under another release lists that release's providers (2.0.11's
/// eleven, its own MiniMax among them) and sends to each as the release
/// builds the request: one reply pane each, the provider on screen with
/// the session's model, the others with their own default.
#[test]
fn p_under_another_release_sends_to_each_of_its_providers() {
    use formatscope::tui::msg::Command;
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let cmds = app.update(key('V'));
    run_commands(&mut app, &mut computer, cmds);
    let release = app.reference();
    assert_eq!(release.version(), "2.0.11");
    app.confirm_send_at = u64::MAX;
    app.update(key('P'));
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("Send to several providers (AgentScope 2.0.11)")
            && screen.contains("MiniMax"),
        "{screen}"
    );
    let families = release.families();
    let on_screen = app.family().id;
    let minimax = families
        .iter()
        .position(|f| f.id == "minimax")
        .expect("2.0.11 has MiniMax");
    app.update(key(char::from(b'1' + minimax as u8)));
    let cmds = app.update(code(KeyCode::Enter));
    let jobs: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::Send(job) => Some(job),
            _ => None,
        })
        .collect();
    assert_eq!(jobs.len(), 2, "{cmds:?} {}", app.status);
    let sent: Vec<_> = jobs
        .iter()
        .map(|j| {
            j.release
                .as_ref()
                .expect("the release's own request")
                .family
                .id
        })
        .collect();
    let mut want = vec![on_screen, "minimax"];
    want.sort_by_key(|id| families.iter().position(|f| f.id == *id));
    assert_eq!(sent, want);
    for job in &jobs {
        let own = job.release.as_ref().map(|r| r.family.id) == Some(on_screen);
        assert_eq!(
            job.settings.model.is_some(),
            own && app.doc.as_ref().and_then(|d| d.session.model()).is_some(),
            "only the provider on screen is sent the session's model"
        );
    }
    assert_eq!(app.replies.len(), 2);
    assert!(app.status.contains("MiniMax"), "{}", app.status);
    // Both in flight: P again only says so.
    assert!(app.update(key('P')).is_empty());
    assert!(app.status.contains("in flight"), "{}", app.status);
}
