//! Each message's share of a `<history>` group's count, as the budget
//! meter and `count` show it: what the member's lines cost in the group's
//! text (each line with its newline, as counted apart), the group's
//! framing, prompt and tags on the first member. The budget learns the shares while it counts the group, a line
//! at a time (`crates/core/src/budget/shares.rs`); these tests hold that to the
//! definition, counted apart, for every multi-agent formatter, and to what
//! a fresh model says after an edit.

use formatscope::budget::{BudgetModel, TokenReport};
use formatscope::formatter::{FormatOptions, FormatterId, Mode};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::session::{parse_session, PackedMessage};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

/// Speakers.
const NAMES: [&str; 5] = ["Alice", "Bob", "Zoë", "Carol", "Dan"];

/// Texts that end in every way a line can meet the newline after it: a
/// word, a full stop (".\n" is one token), spaces, tabs (GPT-2's pattern
/// splits "\t\t\n" apart only when a line follows), a digit, a newline
/// and a line of their own.
const TEXTS: [&str; 9] = [
    "See you at nine",
    "The library opens at nine.",
    "Bring the books back,   ",
    "Room 42",
    "First line\nsecond line\n\nthird line!",
    "我们明天早上九点在图书馆见。",
    "- a list\n- of items\n",
    "Thanks!!! 👍🏽",
    "Totals:\t\t",
];

fn message(name: &str, role: &str, content: Value) -> Value {
    json!({"name": name, "role": role, "content": content})
}

/// A session of `n` messages: groups of various sizes between tool calls,
/// with `odd` as one speaker's name when given.
fn messages(n: usize, odd: Option<&str>) -> Vec<Value> {
    let mut out = vec![message(
        "system",
        "system",
        json!("You're a helpful assistant."),
    )];
    for i in 0..n {
        if i % 11 == 10 {
            let id = format!("call_{i}");
            out.push(message(
                "Friday",
                "assistant",
                json!([{"type": "tool_use", "id": id, "name": "search", "input": {"q": "hours"}}]),
            ));
            out.push(message(
                "system",
                "system",
                json!([{"type": "tool_result", "id": id, "name": "search",
                        "output": [{"type": "text", "text": "Open 9 to 5."}]}]),
            ));
            continue;
        }
        let name = match odd {
            Some(odd) if i % 3 == 1 => odd,
            _ => NAMES[i % NAMES.len()],
        };
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let mut blocks = vec![json!({"type": "text", "text": TEXTS[i % TEXTS.len()]})];
        if i % 5 == 0 {
            blocks.push(json!({"type": "text", "text": format!("and {i} more")}));
        }
        out.push(message(name, role, Value::Array(blocks)));
    }
    out
}

fn packed(messages: &[Value]) -> Vec<PackedMessage> {
    let text = json!({ "messages": messages }).to_string();
    parse_session(&text, "shares.json")
        .expect("a session")
        .messages
        .iter()
        .cloned()
        .collect()
}

fn model(id: FormatterId, messages: &[Value]) -> BudgetModel {
    model_with(id, FormatOptions::default(), messages)
}

fn model_with(id: FormatterId, options: FormatOptions, messages: &[Value]) -> BudgetModel {
    BudgetModel::new(
        id,
        options,
        formatscope::tokens::models::resolve(id.provider, None),
        packed(messages),
        None,
        MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork)),
    )
    .expect("the session formats")
}

fn multi_agent() -> impl Iterator<Item = FormatterId> {
    FormatterId::all().filter(|id| id.mode == Mode::MultiAgent)
}

/// The runs of shared figures: each a group's members, in order.
fn groups(report: &TokenReport) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for (k, m) in report.messages.iter().enumerate() {
        if !m.shared {
            continue;
        }
        match out.last_mut() {
            Some(run) if run.end == k => run.end = k + 1,
            _ => out.push(k..k + 1),
        }
    }
    out
}

/// What the message's lines (`{name}: {text}` for each text block) and
/// their newlines cost before a next line, counted apart.
fn lines_apart(id: FormatterId, message: &Value) -> i64 {
    let tokenizer = formatscope::tokens::models::resolve(id.provider, None).tokenizer;
    let raw = |t: &str| tokenizer.raw(t) as i64;
    let name = message["name"].as_str().expect("a name");
    let own = message["content"]
        .as_array()
        .expect("blocks")
        .iter()
        .filter_map(|b| b["text"].as_str())
        .map(|text| raw(&format!("{name}: {text}\nx")) - raw("x"))
        .sum();
    tokenizer.scale(own)
}

/// The formatted request counted whole, message by message.
fn counted_whole(id: FormatterId, messages: &[Value]) -> i64 {
    counted_whole_with(id, &FormatOptions::default(), messages)
}

fn counted_whole_with(id: FormatterId, options: &FormatOptions, messages: &[Value]) -> i64 {
    use formatscope::tokens::{MessageCounter, ProviderCounter};
    let request = formatted_whole(id, options, messages);
    let info = formatscope::tokens::models::resolve(id.provider, None);
    ProviderCounter::new(info, None)
        .count(&request)
        .expect("counts")
}

