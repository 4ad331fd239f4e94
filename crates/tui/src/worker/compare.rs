//! The compare view's job: the two sides (`c`), each a view of the
//! request formatted by the budget model, and the messages faced by
//! identity for the last save / now pair.

use super::*;

/// What one side of the compare view (`c`) shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideView {
    /// The formatter's messages.
    Messages,
    /// The wire body the SDK sends.
    Wire,
    /// The formatter's messages for what the truncation plan keeps.
    Truncated,
    /// The formatter's messages for the session as last saved.
    Saved,
    /// Another AgentScope release's formatter for the provider, chat or
    /// multi-agent as on screen: its index in `reference::ALL`.
    Release(usize),
    /// The formatted messages AgentScope recorded in its trace, for a
    /// session `listen` wrote.
    Recorded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideSpec {
    pub formatter: FormatterId,
    pub view: SideView,
}

impl SideSpec {
    pub fn label(&self) -> String {
        let what = match self.view {
            SideView::Messages => "",
            SideView::Wire => " · wire",
            SideView::Truncated => " · after truncation",
            SideView::Saved => " · at last save",
            SideView::Recorded => return "AgentScope recorded".into(),
            SideView::Release(i) => {
                let release =
                    formatscope_core::reference::ALL[i % formatscope_core::reference::ALL.len()];
                return format!(
                    "{} {}",
                    release.version(),
                    release.call(
                        &formatscope_core::reference::Family::of(self.formatter.provider),
                        self.formatter.mode.into(),
                    )
                );
            }
        };
        format!("{}{what}", self.formatter.class_name())
    }
}

/// Who each message is, for the compare view's last save / now pair.
pub(super) fn identities(
    messages: impl Iterator<Item = Value>,
) -> Vec<formatscope_core::compare::Identity> {
    messages
        .map(|m| formatscope_core::compare::Identity::of(&m))
        .collect()
}

/// One side of the compare view.
pub(super) fn compare_side(
    job: &Job,
    model: &BudgetModel,
    plan: Option<&Result<TruncationPlan, String>>,
    earlier: Option<&Result<Earlier, String>>,
    spec: SideSpec,
) -> formatscope_core::compare::Side {
    use formatscope_core::compare::Side;
    let label = spec.label();
    let shorten = |v: Vec<Value>| -> Vec<Value> {
        if job.raw_media {
            v
        } else {
            v.iter().map(shorten_media).collect()
        }
    };
    let formatted = match spec.view {
        SideView::Messages | SideView::Wire => model.formatted_by(spec.formatter, None),
        SideView::Truncated => match plan {
            None => {
                return Side::failed(
                    label,
                    "no budget: set max_tokens (s) to see what truncation keeps",
                )
            }
            Some(Err(e)) => {
                return Side::failed(label, format!("the truncation cannot be planned: {e}"))
            }
            Some(Ok(plan)) => match plan.reason() {
                Some(reason) => {
                    return Side::failed(
                        label,
                        format!("AgentScope cannot fit the request: {reason}"),
                    )
                }
                None => model.formatted_by(spec.formatter, Some(&plan.kept)),
            },
        },
        SideView::Release(_) => unreachable!("release_side formats another release's side"),
        SideView::Recorded => {
            let recorded = job
                .session_settings
                .get("listen")
                .and_then(|l| l.get("recorded_messages"))
                .and_then(Value::as_array);
            return match recorded {
                Some(messages) => Side::formatted(label, shorten(messages.clone()), &[]),
                None => Side::failed(
                    label,
                    "nothing recorded: only a 1.0.21 call `formatscope listen` wrote holds what AgentScope formatted",
                ),
            };
        }
        SideView::Saved => match earlier {
            None => return Side::failed(label, "no earlier version"),
            Some(Err(e)) => return Side::failed(label, e.clone()),
            Some(Ok(e)) if spec.formatter == job.formatter => Ok(e.request.clone()),
            Some(Ok(_)) => {
                return Side::failed(
                    label,
                    "the earlier version is formatted for the provider on screen only",
                )
            }
        },
    };
    let request = match formatted {
        Ok(r) => r,
        Err(e) => {
            return Side::failed(
                label,
                format!("AgentScope raises {}: {}", e.kind, e.message),
            )
        }
    };
    if spec.view != SideView::Wire {
        return Side::formatted(label, shorten(request.messages), &request.spans);
    }
    let settings = match job.settings(spec.formatter.provider) {
        Ok(s) => s.clone(),
        Err(e) => return Side::failed(label, format!("the session's \"request\" object: {e}")),
    };
    match wire_body(
        spec.formatter,
        request.messages.clone(),
        job.tools.as_ref(),
        &settings,
    ) {
        Ok(body) => {
            let body = if job.raw_media {
                body
            } else {
                shorten_media(&body)
            };
            Side::wire(label, body, &shorten(request.messages), &request.spans)
        }
        Err(e) => Side::failed(label, e),
    }
}
