//! The rough edges a newcomer hit in the workbench's panes (issue 42, item
//! 4): a header that cut numbers and lost the selected provider tab, texts
//! clipped or glued at 80 and 120 columns, labels ("1 notes", "≈0", an
//! "estimate" that was not one), counts without thousands separators, a
//! formatscope limit worded as an AgentScope error, and an empty token
//! view under Anthropic.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::App;
use formatscope::tui::keymap::{self, Scope};
use formatscope::tui::worker::{Computer, Shown};
use ratatui::crossterm::event::KeyCode;
use std::path::{Path, PathBuf};
use workbench::*;

/// The sizes the panes must read well at.
const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The library trip with `edit` applied to its JSON, in a fresh folder.
fn trip_with(edit: impl FnOnce(&mut serde_json::Value)) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("library_trip.json");
    let mut doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(session_path("library_trip.json")).expect("read"),
    )
    .expect("json");
    edit(&mut doc);
    std::fs::write(&path, doc.to_string()).expect("write");
    (dir, path)
}

fn keys(app: &mut App, computer: &mut Computer, keys: &str) {
    for k in keys.chars() {
        send(app, computer, key(k));
    }
}

/// `V` until the release `version` is on screen.
fn release(app: &mut App, computer: &mut Computer, version: &str) {
    let at = formatscope::reference::ALL
        .iter()
        .position(|r| r.version() == version)
        .expect("a release");
    for _ in 0..at {
        send(app, computer, key('V'));
    }
}

