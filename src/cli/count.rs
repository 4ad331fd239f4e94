//! `formatscope count`: the request's tokens with the provider's tokenizer,
//! by message and by category (and, with `--remote`, the provider's own).

use super::target::{budget_model, mark, TargetArgs};
use super::{print_json, report_access, safe};
use clap::Args;

#[derive(Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// Also ask the provider to count the request (Anthropic's and Gemini's
    /// token-counting endpoints; the key from ANTHROPIC_API_KEY,
    /// GEMINI_API_KEY or GOOGLE_API_KEY): an exact count where ours is an
    /// estimate.
    #[cfg(feature = "net")]
    #[arg(long)]
    pub(crate) remote: bool,
}

pub(crate) fn count(args: CountArgs) -> i32 {
    let mut model = match budget_model(&args.target, None) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let report = model.report();
    report_access(model.gate());
    #[cfg(feature = "net")]
    let remote = if args.remote {
        match super::send::remote_count(&args.target, report.formatter.provider) {
            Ok(n) => Some(n),
            Err(code) => return code,
        }
    } else {
        None
    };
    #[cfg(not(feature = "net"))]
    let remote: Option<u64> = None;
    if args.target.json {
        let mut out = report.to_json();
        if let (Some(n), Some(obj)) = (remote, out.as_object_mut()) {
            obj.insert(
                "remote".into(),
                serde_json::json!({"input_tokens": n, "exact": true}),
            );
        }
        print_json(&out);
        return 0;
    }
    if let Some(n) = remote {
        outln!(
            "{}'s own count: {n} input tokens (exact; ours {}{})",
            report.formatter.provider,
            mark(report.exact),
            report.total
        );
    }
    let mut out = String::new();
    let m = &report.model;
    out.push_str(&format!(
        "{} · {} · tokenizer {}{}\n",
        report.formatter,
        safe(&m.label()),
        m.tokenizer.describe(),
        if report.exact { " (exact)" } else { "" }
    ));
    if let Some(note) = &m.note {
        out.push_str(&format!("note: {}\n", safe(note)));
    }
    out.push_str(&format!(
        "total {}{} tokens = messages {} + tool schemas {}; context window {}\n",
        mark(report.exact),
        report.total,
        report.messages_total,
        report.tool_schemas,
        m.context_window
    ));
    for (cat, exact) in &report.exact_categories {
        out.push_str(&format!(
            "  {:<14} {:>8}{}\n",
            cat.label(),
            report.by_category.get(*cat),
            mark(*exact || report.by_category.get(*cat) == 0)
        ));
    }
    out.push_str(&format!(
        "  {:<14} {:>8}{}\n",
        "tool schemas",
        report.tool_schemas,
        mark(report.tool_schemas_exact)
    ));
    out.push_str("messages:\n");
    for msg in &report.messages {
        out.push_str(&format!(
            "  #{:<4} {:<12} {:<10} {:>7}{}\n",
            msg.index,
            safe(&msg.name),
            safe(msg.role),
            msg.tokens,
            if msg.shared {
                " (share of its <history> group)"
            } else {
                ""
            }
        ));
    }
    out!("{out}");
    0
}
