//! The reply pane: a live send's reply as AgentScope parses it (thinking,
//! text, tool calls as their arguments grow), then the provider's billed
//! usage beside our own count of the same request, time to first token and
//! total. Its state changes only through `Event::Reply`.

use super::pane_block;
use crate::theme::Palette;
use formatscope_core::formatter::Provider;
use formatscope_core::response::ChatResponse;
use formatscope_net::Outcome;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use serde_json::Value;

// What a send reports is the messages' (the sender makes it, the loop
// carries it); the pane only reads it.
pub use crate::msg::ReplyUpdate;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Sending,
    Streaming,
    Done,
    Failed(String),
    Cancelled,
}

#[derive(Debug, Clone)]
pub struct ReplyPane {
    pub id: u64,
    pub phase: Phase,
    pub provider: Option<Provider>,
    pub url: String,
    pub latest: Option<ChatResponse>,
    pub outcome: Option<Outcome>,
    /// Our count of the request when it was sent (the meter's), and
    /// whether it is exact.
    pub our_count: Option<(i64, bool)>,
    /// The price of the model sent to (None: not in the price table).
    pub price: Option<formatscope_core::tokens::cost::Price>,
    pub scroll: u16,
    /// Who replies, when not a provider of the default release
    /// ("AgentScope 2.0.11 MiniMax").
    pub label: Option<String>,
    /// The reply as that release holds it, appended instead of the
    /// default release's message.
    pub held: Option<Value>,
    /// The provider it was sent to in that release.
    pub family: Option<&'static formatscope_core::reference::Family>,
}

impl Default for ReplyPane {
    fn default() -> Self {
        ReplyPane {
            id: 0,
            phase: Phase::Idle,
            provider: None,
            url: String::new(),
            latest: None,
            outcome: None,
            our_count: None,
            price: None,
            scroll: 0,
            label: None,
            held: None,
            family: None,
        }
    }
}

/// The last live send's replies: one for `S`, one per provider picked with
/// `P`, side by side. Only these panes read them, and the count of sends
/// made names each (a reply pane takes updates of its own send only).
#[derive(Debug, Default)]
pub struct Replies {
    panes: Vec<ReplyPane>,
    sends: u64,
}

/// The replies read as the list they are (`app.replies[0]`, `.iter()`,
/// `.retain(..)`): the list is all the state they have besides the count.
impl std::ops::Deref for Replies {
    type Target = Vec<ReplyPane>;
    fn deref(&self) -> &Vec<ReplyPane> {
        &self.panes
    }
}

impl std::ops::DerefMut for Replies {
    fn deref_mut(&mut self) -> &mut Vec<ReplyPane> {
        &mut self.panes
    }
}

impl Replies {
    /// The id of a new send.
    pub fn next_id(&mut self) -> u64 {
        self.sends += 1;
        self.sends
    }

    /// Whether a live send is in flight.
    pub fn sending(&self) -> bool {
        self.panes.iter().any(ReplyPane::in_flight)
    }

    /// Whether any reply is on screen (it takes part of the request's
    /// column).
    pub fn visible(&self) -> bool {
        self.panes.iter().any(ReplyPane::visible)
    }
}

impl super::Component for Replies {
    type Context<'a> = ();
    type Props<'a> = ();

    /// Esc cancels the sends in flight.
    fn handle(&mut self, key: super::Key, _: ()) -> super::Outcome {
        if key.action != Some(crate::keymap::Action::CancelSend) {
            return super::Outcome::Pass;
        }
        let ids: Vec<u64> = self
            .panes
            .iter()
            .filter(|r| r.in_flight())
            .map(|r| r.id)
            .collect();
        if ids.is_empty() {
            return super::Outcome::done();
        }
        super::Outcome::Taken(super::Effect {
            status: Some("cancelling…".into()),
            then: Some(super::Then::Cancel(ids)),
            ..super::Effect::default()
        })
    }

    /// Several replies side by side.
    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, _: ()) {
        let n = self.panes.len().max(1) as u32;
        let columns = Layout::default()
            .direction(Direction::Horizontal)
            .constraints((0..n).map(|_| Constraint::Ratio(1, n)).collect::<Vec<_>>())
            .split(area);
        for (reply, column) in self.panes.iter().zip(columns.iter()) {
            reply.draw(frame, *column, ui, ());
        }
    }
}

impl ReplyPane {
    pub fn visible(&self) -> bool {
        self.phase != Phase::Idle
    }

    pub fn in_flight(&self) -> bool {
        matches!(self.phase, Phase::Sending | Phase::Streaming)
    }

    pub fn start(
        &mut self,
        id: u64,
        provider: Provider,
        our_count: Option<(i64, bool)>,
        price: Option<formatscope_core::tokens::cost::Price>,
    ) {
        *self = ReplyPane {
            id,
            phase: Phase::Sending,
            provider: Some(provider),
            our_count,
            price,
            ..ReplyPane::default()
        };
    }

