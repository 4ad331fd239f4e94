//! The truncation planner against a plain re-implementation of AgentScope's
//! loop (`formatter::format_traced`: one full format and count per dropped
//! span), on thousands of random sessions and budgets, for all twelve
//! formatters, with AgentScope's counter and with the provider counters.

#[path = "support/long.rs"]
mod long;
use formatscope::formatter::{
    format_once, format_traced, message_keys, Budget, FormatOptions, FormatterId, Segmented,
};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::pipeline::build_msgs;
use formatscope::session::{parse_session, Msg, MsgItem, PackedMessage};
use formatscope::tokens::{
    models, AgentScopeCounter, MessageCounter, OpenAiTokenCounter, ProviderCounter,
};
use formatscope::truncate::{self, CostedRequest};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[derive(Debug, Clone)]
enum Turn {
    Say {
        speaker: usize,
        role: &'static str,
        text: String,
        image: bool,
        thinking: bool,
    },
    /// A tool call by speaker 0, its result `gap` turns later (never, if None).
    Call {
        id: usize,
        result_after: Option<usize>,
    },
    OrphanResult {
        id: usize,
    },
}

fn turn() -> impl Strategy<Value = Turn> {
    let text = prop_oneof![
        "[a-z ]{0,40}",
        "[a-z]{1,8}\\.\n?",
        Just("今天天气很好，我们去图书馆吧".to_string()),
        Just("  spaced  \n\n".to_string()),
        Just("".to_string()),
    ];
    prop_oneof![
        6 => (0..4usize, prop_oneof![8 => Just("user"), 8 => Just("assistant"), 1 => Just("system")], text, prop::bool::weighted(0.1), prop::bool::weighted(0.1))
            .prop_map(|(speaker, role, text, image, thinking)| Turn::Say { speaker, role, text, image, thinking }),
        2 => (0..1000usize, prop::option::weighted(0.93, 0..3usize))
            .prop_map(|(id, result_after)| Turn::Call { id, result_after }),
        2 => (0..1000usize).prop_map(|id| Turn::OrphanResult { id }),
    ]
}

/// A session from turns: tool results are placed `result_after` turns
/// after their call.
fn session_json(system: Option<String>, turns: &[Turn]) -> Value {
    let speakers = ["Alice", "Bob", "Friday", "Carol"];
    let mut messages: Vec<Value> = Vec::new();
    if let Some(s) = system {
        messages.push(json!({"name": "system", "role": "system", "content": s}));
    }
    let mut pending: Vec<(usize, usize)> = Vec::new(); // (due index, id)
    for (i, t) in turns.iter().enumerate() {
        match t {
            Turn::Say {
                speaker,
                role,
                text,
                image,
                thinking,
            } => {
                let mut content = Vec::new();
                if *thinking {
                    content.push(json!({"type": "thinking", "thinking": "hmm"}));
                }
                content.push(json!({"type": "text", "text": text}));
                if *image {
                    content.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}));
                }
                messages
                    .push(json!({"name": speakers[*speaker], "role": role, "content": content}));
            }
            Turn::Call { id, result_after } => {
                messages.push(json!({"name": "Friday", "role": "assistant", "content": [
                    {"type": "tool_use", "id": format!("c{id}"), "name": "get_weather", "input": {"city": "Paris"}}
                ]}));
                if let Some(gap) = result_after {
                    pending.push((i + gap, *id));
                }
            }
            Turn::OrphanResult { id } => pending.push((i, *id + 5000)),
        }
        pending.sort();
        while let Some(&(due, id)) = pending.first() {
            if due > i {
                break;
            }
            pending.remove(0);
            messages.push(json!({"name": "Friday", "role": "system", "content": [
                {"type": "tool_result", "id": format!("c{id}"), "name": "get_weather", "output": [{"type": "text", "text": "Sunny, 21C"}]}
            ]}));
        }
    }
    for (_, id) in pending {
        messages.push(json!({"name": "Friday", "role": "system", "content": [
            {"type": "tool_result", "id": format!("c{id}"), "name": "get_weather", "output": "Sunny"}
        ]}));
    }
    json!({"messages": messages})
}

struct Case {
    msgs: Vec<Arc<Msg>>,
    /// The same messages as the workbench holds them (packed).
    items: Vec<MsgItem>,
    keys: Vec<u64>,
}

/// Message dicts packed, as a session holds them.
fn packed(values: &[Value]) -> Vec<PackedMessage> {
    values.iter().map(PackedMessage::from).collect()
}

