//! A large session's budget number comes before its request's lines: an
//! edit recounts one message, the layout touches every line, so the number
//! a user waits for is published first and the panes keep the last lines
//! until the rest arrives (issue 43). A small session keeps one preview.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::tui::app::Event;
use formatscope::tui::msg::Command;
use workbench::*;

/// A session of `n` messages from four speakers, with a budget.
fn session(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("large.json");
    let names = ["Alice", "Bob", "Carol", "Dave"];
    let messages: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({"name": names[i % 4], "role": if i % 4 == 3 { "assistant" } else { "user" },
                "content": format!("message {i}: the library opens at nine and closes at five")})
        })
        .collect();
    let text = serde_json::json!({"max_tokens": 20 * n, "messages": messages}).to_string();
    std::fs::write(&path, text).expect("write");
    (dir, path)
}

/// The job an edit asks for.
fn edit_job(app: &mut formatscope::tui::app::App, c: char) -> formatscope::tui::worker::Job {
    app.update(key('G'));
    app.update(key(c))
        .into_iter()
        .find_map(|cmd| match cmd {
            Command::Reformat(job) => Some(*job),
            _ => None,
        })
        .expect("the edit reformats")
}

#[test]
fn an_edit_in_a_large_session_publishes_the_number_before_the_lines() {
    let (_dir, path) = session(6_000);
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let before = app.preview.clone().expect("a preview");
    let total_before = before.report.as_ref().expect("counted").total;
    let lines_before = before.plain.len();

    let job = edit_job(&mut app, 'x');
    let mut early = Vec::new();
    let done = computer.compute_phased(job, &mut |p| early.push(p));
    let first = early.first().expect("something before the end");
    assert!(first.lines_pending, "the number comes before the lines");
    assert!(first.plain.is_empty(), "the lines come after");
    // The truncation preview comes with the number: the model plans from
    // its last plan's counts.
    let plan = |p: &formatscope::tui::worker::Preview| {
        p.plan
            .clone()
            .and_then(Result::ok)
            .map(|p| (p.kept, p.tokens_after))
    };
    assert!(plan(first).is_some(), "the plan comes with the number");
    let total = first.report.as_ref().expect("the new number").total;
    assert!(
        total < total_before,
        "{total} after deleting from {total_before}"
    );
    // The final preview has the lines and the plan, and the same number.
    assert!(!done.lines_pending && done.plan.is_some());
    assert_eq!(done.report.as_ref().expect("counted").total, total);
    assert_eq!(plan(&done), plan(first), "the same plan as the number's");
    assert!(done.plain.len() < lines_before);

    // On screen: the new number beside the last lines, then the new lines.
    app.update(Event::PreviewReady(Box::new(early.remove(0))));
    let shown = app.preview.as_ref().expect("a preview");
    assert_eq!(shown.report.as_ref().expect("counted").total, total);
    assert_eq!(shown.plain.len(), lines_before, "the last lines stay");
    assert!(shown.plan.is_some(), "so does the last plan");
    let screen = screen_text(&app, 120, 40);
    assert!(
        screen.contains(&formatscope::text::thousands(total as u64)),
        "the new number is on screen:\n{screen}"
    );
    app.update(Event::PreviewReady(Box::new(done)));
    let shown = app.preview.as_ref().expect("a preview");
    assert!(!shown.lines_pending && shown.plain.len() < lines_before);
}

#[test]
fn a_small_session_gets_its_number_and_lines_together() {
    let (_dir, path) = session(200);
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let job = edit_job(&mut app, 'x');
    let mut early = Vec::new();
    let done = computer.compute_phased(job, &mut |p| early.push(p));
    assert!(early
        .iter()
        .all(|p| !p.lines_pending && !p.plain.is_empty()));
    assert!(!done.lines_pending);
}

