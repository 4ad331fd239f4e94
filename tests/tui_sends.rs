//! Sends from the workbench, driven through `App::update`: one send and
//! its cancel, a streamed reply appended as an edit, and one send to
//! several providers at once. No terminal, no threads, no network.

#[path = "support/workbench.rs"]
mod workbench;

use formatscope::formatter::{Mode, Provider};
use formatscope::tui::app::Event;
use formatscope::tui::msg::Command;
use formatscope::tui::panes::popup::Popup;
use ratatui::crossterm::event::KeyCode;
use workbench::*;

/// A reply as AgentScope's OpenAI parser yields it.
fn reply(text: &str, usage: bool) -> formatscope::response::ChatResponse {
    use formatscope::response::{ChatResponse, Usage};
    ChatResponse {
        id: Some("chatcmpl-1".into()),
        content: vec![serde_json::json!({"type": "text", "text": text})],
        usage: usage.then(|| Usage {
            input_tokens: 230.into(),
            output_tokens: 12.into(),
            time: 0.8,
            metadata: serde_json::Value::Null,
        }),
        metadata: serde_json::Value::Null,
    }
}

#[test]
fn s_sends_esc_cancels_and_a_appends_the_finished_reply() {
    use formatscope::net::Outcome;
    use formatscope::tui::panes::reply::{Phase, ReplyUpdate};
    use std::time::Duration;
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, mut computer) = loaded_app(&path, (120, 40));
    let before = app.messages().len();

    // S: one send of the request on screen, for the provider on screen.
    let cmds = app.update(key('S'));
    let job = cmds
        .iter()
        .find_map(|c| match c {
            Command::Send(job) => Some(job),
            _ => None,
        })
        .expect("a send");
    assert_eq!(job.formatter, app.formatter);
    let first = job.id;
    assert!(app.sending());
    assert!(app.update(key('S')).is_empty(), "one send at a time");
    // Esc cancels it.
    let cmds = app.update(code(KeyCode::Esc));
    assert!(matches!(cmds.as_slice(), [Command::CancelSend(id)] if *id == first));
    app.update(Event::Reply {
        id: first,
        update: ReplyUpdate::Cancelled,
    });
    assert_eq!(app.replies[0].phase, Phase::Cancelled);
    assert!(app.update(key('A')).is_empty(), "nothing to append");

    // A second send streams, ends, and is appended as an edit.
    let cmds = app.update(key('S'));
    let Some(Command::Send(job)) = cmds.into_iter().find(|c| matches!(c, Command::Send(_))) else {
        panic!("a send");
    };
    let id = job.id;
    app.update(Event::Reply {
        id: first,
        update: ReplyUpdate::Chunk(Box::new(reply("stale", false))),
    });
    assert!(
        app.replies[0].latest.is_none(),
        "updates of an older send are dropped"
    );
    app.update(Event::Reply {
        id,
        update: ReplyUpdate::Chunk(Box::new(reply("It is", false))),
    });
    assert_eq!(app.replies[0].phase, Phase::Streaming);
    let done = reply("It is 12 °C in Paris.", true);
    app.update(Event::Reply {
        id,
        update: ReplyUpdate::Done(Box::new(Outcome {
            final_response: Some(done.clone()),
            chunks: 2,
            time_to_first_token: Some(Duration::from_millis(300)),
            total: Duration::from_millis(800),
            parse_error: None,
            warnings: Vec::new(),
            nothing: None,
        })),
    });
    assert_eq!(app.replies[0].phase, Phase::Done);
    send(&mut app, &mut computer, key('A'));
    assert_eq!(app.messages().len(), before + 1);
    let last = app.messages().last().expect("a message").value();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["name"], "Friday");
    assert_eq!(last["content"][0]["text"], "It is 12 °C in Paris.");
    assert!(app.unsaved());
    send(&mut app, &mut computer, key('u'));
    assert_eq!(app.messages().len(), before, "u undoes the append");
}

#[test]
fn p_sends_to_several_providers_at_once() {
    use formatscope::tui::panes::reply::ReplyUpdate;
    let (_dir, path) = temp_copy("library_trip.json");
    let (mut app, _) = loaded_app(&path, (120, 40));
    assert_eq!(app.formatter.provider, Provider::DashScope);
    app.update(key('P'));
    assert!(matches!(app.popup, Some(Popup::SendTo { .. })));
    // DashScope (on screen) is picked already; add OpenAI and Anthropic,
    // then take Anthropic out again.
    app.update(key('1'));
    app.update(key('2'));
    app.update(code(KeyCode::Char(' ')));
    let cmds = app.update(code(KeyCode::Enter));
    let sent: Vec<(u64, Provider, Mode)> = cmds
        .iter()
        .filter_map(|c| match c {
            Command::Send(job) => Some((job.id, job.formatter.provider, job.formatter.mode)),
            _ => None,
        })
        .collect();
    assert_eq!(
        sent.iter().map(|s| s.1).collect::<Vec<_>>(),
        [Provider::OpenAi, Provider::DashScope]
    );
    assert!(
        sent.iter().all(|s| s.2 == Mode::MultiAgent),
        "the mode on screen"
    );
    assert_eq!(app.replies.len(), 2);
    // Each reply goes to its own pane; only the one on screen has our count.
    app.update(Event::Reply {
        id: sent[0].0,
        update: ReplyUpdate::Failed("HTTP 401".into()),
    });
    assert!(app.sending(), "DashScope's is still in flight");
    assert!(app.replies[0].our_count.is_none());
    assert!(app.replies[1].our_count.is_some());
    // Esc cancels what is still in flight.
    let cmds = app.update(code(KeyCode::Esc));
    assert!(matches!(cmds.as_slice(), [Command::CancelSend(id)] if *id == sent[1].0));
}
