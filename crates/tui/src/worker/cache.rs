//! The prompt-cache line's job: what a provider's cache can reuse of the
//! request since an earlier version of the file (the earlier version is
//! formatted once per text and formatter, not on every keystroke).

use super::*;

/// What a provider's prompt cache can reuse of the request now since an
/// earlier version: the prompt up to its first change
/// ([`formatscope_core::diff::prompt_prefix`], as `formatscope diff` counts it), and
/// the identical prefix of the two wire bodies' bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheLine {
    /// "last save", "before the reload".
    pub against: &'static str,
    pub prompt: formatscope_core::diff::PromptPrefix,
    pub bytes: usize,
    pub of: usize,
    /// The session message the prompt breaks in.
    pub message: Option<usize>,
}

/// An earlier version of the session, formatted.
pub(super) struct Earlier {
    pub(super) request: formatscope_core::formatter::FormattedRequest,
    pub(super) session: formatscope_core::session::Session,
}

/// The prompt-cache line: the prompt now shares with the earlier version,
/// counted as the meter counts the request, and the bodies' byte prefix;
/// `Ok(None)` once `stop()` says so between its steps.
pub(super) fn cache_line(
    job: &Job,
    model: &BudgetModel,
    report: Option<&TokenReport>,
    earlier: &Result<Earlier, String>,
    against: &'static str,
    stop: &dyn Fn() -> bool,
) -> Result<Option<CacheLine>, String> {
    let earlier = earlier
        .as_ref()
        .map_err(|e| format!("the {against} version: {e}"))?;
    let report = report.ok_or("the request is not counted")?;
    let settings = job.settings(job.formatter.provider)?;
    let now = model
        .formatted_with_spans()
        .map_err(|e| format!("{}: {}", e.kind, e.message))?;
    if stop() {
        return Ok(None);
    }
    let provider = job.formatter.provider;
    let body = wire_body(
        job.formatter,
        now.messages.clone(),
        job.tools.as_ref(),
        settings,
    )?;
    let before_settings =
        formatscope_core::model_choice::request_settings(&earlier.session, provider, None)
            .unwrap_or_else(|_| settings.clone());
    let before = wire_body(
        job.formatter,
        earlier.request.messages.clone(),
        earlier.session.tools.as_ref(),
        &before_settings,
    )?;
    if stop() {
        return Ok(None);
    }
    let lb = wire::export::body_bytes(provider, &before);
    if stop() {
        return Ok(None);
    }
    let rb = wire::export::body_bytes(provider, &body);
    if stop() {
        return Ok(None);
    }
    let bytes = formatscope_core::diff::cache_prefix(&lb, &rb);
    let name = |s: &wire::Settings| {
        s.model
            .clone()
            .unwrap_or_else(|| provider.default_model().to_string())
    };
    let (before_model, now_model) = (name(&before_settings), name(settings));
    let prompt = formatscope_core::diff::prompt_prefix(
        &formatscope_core::diff::Version {
            model: &before_model,
            tools: earlier.session.tools.as_ref(),
            messages: &earlier.request.messages,
            spans: &earlier.request.spans,
        },
        &formatscope_core::diff::Version {
            model: &now_model,
            tools: job.tools.as_ref(),
            messages: &now.messages,
            spans: &now.spans,
        },
        report,
    );
    Ok(Some(CacheLine {
        against,
        message: prompt.breaks.as_ref().and_then(|b| b.message()),
        prompt,
        bytes: bytes.bytes,
        of: bytes.of,
    }))
}

impl Computer {
    /// Formats the earlier version once per text and formatter.
    pub(super) fn format_earlier(
        &mut self,
        text: &Arc<String>,
        formatter: FormatterId,
        model: &BudgetModel,
    ) {
        if let Some((t, f, _)) = &self.earlier {
            if Arc::ptr_eq(t, text) && *f == formatter {
                return;
            }
        }
        let earlier = formatscope_core::session::parse_session(text, "the earlier version")
            .map_err(|e| e.to_string())
            .and_then(|session| {
                let msgs = formatscope_core::pipeline::build_msgs(&session)
                    .map_err(|e| format!("{}: {}", e.kind, e.message))?;
                let keys = formatscope_core::formatter::message_keys(&session.messages);
                formatscope_core::budget::formatted_with_spans(
                    formatter,
                    &FormatOptions::default(),
                    &msgs,
                    &keys,
                    model.env(),
                )
                .map(|request| Earlier { request, session })
                .map_err(|e| format!("{}: {}", e.kind, e.message))
            });
        self.earlier = Some((Arc::clone(text), formatter, earlier));
    }
}
