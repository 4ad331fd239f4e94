//! Another AgentScope release's job (`V`, and the releases pair of the
//! compare view): the session formatted through `formatscope_core::reference`, with
//! what the release cannot hold listed.

use super::*;

/// The request under another AgentScope release (`V`): which, for which
/// of its providers, and in which of its modes.
#[derive(Clone, Copy)]
pub struct ReleaseJob {
    pub release: &'static dyn Reference,
    pub family: &'static Family,
    pub mode: formatscope_core::reference::Mode,
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
    mode: formatscope_core::reference::Mode,
) -> formatscope_core::reference::Formatted {
    let session = formatscope_core::session::Session {
        path: None,
        shape: formatscope_core::session::InputShape::Session,
        messages: messages.to_vec().into(),
        tools: job.tools.clone(),
        settings: (*job.session_settings).clone(),
        warnings: Vec::new(),
    };
    let env = MediaEnv::with_gate(job.gate(), Arc::new(NoNetwork));
    release.format(&session, family, mode, &env)
}

/// The request the release's model class sends for the session on
/// screen (`Reference::request`, as `formatscope request --agentscope`
/// builds it), as the wire view's lines: the SDK call, what stopped it or
/// the method, URL, headers and body, the body's bytes as sent last.
/// `Err`: why the release has no wire here.
pub(super) fn release_wire(job: &Job, r: ReleaseJob) -> Result<Vec<String>, String> {
    let session = formatscope_core::session::Session {
        path: None,
        shape: formatscope_core::session::InputShape::Session,
        messages: job.messages.to_vec().into(),
        tools: job.tools.clone(),
        settings: (*job.session_settings).clone(),
        warnings: Vec::new(),
    };
    let settings = wire::Settings::from_request(job.session_settings.get("request"))
        .map_err(|e| format!("the session's \"request\" object: {e}"))?
        .or_session_model(job.session_settings.get("model").and_then(Value::as_str));
    let env = MediaEnv::with_gate(job.gate(), Arc::new(NoNetwork));
    let ask = formatscope_core::reference::WireAsk {
        session: &session,
        family: r.family,
        mode: r.mode,
        class: None,
        settings: &settings,
        tool_choice_tools: None,
        input_types: None,
        history_prompt: None,
        endpoint: None,
        env: &env,
    };
    let requested = r.release.request(&ask).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    let Some(w) = requested.wire.as_ref() else {
        let why = requested
            .stopped
            .map(|s| format!("{}: {} (stage {})", s.error.kind, s.error.message, s.stage))
            .unwrap_or_else(|| "nothing was built".into());
        lines.push(format!("// {} raises {why}", r.release.title()));
        return Ok(lines);
    };
    lines.push(format!(
        "// {} · {} · {}",
        requested.class,
        w.sdk_call,
        if w.stream { "stream" } else { "no stream" }
    ));
    for warning in &requested.warnings {
        lines.push(format!("// warning: {warning}"));
    }
    if let Some(g) = &w.grpc {
        lines.push(format!(
            "// gRPC {} to {} ({}); the message as proto3 JSON:",
            g.method, g.target, g.request_type
        ));
    }
    let shown = if job.raw_media {
        w.body.clone()
    } else {
        shorten_media(&w.body)
    };
    let value = match &w.sdk_error {
        None => formatscope_core::json!({
            "method": w.method,
            "url": &w.url,
            "headers": &w.headers,
            "body": shown,
        }),
        Some(e) => formatscope_core::json!({
            "kwargs": &w.kwargs,
            "the SDK raises": format!("{}: {}", e.kind, e.message),
        }),
    };
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    lines.extend(text.lines().map(String::from));
    if w.sdk_error.is_none() && w.grpc.is_none() {
        lines.push(String::new());
        lines.push("// the body, exactly as sent:".into());
        lines.push(w.body_bytes());
    }
    Ok(lines)
}

/// The release's request counted with the provider's tokenizer, as the
/// default release's budget pane counts its own.
fn provider_count(job: &Job, messages: &[Value]) -> (Result<i64, String>, String) {
    use formatscope_core::tokens::MessageCounter;
    let counter =
        formatscope_core::tokens::ProviderCounter::new(job.model.clone(), Some(job.gate()));
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
    match (&out.messages, job.shown) {
        // The wire view (v): what the release's model class sends, from
        // the same function `formatscope request --agentscope` calls.
        (Ok(_), Shown::Wire) => match release_wire(job, r) {
            Ok(wire_lines) => lines.extend(wire_lines.iter()),
            Err(why) => {
                lines.push(&format!("// {why}: the formatter's messages"));
                if let Ok(m) = &out.messages {
                    let refs: Vec<&Value> = m.iter().collect();
                    let (plain, _, _) = pretty_with_spans(&refs, &[], job.raw_media);
                    lines.extend(plain.iter());
                }
            }
        },
        (Ok(m), _) => {
            let refs: Vec<&Value> = m.iter().collect();
            let (plain, _, _) = pretty_with_spans(&refs, &[], job.raw_media);
            lines.extend(plain.iter());
        }
        (Err(e), _) => preview.error = Some(e.said_by(&title)),
    }
    // Lint speaks for 1.0.21 and what 2.x or Java send otherwise; of
    // another release it has nothing to say.
    let speaks = formatscope_core::lint::upgrades_to(r.release)
        || formatscope_core::lint::is_port(r.release);
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
) -> formatscope_core::compare::Side {
    let release = formatscope_core::reference::ALL[index % formatscope_core::reference::ALL.len()];
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
            return formatscope_core::compare::Side::failed(label, e.said_by(&release.title()))
        }
    };
    let out_messages: Vec<Value> = if job.raw_media {
        out_messages
    } else {
        out_messages.iter().map(shorten_media).collect()
    };
    let mut side = formatscope_core::compare::Side::formatted(label, out_messages, &out.spans);
    if !out.lost.is_empty() {
        side.note = Some(format!(
            "{} cannot hold {}",
            release.version(),
            out.lost.join("; ")
        ));
    }
    side
}
