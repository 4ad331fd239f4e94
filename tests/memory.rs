//! Large sessions, held compactly: `format` of a 20,000-message session
//! works, and the messages and formatted units the workbench keeps take
//! less than the session's text. The peak resident memory bound, which was
//! a test here, is a benchmark now (`cargo bench --bench memory`: the
//! workbench on 10,000 messages, at most 15× the file), as a machine shared
//! with other builds cannot time or weigh a test reliably.

use std::path::Path;
use std::process::Command;

/// The standard benchmark session of `messages` messages, as JSON text.
fn generated_session(messages: usize) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("benches/gen_session.py"))
        .arg(messages.to_string())
        .output()
        .expect("python3 runs the session generator");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn format_prints_the_request_of_a_large_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let session = dir.path().join("large.json");
    let text = generated_session(20_000);
    std::fs::write(&session, &text).expect("write the session");
    let size = text.len() as u64;

    let run = Command::new(env!("CARGO_BIN_EXE_formatscope"))
        .arg("format")
        .arg(&session)
        .output()
        .expect("the binary runs");
    assert_eq!(run.status.code(), Some(0));
    assert!(run.stdout.len() as u64 > size / 2, "the request is printed");
}

/// The workbench holds an open session's messages packed, one copy shared
/// by the document, the worker's jobs and the budget model, in less than
/// the file's text (as JSON trees they took about four times the text:
/// 12 MB for a 3 MB session), and the budget model reads that copy.
#[test]
fn an_open_sessions_messages_are_held_in_less_than_its_text() {
    use formatscope::budget::BudgetModel;
    use formatscope::formatter::{FormatOptions, FormatterId};
    use formatscope::media::{MediaEnv, NoNetwork};
    use formatscope::session::parse_session;
    use std::sync::Arc;

    let text = generated_session(2000);
    let session = parse_session(&text, "large.json").expect("parses");
    let id = FormatterId::all().next().expect("a formatter");
    let mut model = BudgetModel::new(
        id,
        FormatOptions::default(),
        formatscope::tokens::models::resolve(id.provider, None),
        session.messages.iter().cloned(),
        None,
        MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork)),
    )
    .expect("a valid session");
    assert!(model.messages_total() > 0);
    assert_eq!(model.report().messages.len(), session.messages.len());
}

/// The workbench keeps each formatted unit between keystrokes (an edit
/// re-formats only its own). Held as JSON trees they took 4-5 times the
/// session's text (5.9 MB for a 3 MB session); packed, less than the text.
#[test]
fn formatted_units_are_held_in_less_than_the_sessions_size() {
    use formatscope::formatter::{
        message_keys, FormatOptions, FormatterId, Mode, Provider, Segmented,
    };
    use formatscope::media::{MediaEnv, NoNetwork};
    use formatscope::session::{parse_session, Msg, MsgItem};
    use std::sync::Arc;

    let text = generated_session(2000);
    let session = parse_session(&text, "large.json").expect("parses");
    let msgs: Vec<Arc<Msg>> = session
        .messages
        .iter()
        .map(|m| Arc::new(m.msg().expect("a valid message")))
        .collect();
    // As the workbench builds them: from the packed messages.
    let items: Vec<MsgItem> = session
        .messages
        .iter()
        .map(|m| MsgItem::packed(m.clone()).expect("a valid message"))
        .collect();
    let keys = message_keys(&session.messages);
    let env = MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork));
    for id in FormatterId::all().filter(|id| {
        matches!(id.provider, Provider::OpenAi | Provider::Anthropic) && id.mode == Mode::MultiAgent
            || id.provider == Provider::DashScope
    }) {
        let seg = Segmented::build_with(
            id,
            &FormatOptions::default(),
            &items,
            &keys,
            &env,
            None,
            true,
        )
        .expect("formats");
        let held: usize = seg
            .units
            .iter()
            .map(|u| {
                u.formatted.as_bytes().len() + u.front.as_ref().map_or(0, |f| f.as_bytes().len())
            })
            .sum();
        assert!(
            held < text.len(),
            "{id}: units hold {held} bytes for a {} byte session",
            text.len()
        );
        // And they are the request: unpacked, the formatter's own output.
        let whole =
            formatscope::formatter::format(id, &FormatOptions::default(), &msgs, &env, None)
                .expect("formats");
        assert_eq!(seg.assemble(0, &env).expect("assembles"), whole, "{id}");
    }
}
