//! The background job: format, count, plan and highlight a session off the
//! UI thread. One slot, latest wins: a newer request replaces a pending one,
//! and results carry their generation so the app drops stale ones. The
//! worker keeps its budget model between jobs, so an edit recounts only the
//! unit it touched.

use super::consent::{AccessGrant, AccessMode};
use super::highlight::highlight_json;
use super::lines::Lines;
use crate::budget::{BudgetError, BudgetModel, TokenReport};
use crate::compare::shorten_media;
use crate::formatter::Span;
use crate::formatter::{FormatOptions, FormatterId};
use crate::media::{Access, Gate, MediaEnv, NoNetwork, WebFetcher};
use crate::provider::Provider;
use crate::reference::Reference;
use crate::session::Message;
use crate::tokens::CounterSpec;
use crate::tokens::ModelInfo;
use crate::truncate::TruncationPlan;
use crate::wire;
use ratatui::text::Line;
use serde_json::Value;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};

/// What the request pane shows of the request (`v` cycles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Shown {
    /// The formatter's output: AgentScope's message list.
    #[default]
    Messages,
    /// What goes on the wire: method, URL, headers (key redacted), body.
    Wire,
    /// Every string of the request unescaped, so a `<history>` prompt
    /// reads as text.
    Text,
    /// The request the truncation preview would leave (the budget's).
    Truncated,
}

impl Shown {
    pub fn next(self) -> Shown {
        match self {
            Shown::Messages => Shown::Wire,
            Shown::Wire => Shown::Text,
            Shown::Text => Shown::Truncated,
            Shown::Truncated => Shown::Messages,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Shown::Messages => "messages",
            Shown::Wire => "wire",
            Shown::Text => "text",
            Shown::Truncated => "after truncation",
        }
    }
}

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
            SideView::Release(i) => {
                let release = crate::reference::ALL[i % crate::reference::ALL.len()];
                return format!(
                    "{} {}",
                    release.version(),
                    release.call(self.formatter.provider, self.formatter.mode.into())
                );
            }
        };
        format!("{}{what}", self.formatter.class_name())
    }
}

/// What a provider's prompt cache can reuse of the request now since an
/// earlier version: the prompt up to its first change
/// ([`crate::diff::prompt_prefix`], as `formatscope diff` counts it), and
/// the identical prefix of the two wire bodies' bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheLine {
    /// "last save", "before the reload".
    pub against: &'static str,
    pub prompt: crate::diff::PromptPrefix,
    pub bytes: usize,
    pub of: usize,
    /// The session message the prompt breaks in.
    pub message: Option<usize>,
}

/// The request under another AgentScope release (`V`): which, and in
/// which of its modes.
#[derive(Clone, Copy)]
pub struct ReleaseJob {
    pub release: &'static dyn Reference,
    pub mode: crate::reference::Mode,
}

impl std::fmt::Debug for ReleaseJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReleaseJob({} {:?})", self.release.version(), self.mode)
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
}