/// The messages as the workbench's budget model holds them.
fn packed_items(messages: &[PackedMessage]) -> Vec<MsgItem> {
    messages
        .iter()
        .map(|m| MsgItem::packed(m.clone()).expect("a valid message"))
        .collect()
}

fn case(doc: &Value) -> Case {
    let session = parse_session(&doc.to_string(), "planner.json").expect("session loads");
    let msgs = build_msgs(&session).expect("messages build");
    let items = packed_items(&session.messages);
    let keys = message_keys(&session.messages);
    Case { msgs, items, keys }
}

/// An error message up to its first embedded Python repr.
fn before_repr(message: &str) -> &str {
    let cut = ["{'", "[{", "['", "<class '"]
        .iter()
        .filter_map(|m| message.find(m))
        .min()
        .unwrap_or(message.len());
    &message[..cut]
}

fn same_error(a: &formatscope::py::PyErr, b: &formatscope::py::PyErr) -> bool {
    a.kind == b.kind && a.message == b.message
}

/// The planner's answer for one formatter, counter and budget equals the
/// reference loop's: the same output (or error), kept messages and count.
fn check(
    c: &Case,
    id: FormatterId,
    counter: &dyn MessageCounter,
    env: &MediaEnv,
    budget_fraction: f64,
) -> Result<(), TestCaseError> {
    let options = FormatOptions::default();
    let full = {
        let mut w = c.msgs.clone();
        format_once(id, &options, &mut w, env)
            .and_then(|f| counter.count(&f))
            .unwrap_or(50)
    };
    let max_tokens = ((full as f64 * budget_fraction) as i64).max(1);
    let reference = format_traced(
        id,
        &options,
        &c.msgs,
        env,
        Some(Budget {
            counter,
            max_tokens,
        }),
    );
    let planned = truncate::plan_reference(id, &options, &c.msgs, env, counter, max_tokens);
    match (&reference, &planned) {
        (Ok(r), Ok(p)) => {
            prop_assert_eq!(&r.formatted, &p.formatted, "{} max={}", id, max_tokens);
            prop_assert_eq!(
                r.last_count,
                p.plan.tokens_after,
                "{} max={}",
                id,
                max_tokens
            );
        }
        (Err(r), Err(p)) => prop_assert!(same_error(r, p), "{}: {:?} vs {:?}", id, r, p),
        _ => prop_assert!(
            false,
            "{} max={}: loop {:?} vs planner {:?}",
            id,
            max_tokens,
            reference.as_ref().err(),
            planned.as_ref().err()
        ),
    }
    // The workbench's path: units costed once, the plan from them alone.
    // The units always build here (no media is promoted: default options);
    // costing them fails only where the loop's first count fails, with its
    // error (AgentScope's counter on another provider's blocks).
    let seg = Segmented::build(id, &options, &c.items, &c.keys, env, None)
        .map_err(|e| TestCaseError::fail(format!("{id}: the units failed to build: {e:?}")))?;
    let costed = match (CostedRequest::count(seg, counter, env), &reference) {
        (Ok(costed), _) => costed,
        (Err(e), Err(r)) => {
            // The same error; its message may quote another part of the
            // request (a unit, not the whole list), so up to the first
            // Python repr, as compare.py compares errors.
            prop_assert!(
                e.kind == r.kind && before_repr(&e.message) == before_repr(&r.message),
                "{}: costing raised {:?}, the loop {:?}",
                id,
                e,
                r
            );
            return Ok(());
        }
        (Err(e), Ok(_)) => {
            prop_assert!(
                false,
                "{}: costing raised {:?} where the loop succeeds",
                id,
                e
            );
            return Ok(());
        }
    };
    let mut known = truncate::MemberCosts::default();
    let plan = truncate::plan(&costed, counter, env, max_tokens, &mut known).expect("plan");
    // A plan that starts from the marginal costs this one learnt finds
    // the same state.
    let again = truncate::plan(&costed, counter, env, max_tokens, &mut known).expect("plan");
    prop_assert_eq!(&again.kept, &plan.kept, "{}: again", id);
    prop_assert_eq!(again.tokens_after, plan.tokens_after);
    match &reference {
        Ok(r) => {
            prop_assert!(plan.error.is_none(), "{}: {:?}", id, plan.error);
            prop_assert_eq!(plan.tokens_after, r.last_count);
            let kept: Vec<usize> = (0..c.msgs.len())
                .filter(|&i| r.working.iter().any(|w| Arc::ptr_eq(w, &c.msgs[i])))
                .collect();
            prop_assert_eq!(&plan.kept, &kept, "{} max={}", id, max_tokens);
        }
        Err(e) => {
            let pe = plan.error.as_ref();
            prop_assert!(
                pe.is_some_and(|p| same_error(p, e)),
                "{}: {:?} vs {:?}",
                id,
                pe,
                e
            );
        }
    }
    Ok(())
}

