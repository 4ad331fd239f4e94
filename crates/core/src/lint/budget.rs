//! Budget findings: the request against the model's context window, and
//! what AgentScope's truncation would do at the session's `max_tokens`.

use super::{Input, Sink};
use crate::budget::BudgetModel;
use crate::provider::FormatterId;
use crate::tokens::CounterSpec;
use serde_json::Value;

pub(super) fn checks(id: FormatterId, input: &Input<'_>, sink: &mut Sink<'_>) {
    let session = input.session;
    let model = crate::model_choice::choose_model(session, id.provider, None).info();
    let Ok(mut budget) = BudgetModel::new(
        id,
        super::options(),
        model.clone(),
        session.messages.iter().cloned(),
        session.tools.clone(),
        input.env.another_run(),
    ) else {
        // The formatting error is reported by agentscope.raises.
        return;
    };
    let report = budget.report();
    if report.total > model.context_window as i64 {
        sink.add(
            "budget.context-window",
            (None, None),
            Some(id),
            format!(
                "{}{} tokens for {} with a context window of {}",
                if report.exact { "" } else { "≈" },
                report.total,
                model.label(),
                model.context_window
            ),
        );
    }
    let Some(max) = session.max_tokens().filter(|m| *m > 0) else {
        return;
    };
    if let Some(spec) = session.token_counter() {
        match CounterSpec::parse(spec) {
            Ok(c) => budget.set_truncation_counter(c),
            Err(_) => return,
        }
    }
    let Ok(plan) = budget.plan(max) else {
        return;
    };
    if let Some(reason) = plan.reason() {
        sink.add(
            "budget.does-not-fit",
            (None, None),
            Some(id),
            format!("max_tokens {max}: {reason}"),
        );
        return;
    }
    if !plan.dropped.is_empty() {
        sink.add(
            "budget.truncation-drops",
            (plan.dropped.first().copied(), None),
            Some(id),
            format!(
                "max_tokens {max} ({}): AgentScope drops {} of {} messages ({})",
                budget.truncation_label(),
                plan.dropped.len(),
                plan.dropped.len() + plan.kept.len(),
                numbers(&plan.dropped)
            ),
        );
    }
    // A kept tool result whose call was dropped.
    let ids = |i: usize, kind: &str| -> Vec<String> {
        input
            .messages()
            .get(i)
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some(kind))
                    .filter_map(|b| b.get("id").map(crate::py::py_str))
                    .collect()
            })
            .unwrap_or_default()
    };
    // A set: looking each result up in a list was quadratic.
    let dropped_calls: std::collections::HashSet<String> = plan
        .dropped
        .iter()
        .flat_map(|&i| ids(i, "tool_use"))
        .collect();
    for &i in &plan.kept {
        for id_ in ids(i, "tool_result") {
            if dropped_calls.contains(&id_) {
                sink.add(
                    "budget.truncation-orphans-tool-result",
                    (Some(i), None),
                    Some(id),
                    format!("truncation keeps tool result {id_:?} and drops its call"),
                );
            }
        }
    }
}

/// How many message numbers a finding lists before it counts the rest.
const NUMBERS_SHOWN: usize = 3;

/// `#1, #2, #3` for a few messages; `#1, #2, #3 … and 91,650 more` for
/// many (a finding listed every one of 91,668 on one line).
fn numbers(list: &[usize]) -> String {
    let shown = if list.len() <= NUMBERS_SHOWN + 2 {
        list.len()
    } else {
        NUMBERS_SHOWN
    };
    let mut out = list[..shown]
        .iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    if shown < list.len() {
        out.push_str(&format!(
            " … and {} more",
            crate::text::thousands((list.len() - shown) as u64)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_lists_of_messages_are_summarised() {
        assert_eq!(super::numbers(&[1, 2]), "#1, #2");
        assert_eq!(super::numbers(&[1, 2, 3, 4, 5]), "#1, #2, #3, #4, #5");
        let many: Vec<usize> = (1..=91_668).collect();
        assert_eq!(super::numbers(&many), "#1, #2, #3 … and 91,665 more");
    }
}
