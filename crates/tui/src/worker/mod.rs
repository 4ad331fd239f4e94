//! The background worker: format, count, plan and highlight a session off
//! the UI thread. One slot, latest wins: a newer job replaces a pending
//! one, and results carry their generation so the app drops stale ones.
//! The worker keeps its budget model between jobs, so an edit recounts
//! only the unit it touched.
//!
//! This module holds the slot, the thread and the order the features run
//! in (the request and its counts first, published early, then the plan);
//! each feature is a module of its own with its input and its output:
//! `request` (the view's lines), `compare` (`c`), `release` (`V`), `explain`
//! (`w`) and `cache` (the prompt-cache line). A new feature adds a module
//! here, an optional input to `Job` and an output to `Preview`.
use super::consent::{AccessGrant, AccessMode};
use super::highlight::highlight_json;
use super::lines::{Lines, Media};
use formatscope_core::budget::{BudgetError, BudgetModel, TokenReport};
use formatscope_core::compare::shorten_media;
use formatscope_core::formatter::Span;
use formatscope_core::formatter::{FormatOptions, FormatterId};
use formatscope_core::media::{Access, Gate, MediaEnv, NoNetwork, WebFetcher};
use formatscope_core::provider::Provider;
use formatscope_core::reference::{Family, Reference};
use formatscope_core::session::PackedMessage;
use formatscope_core::tokens::CounterSpec;
use formatscope_core::tokens::ModelInfo;
use formatscope_core::truncate::TruncationPlan;
use formatscope_core::wire;
use ratatui::text::Line;
use serde_json::Value;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};

mod cache;
mod compare;
mod explain;
mod layout;
mod release;
mod request;
mod tokens;

pub use cache::CacheLine;
use cache::{cache_line, Earlier};
use compare::{compare_side, identities};
pub use compare::{SideSpec, SideView};
pub use explain::Explanation;
use release::{release_preview, release_side};
pub use release::{ReleaseInfo, ReleaseJob};
use request::{chunks_of, text_lines, truncated_lines, wire_body, wire_lines};
pub use request::{pretty_with_spans, PrettyRequest, Shown};
pub use tokens::{Row as TokenRow, TokenMessage, TokenView};

/// What to compute.
#[derive(Debug, Clone)]
pub struct Job {
    pub generation: u64,
    pub formatter: FormatterId,
    pub model: ModelInfo,
    /// Shared with the document: a job copies no message, nor the list.
    pub messages: formatscope_core::session::Messages,
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
    pub request: Result<Vec<(Provider, wire::Settings)>, wire::RequestSettingsError>,
    /// The compare view's two sides, when it is open.
    pub compare: Option<(SideSpec, SideSpec)>,
    /// An earlier version of the file (its text) to compare with: for the
    /// compare view's "at last save" side and the prompt-cache line.
    pub earlier: Option<(Arc<String>, &'static str)>,
    /// Lint this session (with its text, for line and column).
    pub lint: Option<(Box<formatscope_core::session::Session>, Arc<String>)>,
    /// Attribute the request's lines to rules (`w`).
    pub explain: bool,
    /// Format with another AgentScope release instead (`V`).
    pub release: Option<ReleaseJob>,
    /// The session's own settings, which a release may read (0.1.6's
    /// `"legacy"` options).
    pub session_settings: Arc<serde_json::Map<String, Value>>,
}

impl Job {
    /// A fresh media gate for this job's folder and access grant.
    pub fn gate(&self) -> Arc<Gate> {
        Arc::new(Gate::new(
            self.base_dir.clone(),
            Arc::new(self.access.clone()),
        ))
    }

    /// The model settings a request to `provider` is built with.
    pub fn settings(&self, provider: Provider) -> Result<&wire::Settings, String> {
        let all = self.request.as_ref().map_err(ToString::to_string)?;
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
    pub compare: Option<Arc<formatscope_core::compare::Compared>>,
    /// The prompt-cache line of the budget pane.
    pub cache: Option<Result<CacheLine, String>>,
    /// The linter's findings for the formatter on screen.
    pub lint: Option<Arc<Vec<formatscope_core::lint::Finding>>>,
    /// The rules behind the lines (`w`).
    pub explanation: Option<Arc<Explanation>>,
    /// Set when another release formats the request.
    pub release: Option<ReleaseInfo>,
    /// The token view's tokens and rows (`plain` holds the rows' text),
    /// computed once per job.
    pub tokens: Option<Arc<TokenView>>,
    /// Published before the request is laid out (a large session: the
    /// number first, see `NUMBER_FIRST_FROM`): the request's lines, the
    /// plan and the panels are still the last preview's, which the app
    /// keeps until the rest of this one arrives.
    pub lines_pending: bool,
}

impl Preview {
    /// The preview of `job` before anything is computed.
    fn blank(job: &Job) -> Preview {
        Preview {
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
            explanation: None,
            release: None,
            tokens: None,
            lines_pending: false,
        }
    }