fn check_shares(id: FormatterId, messages: &[Value], report: &TokenReport) {
    assert_eq!(
        report.messages_total,
        counted_whole(id, messages),
        "{id:?}: the count, line by line, is the request's"
    );
    let figures: i64 = report.messages.iter().map(|m| m.tokens).sum();
    assert_eq!(
        figures + report.framing,
        report.messages_total,
        "{id:?}: the figures add up to the count"
    );
    // Each figure is named as its message is (names are kept once per
    // speaker in the report).
    for m in &report.messages {
        assert_eq!(
            Some(report.name(m)),
            messages[m.index]["name"].as_str(),
            "{id:?}: message {}'s name",
            m.index
        );
    }
    assert!(report.speakers.len() < report.messages.len() / 10);
    let groups = groups(report);
    assert!(groups.len() > 3, "{id:?}: the session has groups");
    for group in groups {
        // A member's share is its lines' own count; the group's framing,
        // prompt and tags are the first's.
        for k in group.start + 1..group.end {
            let index = report.messages[k].index;
            assert_eq!(
                report.messages[k].tokens,
                lines_apart(id, &messages[index]),
                "{id:?}: message {index}'s share"
            );
        }
    }
}

#[test]
fn every_multi_agent_formatter_shares_a_group_by_its_members_lines() {
    let messages = messages(120, None);
    for id in multi_agent() {
        check_shares(id, &messages, &model(id, &messages).report());
    }
}

/// Lines that start where a counter may not cut (a name with `_`; a
/// Chinese name, where legacy Claude's NFKC makes only ASCII certain) are
/// counted apart: the same figures by the same definition.
#[test]
fn a_name_the_counter_does_not_cut_before_gets_the_same_share() {
    for odd in ["_helper", "李雷"] {
        let messages = messages(120, Some(odd));
        for id in multi_agent() {
            check_shares(id, &messages, &model(id, &messages).report());
        }
    }
}

/// An edit recounts only its group, and the figures are then what a
/// model made from nothing with the edited messages says.
#[test]
fn an_edit_leaves_the_figures_a_fresh_count_gives() {
    let mut messages = messages(120, None);
    for id in multi_agent() {
        let mut edited = model(id, &messages);
        let _ = edited.report();
        let index = 25;
        messages[index]["content"] = json!([{"type": "text", "text": "Changed: nine.\nLater."}]);
        edited
            .set_message(index, PackedMessage::new(&messages[index]))
            .expect("the edit formats");
        assert_eq!(
            edited.report().messages,
            model(id, &messages).report().messages,
            "{id:?}"
        );
    }
}

/// Each message's speaker and role, as the report says them.
fn said(report: &TokenReport) -> Vec<(usize, String, &'static str, i64, bool)> {
    let messages = report.messages.iter();
    messages
        .map(|m| {
            (
                m.index,
                report.name(m).to_string(),
                m.role.as_str(),
                m.tokens,
                m.shared,
            )
        })
        .collect()
}

/// Renames, a role changed, deletes, inserts and reorders, and a report
/// after no change: each report names every message's speaker and role,
/// and lists the speakers in the order they first speak, as a model made
/// from nothing with the same messages does (the model keeps who said
/// each message beside the messages, changed where they change).
#[test]
fn every_edit_leaves_the_speakers_and_roles_a_fresh_count_gives() {
    for id in multi_agent() {
        let mut messages = messages(60, Some("_helper"));
        let mut edited = model(id, &messages);
        let check = |edited: &mut BudgetModel, messages: &[Value], what: &str| {
            let (got, want) = (edited.report(), model(id, messages).report());
            assert_eq!(said(&got), said(&want), "{id:?} after {what}");
            assert_eq!(got.speakers, want.speakers, "{id:?} after {what}");
        };
        check(&mut edited, &messages, "nothing");
        check(&mut edited, &messages, "a report after no change");
        messages[3] = message("Eve", "assistant", json!("A new speaker."));
        edited
            .set_message(3, PackedMessage::new(&messages[3]))
            .expect("the edit formats");
        check(&mut edited, &messages, "a rename and a new role");
        messages.remove(5);
        edited.set_messages(&packed(&messages)).expect("formats");
        check(&mut edited, &messages, "a delete");
        messages.insert(2, message("Mallory", "user", json!("I was not here.")));
        edited.set_messages(&packed(&messages)).expect("formats");
        check(&mut edited, &messages, "an insert");
        messages.swap(1, 7);
        edited.set_messages(&packed(&messages)).expect("formats");
        check(&mut edited, &messages, "a reorder");
        // A tool call and its result deleted: the groups either side join
        // into one the model has not split before (its members' lines
        // counted apart, as a name the counter does not cut before makes
        // them).
        let call = messages
            .iter()
            .position(|m| m["content"][0]["type"] == "tool_use")
            .expect("a tool call");
        messages.drain(call..call + 2);
        edited.set_messages(&packed(&messages)).expect("formats");
        check(&mut edited, &messages, "a tool call deleted");
    }
}

