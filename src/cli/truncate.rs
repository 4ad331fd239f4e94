//! `formatscope truncate`: what AgentScope's FIFO truncation drops at a
//! budget, planned with the counter the agent truncates with.

use super::target::{budget_model, TargetArgs};
use super::{failure, print_json, report_access, safe, say, success, usage_error, Exit};
use clap::Args;
use formatscope::text::{count_of, thousands, thousands_signed};

#[derive(Args)]
pub(crate) struct TruncateArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// The budget, in tokens of the formatted messages (tool schemas are not
    /// part of it, as in AgentScope).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(crate) max_tokens: i64,

    /// What truncation counts with, as the agent's `token_counter` (not
    /// the provider's tokenizer unless asked: AgentScope truncates with the
    /// agent's counter): openai[:MODEL] (AgentScope's OpenAITokenCounter,
    /// tiktoken with OpenAI's formula; default gpt-4o), char
    /// (CharTokenCounter), huggingface:qwen or huggingface:deepseek
    /// (HuggingFaceTokenCounter with a tokenizer we ship), or provider
    /// (formatscope's count with the provider's tokenizer, as `count`; no
    /// AgentScope counter, an estimate where `count` says so). Default:
    /// the session's `token_counter`, else openai:gpt-4o, whatever the
    /// provider.
    #[arg(long, value_name = "SPEC")]
    pub(crate) token_counter: Option<String>,
}

pub(crate) fn truncate(args: TruncateArgs) -> Exit {
    if args.max_tokens <= 0 {
        return usage_error(format!(
            "--max-tokens must be a positive number of tokens, not {}",
            args.max_tokens
        ));
    }
    let mut model = match budget_model(&args.target, args.token_counter.as_deref()) {
        Ok(m) => m,
        Err(code) => return Ok(code),
    };
    let plan = match model.plan(args.max_tokens) {
        Ok(p) => p,
        Err(e) => {
            say(format!("error: {}: {}", e.kind, e.message));
            return failure();
        }
    };
    report_access(model.gate());
    let info = &model.counter().info;
    if args.target.json {
        let mut out = serde_json::json!({
            "formatter": model.formatter.class_name(),
            "provider": info.provider.id(),
            "model": info.model,
            "tokenizer": info.tokenizer.describe(),
            "exact": model.counter().exact(Some(formatscope::tokens::Category::Conversation)),
            "token_counter": model.truncation_counter().id(),
            "counted_with": model.truncation_label(),
            "counter_exact": model.truncation_counter().exact(
                model.counter().exact(Some(formatscope::tokens::Category::Conversation))
            ),
            "max_tokens": plan.max_tokens,
            "tokens_before": plan.tokens_before,
            "tokens_after": plan.tokens_after,
            "fits": plan.fits(),
            "kept": plan.kept,
            "dropped": plan.dropped,
            "steps": plan.steps,
        });
        if let Some(e) = &plan.error {
            out["error"] = serde_json::json!(e.message);
            out["error_type"] = serde_json::json!(e.kind);
            out["reason"] = serde_json::json!(plan.reason());
        }
        print_json(&out);
    } else {
        outln!(
            "{} · {} · truncation counted with {}",
            model.formatter,
            safe(&info.model),
            model.truncation_label()
        );
        match (&plan.error, plan.tokens_after) {
            (None, Some(after)) if plan.dropped.is_empty() => outln!(
                "fits: {} of {}; nothing dropped",
                count_of(after, "token", "tokens"),
                thousands_signed(plan.max_tokens)
            ),
            (None, Some(after)) => outln!(
                "drops {} of {} messages (#{}..#{}) in {}: {} -> {} of {}",
                thousands(plan.dropped.len() as u64),
                thousands((plan.kept.len() + plan.dropped.len()) as u64),
                plan.dropped.first().copied().unwrap_or_default(),
                plan.dropped.last().copied().unwrap_or_default(),
                count_of(plan.steps as i64, "step", "steps"),
                thousands_signed(plan.tokens_before),
                count_of(after, "token", "tokens"),
                thousands_signed(plan.max_tokens)
            ),
            _ => outln!(
                "cannot fit: {} ({} before)",
                safe(&plan.reason().unwrap_or_default()),
                count_of(plan.tokens_before, "token", "tokens")
            ),
        }
    }
    if plan.fits() {
        success()
    } else {
        failure()
    }
}
