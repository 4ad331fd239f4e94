//! `formatscope count`: the request's tokens with the provider's tokenizer,
//! by message and by category (and, with `--remote`, the provider's own),
//! and what those input tokens cost at the price table's rates.

use super::target::{budget_model, mark, TargetArgs};
use super::{print_json, report_access, safe, success, Exit};
use clap::Args;
use formatscope::text::{count_of, thousands, thousands_signed};
use formatscope::tokens::cost::{self, Price};

#[derive(Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,

    /// Also ask the provider to count the request (Anthropic's and Gemini's
    /// token-counting endpoints; the key from ANTHROPIC_API_KEY,
    /// GEMINI_API_KEY or GOOGLE_API_KEY): an exact count where ours is an
    /// estimate.
    #[arg(long)]
    pub(crate) remote: bool,
}

pub(crate) fn count(args: CountArgs) -> Exit {
    let mut model = match budget_model(&args.target, None) {
        Ok(m) => m,
        Err(code) => return Ok(code),
    };
    let report = model.report();
    report_access(model.gate());
    let prices = match cost::load() {
        Ok(t) => t,
        Err(e) => return super::usage_error(format!("price file: {e}")),
    };
    let price = prices.price_for(report.formatter.provider, &report.model.model);
    let input_tokens = u64::try_from(report.total).unwrap_or(0);
    let remote = if args.remote {
        match super::send::remote_count(&args.target, report.formatter.provider)? {
            Ok(n) => Some(n),
            Err(code) => return Ok(code),
        }
    } else {
        None
    };
    if args.target.json {
        let mut out = report.to_json();
        if let Some(obj) = out.as_object_mut() {
            match &price {
                Some(p) => {
                    obj.insert("cost".into(), cost_json(p, input_tokens, &prices.source));
                }
                None => {
                    obj.insert("cost".into(), serde_json::Value::Null);
                    obj.insert("price".into(), "unknown".into());
                }
            }
        }
        if let (Some(n), Some(obj)) = (remote, out.as_object_mut()) {
            obj.insert(
                "remote".into(),
                serde_json::json!({"input_tokens": n, "exact": true}),
            );
        }
        print_json(&out);
        return success();
    }
    if let Some(n) = remote {
        outln!(
            "{}'s own count: {} (exact; ours {}{})",
            report.formatter.provider,
            count_of(
                i64::try_from(n).unwrap_or(i64::MAX),
                "input token",
                "input tokens"
            ),
            mark(report.exact),
            thousands_signed(report.total)
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
        "total {}{} = messages {} + tool schemas {}; context window {}\n",
        mark(report.exact),
        count_of(report.total, "token", "tokens"),
        thousands_signed(report.messages_total),
        thousands_signed(report.tool_schemas),
        thousands(m.context_window)
    ));
    out.push_str(&cost_line(
        price.as_ref(),
        input_tokens,
        report.exact,
        &prices.source,
    ));
    for (cat, exact) in &report.exact_categories {
        out.push_str(&format!(
            "  {:<14} {:>10}{}\n",
            cat.label(),
            thousands_signed(report.by_category.get(*cat)),
            mark(*exact || report.by_category.get(*cat) == 0)
        ));
    }
    // A zero is exact: no `≈0`.
    out.push_str(&format!(
        "  {:<14} {:>10}{}\n",
        "tool schemas",
        thousands_signed(report.tool_schemas),
        mark(report.tool_schemas_exact || report.tool_schemas == 0)
    ));
    out.push_str("messages:\n");
    for msg in &report.messages {
        out.push_str(&format!(
            "  #{:<4} {:<12} {:<10} {:>9}{}\n",
            msg.index,
            safe(report.name(msg)),
            safe(msg.role.as_str()),
            thousands_signed(msg.tokens),
            if msg.shared {
                " (share of its <history> group)"
            } else {
                ""
            }
        ));
    }
    out!("{out}");
    success()
}

/// Dollars with enough places for a single request.
fn usd(x: f64) -> String {
    format!("${x:.6}")
}

/// The line under the total: the input cost, or that the price is unknown.
fn cost_line(price: Option<&Price>, tokens: u64, exact: bool, source: &cost::Source) -> String {
    let Some(p) = price else {
        return "cost unknown (no price for this model in the price table)\n".to_string();
    };
    let from = if p.date == source.date {
        format!("{} {} prices of {}", source.name, source.version, p.date)
    } else {
        format!("prices of {}", safe(&p.date))
    };
    format!(
        "cost {}{} input ({} x ${}/M; {from})\n",
        mark(exact),
        usd(p.cost(tokens, 0, 0).total()),
        count_of(i64::try_from(tokens).unwrap_or(i64::MAX), "token", "tokens"),
        p.input
    )
}

/// The `cost` object of `count --json`.
fn cost_json(p: &Price, tokens: u64, source: &cost::Source) -> serde_json::Value {
    let mut src = serde_json::json!({"date": p.date});
    if p.date == source.date {
        src["name"] = source.name.clone().into();
        src["version"] = source.version.clone().into();
    }
    serde_json::json!({
        "usd": p.cost(tokens, 0, 0).total(),
        "input_tokens": tokens,
        "per_million": {
            "input": p.input,
            "cached_input": p.cached_input,
            "output": p.output,
        },
        "source": src,
    })
}