    /// Takes what `self` has not computed yet (it was published with
    /// `lines_pending`) from `last`, the preview on screen: the request's
    /// lines, the tool schemas, the plan (unless it came with the number)
    /// and the panels, when `last` shows the same formatter and view.
    pub fn keep_pending_from(&mut self, last: Preview) {
        if !self.lines_pending || last.formatter != self.formatter || last.shown != self.shown {
            return;
        }
        self.plain = last.plain;
        self.chunks = last.chunks;
        self.spans = last.spans;
        self.tool_lines = last.tool_lines;
        self.tool_plain = last.tool_plain;
        if self.plan.is_none() {
            // A fresh model's number goes out before its plan.
            self.plan = last.plan;
            self.truncation_label = last.truncation_label;
        }
        self.compare = last.compare;
        self.cache = last.cache;
        self.lint = last.lint;
        self.explanation = last.explanation;
        self.tokens = last.tokens;
    }
}

/// Keeps the budget model and highlighted lines between jobs.
#[derive(Default)]
pub struct Computer {
    /// Fetches remote media some formatters download (none: offline).
    web: Option<Arc<dyn WebFetcher>>,
    model: Option<(ModelKey, BudgetModel)>,
    /// The earlier version's formatted request, by its text and formatter
    /// (formatted once, not on every keystroke).
    earlier: Option<(Arc<String>, FormatterId, Result<Earlier, String>)>,
    /// The last token view, whose messages' tokens the next keeps where
    /// their text did not change.
    tokens: Option<Arc<TokenView>>,
    /// The worker's slot, to ask whether a newer job waits: a large session's
    /// job stops after its number once one does, instead of laying out,
    /// planning and linting a request nobody will see (at 50,000
    /// messages an undo right after an edit waited 0.6-0.8 s for them).
    slot: Option<Slot>,
    /// The messages view's last layout, whose pieces the next copies.
    layout: layout::LastLayout,
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

    /// A computer that keeps nothing of this one but its web access: after
    /// a job panicked, its budget model may be half-updated.
    fn fresh(&self) -> Computer {
        Computer {
            web: self.web.clone(),
            slot: self.slot.clone(),
            ..Computer::default()
        }
    }

    /// This computer, asking `slot` whether a newer job waits (the worker
    /// thread's computer watches the slot it takes its jobs from).
    pub fn watching(mut self, slot: Slot) -> Self {
        self.slot = Some(slot);
        self
    }