    /// A send under another release to its provider `family`; `label`
    /// says who.
    pub fn start_release(
        &mut self,
        id: u64,
        family: &'static formatscope_core::reference::Family,
        label: &str,
    ) {
        *self = ReplyPane {
            id,
            phase: Phase::Sending,
            provider: family.provider,
            family: Some(family),
            label: Some(label.to_string()),
            ..ReplyPane::default()
        };
    }

    /// Who replies, as the title and status lines say.
    pub fn who(&self) -> String {
        match (&self.label, self.provider) {
            (Some(l), _) => l.clone(),
            (None, Some(p)) => p.to_string(),
            (None, None) => String::new(),
        }
    }

    /// The reply as its release holds it, named `name`, when another
    /// release parsed it.
    pub fn held(&self, name: &str) -> Option<Value> {
        let mut held = self.held.clone().filter(|_| self.phase == Phase::Done)?;
        if let Some(m) = held.as_object_mut() {
            m.insert("name".into(), Value::String(name.to_string()));
        }
        Some(held)
    }

    /// Applies an update of send `id`; updates of older sends are dropped.
    /// Returns a status line when the send ended.
    pub fn apply(&mut self, id: u64, update: ReplyUpdate) -> Option<String> {
        if id != self.id || !self.in_flight() {
            return None;
        }
        let provider = self.who();
        match update {
            ReplyUpdate::Started { url, host, .. } => {
                self.url = url;
                Some(format!("sending to {provider} at {host}… Esc cancels"))
            }
            ReplyUpdate::HostNotChosen(host) => {
                let why = format!(
                    "not sent: only the session names {host}, and your {provider} key goes only where you chose"
                );
                self.phase = Phase::Failed(why.clone());
                Some(why)
            }
            ReplyUpdate::Chunk(r) => {
                self.phase = Phase::Streaming;
                self.latest = Some(*r);
                None
            }
            ReplyUpdate::Held(message) => {
                self.held = Some(message);
                None
            }
            ReplyUpdate::Done(outcome) => {
                if let Some(f) = &outcome.final_response {
                    self.latest = Some(f.clone());
                }
                let line = match (&outcome.parse_error, &outcome.nothing) {
                    (Some(e), _) => {
                        self.phase = Phase::Failed(format!("{}: {}", e.error_type, e.message));
                        format!("{provider} reply failed to parse: {}", e.error_type)
                    }
                    // Nothing AgentScope would yield: what came back, not "done".
                    (None, Some(what)) => {
                        self.phase = Phase::Failed(what.clone());
                        format!("{provider}: no reply: {what}")
                    }
                    (None, None) => {
                        self.phase = Phase::Done;
                        format!(
                            "{provider} replied in {:.2} s · A appends it",
                            outcome.total.as_secs_f64()
                        )
                    }
                };
                self.outcome = Some(*outcome);
                Some(line)
            }
            ReplyUpdate::Failed(why) => {
                self.phase = Phase::Failed(why.clone());
                Some(format!("send failed: {why}"))
            }
            ReplyUpdate::Cancelled => {
                self.phase = Phase::Cancelled;
                Some("send cancelled".into())
            }
        }
    }

    /// The reply to append: only a whole one.
    pub fn final_reply(&self) -> Option<&ChatResponse> {
        match self.phase {
            Phase::Done => self.latest.as_ref().filter(|r| !r.content.is_empty()),
            _ => None,
        }
    }
}

