//! A `<history>` group of session messages whose blocks are all texts is
//! written from its members' lines read in place (no `Msg` unpacked); any
//! other group from its `Msg`s. Both must give the formatter's own output,
//! byte for byte, for every provider, with and without a history prompt.

use formatscope::formatter::FormatterId;
use formatscope::formatter::{format_once, message_keys, FormatOptions, Mode, Segmented};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::pipeline::build_msgs;
use formatscope::session::{parse_session, MsgItem};
use serde_json::{json, Value};
use std::sync::Arc;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// Groups of every shape, split by tool calls so each is a group of its own.
fn messages() -> Vec<Value> {
    let call = |id: &str| {
        json!({"name": "Friday", "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "look", "input": {}}
        ]})
    };
    let result = |id: &str| {
        json!({"name": "system", "role": "system", "content": [
            {"type": "tool_result", "id": id, "name": "look", "output": "ok"}
        ]})
    };
    vec![
        json!({"name": "system", "role": "system", "content": "Be brief."}),
        // Texts only: string content, several blocks, an empty list, an
        // empty text, newlines and wide characters.
        json!({"name": "Alice", "role": "user", "content": "Hi there\n\nhow are you?"}),
        json!({"name": "Bob", "role": "assistant", "content": [text("one"), text(""), text("two\n")]}),
        json!({"name": "Carol", "role": "user", "content": []}),
        json!({"name": "Dörte", "role": "system", "content": [text("今天天气很好")]}),
        call("a"),
        result("a"),
        // An image among texts: read from its `Msg`s.
        json!({"name": "Alice", "role": "user", "content": [
            text("look"),
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        ]}),
        json!({"name": "Bob", "role": "user", "content": "nice"}),
        call("b"),
        result("b"),
        // A name that is no string, and a thinking block: from `Msg`s.
        json!({"name": 7, "role": "user", "content": "seven"}),
        json!({"name": "Bob", "role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"}, text("done")
        ]}),
        call("c"),
        result("c"),
        // Members with no lines at all.
        json!({"name": "Carol", "role": "user", "content": []}),
        json!({"name": "Bob", "role": "user", "content": []}),
        call("d"),
        result("d"),
        json!({"name": "Alice", "role": "user", "content": [text("last")]}),
        call("e"),
        result("e"),
        // Lines that start with no name, and with a wide character.
        json!({"name": "", "role": "user", "content": "no name"}),
        json!({"name": "Élodie", "role": "user", "content": [text("bonjour"), text("")]}),
    ]
}

#[test]
fn history_groups_read_in_place_format_as_from_their_messages() {
    let doc = json!({"messages": messages()});
    let session = parse_session(&doc.to_string(), "history_lines.json").expect("parses");
    let msgs = build_msgs(&session).expect("valid messages");
    let items: Vec<MsgItem> = session
        .messages
        .iter()
        .map(|m| MsgItem::packed(m.clone()).expect("a valid message"))
        .collect();
    let keys = message_keys(&session.messages);
    let env = MediaEnv::new(".", Arc::new(NoNetwork));
    let prompts = [None, Some("Earlier:\n".to_string())];
    let mut checked = 0;
    for id in FormatterId::all().filter(|id| id.mode == Mode::MultiAgent) {
        for prompt in &prompts {
            let options = FormatOptions {
                history_prompt: prompt.clone(),
                ..FormatOptions::default()
            };
            let seg = Segmented::build(id, &options, &items, &keys, &env, None).expect("builds");
            assert!(seg.units.len() > 10, "{id}: {} units", seg.units.len());
            for (u, unit) in seg.units.iter().enumerate() {
                let mut list = msgs[..1].to_vec();
                list.extend_from_slice(&msgs[unit.range.start..]);
                let expected = format_once(id, &options, &mut list, &env).expect("formats");
                let got = seg.assemble(u, &env).expect("assembles");
                assert_eq!(got, expected, "{id} from unit {u}, prompt {prompt:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 6 * 2 * 10, "only {checked} lists checked");
}

/// Where a plan searches a history group, it reads where each member's
/// lines start: in place for packed text members, from `Msg`s for the rest
/// (a name that is no string, other blocks). Both give the same.
#[test]
fn member_line_starts_read_in_place_are_the_msgs_own() {
    let doc = json!({"messages": messages()});
    let session = parse_session(&doc.to_string(), "history_lines.json").expect("parses");
    let msgs = build_msgs(&session).expect("valid messages");
    let packed: Vec<MsgItem> = session
        .messages
        .iter()
        .map(|m| MsgItem::packed(m.clone()).expect("a valid message"))
        .collect();
    let live: Vec<MsgItem> = msgs.iter().cloned().map(MsgItem::Live).collect();
    let keys = message_keys(&session.messages);
    let env = MediaEnv::new(".", Arc::new(NoNetwork));
    let mut found = 0;
    for id in FormatterId::all().filter(|id| id.mode == Mode::MultiAgent) {
        let options = FormatOptions::default();
        let read = Segmented::build(id, &options, &packed, &keys, &env, None).expect("builds");
        let unpacked = Segmented::build(id, &options, &live, &keys, &env, None).expect("builds");
        for (a, b) in read.units.iter().zip(&unpacked.units) {
            let starts = read.member_line_starts(a);
            assert_eq!(
                starts,
                unpacked.member_line_starts(b),
                "{id}: {:?}",
                a.range
            );
            found += usize::from(starts.is_some());
        }
    }
    assert!(found >= 5, "only {found} groups with line starts");
}