#[test]
fn a_job_cut_short_by_a_newer_edit_leaves_its_counts_to_the_next() {
    // An edit and its undo in quick succession: the edit's job sees the
    // undo waiting, stops after its number, and the undo's job recounts
    // only what changed. Its first preview already splits the budget among
    // the messages; a job that had to count everything again publishes the
    // bare totals first (at 100,000 messages: 200 ms instead of 30).
    let (_dir, path) = session(6_000);
    let (mut app, computer) = loaded_app(&path, (120, 40));
    let slot = formatscope::tui::worker::Slot::default();
    let mut computer = computer.watching(slot.clone());
    let edit = edit_job(&mut app, 'x');
    let undo = edit_job(&mut app, 'u');
    slot.submit(undo.clone());
    let mut early = Vec::new();
    let cut = computer.compute_phased(edit, &mut |p| early.push(p));
    assert!(
        cut.plain.is_empty(),
        "the edit's job stopped before laying out its lines"
    );
    let mut early = Vec::new();
    let done = computer.compute_phased(undo, &mut |p| early.push(p));
    let first = early.first().expect("the undo's number");
    let report = first.report.as_ref().expect("counted");
    assert_eq!(
        report.messages.len(),
        6_000,
        "the per-message split comes with the first number"
    );
    assert_eq!(
        done.report.as_ref().expect("counted").total,
        app.preview
            .as_ref()
            .and_then(|p| p.report.as_ref())
            .expect("the loaded count")
            .total,
        "the undo's number is the session's before the edit"
    );
}

/// A session of `n` messages where every seventh turn is a tool call and
/// its result (a tool run between history groups), with a budget.
fn session_with_tools(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("tools.json");
    let names = ["Alice", "Bob", "Carol", "Dave"];
    let mut messages =
        vec![serde_json::json!({"name": "system", "role": "system", "content": "Be brief."})];
    for i in 0..n {
        if i % 7 == 6 {
            let id = format!("call_{i}");
            messages.push(
                serde_json::json!({"name": "Friday", "role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": id, "name": "search", "input": {"q": i}}]}),
            );
            messages.push(
                serde_json::json!({"name": "system", "role": "system", "content": [
                {"type": "tool_result", "id": id, "name": "search",
                 "output": [{"type": "text", "text": format!("result {i}")}]}]}),
            );
        } else {
            messages.push(serde_json::json!({"name": names[i % 4], "role": "user",
                "content": format!("message {i}: the library opens at nine")}));
        }
    }
    let text =
        serde_json::json!({"mode": "multi_agent", "max_tokens": 20 * n, "messages": messages});
    std::fs::write(&path, text.to_string()).expect("write");
    (dir, path)
}

/// The last job `keys` ask for.
fn job_after(app: &mut formatscope::tui::app::App, keys: &str) -> formatscope::tui::worker::Job {
    keys.chars()
        .flat_map(|c| app.update(key(c)))
        .filter_map(|cmd| match cmd {
            Command::Reformat(job) => Some(*job),
            _ => None,
        })
        .last()
        .expect("the keys reformat")
}

#[test]
fn an_edit_copies_the_last_layout_and_shows_what_a_layout_from_nothing_shows() {
    // The worker keeps the messages view's lines and copies each piece
    // whose unit the edit left alone: after every edit (in the middle, at
    // the end, undone, moved, another provider, raw media), the lines, the
    // spans and each message's lines are those of a worker that never laid
    // the request out before.
    let (_dir, path) = session_with_tools(600);
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let edits = [
        "gjjjjjjjjjx",
        "u",
        "Gd",
        "K",
        "J",
        "u",
        "gjjjjjjjjjjjjd",
        "2",
        "Gx",
        "u",
        "1",
    ];
    for keys in edits {
        let job = job_after(&mut app, keys);
        let kept = computer.compute(&job);
        let fresh = formatscope::tui::worker::Computer::default().compute(&job);
        assert!(
            kept.plain.len() > 1_000,
            "after {keys:?}: a request is laid out"
        );
        assert_eq!(kept.plain, fresh.plain, "lines after {keys:?}");
        assert_eq!(kept.spans, fresh.spans, "spans after {keys:?}");
        assert_eq!(kept.chunks, fresh.chunks, "message lines after {keys:?}");
        app.update(Event::PreviewReady(Box::new(kept)));
    }
    let mut raw = job_after(&mut app, "gx");
    raw.raw_media = true;
    let kept = computer.compute(&raw);
    let fresh = formatscope::tui::worker::Computer::default().compute(&raw);
    assert_eq!(kept.plain, fresh.plain, "raw media");
}
