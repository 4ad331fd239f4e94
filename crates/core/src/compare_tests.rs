use super::*;
use serde_json::json;

#[test]
fn the_pretty_layout_is_serde_jsons() {
    let v = json!({"a": [1, {"b": "x/y", "c": []}], "d": {}});
    let mut lines = Vec::new();
    pretty(&v, None, "", 0, false, &mut lines);
    let text: Vec<&str> = lines.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(text.join("\n"), serde_json::to_string_pretty(&v).unwrap());
    assert_eq!(lines[4].1, "/a/1/b");
}

#[test]
fn a_system_prompt_moved_out_of_messages_faces_its_source_and_is_marked_moved() {
    let formatted = vec![
        json!({"role": "system", "content": "You are a helpful librarian."}),
        json!({"role": "user", "content": "Hi"}),
    ];
    let spans = vec![(0..1, 0..1), (1..2, 1..2)];
    let left = Side::formatted("OpenAI", formatted.clone(), &spans);
    let anthropic = vec![
        json!({"role": "system", "content": [{"type": "text", "text": "You are a helpful librarian."}]}),
        json!({"role": "user", "content": [{"type": "text", "text": "Hi"}]}),
    ];
    let body = json!({
        "model": "claude",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "system": [{"type": "text", "text": "You are a helpful librarian."}],
    });
    let right = Side::wire("Anthropic wire", body, &anthropic, &spans);
    assert_eq!(right.source_of("/system/0/text"), Some(0..1));
    assert_eq!(right.source_of("/messages/0"), Some(1..2));
    let c = compare(&left, &right);
    assert_eq!(c.rows[0], Row::Heading("message 0".into()));
    let moved: Vec<&Line> = c
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Lines(_, Some(l)) if l.mark == Some(Mark::Moved) => Some(l),
            _ => None,
        })
        .collect();
    assert!(
        moved.iter().any(|l| l.text.contains("helpful librarian")),
        "{:#?}",
        c.rows
    );
    assert!(c.counts.moved >= 1);
    // The model has no source message: a group of its own, after them.
    assert!(c.rows.contains(&Row::Heading("model".into())));
}

#[test]
fn a_history_group_faces_the_chat_messages_it_wraps() {
    let chat = Side::formatted(
        "chat",
        vec![
            json!({"role": "user", "content": "a"}),
            json!({"role": "assistant", "content": "b"}),
        ],
        &[(0..1, 0..1), (1..2, 1..2)],
    );
    let multi = Side::formatted(
        "multi-agent",
        vec![json!({"role": "user", "content": "<history>a b</history>"})],
        &[(0..2, 0..1)],
    );
    let c = compare(&chat, &multi);
    assert_eq!(c.groups, vec![(Some(0..2), 0)]);
    assert_eq!(c.rows[0], Row::Heading("messages 0–1".into()));
}