/// `n` messages without tool calls: one `<history>` group.
fn one_group(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let text = format!("{} ({i})", TEXTS[i % TEXTS.len()]);
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            message(
                NAMES[i % NAMES.len()],
                role,
                json!([{"type": "text", "text": text}]),
            )
        })
        .collect()
}

/// A conversation without tool calls is one `<history>` group, which the
/// request sends with the history prompt before it. Its count with the
/// prompt is learnt from its count without (the parts between its second
/// line and its last cut are the same text): the same figure as the
/// request counted whole, for every formatter, with the default prompt,
/// prompts that end in other ways, and after edits of its first line,
/// its second, a middle one and its last.
#[test]
fn a_one_group_session_counts_with_the_prompt_what_the_request_counts() {
    let prompts = [
        None,
        Some("Here is what was said:".to_string()),
        Some("History\n\n".to_string()),
        Some("Earlier, in 中文 too:  ".to_string()),
    ];
    for id in multi_agent() {
        for prompt in &prompts {
            let options = FormatOptions {
                history_prompt: prompt.clone(),
                ..FormatOptions::default()
            };
            let mut messages = one_group(400);
            let mut edited = model_with(id, options.clone(), &messages);
            let what = format!("{id:?}, prompt {prompt:?}");
            assert_eq!(
                edited.report().messages_total,
                counted_whole_with(id, &options, &messages),
                "{what}"
            );
            for (index, text) in [
                (0, "Trailing   "),
                (1, "42 first"),
                (200, "中文"),
                (399, "End.\n"),
            ] {
                messages[index]["content"] = json!([{"type": "text", "text": text}]);
                edited
                    .set_message(index, PackedMessage::new(&messages[index]))
                    .expect("the edit formats");
                assert_eq!(
                    edited.report().messages_total,
                    counted_whole_with(id, &options, &messages),
                    "{what}, message {index} edited"
                );
            }
            // Deletes and a duplicate re-cut the list: the group is
            // formatted again, with the prompt beside it.
            for change in ["delete first", "delete middle", "duplicate last"] {
                match change {
                    "delete first" => drop(messages.remove(0)),
                    "delete middle" => drop(messages.remove(150)),
                    _ => messages.push(messages[messages.len() - 1].clone()),
                }
                edited.set_messages(&packed(&messages)).expect("re-formats");
                assert_eq!(
                    edited.report().messages_total,
                    counted_whole_with(id, &options, &messages),
                    "{what}, {change}"
                );
                assert_eq!(
                    edited.formatted(),
                    formatted_whole(id, &options, &messages),
                    "{what}, {change}"
                );
            }
        }
    }
}

/// The request as the formatter makes it of the whole list.
fn formatted_whole(id: FormatterId, options: &FormatOptions, messages: &[Value]) -> Vec<Value> {
    let msgs: Vec<_> = messages
        .iter()
        .map(|m| Arc::new(formatscope::session::Msg::from_dict(m).expect("a Msg")))
        .collect();
    let env = MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork));
    formatscope::formatter::format(id, options, &msgs, &env, None).expect("formats")
}

/// A group of more than a thousand lines is counted a run of lines at a
/// time, each run's counts kept by its content, so an edit counts again
/// only the runs it changed (`crates/core/src/budget/shares.rs`): after edits of its
/// first lines, a middle one, one that starts where no count may cut, and
/// its last, and after a delete, the count is the request's counted whole
/// and every member's share is what a model made from nothing says.
#[test]
fn a_long_group_counted_a_run_at_a_time_gives_a_fresh_models_figures() {
    for id in multi_agent() {
        let mut messages = one_group(1300);
        let mut edited = model(id, &messages);
        assert_eq!(
            edited.report().messages_total,
            counted_whole(id, &messages),
            "{id:?}"
        );
        for (index, text) in [
            (0, "Trailing   "),
            (1, "42 first"),
            (650, "中文"),
            (651, "-starts with a dash"),
            (1299, "End.\n"),
        ] {
            messages[index]["content"] = json!([{"type": "text", "text": text}]);
            edited
                .set_message(index, PackedMessage::new(&messages[index]))
                .expect("the edit formats");
            let report = edited.report();
            assert_eq!(
                report.messages_total,
                counted_whole(id, &messages),
                "{id:?}, message {index} edited"
            );
            assert_eq!(
                report.messages,
                model(id, &messages).report().messages,
                "{id:?}, message {index} edited"
            );
        }
        messages.remove(300);
        edited.set_messages(&packed(&messages)).expect("re-formats");
        assert_eq!(
            edited.report().messages,
            model(id, &messages).report().messages,
            "{id:?}, a message deleted"
        );
    }
}
