//! The explain job (`w`, as `formatscope explain`): the rule behind each line of the request view, and
//! the rules that fired.

use super::*;

/// The rule behind each line of the request view (`w`), and the rules
/// that fired for the request.
#[derive(Debug, Clone, Default)]
pub struct Explanation {
    /// Per line of `Preview::plain`: the rule of the node the line opens.
    pub line_rules: Vec<Option<&'static str>>,
    /// The source message of that node, per line.
    pub line_sources: Vec<Option<usize>>,
    pub fired: Vec<(&'static formatscope_core::explain::Rule, Vec<usize>)>,
    /// Explanation there is nothing to show (a view without nodes).
    pub note: Option<String>,
}

/// The rules behind the request view's lines: the view laid out again with
/// the pointer of each line, matched to the attribution of its nodes.
pub(super) fn explain(job: &Job, model: &BudgetModel, lines: usize) -> Explanation {
    use formatscope_core::compare::pretty;
    use formatscope_core::explain;
    let request = match model.formatted_with_spans() {
        Ok(r) => r,
        Err(e) => {
            return Explanation {
                note: Some(format!("{}: {}", e.kind, e.message)),
                ..Explanation::default()
            }
        }
    };
    let plain = model.explain_formatted(&request);
    let (pointers, explained): (Vec<String>, explain::Explained) = match job.shown {
        Shown::Messages => {
            let mut out = vec![(String::new(), String::new())];
            let n = request.messages.len();
            for (k, m) in request.messages.iter().enumerate() {
                let m = if job.raw_media {
                    m.clone()
                } else {
                    shorten_media(m)
                };
                pretty(&m, None, &format!("/{k}"), 1, k + 1 < n, &mut out);
            }
            out.push((String::new(), String::new()));
            (out.into_iter().map(|(_, p)| p).collect(), plain)
        }
        Shown::Wire => {
            let Ok(settings) = job.settings(job.formatter.provider) else {
                return Explanation::default();
            };
            let built = wire::build(
                job.formatter,
                request.messages.clone(),
                job.tools.as_ref(),
                settings,
                &mut |_| {},
            );
            let Ok(w) = built else {
                return Explanation::default();
            };
            if w.sdk_error.is_some() {
                return Explanation::default();
            }
            let explained = explain::wire(job.formatter, &w.body, &request, &plain);
            let body = if job.raw_media {
                w.body.clone()
            } else {
                shorten_media(&w.body)
            };
            let value = formatscope_core::json!({"method": w.method, "url": w.url, "headers": w.headers, "body": body});
            let mut out = Vec::new();
            pretty(&value, None, "", 0, false, &mut out);
            // The view's comment lines come first.
            let mut pointers = vec![String::from("-"); lines.saturating_sub(out.len())];
            pointers.extend(out.into_iter().map(|(_, p)| {
                p.strip_prefix("/body")
                    .map_or_else(|| "-".to_string(), str::to_string)
            }));
            (pointers, explained)
        }
        _ => {
            return Explanation {
                fired: plain.fired(),
                note: Some(
                    "the rules beside the lines are shown in the messages and wire views (v)"
                        .into(),
                ),
                ..Explanation::default()
            }
        }
    };
    let mut line_rules = Vec::with_capacity(pointers.len());
    let mut line_sources = Vec::with_capacity(pointers.len());
    let mut seen = std::collections::HashSet::new();
    for p in &pointers {
        // A node's rule is written on the line that opens it.
        let node = seen
            .insert(p.as_str())
            .then(|| explained.direct(p))
            .flatten();
        line_rules.push(node.map(|n| n.rule));
        line_sources.push(node.and_then(|n| n.messages.as_ref().map(|m| m.start)));
    }
    Explanation {
        line_rules,
        line_sources,
        fired: explained.fired(),
        note: None,
    }
}