fn env() -> MediaEnv {
    MediaEnv::new(Path::new(".").to_path_buf(), Arc::new(NoNetwork))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::cases(1200), ..ProptestConfig::default() })]

    #[test]
    fn planner_agrees_with_the_reference_loop(
        system in prop::option::weighted(0.8, "[A-Za-z .]{1,60}"),
        turns in prop::collection::vec(turn(), 0..14),
        fraction in 0.0f64..1.1,
        formatter in 0..12usize,
    ) {
        let c = case(&session_json(system, &turns));
        let env = env();
        let id = FormatterId::all().nth(formatter).expect("twelve formatters");
        let reference = OpenAiTokenCounter::new("gpt-4o");
        let agentscope = AgentScopeCounter { counter: &reference, web: &NoNetwork };
        check(&c, id, &agentscope, &env, fraction)?;
        let provider = ProviderCounter::new(models::resolve(id.provider, None), None);
        check(&c, id, &provider, &env, fraction)?;
    }
}

/// A multi-agent conversation that is one long `<history>` group (no tool
/// calls), which the planner bisects: speakers whose lines start with a
/// letter or digit (searched), and others (walked), texts that end in
/// spaces or newlines, start with a newline, or are Chinese.
fn one_group_session(system: Option<String>, turns: &[(usize, usize, String)]) -> Value {
    let speakers = [
        "Alice",
        "小明",
        "7of9",
        "_bot",
        " spaced",
        "",
        "Émile",
        "ｆｕｌｌ",
    ];
    let roles = ["user", "assistant", "user", "system"];
    let mut messages: Vec<Value> = Vec::new();
    if let Some(s) = system {
        messages.push(json!({"name": "system", "role": "system", "content": s}));
    }
    for (speaker, role, text) in turns {
        messages.push(json!({"name": speakers[*speaker], "role": roles[*role], "content": text}));
    }
    json!({"messages": messages})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::cases(300), ..ProptestConfig::default() })]

    #[test]
    fn planner_bisects_one_history_group_as_the_loop_walks_it(
        system in prop::option::weighted(0.8, "[A-Za-z .]{1,40}"),
        turns in prop::collection::vec(
            (
                prop_oneof![8 => 0..3usize, 1 => 3..8usize],
                prop_oneof![20 => 0..3usize, 1 => Just(3usize)],
                prop_oneof![
                    "[a-z ]{0,60}",
                    "[a-z]{1,8}[.!]? {0,3}\n{0,2}",
                    "\n[a-z]{1,6}",
                    Just("今天天气很好，我们去图书馆吧".to_string()),
                ],
            ),
            2..60,
        ),
        fraction in 0.0f64..1.05,
        multi_agent in 0..6usize,
    ) {
        let c = case(&one_group_session(system, &turns));
        let env = env();
        let id = FormatterId::all()
            .filter(|f| f.mode == formatscope::provider::Mode::MultiAgent)
            .nth(multi_agent)
            .expect("six multi-agent formatters");
        let reference = OpenAiTokenCounter::new("gpt-4o");
        let agentscope = AgentScopeCounter { counter: &reference, web: &NoNetwork };
        check(&c, id, &agentscope, &env, fraction)?;
        let provider = ProviderCounter::new(models::resolve(id.provider, None), None);
        check(&c, id, &provider, &env, fraction)?;
    }
}

