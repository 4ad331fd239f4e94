//! The request pane's token view (`v` → tokens): the request's text with
//! its token boundaries, the token under the cursor and each message's
//! count, under OpenAI (o200k) and DashScope (Qwen), snapshotted with
//! insta; and the same tokens as `formatscope tokenize --json` gives.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tokens::offsets::encode_with_offsets;
use formatscope::tui::app::Event;
use formatscope::tui::worker::Shown;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use workbench::*;

/// From the list to the request pane (Tab would stop in the editor).
fn back_tab() -> Event {
    Event::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT))
}

/// The library trip under provider `k`, in the token view, the request
/// pane focused.
fn token_view(
    k: char,
) -> (
    formatscope::tui::app::App,
    formatscope::tui::worker::Computer,
) {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    send(&mut app, &mut computer, key(k));
    while app.request.shown != Shown::Tokens {
        send(&mut app, &mut computer, key('v'));
    }
    send(&mut app, &mut computer, back_tab());
    (app, computer)
}

#[test]
fn the_token_view_under_openai_and_qwen() {
    for (k, name, tokenizer) in [('1', "openai", "o200k_base"), ('3', "dashscope", "qwen")] {
        let (mut app, mut computer) = token_view(k);
        // Down a line, then two tokens right: the cursor leaves the start.
        for c in ['j', 'j', 'l', 'l'] {
            send(&mut app, &mut computer, key(c));
        }
        let screen = screen_text(&app, 120, 40);
        assert!(screen.contains("· tokens "), "{screen}");
        assert!(
            screen.contains(&format!("tokens ({tokenizer})")),
            "{screen}"
        );
        assert!(screen.contains("· id "), "{screen}");
        // The request pane's half of the screen (the budget pane has its
        // own estimates).
        let pane: String = screen
            .lines()
            .take(30)
            .flat_map(|l| l.chars().skip(46))
            .collect();
        assert!(!pane.contains('≈'), "exact under {name}: {screen}");
        insta::assert_snapshot!(format!("token_view_{name}"), screen);
    }
}

/// The cursor walks every token of the request in order with `l`, and
/// each is the token `tokenize --show`/`--json` gives for that message's
/// text: one tokenizer path for the CLI and the workbench.
#[test]
fn the_cursor_walks_the_same_tokens_the_cli_prints() {
    let (mut app, mut computer) = token_view('3');
    let preview = app.preview.clone().expect("a preview");
    let view = preview.tokens.clone().expect("the token view");
    let mut expected = Vec::new();
    for m in &view.messages {
        let spans = encode_with_offsets(view.spec.vocab, &m.text).expect("ids");
        assert_eq!(m.spans.as_ref(), Some(&spans));
        expected.extend(spans);
    }
    assert_eq!(view.total_tokens, expected.len());
    for n in 0..expected.len() + 2 {
        assert_eq!(app.request.token.at, n.min(expected.len() - 1));
        send(&mut app, &mut computer, key('l'));
    }
    send(&mut app, &mut computer, key('h'));
    assert_eq!(app.request.token.at, expected.len() - 2);
    // The view scrolled to the cursor: its line names the token.
    let screen = screen_text(&app, 120, 40);
    let (id, r) = &expected[expected.len() - 2];
    assert!(
        screen.contains(&format!("id {id} · bytes {}..{}", r.start, r.end)),
        "{screen}"
    );
}

/// Gemini is counted with a borrowed vocabulary: its counts say ≈.
#[test]
fn an_estimated_tokenizer_is_labelled_approximate() {
    let (app, _) = token_view('4');
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("· tokens "), "{screen}");
    assert!(screen.contains('≈'), "{screen}");
}

/// Tokens are drawn in the theme's two shades, the one under the cursor
/// in its own; `j`/`k` move a line, over the next message's head line.
#[test]
fn shades_alternate_the_cursor_is_marked_and_j_k_move_a_line() {
    let (mut app, mut computer) = token_view('1');
    let ui = formatscope::tui::theme::Theme::load("dark")
        .expect("dark theme")
        .ui;
    let terminal = render(&app, 120, 40);
    let cells = terminal.backend().buffer().content().to_vec();
    let with = |bg| cells.iter().filter(|c| c.bg == bg).count();
    assert!(with(ui.token_a) > 0 && with(ui.token_b) > 0);
    // The cursor is on the first token, "You're".
    assert_eq!(with(ui.token_cursor), "You're".len());
    let view = app
        .preview
        .as_ref()
        .and_then(|p| p.tokens.clone())
        .expect("the token view");
    send(&mut app, &mut computer, key('j'));
    assert_eq!(app.request.token.at, view.messages[1].first);
    send(&mut app, &mut computer, key('k'));
    assert_eq!(app.request.token.at, 0);
}

/// After a page down the cursor is off screen: `l` brings it to the
/// first token on screen rather than scrolling back.
#[test]
fn a_key_after_scrolling_away_starts_from_the_screen() {
    let (mut app, mut computer) = token_view('3');
    let _ = screen_text(&app, 120, 40);
    let page = Event::Key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    send(&mut app, &mut computer, page);
    let scroll = app.request.scroll;
    assert!(scroll > 0);
    send(&mut app, &mut computer, key('l'));
    assert_eq!(app.request.scroll, scroll);
    assert!(app.request.token.at > 0);
}
