//! Budget findings: the request against the model's context window, and
//! what AgentScope's truncation would do at the session's `max_tokens`.

use super::{Input, Sink};
use crate::budget::BudgetModel;
use crate::formatter::FormatterId;
use crate::tokens::CounterSpec;
use serde_json::Value;

pub(super) fn checks(id: FormatterId, input: &Input<'_>, sink: &mut Sink<'_>) {
    let session = input.session;
    let model = crate::model_choice::choose_model(session, id.provider, None).info();
    let Ok(mut budget) = BudgetModel::new(
        id,
        super::options(),
        model.clone(),
        session.messages.clone(),
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
                plan.dropped
                    .iter()
                    .map(|i| format!("#{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
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
    let dropped_calls: Vec<String> = plan
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