/// Units put back together are the formatter's output, from every unit on.
#[test]
fn units_reassemble_to_the_formatted_request_for_every_golden_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("cases") {
        let path = entry.expect("entry").path();
        let Ok(session) = formatscope::session::read_session(&path) else {
            continue;
        };
        let Ok(msgs) = build_msgs(&session) else {
            continue;
        };
        let keys = message_keys(&session.messages);
        let env = MediaEnv::new(
            session.base_dir(),
            Arc::new(formatscope::media::WebRoot::new(vec![
                dir.join("../media/web")
            ])),
        );
        for id in FormatterId::all() {
            let options = FormatOptions::default();
            let items = packed_items(&session.messages);
            let Ok(seg) = Segmented::build(id, &options, &items, &keys, &env, None) else {
                continue;
            };
            for (u, unit) in seg.units.iter().enumerate() {
                let mut list: Vec<Arc<Msg>> = msgs[..usize::from(seg.pinned)].to_vec();
                list.extend_from_slice(&msgs[unit.range.start..]);
                if !seg.pinned && list[0].role == formatscope::session::Role::System {
                    continue; // such a list pins its own system prompt
                }
                let expected = format_once(id, &options, &mut list, &env).expect("formats");
                assert_eq!(
                    seg.assemble(u, &env).expect("assembles"),
                    expected,
                    "{} {} from unit {u}",
                    path.display(),
                    id
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} lists checked");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::cases(200), ..ProptestConfig::default() })]

    /// After edits, inserts and deletes, the incremental model gives the same
    /// figures and plans as one built from scratch.
    #[test]
    fn incremental_counts_equal_a_fresh_count(
        turns in prop::collection::vec(turn(), 1..12),
        edit_text in "[a-z ]{0,30}",
        edit_at in 0usize..100,
        formatter in 0..12usize,
        budget in 1i64..400,
    ) {
        use formatscope::budget::BudgetModel;
        let doc = session_json(Some("You are Friday.".into()), &turns);
        let messages = doc["messages"].as_array().cloned().unwrap_or_default();
        let id = FormatterId::all().nth(formatter).expect("twelve formatters");
        let model_info = models::resolve(id.provider, None);
        let fresh = |msgs: Vec<Value>| BudgetModel::new(id, FormatOptions::default(), model_info.clone(), msgs, None, env());
        // No error is legitimate here: the messages are valid and none of
        // the twelve formatters, nor the provider's counter, raises on these
        // sessions (3,000 cases checked against formatting and counting them
        // directly: none did). A failure is a bug, and says which.
        let built = |msgs: &[Value], what: &str| {
            fresh(msgs.to_vec()).map_err(|e| TestCaseError::fail(format!("{id}: {what}: {e}")))
        };
        let mut model = built(&messages, "the model failed to build")?;
        // The plan before an edit learns counts the plan after reuses (each
        // history group's prompted form): under the provider's counter and
        // under AgentScope's, as the workbench plans.
        let _ = model.plan(budget);
        let mut agent = built(&messages, "the model failed to build")?;
        agent.set_truncation_counter(formatscope::tokens::CounterSpec::default());
        let _ = agent.plan(budget);
        let i = edit_at % messages.len();
        let mut edited = messages.clone();
        edited[i] = json!({"name": "Bob", "role": "user", "content": [{"type": "text", "text": edit_text}]});
        model.set_message(i, edited[i].clone()).map_err(|e| TestCaseError::fail(format!("{id}: the edit of message {i} failed: {e}")))?;
        let mut scratch = built(&edited, "a model of the edited messages failed to build")?;
        prop_assert_eq!(model.report(), scratch.report());
        let (a, b) = (model.plan(budget).ok(), scratch.plan(budget).ok());
        prop_assert_eq!(a.as_ref().map(|p| (&p.kept, p.tokens_after)), b.as_ref().map(|p| (&p.kept, p.tokens_after)));
        agent.set_message(i, edited[i].clone()).map_err(|e| TestCaseError::fail(format!("{id}: the edit of message {i} failed: {e}")))?;
        scratch.set_truncation_counter(formatscope::tokens::CounterSpec::default());
        let (a, b) = (agent.plan(budget).ok(), scratch.plan(budget).ok());
        prop_assert_eq!(a.as_ref().map(|p| (&p.kept, p.tokens_after)), b.as_ref().map(|p| (&p.kept, p.tokens_after)));
        // Delete a message and duplicate another.
        let mut reshaped = edited.clone();
        reshaped.remove(i);
        if !reshaped.is_empty() {
            let dup = reshaped[reshaped.len() / 2].clone();
            reshaped.push(dup);
        }
        model.set_messages(&packed(&reshaped)).map_err(|e| TestCaseError::fail(format!("{id}: the reshape failed: {e}")))?;
        let mut scratch = built(&reshaped, "a model of the reshaped messages failed to build")?;
        prop_assert_eq!(model.report(), scratch.report());
        prop_assert_eq!(model.formatted(), scratch.formatted());
        let (a, b) = (model.plan(budget).ok(), scratch.plan(budget).ok());
        prop_assert_eq!(a.as_ref().map(|p| (&p.kept, p.tokens_after)), b.as_ref().map(|p| (&p.kept, p.tokens_after)));
        agent.set_messages(&packed(&reshaped)).map_err(|e| TestCaseError::fail(format!("{id}: the reshape failed: {e}")))?;
        scratch.set_truncation_counter(formatscope::tokens::CounterSpec::default());
        let (a, b) = (agent.plan(budget).ok(), scratch.plan(budget).ok());
        prop_assert_eq!(a.as_ref().map(|p| (&p.kept, p.tokens_after)), b.as_ref().map(|p| (&p.kept, p.tokens_after)));
    }
}

/// A counter that remembers each formatted message's cost: the reference
/// loop re-counts the whole list on every step, which at thousands of
/// messages is what makes it slow, while most messages are the same from
/// one step to the next. The counts are the wrapped counter's, so the loop
/// gives exactly the answers it gives without it.
struct Remembering<'a> {
    inner: &'a dyn MessageCounter,
    seen: std::sync::Mutex<std::collections::HashMap<String, formatscope::tokens::Cost>>,
}

impl MessageCounter for Remembering<'_> {
    fn base(&self) -> i64 {
        self.inner.base()
    }
    fn message(
        &self,
        message: &Value,
    ) -> Result<formatscope::tokens::Cost, formatscope::py::PyErr> {
        let key = message.to_string();
        if let Some(c) = self.seen.lock().expect("lock").get(&key) {
            return Ok(*c);
        }
        let cost = self.inner.message(message)?;
        self.seen.lock().expect("lock").insert(key, cost);
        Ok(cost)
    }
    fn splits_after_newline(&self, first: char) -> bool {
        self.inner.splits_after_newline(first)
    }
}