fn header(app: &App, width: u16, height: u16) -> String {
    screen_text(app, width, height)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The text inside the box whose title starts with `title` (`┌ Budget`),
/// a line per row, borders left out.
fn pane(screen: &str, title: &str) -> Vec<String> {
    let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    for (r, row) in rows.iter().enumerate() {
        let line: String = row.iter().collect();
        let Some(byte) = [format!("┌ {title}"), format!("┏ {title}")]
            .iter()
            .find_map(|t| line.find(t.as_str()))
        else {
            continue;
        };
        let left = line[..byte].chars().count();
        let right = (left + 1..row.len())
            .find(|&c| matches!(row[c], '┐' | '┓'))
            .expect("the box's corner");
        return rows[r + 1..]
            .iter()
            .take_while(|row| !matches!(row.get(left), Some('└' | '┗')))
            .map(|row| row[left + 1..right].iter().collect::<String>())
            .collect();
    }
    panic!("no pane {title:?} in\n{screen}");
}

/// A pane's text as one paragraph: its lines joined by spaces.
fn paragraph(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Item 1: the budget is never cut mid-digits (`budget 4` for 400): at
/// every width the header shows it whole or not at all; and the selected
/// provider's tab stays in view, the eleventh of 2.0.11 included.
#[test]
fn the_header_never_cuts_a_number_and_keeps_the_selected_tab_in_view() {
    let (_dir, path) = trip_with(|doc| doc["max_tokens"] = 20_000.into());
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    for width in [60, 70, 80, 90, 100, 110, 120, 140] {
        let line = header(&app, width, 40);
        assert!(
            !line.contains("budget") || line.contains("budget 20,000 "),
            "{width} columns: {line}"
        );
        assert!(line.contains("3:DashScope"), "{width} columns: {line}");
    }
    // 2.0.11's providers past the digits: the picker's last, Volcengine,
    // and 0, xAI.
    send(&mut app, &mut computer, key('V'));
    send(&mut app, &mut computer, key('p'));
    for c in [KeyCode::End, KeyCode::Enter] {
        send(&mut app, &mut computer, code(c));
    }
    for width in [60, 80, 100, 120, 140] {
        let line = header(&app, width, 40);
        assert!(line.contains("Volcengine"), "{width} columns: {line}");
        assert!(
            line.trim_end().ends_with("Volcengine"),
            "{width} columns: cut: {line}"
        );
    }
    send(&mut app, &mut computer, key('0'));
    for width in [60, 80, 120] {
        let line = header(&app, width, 40);
        assert!(line.contains("0:xAI"), "{width} columns: {line}");
    }
}

/// Item 2: the 2.0.11 and Java budget notes, the truncation pane's
/// release note and the footer fit at 80 and 120 columns: each ends with
/// its sentence, and the footer's last hint is a whole word.
#[test]
fn release_notes_and_the_footer_fit_at_80_and_120_columns() {
    let words: Vec<&str> = [Scope::List, Scope::Output, Scope::Editor]
        .into_iter()
        .flat_map(keymap::footer)
        .map(|(_, w)| w)
        .collect();
    let mut seen = Vec::new();
    for (version, provider) in [("2.0.11", '8'), ("2.0.11", '2'), ("java-2.0.2", '1')] {
        // From 1.0.21 each time: V until the release.
        let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
        release(&mut app, &mut computer, version);
        send(&mut app, &mut computer, key(provider));
        for (w, h) in SIZES {
            let screen = screen_text(&app, w, h);
            let budget = paragraph(&pane(&screen, "Budget"));
            assert!(
                budget.ends_with('.') && budget.contains("No budget"),
                "{version} {provider} at {w}: the budget note is cut: {budget}\n{screen}"
            );
            assert!(!budget.contains("  "), "{budget}");
            let truncation = paragraph(&pane(&screen, "Truncation"));
            assert!(
                truncation.ends_with("every message is sent."),
                "{version} at {w}: {truncation}\n{screen}"
            );
            let footer = screen.lines().last().unwrap_or_default().trim_end();
            assert!(
                words.iter().any(|w| footer.ends_with(&format!(" {w}")))
                    || !footer.contains(" 1-0 provider"),
                "{w} columns: a hint is cut: {footer}"
            );
            seen.push(budget);
        }
    }
    // Wide enough, the note says what counted and the release's estimate.
    assert!(
        seen.iter()
            .any(|b| b.contains("tokens by the provider's tokenizer")),
        "{seen:?}"
    );
    assert!(
        seen.iter().any(|b| b.contains("own estimate: 223")),
        "{seen:?}"
    );
}

/// Item 2: a status longer than the line ends in `…` rather than cut
/// unmarked; the hints make room for it.
#[test]
fn a_long_status_is_marked_cut_and_the_hints_make_room() {
    let (mut app, _) = loaded_app(&session_path("library_trip.json"), (80, 24));
    app.status = "word ".repeat(30);
    let screen = screen_text(&app, 80, 24);
    let footer = screen.lines().last().unwrap_or_default();
    assert!(footer.ends_with('…'), "{footer}");
    assert!(!footer.contains("provider"), "{footer}");
    app.status = "saved".into();
    let screen = screen_text(&app, 80, 24);
    let footer = screen.lines().last().unwrap_or_default();
    assert!(footer.starts_with("reloaded 12:00:00 · saved"), "{footer}");
    assert!(footer.contains(" 1-0 provider"), "{footer}");
}

/// Item 3: counts take their noun in the singular for one ("1 note", not
/// "1 notes"), in the lint panel's title.
#[test]
fn the_lint_title_says_1_note_and_1_error() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    release(&mut app, &mut computer, "java-2.0.2");
    keys(&mut app, &mut computer, "4L");
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains("Lint: 0 errors, 0 warnings, 1 note · L closes"),
        "{screen}"
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/lint/cases/tool_call_without_result.json");
    let (mut app, mut computer) = loaded_app(&path, (140, 40));
    keys(&mut app, &mut computer, "L");
    let screen = screen_text(&app, 140, 40);
    assert!(
        screen.contains("Lint: 1 error, 0 warnings, 0 notes"),
        "{screen}"
    );
}

/// Item 3: the budget pane says exactly what is estimated: under OpenAI
/// only the tool schemas (not "o200k_base · estimate"); a zero is never
/// "≈0"; an estimated tokenizer says estimate.
#[test]
fn the_budget_pane_says_exactly_what_is_estimated() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    send(&mut app, &mut computer, key('1'));
    for (w, h) in SIZES {
        let budget = pane(&screen_text(&app, w, h), "Budget");
        let tokenizer = budget[1].trim();
        assert!(tokenizer.contains("o200k_base"), "{w}: {budget:?}");
        assert!(!tokenizer.contains("estimate"), "{w}: {budget:?}");
        assert!(
            tokenizer.contains("exact, tool schemas ≈") || tokenizer.contains("exact, schemas ≈"),
            "{w}: {budget:?}"
        );
    }
    send(&mut app, &mut computer, key('2'));
    let budget = pane(&screen_text(&app, 120, 40), "Budget");
    assert!(budget[1].contains("≈ claude"), "{budget:?}");
    assert!(budget[1].contains("estimate"), "{budget:?}");
    // No tools: the schemas are 0, not ≈0 (and nothing is estimated).
    let (_dir, path) = trip_with(|doc| {
        doc.as_object_mut().expect("object").remove("tools");
    });
    let (mut app, mut computer) = loaded_app(&path, (200, 40));
    send(&mut app, &mut computer, key('1'));
    for (w, h) in [(200, 40), (120, 40), (80, 24)] {
        let screen = screen_text(&app, w, h);
        let budget = paragraph(&pane(&screen, "Budget"));
        assert!(!budget.contains("≈0"), "{budget}");
        assert!(budget.contains("o200k_base · exact"), "{budget}");
        if w == 200 {
            assert!(budget.contains("tool schemas 0"), "{budget}");
        }
    }
}

