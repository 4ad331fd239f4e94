//! A session that is one long `<history>` group (a multi-agent chat
//! without tool calls), planned with AgentScope's counter as the workbench
//! plans it after each edit. The truncation counter keeps the parts of the
//! group's text it has counted (`crates/core/src/tokens/memo.rs`) and the
//! plans keep the members' marginal costs (`crates/core/src/truncate/guess.rs`):
//! after edits and deletes the plan is a fresh model's, and what it says
//! the kept request costs is AgentScope's count of that request.

use formatscope::budget::BudgetModel;
use formatscope::formatter::{FormatOptions, FormatterId, Mode};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::provider::Provider;
use formatscope::session::{parse_session, PackedMessage};
use formatscope::tokens::{CounterSpec, OpenAiTokenCounter};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

const NAMES: [&str; 4] = ["Alice", "Bob", "Zoë", "_carol"];

/// Texts of every kind: prose, a full stop before the newline, Chinese,
/// lines inside a text, trailing spaces, a list.
const TEXTS: [&str; 6] = [
    "The library opens at nine and closes late on Fridays",
    "Bring the borrowed books back.",
    "我们明天早上九点在图书馆见。",
    "First line\nsecond line\n\nthird line!",
    "See you there,   ",
    "- a list\n- of items",
];

/// A system prompt and `n` members of one group.
fn messages(n: usize) -> Vec<Value> {
    let mut out = vec![json!({"name": "system", "role": "system", "content": "Be brief."})];
    for i in 0..n {
        let text = format!("{} ({i})", TEXTS[i % TEXTS.len()]);
        out.push(json!({
            "name": NAMES[i % NAMES.len()],
            "role": if i % 3 == 0 { "assistant" } else { "user" },
            "content": [{"type": "text", "text": text}],
        }));
    }
    out
}

fn packed(messages: &[Value]) -> Vec<PackedMessage> {
    let text = json!({ "messages": messages }).to_string();
    parse_session(&text, "long_group.json")
        .expect("a session")
        .messages
        .iter()
        .cloned()
        .collect()
}

/// A model planning with AgentScope's default counter, as the workbench.
fn model(id: FormatterId, messages: &[Value]) -> BudgetModel {
    let mut model = BudgetModel::new(
        id,
        FormatOptions::default(),
        formatscope::tokens::models::resolve(id.provider, None),
        packed(messages),
        None,
        MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork)),
    )
    .expect("the session formats");
    model.set_truncation_counter(CounterSpec::default());
    model
}

/// The plan at `budget`, checked against a fresh model's and against
/// AgentScope's counter on the request it keeps.
fn check_plan(id: FormatterId, planner: &mut BudgetModel, messages: &[Value], budget: i64) {
    let plan = planner.plan(budget).expect("plans");
    let fresh = model(id, messages).plan(budget).expect("plans");
    assert_eq!(
        (&plan.kept, plan.tokens_after),
        (&fresh.kept, fresh.tokens_after),
        "{id}"
    );
    assert!(!plan.dropped.is_empty() && plan.kept.len() > 100, "{id}");
    let kept = planner.formatted_kept(&plan.kept).expect("formats");
    let counted = OpenAiTokenCounter::new("gpt-4o")
        .count(&kept, None, &NoNetwork)
        .expect("counts");
    assert_eq!(plan.tokens_after, Some(counted), "{id}");
}

#[test]
fn a_long_group_plans_after_edits_as_a_fresh_model_and_agentscope_count() {
    // Two providers' groups: the history tags differ (Anthropic's group
    // is a message of its own after the system prompt).
    let ids = FormatterId::all().filter(|id| {
        id.mode == Mode::MultiAgent && matches!(id.provider, Provider::OpenAi | Provider::Anthropic)
    });
    for id in ids {
        // About 75 KB of lines: past the size whose parts are kept.
        let mut messages = messages(1700);
        let mut model = model(id, &messages);
        let budget = model.report().total / 2;
        check_plan(id, &mut model, &messages, budget);
        // An edit in the part kept, then one in the part dropped.
        for (at, text) in [(1500, "An edit, kept."), (400, "An edit, dropped.")] {
            messages[at] = json!({"name": "Bob", "role": "user", "content": [
                {"type": "text", "text": text}
            ]});
            model
                .set_message(at, messages[at].clone())
                .expect("the edit formats");
            check_plan(id, &mut model, &messages, budget);
        }
        // A message deleted near the front, and a smaller budget.
        messages.remove(10);
        model.set_messages(&packed(&messages)).expect("re-formats");
        check_plan(id, &mut model, &messages, budget / 2);
    }
}