/// Turns whose tool calls all get their result (a dangling call stops
/// truncation early, so long sessions would test only that).
fn answered_turn() -> impl Strategy<Value = Turn> {
    turn().prop_map(|t| match t {
        Turn::Call { id, .. } => Turn::Call {
            id,
            result_after: Some(id % 3),
        },
        Turn::OrphanResult { id } => Turn::Call {
            id,
            result_after: Some(0),
        },
        say => say,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::only(6), failure_persistence: None, ..ProptestConfig::default() })]

    /// Past 256 units the costs are counted on several threads: the three
    /// ways a plan is asked for (`format --max-tokens`, `truncate` and the
    /// workbench's budget model) and AgentScope's loop agree there too, on
    /// sessions of up to 1,500 turns (2,000 messages and more), for every
    /// formatter. The sizes and the share dropped are capped so that the
    /// reference loop, quadratic in what it drops, stays within minutes in
    /// a debug build (with up to 3,000 turns and a twentieth of the tokens,
    /// one run took 13 minutes).
    #[test]
    fn planner_agrees_with_the_reference_loop_on_thousands_of_messages(
        system in prop::option::weighted(0.9, "[A-Za-z .]{1,60}"),
        turns in prop::collection::vec(answered_turn(), 250..1500),
        fraction in 0.25f64..1.0,
        formatter in 0..12usize,
    ) {
        use formatscope::budget::BudgetModel;
        let doc = session_json(system, &turns);
        let c = case(&doc);
        let env = env();
        let id = FormatterId::all().nth(formatter).expect("twelve formatters");
        let reference = OpenAiTokenCounter::new("gpt-4o");
        let agentscope = AgentScopeCounter { counter: &reference, web: &NoNetwork };
        let remembering = Remembering { inner: &agentscope, seen: Default::default() };
        check(&c, id, &remembering, &env, fraction)?;
        // The budget model (`truncate`, the workbench) with AgentScope's
        // counter, against `format --max-tokens`'s plan.
        let options = FormatOptions::default();
        let full = {
            let mut w = c.msgs.clone();
            format_once(id, &options, &mut w, &env).and_then(|f| remembering.count(&f)).unwrap_or(50)
        };
        let max_tokens = ((full as f64 * fraction) as i64).max(1);
        let planned = truncate::plan_reference(id, &options, &c.msgs, &env, &remembering, max_tokens);
        let messages = doc["messages"].as_array().cloned().unwrap_or_default();
        let model = BudgetModel::new(id, options, models::resolve(id.provider, None), messages, None, env);
        let mut model = model.map_err(|e| TestCaseError::fail(format!("{id}: {e:?}")))?;
        model.set_truncation_counter(formatscope::tokens::CounterSpec::default());
        let plan = model.plan(max_tokens);
        match (&planned, &plan) {
            (Ok(p), Ok(b)) if b.error.is_none() => {
                prop_assert_eq!(&p.plan.kept, &b.kept, "{} max={}", id, max_tokens);
                prop_assert_eq!(p.plan.tokens_after, b.tokens_after, "{} max={}", id, max_tokens);
            }
            (Err(p), Ok(b)) => {
                let e = b.error.as_ref();
                prop_assert!(e.is_some_and(|e| same_error(e, p)), "{}: {:?} vs {:?}", id, p, e);
            }
            (Err(p), Err(b)) => prop_assert!(same_error(p, b), "{}: {:?} vs {:?}", id, p, b),
            _ => prop_assert!(false, "{} max={}: format {:?} vs budget model {:?}", id, max_tokens,
                planned.as_ref().map(|p| p.plan.kept.len()), plan.as_ref().map(|p| (p.kept.len(), p.error.clone()))),
        }
    }
}

