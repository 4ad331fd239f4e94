//! Issue 41, hostile texts (the token views): one pre-tokenizer piece of
//! repeated punctuation was merged pair by pair under Qwen, every pair
//! asked about again after each merge (quadratic: 40,000 `!` took 45 s,
//! and the workbench's view of a 40 KB DashScope message of `!` 35 s);
//! `tokenize --json` built a JSON value per token (~260 bytes per byte of
//! text) and `--show` the whole drawing in memory. The work is counted in
//! `crates/core/src/tokens/offsets.rs` (rank lookups per byte); these check the views
//! of such texts end to end. Speed: `cargo bench --bench hostile_work`.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use formatscope::tui::worker::Shown;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{json, Value};
use std::process::{Command, Output};
use workbench::*;

fn formatscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn json_ids_of_a_long_run_of_punctuation_tile_it() {
    // 200,000 `!`: one Qwen piece (pair-by-pair merging: about 2e10
    // lookups).
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bang.txt");
    std::fs::write(&file, "!".repeat(200_000)).expect("writes");
    let path = file.to_str().expect("UTF-8 path");
    for tokenizer in ["qwen", "o200k_base", "cl100k_base"] {
        let view = json_of(&formatscope(&[
            "tokenize",
            path,
            "--tokenizer",
            tokenizer,
            "--json",
        ]));
        let plain = json_of(&formatscope(&["tokenize", path, "--tokenizer", tokenizer]));
        let ids = view["messages"][0]["ids"].as_array().expect("ids");
        let mut at = 0;
        for t in ids {
            assert_eq!(t["start"].as_u64(), Some(at), "{tokenizer}");
            at = t["end"].as_u64().expect("end");
        }
        assert_eq!(at, 200_000, "{tokenizer}: the ranges tile the text");
        assert_eq!(view["tokens"], plain["tokens"], "{tokenizer}");
        assert_eq!(ids.len() as u64, plain["tokens"].as_u64().expect("count"));
    }
}

#[test]
fn show_draws_one_long_word_token_by_token() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("word.txt");
    let mut seed = 11u64;
    let word: String = (0..1_000_000)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (b'a' + ((seed >> 33) % 26) as u8) as char
        })
        .collect();
    std::fs::write(&file, &word).expect("writes");
    let path = file.to_str().expect("UTF-8 path");
    let out = formatscope(&["tokenize", path, "--show"]);
    assert!(out.status.success());
    let shown = String::from_utf8(out.stdout).expect("UTF-8");
    let plain = json_of(&formatscope(&["tokenize", path]));
    let tokens = plain["tokens"].as_u64().expect("count") as usize;
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "header, the word, the total");
    assert!(
        lines[0].contains(&format!(
            "· {}",
            formatscope::text::count_of(tokens as i64, "token", "tokens")
        )),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1].matches('│').count() + 1, tokens);
    assert_eq!(lines[1].replace('│', ""), word);
}

#[test]
fn the_workbench_shows_a_long_dashscope_message_of_punctuation() {
    // 200 KB of `!` in one DashScope message (40 KB took 35 s).
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bang.json");
    let text = "!".repeat(200_000);
    let session = json!({"provider": "dashscope", "messages": [
        {"role": "user", "name": "user", "content": text},
    ]});
    std::fs::write(&path, session.to_string()).expect("writes");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let key = |c: char| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    while app.request.shown != Shown::Tokens {
        send(&mut app, &mut computer, key('v'));
    }
    let view = app
        .preview
        .as_ref()
        .and_then(|p| p.tokens.as_ref())
        .expect("the token view");
    let want = formatscope::tokens::Vocab::Qwen.count(&text);
    let message = view
        .messages
        .iter()
        .find(|m| m.text == text)
        .expect("the message's text");
    assert_eq!(message.spans.as_ref().map(Vec::len), Some(want));
    // The pane draws the screenful of it, and moves along it.
    send(
        &mut app,
        &mut computer,
        Event::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)),
    );
    for c in ['j', 'l', 'l', 'l'] {
        send(&mut app, &mut computer, key(c));
    }
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("· id "), "{screen}");
    assert!(screen.contains("!!!!"), "{screen}");
}