    /// Keeps `model` for the next job and hands back a preview the app
    /// will drop: a job cut short by a newer one still leaves its counts,
    /// so the newer job recounts only what its edit changed (dropped, the
    /// next job at 100,000 messages counted everything again: 200 ms).
    fn keep(&mut self, key: ModelKey, model: BudgetModel, preview: Preview) -> Preview {
        self.model = Some((key, model));
        preview
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
        let mut preview = Preview::blank(&job);
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
            .map(|_| identities(job.messages.iter().map(PackedMessage::value)));
        let gate = match &self.model {
            Some((k, m)) if *k == key => Arc::clone(m.gate()),
            _ => job.gate(),
        };
        // Each job may read and download afresh, within the limits.
        gate.begin_run();
        // What the session would read, in case a consent question must
        // list it; then the messages (shared with the document) go to the
        // budget model.
        let asks = if job.access.mode == AccessMode::Ask {
            // Only a message that may read media is unpacked to look.
            gate.wanted_by(
                job.messages
                    .iter()
                    .filter(|m| m.may_read_media())
                    .map(PackedMessage::value),
            )
        } else {
            Vec::new()
        };
        let messages = std::mem::take(&mut job.messages);
        let job = &job;
        let reused = match self.model.take() {
            Some((k, mut m)) if k == key => match m.set_messages(&messages) {
                Ok(()) => Ok(m),
                Err(e) => Err(e),
            },
            // Another provider or model: the messages as the last model
            // read them are taken where they did not change.
            previous => BudgetModel::new_after(
                previous.as_ref().map(|(_, m)| m),
                job.formatter,
                FormatOptions::default(),
                job.model.clone(),
                &messages,
                job.tools.clone(),
                MediaEnv::with_gate(
                    Arc::clone(&gate),
                    self.web.clone().unwrap_or_else(|| Arc::new(NoNetwork)),
                ),
            ),
        };
        // A model made afresh (the first job, a provider switch) has every
        // count to make: the budget is published as soon as its totals are
        // known, the per-message split after.
        let fresh = !matches!(&reused, Ok(m) if m.has_split());
        let mut model = match reused {
            Ok(m) => m,
            Err(e) => {
                preview.error = Some(e.to_string());
                if let BudgetError::PackedMessage { index, why, .. } = &e {
                    preview.rejected = why.clone().map(|why| (*index, why));
                }
                preview.wanted = wanted(&gate, job, &asks);
                return preview;
            }
        };
        // A large session's number goes out before its request is laid
        // out: an edit recounts one unit in a fraction of a millisecond,
        // while the layout touches every line (100,000 messages: about
        // 100 ms). The panes keep the last lines until the rest arrives.
        let number_first = messages.len() >= NUMBER_FIRST_FROM;
        // Such a job stops (after its number, between runs of its layout,
        // between the steps of the cache line) once a newer job waits.
        let newer = self.slot.clone().filter(|_| number_first);
        let stop = move || newer.as_ref().is_some_and(Slot::has_pending);
        let mut planned = false;
        if number_first {
            // A fresh model publishes its totals (each message's share is
            // as much BPE again); a model that only took an edit has its
            // whole report at hand.
            preview.report = Some(if fresh {
                model.totals()
            } else {
                model.report()
            });
            // A model that only took an edit plans from its last plan's
            // counts in a few milliseconds (100,000 messages: about 20):
            // the truncation preview goes out with the number.
            if !fresh {
                plan_into(&mut preview, &mut model, job);
                planned = true;
            }
            preview.lines_pending = true;
            early(preview.clone());
            preview.lines_pending = false;
            if stop() {
                // The app drops this preview: a newer one is on its way.
                return self.keep(key, model, preview);
            }
        }
        // Until the plan is known, the whole request; laid out a run of
        // units at a time, never all of it unpacked at once, on every core
        // when it is large, each unit the model kept copied from the last
        // layout (`layout`). An undo right after an edit at 100,000
        // messages had waited for the whole layout (100-150 ms) before its
        // own count began.
        let formatted = match job.shown {
            Shown::Messages | Shown::Truncated => {
                let spread = messages.len() >= SPREAD_LAYOUT_FROM;
                let keep = job.shown == Shown::Messages;
                let raw = job.raw_media;
                match layout::messages_view(&model, &mut self.layout, raw, spread, keep, &stop) {
                    // Cut short: the app drops this preview.
                    Ok(None) => return self.keep(key, model, preview),
                    Ok(Some((plain, spans, chunks))) => {
                        preview.plain = plain;
                        preview.spans = spans;
                        preview.chunks = chunks;
                        None
                    }
                    Err(e) => Some(Err(e)),
                }
            }
            _ => {
                // Another view: the messages view's lines are not kept.
                self.layout = layout::LastLayout::default();
                Some(model.formatted_with_spans())
            }
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
                Shown::Tokens => {
                    let last = self.tokens.take();
                    let (view, plain) =
                        tokens::token_view(job.model.tokenizer, &request.messages, last.as_deref());
                    let view = Arc::new(view);
                    preview.chunks = chunks_of(plain.len());
                    preview.plain = Arc::new(plain);
                    preview.tokens = Some(Arc::clone(&view));
                    self.tokens = Some(view);
                }
            },
            Some(Err(e)) => preview.error = Some(format!("{}: {}", e.kind, e.message)),
        }
        if stop() {
            return self.keep(key, model, preview);
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
        if fresh && !number_first {
            preview.report = Some(model.totals());
            early(preview.clone());
        }
        if fresh || !number_first {
            preview.report = Some(model.report());
        }
        if job.budget.is_some_and(|b| b > 0) {
            early(preview.clone());
        }
        if !planned {
            plan_into(&mut preview, &mut model, job);
        }
        if job.shown == Shown::Truncated {
            let plain = truncated_lines(&model, preview.plan.as_ref(), job.raw_media);
            preview.chunks = chunks_of(plain.len());
            preview.spans = Vec::new();
            preview.plain = Arc::new(plain);
        }
        if stop() {
            return self.keep(key, model, preview);
        }
        preview.wanted = wanted(&gate, job, &asks);
        if let Some((text, against)) = &job.earlier {
            self.format_earlier(text, job.formatter, &model);
            let earlier = self.earlier.as_ref().map(|(_, _, e)| e);
            let report = preview.report.as_ref();
            // Two whole wire bodies, serialised and compared: 300-450 ms
            // at 100,000 messages, which an undo right after an edit
            // waited for. It stops between its steps for a newer job.
            match earlier.map(|e| cache_line(job, &model, report, e, against, &stop)) {
                Some(Ok(None)) => return self.keep(key, model, preview),
                line => preview.cache = line.and_then(Result::transpose),
            }
        }
        if job.explain {
            preview.explanation =
                Some(Arc::new(explain::explain(job, &model, preview.plain.len())));
        }
        if let Some((session, text)) = &job.lint {
            // Everything else first: linting formats the request again.
            early(preview.clone());
            let env = model.env().another_run();
            preview.lint = Some(lint_findings(job, session, text, &env));
        }
        if let Some((l, r)) = job.compare {
            let earlier = self.earlier.as_ref().map(|(_, _, e)| e);
            let side = |spec: SideSpec| match spec.view {
                SideView::Release(i) => release_side(
                    job,
                    release_messages.as_ref().map_or(&[], |m| m.as_slice()),
                    spec,
                    i,
                ),
                _ => compare_side(job, &model, preview.plan.as_ref(), earlier, spec),
            };
            let (mut ls, mut rs) = (side(l), side(r));
            // Two versions of the session: messages face their counterparts
            // by identity (id, else content), not by index.
            if let (Some(now), Some(Ok(e))) = (&identities, earlier) {
                let before = self::identities(e.session.messages.iter().map(PackedMessage::value));
                for (spec, s) in [(l, &mut ls), (r, &mut rs)] {
                    s.identities = if spec.view == SideView::Saved {
                        before.clone()
                    } else {
                        now.clone()
                    };
                }
            }
            preview.compare = Some(Arc::new(formatscope_core::compare::compare(&ls, &rs)));
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
}

/// Requests of this many messages and more are laid out on every core
/// (at 100,000 messages: 120 -> 60 ms a job).
const SPREAD_LAYOUT_FROM: usize = 20_000;

/// From this many messages the budget number is published before the
/// request is laid out. Below it the layout takes a few milliseconds and
/// one preview (lines and number together) is drawn, never a frame with
/// the last lines beside the new number.
const NUMBER_FIRST_FROM: usize = 5_000;

/// The lint panel's findings for the formatter on screen; under 2.x or
/// Java (V) also what that release sends otherwise, as `lint --agentscope`
/// says it.
fn lint_findings(
    job: &Job,
    session: &formatscope_core::session::Session,
    text: &str,
    env: &MediaEnv,
) -> Arc<Vec<formatscope_core::lint::Finding>> {
    let mut input =
        formatscope_core::lint::Input::new(session, Some(text), vec![job.formatter], env);
    input.upgrade = job
        .release
        .map(|r| r.release)
        .filter(|r| formatscope_core::lint::upgrades_to(*r) || formatscope_core::lint::is_port(*r));
    Arc::new(formatscope_core::lint::lint(&input))
}

/// What to ask the user about: when the job had to refuse a read or a
/// download, everything the session names that needs permission, so one
/// answer covers it all; and the hosts redirects led to.
/// The truncation plan at the job's budget, counted with the agent's
/// token counter, and what that counter is called.
fn plan_into(preview: &mut Preview, model: &mut BudgetModel, job: &Job) {
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
}

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
    /// A job waits that has not started.
    fn has_pending(&self) -> bool {
        let (lock, _) = &*self.inner;
        lock.lock()
            .unwrap_or_else(|e| e.into_inner())
            .pending
            .is_some()
    }

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
    computer: Computer,
    send: impl Fn(Preview) + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("formatscope-worker".into())
        .spawn(move || {
            let mut computer = computer.watching(slot.clone());
            while let Some(job) = slot.take() {
                let done = run_job(&mut computer, job, &send);
                send(done);
            }
        })
        .expect("spawn the worker thread")
}

/// How a preview's error that is a caught panic begins.
pub const INTERNAL_ERROR: &str = "internal error";

/// One job's preview. A panic (a bug, say on a session nobody foresaw)
/// must not end the worker, or every later preview would wait forever
/// ("updating…"): it becomes the job's error, and the next job starts
/// from a fresh computer.
pub fn run_job(computer: &mut Computer, job: Job, send: &dyn Fn(Preview)) -> Preview {
    let blank = Preview::blank(&job);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::caught::test_panic("worker");
        computer.compute_phased(job, &mut |counted| send(counted))
    }));
    match run {
        Ok(done) => done,
        Err(payload) => {
            *computer = computer.fresh();
            Preview {
                error: Some(format!(
                    "{INTERNAL_ERROR} while computing this view (a bug in formatscope; please report it): {}",
                    crate::caught::panic_message(payload.as_ref())
                )),
                ..blank
            }
        }
    }
}