/// One reshaping of a message list, as the workbench's edits make them.
#[derive(Debug, Clone)]
enum Reshape {
    Delete(usize),
    Duplicate(usize),
    Move(usize, usize),
    Swap(usize, usize),
    Replace(usize, String),
}

fn reshape() -> impl Strategy<Value = Reshape> {
    prop_oneof![
        (0..100usize).prop_map(Reshape::Delete),
        (0..100usize).prop_map(Reshape::Duplicate),
        (0..100usize, 0..100usize).prop_map(|(a, b)| Reshape::Move(a, b)),
        (0..100usize, 0..100usize).prop_map(|(a, b)| Reshape::Swap(a, b)),
        (0..100usize, "[a-z ]{0,20}").prop_map(|(a, t)| Reshape::Replace(a, t)),
    ]
}

fn apply(messages: &mut Vec<Value>, step: &Reshape) {
    let n = messages.len();
    if n == 0 {
        return;
    }
    match step {
        Reshape::Delete(i) => {
            messages.remove(i % n);
        }
        Reshape::Duplicate(i) => {
            let m = messages[i % n].clone();
            messages.insert(i % n, m);
        }
        Reshape::Move(a, b) => {
            let m = messages.remove(a % n);
            messages.insert(b % n, m);
        }
        Reshape::Swap(a, b) => messages.swap(a % n, b % n),
        Reshape::Replace(i, text) => {
            messages[i % n] = json!({"name": "Bob", "role": "user", "content": text});
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::cases(150), ..ProptestConfig::default() })]

    /// The budget model re-reads only the middle of a list that changed
    /// (the messages before the first change and after the last stay
    /// where they are): after any run of deletes, duplicates, moves, swaps
    /// and replacements, its counts, request and plan are a fresh model's.
    #[test]
    fn reshaped_lists_count_as_a_fresh_model(
        turns in prop::collection::vec(turn(), 1..24),
        steps in prop::collection::vec(reshape(), 1..6),
        formatter in 0..12usize,
        budget in 1i64..400,
    ) {
        use formatscope::budget::BudgetModel;
        let doc = session_json(Some("You are Friday.".into()), &turns);
        let mut messages = doc["messages"].as_array().cloned().unwrap_or_default();
        let id = FormatterId::all().nth(formatter).expect("twelve formatters");
        let info = models::resolve(id.provider, None);
        let fresh = |msgs: &[Value]| BudgetModel::new(id, FormatOptions::default(), info.clone(), msgs.to_vec(), None, env());
        let Ok(mut model) = fresh(&messages) else { return Ok(()) };
        model.set_truncation_counter(formatscope::tokens::CounterSpec::default());
        let _ = model.plan(budget);
        for step in &steps {
            apply(&mut messages, step);
            let changed = model.set_messages(&packed(&messages));
            let scratch = fresh(&messages);
            match (changed, scratch) {
                (Ok(()), Ok(mut scratch)) => {
                    prop_assert_eq!(model.report(), scratch.report(), "after {:?}", step);
                    prop_assert_eq!(model.formatted(), scratch.formatted(), "after {:?}", step);
                    scratch.set_truncation_counter(formatscope::tokens::CounterSpec::default());
                    let (a, b) = (model.plan(budget).ok(), scratch.plan(budget).ok());
                    prop_assert_eq!(a.map(|p| (p.kept, p.tokens_after)), b.map(|p| (p.kept, p.tokens_after)), "after {:?}", step);
                }
                (Err(_), Err(_)) => return Ok(()),
                (a, b) => prop_assert!(false, "{}: after {:?}: {:?} vs a fresh model's {:?}", id, step, a.err(), b.err().map(|e| e.to_string())),
            }
        }
    }
}