/// What to compute.
#[derive(Debug, Clone)]
pub struct Job {
    pub generation: u64,
    pub formatter: FormatterId,
    pub model: ModelInfo,
    /// Shared with the document: a job copies no message.
    pub messages: Vec<Message>,
    pub tools: Option<Value>,
    pub base_dir: PathBuf,
    /// The truncation budget (the session's `max_tokens`).
    pub budget: Option<i64>,
    /// Show base64 media in full instead of `<image/png 34 KB>`.
    pub raw_media: bool,
    pub syntax: Arc<syntect::highlighting::Theme>,
    /// Reads outside the session's folder and downloads: allowed, or
    /// refused (and, with `Ask`, reported in `Preview::wanted`).
    pub access: AccessGrant,
    /// What truncation counts with (the session's `token_counter`), or why
    /// the session's spec is not one.
    pub token_counter: Result<CounterSpec, String>,
    /// Which view of the request to lay out.
    pub shown: Shown,
    /// How the model class is built and called for each provider (the
    /// session's `"request"` object and `model_choice`'s model), or why
    /// the object is not valid.
    pub request: Result<Vec<(Provider, wire::Settings)>, String>,
    /// The compare view's two sides, when it is open.
    pub compare: Option<(SideSpec, SideSpec)>,
    /// An earlier version of the file (its text) to compare with: for the
    /// compare view's "at last save" side and the prompt-cache line.
    pub earlier: Option<(Arc<str>, &'static str)>,
    /// Lint this session (with its text, for line and column).
    pub lint: Option<(Box<crate::session::Session>, Arc<str>)>,
    /// Attribute the request's lines to rules (`w`).
    pub why: bool,
    /// Format with another AgentScope release instead (`V`).
    pub release: Option<ReleaseJob>,
    /// The session's own settings, which a release may read (0.1.6's
    /// `"legacy"` options).
    pub session_settings: Arc<serde_json::Map<String, Value>>,
}

/// The rule behind each line of the request view (`w`), and the rules
/// that fired for the request.
#[derive(Debug, Clone, Default)]
pub struct Why {
    /// Per line of `Preview::plain`: the rule of the node the line opens.
    pub line_rules: Vec<Option<&'static str>>,
    /// The source message of that node, per line.
    pub line_sources: Vec<Option<usize>>,
    pub fired: Vec<(&'static crate::explain::Rule, Vec<usize>)>,
    /// Why there is nothing to show (a view without nodes).
    pub note: Option<String>,
}

impl Job {
    /// The model settings a request to `provider` is built with.
    pub fn settings(&self, provider: Provider) -> Result<&wire::Settings, String> {
        let all = self.request.as_ref().map_err(Clone::clone)?;
        all.iter()
            .find(|(p, _)| *p == provider)
            .map(|(_, s)| s)
            .ok_or_else(|| format!("no settings for {provider}"))
    }
}

/// What the panes show for one session state.
#[derive(Debug, Clone)]
pub struct Preview {
    pub generation: u64,
    /// The view `plain` lays out.
    pub shown: Shown,
    pub formatter: FormatterId,
    pub model: ModelInfo,
    /// The formatted messages, pretty JSON (highlighted when drawn); shared,
    /// as the preview is published twice (counts first, then the plan).
    pub plain: Arc<Lines>,
    /// Each request message's lines in `plain`.
    pub chunks: Vec<Range<usize>>,
    /// Input message range -> the request lines that came from it.
    pub spans: Vec<Span>,
    /// The provider's tool schemas, the same way.
    pub tool_lines: Vec<Line<'static>>,
    pub tool_plain: Lines,
    pub report: Option<TokenReport>,
    pub plan: Option<Result<TruncationPlan, String>>,
    /// What the plan counts with (`OpenAITokenCounter(gpt-4o)`).
    pub truncation_label: String,
    pub budget: Option<i64>,
    /// Formatting failed as AgentScope fails: its error.
    pub error: Option<String>,
    /// The message AgentScope's `Msg` rejected, and why in plain words
    /// (its own error is often an `AssertionError` with no text).
    pub rejected: Option<(usize, String)>,
    /// Reads and downloads the session wanted that were refused, for the
    /// user to decide on (only when the job's access was `Ask`).
    pub wanted: Vec<Access>,
    /// The compare view's rows.
    pub compare: Option<Arc<crate::compare::Compared>>,
    /// The prompt-cache line of the budget pane.
    pub cache: Option<Result<CacheLine, String>>,
    /// The linter's findings for the formatter on screen.
    pub lint: Option<Arc<Vec<crate::lint::Finding>>>,
    /// The rules behind the lines (`w`).
    pub why: Option<Arc<Why>>,
    /// Set when another release formats the request.
    pub release: Option<ReleaseInfo>,
}

/// Keeps the budget model and highlighted lines between jobs.
#[derive(Default)]
pub struct Computer {
    /// Fetches remote media some formatters download (none: offline).
    web: Option<Arc<dyn WebFetcher>>,
    model: Option<(ModelKey, BudgetModel)>,
    /// The earlier version's formatted request, by its text and formatter
    /// (formatted once, not on every keystroke).
    earlier: Option<(Arc<str>, FormatterId, Result<Earlier, String>)>,
}

/// An earlier version of the session, formatted.
struct Earlier {
    request: crate::formatter::FormattedRequest,
    session: crate::session::Session,
}

#[derive(PartialEq)]
struct ModelKey {
    formatter: FormatterId,
    model: String,
    base_dir: PathBuf,
    tools: Option<Value>,
    access: AccessGrant,
}

impl Computer {
    /// A computer that fetches remote media through `web` (on this worker
    /// thread, so a slow download delays only the preview).
    pub fn with_web(web: Arc<dyn WebFetcher>) -> Computer {
        Computer {
            web: Some(web),
            ..Computer::default()
        }
    }