/// One reply: it takes no keys (Esc, `A` are the whole set's and the
/// workbench's), and draws its send as it stands.
impl super::Component for ReplyPane {
    type Context<'a> = ();
    type Props<'a> = ();

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, _: ()) {
        let provider = self.who();
        let state = match &self.phase {
            Phase::Idle => "",
            Phase::Sending => "sending… (Esc cancels)",
            Phase::Streaming => "streaming… (Esc cancels)",
            Phase::Done => "done · A appends",
            Phase::Failed(_) => "failed",
            Phase::Cancelled => "cancelled",
        };
        let mut title = format!(" Reply · {provider} · {state} ");
        if title.chars().count() + 2 > area.width as usize {
            // Side by side: the short form.
            let state = state.split(" (").next().unwrap_or(state);
            title = format!(" {provider} · {state} ");
        }
        let block = pane_block(ui, Line::from(title), false);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let mut lines: Vec<Line> = Vec::new();
        if let Some(r) = &self.latest {
            for b in &r.content {
                match b.get("type").and_then(Value::as_str) {
                    Some("thinking") => {
                        let t = b.get("thinking").and_then(Value::as_str).unwrap_or("");
                        // The end of a reply of megabytes, not all of it.
                        let t = formatscope_core::response::tail(t, crate::msg::PANE_TAIL);
                        for l in t.lines() {
                            lines.push(Line::styled(
                                format!("│ {l}"),
                                Style::default().fg(ui.muted).add_modifier(Modifier::ITALIC),
                            ));
                        }
                    }
                    Some("text") => {
                        // The end of a reply of megabytes, not a copy of it all.
                        let owned;
                        let t = match b.get("text").and_then(Value::as_str) {
                            Some(t) => t,
                            None => {
                                owned = b
                                    .get("text")
                                    .map(formatscope_core::py::py_str)
                                    .unwrap_or_default();
                                &owned
                            }
                        };
                        let t = formatscope_core::response::tail(t, crate::msg::PANE_TAIL);
                        lines
                            .extend(t.lines().map(|l| {
                                Line::styled(l.to_string(), Style::default().fg(ui.text))
                            }));
                    }
                    Some("tool_use") => {
                        let name = b
                            .get("name")
                            .map(formatscope_core::py::py_str)
                            .unwrap_or_default();
                        let input = b
                            .get("input")
                            .map(|v| serde_json::to_string(v).unwrap_or_default())
                            .unwrap_or_default();
                        lines.push(Line::styled(
                            format!("→ {name}({input})"),
                            Style::default().fg(ui.focus),
                        ));
                    }
                    // 2.x: the arguments as the raw string.
                    Some("tool_call") => {
                        let name = b
                            .get("name")
                            .map(formatscope_core::py::py_str)
                            .unwrap_or_default();
                        let input = b
                            .get("input")
                            .map(formatscope_core::py::py_str)
                            .unwrap_or_default();
                        lines.push(Line::styled(
                            format!("→ {name}({input})"),
                            Style::default().fg(ui.focus),
                        ));
                    }
                    Some("audio" | "data") => {
                        lines.push(Line::styled("<audio>", Style::default().fg(ui.muted)))
                    }
                    _ => {}
                }
            }
        } else if matches!(self.phase, Phase::Sending) {
            lines.push(Line::styled(
                format!("waiting for {}", self.url),
                Style::default().fg(ui.muted),
            ));
        }
        if let Phase::Failed(why) = &self.phase {
            lines.push(Line::styled(why.clone(), Style::default().fg(ui.error)));
        }
        if let Some(o) = &self.outcome {
            lines.push(Line::from(""));
            lines.push(Line::styled(self.stats(o), Style::default().fg(ui.muted)));
        }
        // Keep the end of a growing reply in view.
        let height = inner.height as usize;
        let scroll = lines.len().saturating_sub(height) as u16;
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((scroll.max(self.scroll), 0)),
            inner,
        );
    }
}

impl ReplyPane {
    /// The reply's cost from its usage at the price table's rate, and the
    /// input cost predicted from our count; or that the price is unknown.
    fn billed(&self, u: &formatscope_core::response::Usage) -> String {
        let Some(p) = &self.price else {
            return "cost unknown (no price for this model)".into();
        };
        let (Some(input), Some(output)) = (u.input(), u.output()) else {
            return "cost unknown (the usage has no token counts)".into();
        };
        let cost = p.billed(input, u.cached(), output);
        let mut s = format!(
            "cost ${:.6} (in ${:.6}, out ${:.6}",
            cost.total(),
            cost.input + cost.cached,
            cost.output
        );
        if let Some(n) = u.cached().filter(|n| *n > 0) {
            s.push_str(&format!(", {n} cached"));
        }
        s.push(')');
        if let Some((ours, exact)) = self.our_count {
            let predicted = p.cost(u64::try_from(ours).unwrap_or(0), 0, 0).total();
            s.push_str(&format!(
                " · predicted in {}${predicted:.6}",
                if exact { "" } else { "≈" }
            ));
        }
        s
    }

    /// Billed usage beside our count, its cost, and the times.
    pub fn stats(&self, o: &Outcome) -> String {
        let mut parts = Vec::new();
        if let Some(u) = o.final_response.as_ref().and_then(|r| r.usage.as_ref()) {
            let mut s = format!("billed {} in, {} out", u.input_tokens, u.output_tokens);
            if let Some((ours, exact)) = self.our_count {
                s.push_str(&format!(
                    " · our count {}{ours}",
                    if exact { "" } else { "≈" }
                ));
                if let Some(billed) = u.input() {
                    let diff = billed as i64 - ours;
                    s.push_str(&format!(" ({diff:+})"));
                }
            }
            parts.push(s);
            parts.push(self.billed(u));
        }
        if let Some(t) = o.time_to_first_token {
            parts.push(format!("first token {:.2} s", t.as_secs_f64()));
        }
        parts.push(format!("total {:.2} s", o.total.as_secs_f64()));
        if let Some(tps) = o.tokens_per_second() {
            parts.push(format!("{tps:.1} tokens/s"));
        }
        parts.join(" · ")
    }
}
