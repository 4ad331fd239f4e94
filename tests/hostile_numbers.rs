//! Issue 41, item 5: `NaN`, `Infinity` and `-Infinity`, which Python's
//! `json.dumps` writes and the session reader takes (as numbers with that
//! text), in every place of a session: `diff` against 2.0.11 and the other
//! releases, `format --agentscope 0.1.6`, and the workbench's `V` (each
//! release in turn, and the compare view of two releases) end in a request
//! or in an error, never a panic. serde_json's own `json!` re-parses the
//! numbers it is given and panicked on them.

#[path = "support/run.rs"]
mod run;
#[path = "support/workbench.rs"]
mod workbench;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A session with the three numbers Python writes where JSON has none: in
/// a tool call's input, a tool schema, an image's URL, a message field and
/// a tool result. Written as Python's `json.dumps` writes it.
const SESSION: &str = r#"{"provider": "gemini", "mode": "chat", "model": "gemini-2.5-flash",
 "tools": [{"type": "function", "function": {"name": "search", "description": "Find.",
   "parameters": {"type": "object", "properties": {"near": {"type": "number", "minimum": -Infinity,
   "default": NaN}}, "required": []}}}],
 "messages": [
  {"name": "system", "role": "system", "content": "You are Friday."},
  {"name": "Bob", "role": "user", "content": [{"type": "text", "text": "Find it."},
   {"type": "image", "source": {"type": "url", "url": NaN}}], "timestamp": NaN},
  {"name": "Friday", "role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "search",
   "input": {"near": [NaN, Infinity, -Infinity], "radius": 1e400}}]},
  {"name": "system", "role": "system", "content": [{"type": "tool_result", "id": "1", "name": "search",
   "output": [{"type": "text", "text": "found"}]}], "metadata": {"score": NaN}},
  {"name": "Bob", "role": "user", "content": "Thanks."}
 ]}"#;

fn session(dir: &Path) -> PathBuf {
    let path = dir.join("numbers.json");
    std::fs::write(&path, SESSION).expect("write");
    path
}

/// The same numbers but the image with a `NaN` URL (which 1.0.21 does
/// not format: it raises AttributeError on it, as AgentScope does), so
/// every release formats the session.
fn formatting_session(dir: &Path) -> PathBuf {
    let path = dir.join("formats.json");
    let text = SESSION.replace(
        r#"{"type": "image", "source": {"type": "url", "url": NaN}}"#,
        r#"{"type": "text", "text": "Near here."}"#,
    );
    assert_ne!(text, SESSION);
    std::fs::write(&path, text).expect("write");
    path
}

fn run(args: &[&str], dir: &Path) -> Output {
    run::run_within(args, dir, Duration::from_secs(120))
}

/// Exit 0 or 1 (a request, or AgentScope's error), never a panic (101).
fn assert_no_panic(out: &Output, what: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains("panicked") && matches!(out.status.code(), Some(0 | 1)),
        "{what}: {:?}\n{err}",
        out.status.code()
    );
}

#[test]
fn diff_against_2_0_11_and_every_release_takes_nan_and_infinity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = session(dir.path());
    let file = file.to_str().expect("utf-8 path");
    for right in [
        "2.0.11:gemini",
        "2.0.11:gemini:wire",
        "2.0.11:openai",
        "2.0.11:openai:wire",
        "2.0.11:anthropic:wire",
        "2.0.11:ollama",
        "0.1.6:gemini",
        "java-2.0.2:openai",
        "gemini:chat",
        "openai:chat:wire",
    ] {
        for json in [false, true] {
            let mut args = vec!["diff", file, "--left", "1.0.21:gemini", "--right", right];
            if json {
                args.push("--json");
            }
            let out = run(&args, dir.path());
            assert_no_panic(&out, &args.join(" "));
            if json && out.status.success() {
                // The operations hold the numbers as Python writes them.
                let ops = formatscope::json::parse(&out.stdout, Default::default());
                assert!(
                    ops.is_ok(),
                    "{right}: {}",
                    String::from_utf8_lossy(&out.stdout)
                );
            }
        }
    }
    // A URL that is a number is AgentScope's own error, as Python says it.
    let out = run(
        &[
            "diff",
            file,
            "--left",
            "1.0.21:gemini",
            "--right",
            "2.0.11:gemini",
        ],
        dir.path(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("'float' object has no attribute"), "{err}");
    // Elsewhere the numbers are data: a real diff, each side formatted.
    let file = formatting_session(dir.path());
    let file = file.to_str().expect("utf-8 path");
    for right in ["2.0.11:gemini", "2.0.11:openai:wire", "0.1.6:gemini"] {
        let out = run(
            &[
                "diff",
                file,
                "--left",
                "1.0.21:gemini",
                "--right",
                right,
                "--json",
            ],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(0), "{right}: {out:?}");
        let ops = formatscope::json::parse(&out.stdout, Default::default())
            .expect("JSON as Python writes it")
            .value;
        assert!(ops["operations"].is_array(), "{ops}");
    }
}