/// Item 4: counts of five digits and more have separators in the header,
/// the budget and truncation panes, the message list and the token view.
#[test]
fn counts_have_thousands_separators() {
    let (_dir, path) = trip_with(|doc| {
        doc["max_tokens"] = 20_000.into();
        // About 1,500 tokens in one message.
        let long = "The library on Elm Street opens at nine. ".repeat(150);
        doc["messages"][9]["content"] = long.into();
    });
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    send(&mut app, &mut computer, key('1'));
    let screen = screen_text(&app, 120, 40);
    assert!(header(&app, 120, 40).contains("budget 20,000"), "{screen}");
    let budget = paragraph(&pane(&screen, "Budget"));
    assert!(budget.contains(" / 20,000 max_tokens"), "{budget}");
    assert!(
        regex_like_thousands(&budget),
        "a four-digit count with a comma: {budget}"
    );
    let truncation = paragraph(&pane(&screen, "Truncation"));
    assert!(truncation.starts_with("Fits: 1,"), "{truncation}");
    assert!(truncation.contains("of 20,000"), "{truncation}");
    let list = paragraph(&pane(&screen, "Messages"));
    assert!(regex_like_thousands(&list), "{list}");
    // The token view's total.
    while app.request.shown != Shown::Tokens {
        send(&mut app, &mut computer, key('v'));
    }
    let screen = screen_text(&app, 120, 40);
    let tokens = pane(&screen, "OpenAIMultiAgentFormatter · tokens");
    let footer = tokens.last().expect("the cursor's line");
    assert!(footer.contains(" · id "), "{footer}");
    assert!(footer.trim_end().ends_with(" tokens"), "{footer}");
    assert!(regex_like_thousands(footer), "{footer}");
}

/// Whether `text` holds a count written `1,234`.
fn regex_like_thousands(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(5)
        .any(|w| w[0].is_ascii_digit() && w[1] == ',' && w[2..].iter().all(char::is_ascii_digit))
}

/// Item 5: Java's Anthropic and Gemini requests, which formatscope does
/// not build, are not shown as something AgentScope raises.
#[test]
fn javas_vendor_sdk_requests_are_a_formatscope_limit_not_an_agentscope_error() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    release(&mut app, &mut computer, "java-2.0.2");
    for (k, name) in [('2', "Anthropic"), ('4', "Gemini")] {
        send(&mut app, &mut computer, key(k));
        let screen = screen_text(&app, 120, 40);
        let request = paragraph(&pane(&screen, "AgentScope Java 2.0.2"));
        assert!(!request.contains("AgentScope raises"), "{request}");
        assert!(
            !request.contains("raises UnsupportedOperation"),
            "{request}"
        );
        assert!(
            request.contains("formatscope does not build this for Java 2.0.2"),
            "{request}"
        );
        assert!(request.contains("not an AgentScope error"), "{request}");
        assert!(
            request.contains(&format!(
                "writes {name} requests with the vendor's Java SDK"
            )),
            "{request}"
        );
    }
}

/// Item 6: the token view under Anthropic says why it has no tokens (no
/// Anthropic tokenizer: the counts are an estimate whose vocabulary gives
/// no ids here) and where the counts are, never an empty pane with "≈0
/// tokens"; an estimate with ids (Gemini) says they are not Gemini's own.
#[test]
fn the_token_view_under_anthropic_says_why_it_has_no_tokens() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    send(&mut app, &mut computer, key('2'));
    while app.request.shown != Shown::Tokens {
        send(&mut app, &mut computer, key('v'));
    }
    for (w, h) in SIZES {
        let screen = screen_text(&app, w, h);
        let view = paragraph(&pane(&screen, "AnthropicMultiAgentFormatter · tokens"));
        assert!(view.starts_with("No token view for Anthropic:"), "{view}");
        assert!(
            view.contains("formatscope has no Anthropic tokenizer"),
            "{view}"
        );
        assert!(view.contains("estimate"), "{view}");
        assert!(view.contains("in the budget pane"), "{view}");
        assert!(!view.contains("≈0 tokens"), "{view}");
        assert!(view.ends_with('.'), "cut: {view}");
    }
    send(&mut app, &mut computer, key('4'));
    let screen = screen_text(&app, 120, 40);
    let view = pane(&screen, "GeminiMultiAgentFormatter · tokens");
    assert!(
        view[0].contains("qwen's tokens") && view[0].contains("not Gemini's"),
        "{view:?}"
    );
}

/// Item 2: the settings form's labels never run into their values (`ask
/// to send at20000`). The form is crates/tui/src/panes/settings.rs, not this
/// change's file: its `{label:<14}` needs the longest label's width and a
/// space.
#[test]
fn settings_labels_never_run_into_their_values() {
    let (mut app, mut computer) = loaded_app(&session_path("library_trip.json"), (120, 40));
    send(&mut app, &mut computer, key('s'));
    let screen = screen_text(&app, 120, 40);
    assert!(screen.contains("ask to send at"), "{screen}");
    for line in screen.lines().filter(|l| l.contains("ask to send at")) {
        let after = line.split("ask to send at").nth(1).unwrap_or_default();
        assert!(after.starts_with(' '), "glued: {line}");
    }
}
