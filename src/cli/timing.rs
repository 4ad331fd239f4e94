//! `formatscope timing` (hidden): the core's timings on one session, for
//! scripts/bench-vs-agentscope.py.

use super::{print_json, success, usage_error, Exit};
use clap::Args;
use formatscope::budget::BudgetModel;
use formatscope::formatter::FormatOptions;
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::pipeline;
use formatscope::session::read_session;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Args)]
pub(crate) struct TimingArgs {
    pub(crate) session: PathBuf,
    /// Budget for the truncation timings.
    #[arg(long, value_name = "N")]
    pub(crate) max_tokens: i64,
    /// Runs per figure at least (the median is printed); a figure under a
    /// few milliseconds runs until it has been timed for a quarter of a
    /// second.
    #[arg(long, default_value_t = 5)]
    pub(crate) runs: usize,
}

/// How long a figure is timed at least, in as many runs as that takes
/// ([`MOST_RUNS`] at most): the median of five runs of a figure under a
/// millisecond moved by half from one run of the bench to the next (the
/// machine's noise, which many runs' median rides out).
const TIMED_MS: f64 = 250.0;
const MOST_RUNS: usize = 1000;

/// Median milliseconds of at least `runs` calls (see [`TIMED_MS`]).
fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times = Vec::new();
    let mut total = 0.0;
    while times.len() < runs.max(1) || (total < TIMED_MS && times.len() < MOST_RUNS) {
        let t = std::time::Instant::now();
        f();
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        total += ms;
        times.push(ms);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The message an edit puts in the middle of the session: new text each
/// time, so each edit recounts.
fn edited(edit: usize) -> serde_json::Value {
    serde_json::json!({"name": "Bob", "role": "user", "content": [
        {"type": "text", "text": format!("Edit number {edit}: the library opens at nine.")}
    ]})
}

pub(crate) fn run(args: TimingArgs) -> Exit {
    use formatscope::tokens::{AgentScopeCounter, OpenAiTokenCounter};
    let session = match read_session(&args.session) {
        Ok(s) => s,
        Err(e) => return usage_error(e),
    };
    let Ok(id) = session.formatter() else {
        return usage_error("the session names an unknown provider or mode");
    };
    let Ok(msgs) = pipeline::build_msgs(&session) else {
        return usage_error("a message is not a valid Msg");
    };
    let env = MediaEnv::new(session.base_dir(), Arc::new(NoNetwork));
    let info = formatscope::model_choice::choose_model(&session, id.provider, None).info();
    info.tokenizer.vocab.warm();
    let options = FormatOptions::default();
    let new_model = || {
        BudgetModel::new_after(
            None,
            id,
            options.clone(),
            info.clone(),
            &session.messages,
            session.tools.clone(),
            MediaEnv::new(session.base_dir(), Arc::new(NoNetwork)),
        )
    };
    let Ok(mut model) = new_model() else {
        return usage_error("the session does not format");
    };
    let runs = args.runs;
    let format_ms = median_ms(runs, || {
        let _ = formatscope::formatter::format(id, &options, &msgs, &env, None);
    });
    // AgentScope's own work: its counter over the formatted request.
    let reference = OpenAiTokenCounter::new(pipeline::REFERENCE_TOKEN_MODEL);
    let formatted =
        formatscope::formatter::format(id, &options, &msgs, &env, None).unwrap_or_default();
    let count_request_ms = median_ms(runs, || {
        let _ = reference.count(&formatted, None, &NoNetwork);
    });
    drop(formatted);
    // The workbench's: a budget model from nothing (format, count, and
    // each message's share).
    let count_cold_ms = median_ms(runs, || {
        let _ = new_model().map(|mut m| m.report().total);
    });
    let count_warm_ms = median_ms(runs, || {
        let _ = model.set_messages(&session.messages);
        let _ = model.report().total;
    });
    // An edit that re-cuts the list (a message deleted, then put back), as
    // the workbench's delete and undo do, with the report it shows.
    let middle = msgs.len() / 2;
    let mut shorter: Vec<_> = session.messages.iter().cloned().collect();
    if middle < shorter.len() {
        shorter.remove(middle);
    }
    let mut deleted = false;
    let recount_delete_ms = median_ms(runs, || {
        deleted = !deleted;
        let _ = if deleted {
            model.set_messages(&shorter)
        } else {
            model.set_messages(&session.messages)
        };
        let _ = model.report().total;
    });
    if deleted {
        let _ = model.set_messages(&session.messages);
    }
    let mut edit = 0;
    let recount_ms = median_ms(runs, || {
        edit += 1;
        let _ = model.set_message(middle, edited(edit));
        let _ = model.messages_total();
    });
    let plan_ms = median_ms(runs, || {
        let _ = model.plan(args.max_tokens);
    });
    // The workbench's plan after an edit: counted with the agent's token
    // counter (AgentScope's default, OpenAITokenCounter("gpt-4o")), the
    // last plan's counts reused.
    model.set_truncation_counter(formatscope::tokens::CounterSpec::default());
    let _ = model.plan(args.max_tokens);
    let plan_after_edit_ms = median_ms(runs, || {
        edit += 1;
        let _ = model.set_message(middle, edited(edit));
        let _ = model.plan(args.max_tokens);
    });
    let agentscope = AgentScopeCounter {
        counter: &reference,
        web: &NoNetwork,
    };
    let mut kept = 0;
    let agentscope_truncation_ms = median_ms(runs, || {
        if let Ok(p) = formatscope::truncate::plan_reference(
            id,
            &options,
            &msgs,
            &env,
            &agentscope,
            args.max_tokens,
        ) {
            kept = p.plan.kept.len();
        }
    });
    print_json(&serde_json::json!({
        "messages": msgs.len(),
        "formatter": id.class_name(),
        "max_tokens": args.max_tokens,
        "format_ms": format_ms,
        "count_request_ms": count_request_ms,
        "count_cold_ms": count_cold_ms,
        "count_warm_ms": count_warm_ms,
        "recount_one_edit_ms": recount_ms,
        "recount_delete_ms": recount_delete_ms,
        "plan_ms": plan_ms,
        "plan_after_edit_ms": plan_after_edit_ms,
        "agentscope_truncation_ms": agentscope_truncation_ms,
        "agentscope_truncation_kept": kept,
    }));
    success()
}