    pub fn compute(&mut self, job: &Job) -> Preview {
        self.compute_phased(job.clone(), &mut |_| {})
    }

    /// [`Computer::compute`], publishing the request and its counts through
    /// `early` as soon as they are known, before the truncation plan (which
    /// may count the request again with the agent's token counter).
    pub fn compute_phased(&mut self, mut job: Job, early: &mut dyn FnMut(Preview)) -> Preview {
        let key = ModelKey {
            formatter: job.formatter,
            model: job.model.model.clone(),
            base_dir: job.base_dir.clone(),
            tools: job.tools.clone(),
            access: job.access.clone(),
        };
        let mut preview = Preview {
            generation: job.generation,
            shown: job.shown,
            formatter: job.formatter,
            model: job.model.clone(),
            plain: Arc::default(),
            chunks: Vec::new(),
            spans: Vec::new(),
            tool_lines: Vec::new(),
            tool_plain: Lines::new(),
            report: None,
            plan: None,
            truncation_label: String::new(),
            budget: job.budget,
            error: None,
            rejected: None,
            wanted: Vec::new(),
            compare: None,
            cache: None,
            lint: None,
            why: None,
            release: None,
        };
        // Under another release the panes show its request; an open
        // compare view still compares (the budget model's side needs the
        // run below).
        let release = job.release.map(|r| (r, preview.clone()));
        if job.compare.is_none() {
            if let Some((r, fresh)) = release {
                return release_preview(&job, r, fresh);
            }
        }
        // A compare side of another release formats the session's messages.
        let release_messages = job
            .compare
            .filter(|(l, r)| {
                matches!(l.view, SideView::Release(_)) || matches!(r.view, SideView::Release(_))
            })
            .map(|_| job.messages.clone());
        // The last save / now pair faces messages by identity: the
        // messages' now, before they go to the budget model.
        let identities = job
            .compare
            .filter(|(l, r)| l.view == SideView::Saved || r.view == SideView::Saved)
            .map(|_| identities(job.messages.iter().map(Message::value)));
        let gate = match &self.model {
            Some((k, m)) if *k == key => Arc::clone(m.gate()),
            _ => Arc::new(Gate::new(
                job.base_dir.clone(),
                Arc::new(job.access.clone()),
            )),
        };
        // Each job may read and download afresh, within the limits.
        gate.begin_run();
        // What the session would read, in case a consent question must
        // list it; then the messages (shared with the document) go to the
        // budget model.
        let asks = if job.access.mode == AccessMode::Ask {
            gate.wanted_by(job.messages.iter().map(Message::value))
        } else {
            Vec::new()
        };
        let messages = std::mem::take(&mut job.messages);
        let job = &job;
        let reused = match self.model.take() {
            Some((k, mut m)) if k == key => match m.set_messages(messages) {
                Ok(()) => Ok(m),
                Err(e) => Err(e),
            },
            _ => BudgetModel::new(
                job.formatter,
                FormatOptions::default(),
                job.model.clone(),
                messages,
                job.tools.clone(),
                MediaEnv::with_gate(
                    Arc::clone(&gate),
                    self.web.clone().unwrap_or_else(|| Arc::new(NoNetwork)),
                ),
            ),
        };
        let mut model = match reused {
            Ok(m) => m,
            Err(e) => {
                preview.error = Some(e.to_string());
                if let BudgetError::Message { index, why, .. } = &e {
                    preview.rejected = why.clone().map(|why| (*index, why));
                }
                preview.wanted = wanted(&gate, job, &asks);
                return preview;
            }
        };
        // Until the plan is known, the whole request; laid out unit by
        // unit from the model, never all of it unpacked at once.
        let formatted = match job.shown {
            Shown::Messages | Shown::Truncated => {
                let mut pretty = PrettyRequest::new(job.raw_media);
                let mut spans = Vec::new();
                match model.visit_formatted(|input, values| {
                    let start = pretty.messages();
                    for v in &values {
                        pretty.push(v);
                    }
                    spans.push((input, start..pretty.messages()));
                }) {
                    Ok(()) => {
                        let (plain, spans, chunks) = pretty.finish(&spans);
                        preview.plain = Arc::new(plain);
                        preview.spans = spans;
                        preview.chunks = chunks;
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            }
            _ => Some(model.formatted_with_spans()),
        };
        match formatted {
            None => {}
            Some(Ok(request)) => match job.shown {
                Shown::Messages | Shown::Truncated => {}
                Shown::Wire => {
                    let plain = wire_lines(job, request.messages, job.raw_media);
                    preview.chunks = chunks_of(plain.len());
                    preview.plain = Arc::new(plain.into());
                }
                Shown::Text => {
                    let plain = text_lines(&request.messages);
                    preview.chunks = chunks_of(plain.len());
                    preview.plain = Arc::new(plain.into());
                }
            },
            Some(Err(e)) => preview.error = Some(format!("{}: {}", e.kind, e.message)),
        }
        if let Ok(tools) = model.formatted_tools() {
            let plain: Vec<String> = serde_json::to_string_pretty(&tools)
                .unwrap_or_default()
                .lines()
                .map(String::from)
                .collect();
            preview.tool_lines = highlight_json(&plain, &job.syntax);
            preview.tool_plain = plain.into();
        }
        preview.report = Some(model.report());
        if job.budget.is_some_and(|b| b > 0) {
            early(preview.clone());
        }
        if let Ok(spec) = &job.token_counter {
            model.set_truncation_counter(spec.clone());
        }
        preview.truncation_label = model.truncation_label();
        if let Some(budget) = job.budget.filter(|b| *b > 0) {
            preview.plan = Some(match &job.token_counter {
                Ok(_) => model
                    .plan(budget)
                    .map_err(|e| format!("{}: {}", e.kind, e.message)),
                Err(e) => Err(e.clone()),
            });
        }
        if job.shown == Shown::Truncated {
            let plain = truncated_lines(&model, preview.plan.as_ref(), job.raw_media);
            preview.chunks = chunks_of(plain.len());
            preview.spans = Vec::new();
            preview.plain = Arc::new(plain);
        }
        preview.wanted = wanted(&gate, job, &asks);
        if let Some((text, against)) = &job.earlier {
            self.format_earlier(text, job.formatter, &model);
            let earlier = self.earlier.as_ref().map(|(_, _, e)| e);
            let report = preview.report.as_ref();
            preview.cache = earlier.map(|e| cache_line(job, &model, report, e, against));
        }
        if job.why {
            preview.why = Some(Arc::new(why(job, &model, preview.plain.len())));
        }
        if let Some((session, text)) = &job.lint {
            // Everything else first: linting formats the request again.
            early(preview.clone());
            let env = model.env().another_run();
            let input = crate::lint::Input::new(session, Some(text), vec![job.formatter], &env);
            preview.lint = Some(Arc::new(crate::lint::lint(&input)));
        }
        if let Some((l, r)) = job.compare {
            let earlier = self.earlier.as_ref().map(|(_, _, e)| e);
            let side = |spec: SideSpec| match spec.view {
                SideView::Release(i) => {
                    release_side(job, release_messages.as_deref().unwrap_or(&[]), spec, i)
                }
                _ => compare_side(job, &model, preview.plan.as_ref(), earlier, spec),
            };
            let (mut ls, mut rs) = (side(l), side(r));
            // Two versions of the session: messages face their counterparts
            // by identity (id, else content), not by index.
            if let (Some(now), Some(Ok(e))) = (&identities, earlier) {
                let before = self::identities(e.session.messages.iter().map(Message::value));
                for (spec, s) in [(l, &mut ls), (r, &mut rs)] {
                    s.identities = if spec.view == SideView::Saved {
                        before.clone()
                    } else {
                        now.clone()
                    };
                }
            }
            preview.compare = Some(Arc::new(crate::compare::compare(&ls, &rs)));
        }
        self.model = Some((key, model));
        match release {
            Some((r, fresh)) => Preview {
                compare: preview.compare,
                wanted: preview.wanted,
                ..release_preview(job, r, fresh)
            },
            None => preview,
        }
    }

    /// Formats the earlier version once per text and formatter.
    fn format_earlier(&mut self, text: &Arc<str>, formatter: FormatterId, model: &BudgetModel) {
        if let Some((t, f, _)) = &self.earlier {
            if Arc::ptr_eq(t, text) && *f == formatter {
                return;
            }
        }
        let earlier = crate::session::parse_session(text, "the earlier version")
            .map_err(|e| e.to_string())
            .and_then(|session| {
                let msgs = crate::pipeline::build_msgs(&session)
                    .map_err(|e| format!("{}: {}", e.kind, e.message))?;
                let keys = crate::formatter::message_keys(&session.messages);
                crate::budget::formatted_with_spans(
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

/// Who each message is, for the compare view's last save / now pair.
fn identities(messages: impl Iterator<Item = Value>) -> Vec<crate::compare::Identity> {
    messages.map(|m| crate::compare::Identity::of(&m)).collect()
}

/// The session as another release formats it, with the job's media
/// access and no network.
fn release_format(
    job: &Job,
    messages: &[Message],
    release: &dyn Reference,
    provider: Provider,
    mode: crate::reference::Mode,
) -> crate::reference::Formatted {
    let session = crate::session::Session {
        path: None,
        shape: crate::session::InputShape::Session,
        messages: messages.to_vec(),
        tools: job.tools.clone(),
        settings: (*job.session_settings).clone(),
        warnings: Vec::new(),
    };
    let gate = Arc::new(Gate::new(
        job.base_dir.clone(),
        Arc::new(job.access.clone()),
    ));
    let env = MediaEnv::with_gate(gate, Arc::new(NoNetwork));
    release.format(&session, provider, mode, &env)
}

/// The session formatted by another release (`V`): what its message model
/// cannot hold listed first, and, when it neither counts nor truncates,
/// no count and no plan.
fn release_preview(job: &Job, r: ReleaseJob, mut preview: Preview) -> Preview {
    let out = release_format(
        job,
        &job.messages,
        r.release,
        job.formatter.provider,
        r.mode,
    );
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
    match &out.messages {
        Ok(m) => {
            let refs: Vec<&Value> = m.iter().collect();
            let (plain, _, _) = pretty_with_spans(&refs, &[], job.raw_media);
            lines.extend(plain.iter());
        }
        Err(e) => preview.error = Some(format!("{title} raises {}: {}", e.kind, e.message)),
    }
    preview.chunks = chunks_of(lines.len());
    preview.plain = Arc::new(lines);
    preview.release = Some(ReleaseInfo {
        title,
        call: out.call,
        branch: out.branch,
        lost: out.lost,
        no_budget: r.release.no_budget(),
    });
    preview
}

/// The compare view's side of another release: the same provider, chat or
/// multi-agent as on screen; messages face their source where the release
/// says which.
fn release_side(
    job: &Job,
    messages: &[Message],
    spec: SideSpec,
    index: usize,
) -> crate::compare::Side {
    let release = crate::reference::ALL[index % crate::reference::ALL.len()];
    let label = spec.label();
    let out = release_format(
        job,
        messages,
        release,
        spec.formatter.provider,
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

/// The rules behind the request view's lines: the view laid out again with
/// the pointer of each line, matched to the attribution of its nodes.
fn why(job: &Job, model: &BudgetModel, lines: usize) -> Why {
    use crate::compare::pretty;
    use crate::explain;
    let request = match model.formatted_with_spans() {
        Ok(r) => r,
        Err(e) => {
            return Why {
                note: Some(format!("{}: {}", e.kind, e.message)),
                ..Why::default()
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
                return Why::default();
            };
            let built = wire::build(
                job.formatter,
                request.messages.clone(),
                job.tools.as_ref(),
                settings,
                &mut |_| {},
            );
            let Ok(w) = built else { return Why::default() };
            if w.sdk_error.is_some() {
                return Why::default();
            }
            let explained = explain::wire(job.formatter, &w.body, &request, &plain);
            let body = if job.raw_media {
                w.body.clone()
            } else {
                shorten_media(&w.body)
            };
            let value = crate::json!({"method": w.method, "url": w.url, "headers": w.headers, "body": body});
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
            return Why {
                fired: plain.fired(),
                note: Some(
                    "the rules beside the lines are shown in the messages and wire views (v)"
                        .into(),
                ),
                ..Why::default()
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
    Why {
        line_rules,
        line_sources,
        fired: explained.fired(),
        note: None,
    }
}

/// The wire body a formatted request becomes, with the job's settings
/// (or the earlier session's own "request" object).
fn wire_body(
    job: &Job,
    formatter: FormatterId,
    messages: Vec<Value>,
    tools: Option<&Value>,
    settings: &wire::Settings,
) -> Result<Value, String> {
    let built = wire::build(formatter, messages, tools, settings, &mut |_| {});
    match built {
        Ok(w) => match w.sdk_error {
            None => Ok(w.body),
            Some(e) => Err(format!("the SDK raises {}: {}", e.kind, e.message)),
        },
        Err(rejected) => {
            let (_, failure) = *rejected;
            let (wire::Failure::ModelInit(e) | wire::Failure::Model(e)) = failure;
            let _ = job;
            Err(format!(
                "AgentScope's model class raises {}: {}",
                e.kind, e.message
            ))
        }
    }
}

/// The prompt-cache line: the prompt now shares with the earlier version,
/// counted as the meter counts the request, and the bodies' byte prefix.
fn cache_line(
    job: &Job,
    model: &BudgetModel,
    report: Option<&TokenReport>,
    earlier: &Result<Earlier, String>,
    against: &'static str,
) -> Result<CacheLine, String> {
    let earlier = earlier
        .as_ref()
        .map_err(|e| format!("the {against} version: {e}"))?;
    let report = report.ok_or("the request is not counted")?;
    let settings = job.settings(job.formatter.provider)?;
    let now = model
        .formatted_with_spans()
        .map_err(|e| format!("{}: {}", e.kind, e.message))?;
    let provider = job.formatter.provider;
    let body = wire_body(
        job,
        job.formatter,
        now.messages.clone(),
        job.tools.as_ref(),
        settings,
    )?;
    let before_settings = crate::model_choice::request_settings(&earlier.session, provider, None)
        .unwrap_or_else(|_| settings.clone());
    let before = wire_body(
        job,
        job.formatter,
        earlier.request.messages.clone(),
        earlier.session.tools.as_ref(),
        &before_settings,
    )?;
    let (lb, rb) = (
        wire::export::body_bytes(provider, &before),
        wire::export::body_bytes(provider, &body),
    );
    let bytes = crate::diff::cache_prefix(&lb, &rb);
    let name = |s: &wire::Settings| {
        s.model
            .clone()
            .unwrap_or_else(|| provider.default_model().to_string())
    };
    let (before_model, now_model) = (name(&before_settings), name(settings));
    let prompt = crate::diff::prompt_prefix(
        &crate::diff::Version {
            model: &before_model,
            tools: earlier.session.tools.as_ref(),
            messages: &earlier.request.messages,
            spans: &earlier.request.spans,
        },
        &crate::diff::Version {
            model: &now_model,
            tools: job.tools.as_ref(),
            messages: &now.messages,
            spans: &now.spans,
        },
        report,
    );
    Ok(CacheLine {
        against,
        message: prompt.breaks.as_ref().and_then(|b| b.message()),
        prompt,
        bytes: bytes.bytes,
        of: bytes.of,
    })
}

/// One side of the compare view.
fn compare_side(
    job: &Job,
    model: &BudgetModel,
    plan: Option<&Result<TruncationPlan, String>>,
    earlier: Option<&Result<Earlier, String>>,
    spec: SideSpec,
) -> crate::compare::Side {
    use crate::compare::Side;
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
        job,
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

/// The "after truncation" view: what the formatter gives for the messages
/// the plan keeps, or why there is nothing to show.
fn truncated_lines(
    model: &BudgetModel,
    plan: Option<&Result<TruncationPlan, String>>,
    raw: bool,
) -> Lines {
    let one = |line: String| Lines::from_iter([line]);
    let plan = match plan {
        None => return one("// no budget: set max_tokens (s) to see what truncation keeps".into()),
        Some(Err(e)) => return one(format!("// the truncation cannot be planned: {e}")),
        Some(Ok(plan)) => plan,
    };
    if let Some(reason) = plan.reason() {
        return one(format!(
            "// AgentScope cannot fit the request in {} tokens: {reason}",
            plan.max_tokens
        ));
    }
    match model.formatted_kept(&plan.kept) {
        Ok(messages) => {
            let mut lines = one(format!(
                "// {} of {} messages kept, {} tokens of {}",
                plan.kept.len(),
                plan.kept.len() + plan.dropped.len(),
                plan.tokens_after.unwrap_or_default(),
                plan.max_tokens
            ));
            let refs: Vec<&Value> = messages.iter().collect();
            let (plain, _, _) = pretty_with_spans(&refs, &[], raw);
            lines.extend(plain.iter());
            lines
        }
        Err(e) => one(format!("// AgentScope raises {}: {}", e.kind, e.message)),
    }
}

/// What to ask the user about: when the job had to refuse a read or a
/// download, everything the session names that needs permission, so one
/// answer covers it all; and the hosts redirects led to.
fn wanted(gate: &Gate, job: &Job, asks: &[Access]) -> Vec<Access> {
    let refused = gate.refused();
    if job.access.mode != AccessMode::Ask {
        // Allowed, yet a redirect took a download to a host nobody was
        // asked about: ask about that host.
        return refused
            .into_iter()
            .filter(|a| a.redirect_host().is_some())
            .collect();
    }
    if refused.is_empty() {
        return Vec::new();
    }
    let mut all = asks.to_vec();
    all.extend(refused);
    all.sort();
    all.dedup();
    all
}

/// Highlighting units for a view without messages: 200 lines each, so a
/// large request is highlighted as it comes on screen, not all at once.
fn chunks_of(lines: usize) -> Vec<Range<usize>> {
    (0..lines)
        .step_by(200)
        .map(|start| start..(start + 200).min(lines))
        .collect()
}

/// The wire view: the HTTP request the provider's SDK would send (the key
/// as `<API_KEY>`), or why AgentScope or the SDK would raise first.
fn wire_lines(job: &Job, messages: Vec<Value>, raw: bool) -> Vec<String> {
    let settings = match job.settings(job.formatter.provider) {
        Ok(s) => s,
        Err(e) => return vec![format!("// the session's \"request\" object: {e}")],
    };
    let mut warnings = Vec::new();
    let built = wire::build(
        job.formatter,
        messages,
        job.tools.as_ref(),
        settings,
        &mut |w| warnings.push(w),
    );
    let mut lines = Vec::new();
    match built {
        Ok(w) => {
            lines.push(format!(
                "// {} · {}",
                w.sdk_call,
                if w.stream { "stream" } else { "no stream" }
            ));
            for warning in &warnings {
                lines.push(format!("// warning: {warning}"));
            }
            let shown = if raw {
                w.body.clone()
            } else {
                shorten_media(&w.body)
            };
            let value = match w.sdk_error {
                None => crate::json!({
                    "method": w.method,
                    "url": w.url,
                    "headers": w.headers,
                    "body": shown,
                }),
                Some(e) => crate::json!({
                    "kwargs": w.kwargs,
                    "the SDK raises": format!("{}: {}", e.kind, e.message),
                }),
            };
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            lines.extend(text.lines().map(String::from));
        }
        Err(rejected) => {
            let (_, failure) = *rejected;
            let e = match failure {
                wire::Failure::ModelInit(e) | wire::Failure::Model(e) => e,
            };
            lines.push(format!(
                "// AgentScope's model class raises {}: {}",
                e.kind, e.message
            ));
        }
    }
    lines
}

/// The text view: each message's role, then every string in it unescaped
/// (a `<history>` prompt reads as the model reads it).
fn text_lines(messages: &[Value]) -> Vec<String> {
    fn strings(v: &Value, path: &str, out: &mut Vec<String>) {
        match v {
            // Roles head each message; block types say nothing to read.
            Value::String(s) if path != "role" && path != "type" && !path.ends_with(".type") => {
                out.push(format!("  {}:", crate::text::escape_control(path)));
                out.extend(crate::text::visible_lines(s).map(|l| format!("    {l}")));
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    strings(item, &format!("{path}[{i}]"), out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    strings(item, &p, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
        out.push(format!("── message {i} · {role} ──"));
        strings(&shorten_media(m), "", &mut out);
    }
    out
}

/// Pretty JSON of the request array, and per unit the lines it spans.
/// Long base64 payloads are shown short unless `raw`.
pub fn pretty_with_spans(
    messages: &[&Value],
    spans: &[Span],
    raw: bool,
) -> (Lines, Vec<Span>, Vec<Range<usize>>) {
    let mut pretty = PrettyRequest::new(raw);
    for m in messages {
        pretty.push(m);
    }
    pretty.finish(spans)
}

/// [`pretty_with_spans`] one message at a time, so a large request is laid
/// out without all of its messages in memory at once.
pub struct PrettyRequest {
    lines: Lines,
    message_lines: Vec<Range<usize>>,
    raw: bool,
}

impl PrettyRequest {
    pub fn new(raw: bool) -> PrettyRequest {
        let mut lines = Lines::new();
        lines.push("[");
        PrettyRequest {
            lines,
            message_lines: Vec::new(),
            raw,
        }
    }

    /// Messages laid out so far.
    pub fn messages(&self) -> usize {
        self.message_lines.len()
    }

    pub fn push(&mut self, m: &Value) {
        let text = if self.raw {
            serde_json::to_string_pretty(m)
        } else {
            serde_json::to_string_pretty(&shorten_media(m))
        }
        .unwrap_or_default();
        if !self.message_lines.is_empty() {
            self.lines.append_to_last(",");
        }
        let start = self.lines.len();
        for l in text.lines() {
            self.lines.push_parts(&["  ", l]);
        }
        self.message_lines.push(start..self.lines.len());
    }

    /// The lines, and `spans` (input messages -> output messages) as line
    /// ranges.
    pub fn finish(mut self, spans: &[Span]) -> (Lines, Vec<Span>, Vec<Range<usize>>) {
        self.lines.push("]");
        self.lines.shrink_to_fit();
        let message_lines = self.message_lines;
        let line_spans = spans
            .iter()
            .filter(|(_, out)| !out.is_empty())
            .filter_map(|(msgs, out)| {
                let start = message_lines.get(out.start)?.start;
                let end = message_lines.get(out.end - 1)?.end;
                Some((msgs.clone(), start..end))
            })
            .collect();
        (self.lines, line_spans, message_lines)
    }
}

/// The latest-wins slot between the app and the worker thread.
#[derive(Clone, Default)]
pub struct Slot {
    inner: Arc<(Mutex<SlotState>, Condvar)>,
}

#[derive(Default)]
struct SlotState {
    pending: Option<Job>,
    closed: bool,
}

impl Slot {
    /// Replaces any job not yet started.
    pub fn submit(&self, job: Job) {
        let (lock, cv) = &*self.inner;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        state.pending = Some(job);
        cv.notify_one();
    }

    pub fn close(&self) {
        let (lock, cv) = &*self.inner;
        lock.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        cv.notify_all();
    }

    /// The next job, waiting for one; `None` once closed.
    fn take(&self) -> Option<Job> {
        let (lock, cv) = &*self.inner;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if state.closed {
                return None;
            }
            if let Some(job) = state.pending.take() {
                return Some(job);
            }
            state = cv.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Runs jobs from `slot` until it closes, sending each preview.
pub fn spawn(
    slot: Slot,
    mut computer: Computer,
    send: impl Fn(Preview) + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("formatscope-worker".into())
        .spawn(move || {
            while let Some(job) = slot.take() {
                let done = computer.compute_phased(job, &mut |counted| send(counted));
                send(done);
            }
        })
        .expect("spawn the worker thread")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spans_point_at_the_lines_of_each_message() {
        let messages = vec![
            json!({"role": "system", "content": "a"}),
            json!({"role": "user", "content": "b"}),
        ];
        let spans = vec![(0..1, 0..1), (1..2, 1..2)];
        let (lines, line_spans, _) =
            pretty_with_spans(&messages.iter().collect::<Vec<_>>(), &spans, false);
        let whole: Value = serde_json::from_str(&lines.join("\n")).expect("valid JSON");
        assert_eq!(whole, Value::Array(messages));
        assert!(lines
            .get(line_spans[1].1.start)
            .unwrap_or_default()
            .contains('{'));
        assert!(lines
            .range(line_spans[1].1.clone())
            .collect::<String>()
            .contains("\"b\""));
    }

    #[test]
    fn base64_is_shown_short_unless_raw() {
        let data = format!("data:image/png;base64,{}", "A".repeat(40_000));
        let m = json!({"image_url": {"url": data}});
        assert_eq!(shorten_media(&m)["image_url"]["url"], "<image/png 30 KB>");
        let text = "x ".repeat(300);
        assert_eq!(
            shorten_media(&json!(text)),
            json!(text),
            "prose is not base64"
        );
    }
}
