//! Counting and parsing on every core give what one core gives, past the
//! sizes the golden cases reach: thousands of messages, and the first
//! error in order when several messages are bad (issue 30).

use formatscope::media::NoNetwork;
use formatscope::tokens::{AgentScopeCounter, MessageCounter, OpenAiTokenCounter};
use serde_json::{json, Value};

/// `n` formatted OpenAI messages of mixed text (English, Chinese, code,
/// long runs), some with names, some with content lists.
fn formatted(n: usize) -> Vec<Value> {
    let texts = [
        "The library opens at nine and closes late on Fridays.",
        "我们一起去图书馆吧！今天天气很好。",
        "fn main() {\n    let x: Vec<u32> = (1..=100).collect();\n}",
        "                                                  spaces",
        "----------------------------------------------------------------",
    ];
    (0..n)
        .map(|i| {
            let text = format!("{} #{i}", texts[i % texts.len()].repeat(1 + i % 7));
            match i % 3 {
                0 => json!({"role": "user", "name": format!("agent{}", i % 4), "content": text}),
                1 => json!({"role": "assistant", "content": [{"type": "text", "text": text}]}),
                _ => json!({"role": "user", "content": text}),
            }
        })
        .collect()
}

#[test]
fn a_count_on_every_core_is_the_count_message_by_message() {
    let counter = OpenAiTokenCounter::new("gpt-4o");
    for n in [1, 255, 256, 257, 3_001] {
        let messages = formatted(n);
        let one_by_one: i64 = 3 + messages
            .iter()
            .map(|m| counter.message_tokens(m, &NoNetwork).expect("counts"))
            .sum::<i64>();
        assert_eq!(
            counter.count(&messages, None, &NoNetwork).expect("counts"),
            one_by_one,
            "{n} messages"
        );
        let agentscope = AgentScopeCounter {
            counter: &counter,
            web: &NoNetwork,
        };
        assert_eq!(
            agentscope.count(&messages).expect("counts"),
            one_by_one,
            "{n}"
        );
    }
}

#[test]
fn the_first_bad_message_in_order_is_the_one_reported() {
    let counter = OpenAiTokenCounter::new("gpt-4o");
    let mut messages = formatted(3_000);
    // Two different errors, far apart (different cores' chunks).
    messages[2_900] = json!({"role": "user", "content": [{"type": "audio", "x": 1}]});
    messages[700] = json!({"role": "user", "content": 42});
    let first = counter
        .message_tokens(&messages[700], &NoNetwork)
        .expect_err("message 700 is bad");
    assert_eq!(
        counter.count(&messages, None, &NoNetwork).expect_err("bad"),
        first
    );
    let agentscope = AgentScopeCounter {
        counter: &counter,
        web: &NoNetwork,
    };
    assert_eq!(agentscope.count(&messages).expect_err("bad"), first);
}

#[test]
fn the_first_message_msg_from_dict_rejects_is_found_on_every_core() {
    let mut messages: Vec<Value> = (0..3_000)
        .map(|i| json!({"name": "Ann", "role": "user", "content": format!("m{i}")}))
        .collect();
    messages[2_900] = json!({"name": "Ann", "role": "tool", "content": "x"});
    messages[700] = json!({"name": "Ann", "role": "user"});
    let text = json!({"provider": "openai", "messages": messages}).to_string();
    let session = formatscope::session::parse_session(&text, "s.json").expect("parses");
    let (index, error) = formatscope::pipeline::invalid_message(&session).expect("a bad one");
    assert_eq!((index, error.kind), (700, "KeyError"));
    messages[700] = json!({"name": "Ann", "role": "user", "content": "fixed"});
    let text = json!({"provider": "openai", "messages": messages}).to_string();
    let session = formatscope::session::parse_session(&text, "s.json").expect("parses");
    let msgs = formatscope::pipeline::build_msgs(&session);
    assert_eq!(msgs.expect_err("2,900 is bad").kind, "AssertionError");
    messages[2_900] = json!({"name": "Ann", "role": "user", "content": "fixed"});
    let text = json!({"provider": "openai", "messages": messages}).to_string();
    let session = formatscope::session::parse_session(&text, "s.json").expect("parses");
    let msgs = formatscope::pipeline::build_msgs(&session).expect("all good");
    assert_eq!(msgs.len(), 3_000);
    assert_eq!(
        msgs[2_999].text_content().ok().flatten().as_deref(),
        Some("m2999")
    );
}