#[test]
fn format_under_0_1_6_takes_nan_and_infinity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = session(dir.path());
    let file = file.to_str().expect("utf-8 path");
    for provider in ["gemini", "openai", "anthropic", "dashscope", "ollama"] {
        for mode in ["chat", "multi_agent"] {
            let args = [
                "format",
                file,
                "--agentscope",
                "0.1.6",
                "--provider",
                provider,
                "--mode",
                mode,
            ];
            let out = run(&args, dir.path());
            assert_no_panic(&out, &args.join(" "));
            // 0.1.6's Msg takes no URL that is not a string: its error, as
            // JSON that Python's reader takes.
            let printed = formatscope::json::parse(&out.stdout, Default::default());
            assert!(printed.is_ok(), "{}", String::from_utf8_lossy(&out.stdout));
        }
    }
    let out = run(
        &[
            "format",
            file,
            "--agentscope",
            "0.1.6",
            "--provider",
            "gemini",
        ],
        dir.path(),
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.contains("ValidationError"), "{printed}");
}

/// `V` through every release, then the compare view of two releases: each
/// preview is computed (in the test's thread, as the worker would), and
/// each shows a request or an error.
#[test]
fn v_through_every_release_and_the_compare_view_take_nan_and_infinity() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = session(dir.path());
    let (mut app, mut computer) = workbench::loaded_app(&file, (140, 44));
    let mut titles = Vec::new();
    for _ in 0..formatscope::reference::ALL.len() {
        let cmds = app.update(workbench::key('V'));
        workbench::run_commands(&mut app, &mut computer, cmds);
        let preview = app.preview.as_ref().expect("a preview");
        assert!(
            !preview.plain.is_empty() || preview.error.is_some(),
            "neither a request nor an error"
        );
        titles.push(preview.release.as_ref().map(|r| r.title.clone()));
    }
    assert!(
        titles.iter().flatten().any(|t| t.contains("0.1.6")),
        "{titles:?}"
    );
    // Every view of the request (messages, wire, HTTP text, after
    // truncation, tokens) under every release, of both sessions (the
    // second formats everywhere, so each view is built).
    let formats = formatting_session(dir.path());
    for file in [&file, &formats] {
        let (mut app, mut computer) = workbench::loaded_app(file, (140, 44));
        for _ in 0..formatscope::reference::ALL.len() {
            for _ in 0..5 {
                let cmds = app.update(workbench::key('v'));
                workbench::run_commands(&mut app, &mut computer, cmds);
                assert!(app.preview.is_some());
            }
            let cmds = app.update(workbench::key('V'));
            workbench::run_commands(&mut app, &mut computer, cmds);
        }
    }
    // The compare view, then V in it: 1.0.21 against each release.
    let (mut app, mut computer) = workbench::loaded_app(&formats, (140, 44));
    for k in ['c', 'V', 'V', 'V'] {
        let cmds = app.update(workbench::key(k));
        workbench::run_commands(&mut app, &mut computer, cmds);
    }
    assert!(
        app.preview
            .as_ref()
            .and_then(|p| p.compare.as_ref())
            .is_some(),
        "the compare view was computed: {:?} {:?}\n{}",
        app.status,
        app.preview.as_ref().map(|p| &p.error),
        workbench::screen_text(&app, 140, 44)
    );
    let screen = workbench::screen_text(&app, 140, 44);
    assert!(!screen.contains("updating…"), "{screen}");
}
