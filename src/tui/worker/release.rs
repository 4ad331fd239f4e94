//! Another AgentScope release's job (`V`, and the releases pair of the
//! compare view): the session formatted through `crate::reference`, with
//! what the release cannot hold listed.

use super::*;

/// The request under another AgentScope release (`V`): which, for which
/// of its providers, and in which of its modes.
#[derive(Clone, Copy)]
pub struct ReleaseJob {
    pub release: &'static dyn Reference,
    pub family: &'static Family,
    pub mode: crate::reference::Mode,
}

impl std::fmt::Debug for ReleaseJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ReleaseJob({} {} {:?})",
            self.release.version(),
            self.family.id,
            self.mode
        )
    }
}

/// What the panes say of a request another release formats.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleaseInfo {
    /// "AgentScope 0.1.6".
    pub title: String,
    /// `OpenAIFormatter.format_auto`.
    pub call: String,
    /// The mode an automatic call took.
    pub branch: Option<&'static str>,
    /// What the release's message model cannot hold of this session.
    pub lost: Vec<String>,
    /// Why it has no count or truncation.
    pub no_budget: Option<&'static str>,
    /// The release's own estimate of the request's tokens (2.x: bytes/4).
    pub estimate: Option<u64>,
    /// The request it formatted, counted with the provider's tokenizer
    /// (`ProviderCounter`, as the default release's meter counts), and
    /// what counted it.
    pub counted: Option<(Result<i64, String>, String)>,
}

/// The session as another release formats it, with the job's media
/// access and no network.
pub(super) fn release_format(
    job: &Job,
    messages: &[PackedMessage],
    release: &dyn Reference,
    family: &Family,
    mode: crate::reference::Mode,
) -> crate::reference::Formatted {
    let session = crate::session::Session {
        path: None,
        shape: crate::session::InputShape::Session,
        messages: messages.to_vec().into(),
        tools: job.tools.clone(),
        settings: (*job.session_settings).clone(),
        warnings: Vec::new(),
    };
    let env = MediaEnv::with_gate(job.gate(), Arc::new(NoNetwork));
    release.format(&session, family, mode, &env)
}

/// The release's request counted with the provider's tokenizer, as the
/// default release's budget pane counts its own.
fn provider_count(job: &Job, messages: &[Value]) -> (Result<i64, String>, String) {
    use crate::tokens::MessageCounter;
    let counter = crate::tokens::ProviderCounter::new(job.model.clone(), Some(job.gate()));
    (
        counter
            .count(messages)
            .map_err(|e| format!("{}: {}", e.kind, e.message)),
        job.model.label(),
    )
}

/// The session formatted by another release (`V`): what its message model
/// cannot hold listed first, and, when it neither counts nor truncates,
/// no count and no plan.
pub(super) fn release_preview(job: &Job, r: ReleaseJob, mut preview: Preview) -> Preview {
    let out = release_format(job, &job.messages, r.release, r.family, r.mode);
    let title = r.release.title();
    let mut lines = Lines::new();
    lines.push(&format!(
        "// {title} · {}{}",
        out.call,
        out.branch.map(|b| format!(" → {b}")).unwrap_or_default()
    ));
    lines.extend(
        out.lost
            .iter()
            .map(|w| format!("// {} cannot hold {w}: left out", r.release.version())),
    );
    match (&out.messages, job.shown, &out.body) {
        // The wire view (v): the body the release's model class sends,
        // byte for byte, then the same indented.
        (Ok(_), Shown::Wire, Some(body)) => {
            lines.push(&format!(
                "// the body to {}, exactly as sent:",
                body.endpoint
            ));
            lines.push(&body.text);
            lines.push("");
            lines.push("// the same, indented:");
            let parsed: Value = serde_json::from_str(&body.text).unwrap_or(Value::Null);
            let parsed = if job.raw_media {
                parsed
            } else {
                shorten_media(&parsed)
            };
            for line in serde_json::to_string_pretty(&parsed)
                .unwrap_or_default()
                .lines()
            {
                lines.push(line);
            }
        }
        (Ok(m), shown, _) => {
            if shown == Shown::Wire {
                lines.push(&format!(
                    "// formatscope writes {}'s wire body for 1.0.21 and Java only: the formatter's messages",
                    r.release.title()
                ));
            }
            let refs: Vec<&Value> = m.iter().collect();
            let (plain, _, _) = pretty_with_spans(&refs, &[], job.raw_media);
            lines.extend(plain.iter());
        }
        (Err(e), _, _) => preview.error = Some(format!("{title} raises {}: {}", e.kind, e.message)),
    }
    // Lint speaks for 1.0.21 and what 2.x or Java send otherwise; of
    // another release it has nothing to say.
    let speaks = crate::lint::upgrades_to(r.release) || crate::lint::is_port(r.release);
    if let Some((session, text)) = job.lint.as_ref().filter(|_| speaks) {
        let env = MediaEnv::with_gate(job.gate(), Arc::new(NoNetwork));
        preview.lint = Some(super::lint_findings(job, session, text, &env));
    }
    // The tools view (t): the release's schemas and tool choice, when it
    // formats them; else none (1.0.21's would be another release's).
    if let Some(tools) = &out.tools {
        let plain: Vec<String> = serde_json::to_string_pretty(tools)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect();
        preview.tool_lines = super::highlight_json(&plain, &job.syntax);
        preview.tool_plain = plain.into();
    }
    preview.chunks = chunks_of(lines.len());
    preview.plain = Arc::new(lines);
    preview.release = Some(ReleaseInfo {
        title,
        call: out.call,
        branch: out.branch,
        lost: out.lost,
        no_budget: r.release.no_budget(),
        estimate: out.estimate,
        counted: out.messages.as_ref().ok().map(|m| match r.family.provider {
            // The job's model is the formatter's provider's, which a
            // release's provider of 1.0.21 is.
            Some(_) => provider_count(job, m),
            None => (
                Err(format!("formatscope has no {} tokenizer", r.family.title)),
                String::new(),
            ),
        }),
    });
    preview
}

/// The compare view's side of another release: the same provider, chat or
/// multi-agent as on screen; messages face their source where the release
/// says which.
pub(super) fn release_side(
    job: &Job,
    messages: &[PackedMessage],
    spec: SideSpec,
    index: usize,
) -> crate::compare::Side {
    let release = crate::reference::ALL[index % crate::reference::ALL.len()];
    let label = spec.label();
    let out = release_format(
        job,
        messages,
        release,
        &Family::of(spec.formatter.provider),
        spec.formatter.mode.into(),
    );
    let out_messages = match out.messages {
        Ok(m) => m,
        Err(e) => {
            return crate::compare::Side::failed(
                label,
                format!("{} raises {}: {}", release.title(), e.kind, e.message),
            )
        }
    };
    let out_messages: Vec<Value> = if job.raw_media {
        out_messages
    } else {
        out_messages.iter().map(shorten_media).collect()
    };
    let mut side = crate::compare::Side::formatted(label, out_messages, &out.spans);
    if !out.lost.is_empty() {
        side.note = Some(format!(
            "{} cannot hold {}",
            release.version(),
            out.lost.join("; ")
        ));
    }
    side
}
