//! The compare view (`c`): the request area split in two, the same
//! conversation as two requests (two providers, two modes, the formatter's
//! messages and the wire body, before and after truncation, the last save
//! and now), aligned by source message and coloured by the structural
//! diff. `C` picks the pair, `o` the right-hand provider; the two sides
//! scroll together.

use super::pane_block;
use super::Outcome;
use crate::keymap::Action;
use crate::theme::Palette;
use crate::worker::{SideSpec, SideView};
use formatscope_core::compare::{Compared, Row};
use formatscope_core::diff::Mark;
use formatscope_core::formatter::{FormatterId, Mode, Provider};
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Which two requests face each other.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Pair {
    /// The provider on screen and another (`o` picks it).
    #[default]
    Providers,
    /// Chat against multi-agent, for the provider on screen.
    Modes,
    /// The formatter's messages against the wire body.
    Wire,
    /// The request before and after the budget's truncation.
    Truncation,
    /// The request at the last save (or before the last reload) and now.
    LastSave,
    /// AgentScope 1.0.21 against 0.1.6, for the provider on screen.
    Versions,
    /// A reply from the history against the latest reply (`H`, then `c`);
    /// not in `C`'s cycle: it needs a send picked.
    Replies,
    /// What AgentScope recorded formatting, in a call `listen` wrote,
    /// against formatscope's formatting of the session.
    Recorded,
}

impl Pair {
    const ALL: [Pair; 7] = [
        Pair::Providers,
        Pair::Modes,
        Pair::Wire,
        Pair::Truncation,
        Pair::LastSave,
        Pair::Versions,
        Pair::Recorded,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Pair::Providers => "two providers",
            Pair::Modes => "chat / multi-agent",
            Pair::Wire => "formatter / wire",
            Pair::Truncation => "before / after truncation",
            Pair::LastSave => "last save / now",
            Pair::Versions => "two AgentScope releases",
            Pair::Replies => "old reply / new reply",
            Pair::Recorded => "AgentScope recorded / formatscope",
        }
    }
}

#[derive(Debug, Default)]
pub struct ComparePane {
    pub open: bool,
    pub pair: Pair,
    /// The right-hand provider of the providers pair (default: Anthropic,
    /// or OpenAI when Anthropic is on screen).
    pub other: Option<Provider>,
    /// The other side of the releases pair: an index in
    /// `reference::ALL` past the default release's (0 means the next).
    pub release: usize,
    /// The first row on screen (both sides).
    pub scroll: usize,
    pub hscroll: usize,
    /// The replies pair's rows, made when the old reply was picked.
    pub replies: Option<std::sync::Arc<Compared>>,
    /// Rows on screen at the last draw (for paging).
    height: std::cell::Cell<usize>,
}

/// What the compare view reads to take a key: the provider on screen
/// and the rows compared.
#[derive(Clone, Copy)]
pub struct CompareContext<'a> {
    pub provider: Provider,
    pub compared: Option<&'a Compared>,
}

/// What it draws besides its own state.
#[derive(Clone, Copy)]
pub struct CompareView<'a> {
    pub compared: Option<&'a Compared>,
    pub focused: bool,
    /// A newer request is being computed.
    pub updating: bool,
}

impl super::Component for ComparePane {
    type Context<'a> = CompareContext<'a>;
    type Props<'a> = CompareView<'a>;

    fn handle(&mut self, key: super::Key, cx: CompareContext<'_>) -> Outcome {
        match key.action {
            Some(action) => self.on_action(action, cx.provider, cx.compared),
            None => Outcome::Pass,
        }
    }

    fn draw(&self, frame: &mut Frame, area: Rect, ui: &Palette, view: CompareView<'_>) {
        self.render(frame, area, ui, view.compared, view.focused, view.updating)
    }
}

impl ComparePane {
    /// The two sides for the formatter on screen.
    pub fn sides(&self, current: FormatterId) -> (SideSpec, SideSpec) {
        let side = |formatter, view| SideSpec { formatter, view };
        let here = side(current, SideView::Messages);
        match self.pair {
            Pair::Providers => {
                let other = self.other_provider(current.provider);
                (
                    here,
                    side(FormatterId::new(other, current.mode), SideView::Messages),
                )
            }
            Pair::Modes => (
                side(
                    FormatterId::new(current.provider, Mode::Chat),
                    SideView::Messages,
                ),
                side(
                    FormatterId::new(current.provider, Mode::MultiAgent),
                    SideView::Messages,
                ),
            ),
            Pair::Wire => (here, side(current, SideView::Wire)),
            Pair::Truncation => (here, side(current, SideView::Truncated)),
            Pair::LastSave => (side(current, SideView::Saved), here),
            Pair::Versions => (here, side(current, SideView::Release(self.release.max(1)))),
            Pair::Recorded => (side(current, SideView::Recorded), here),
            // The replies are compared on the UI thread (two small values);
            // the worker's sides are not shown.
            Pair::Replies => (here, here),
        }
    }

    /// What the view shows: the replies pair's own rows, else the
    /// worker's for the two requests.
    pub fn shown(
        &self,
        requests: Option<std::sync::Arc<Compared>>,
    ) -> Option<std::sync::Arc<Compared>> {
        match self.pair {
            Pair::Replies => self.replies.clone(),
            _ => requests,
        }
    }

    fn other_provider(&self, on_screen: Provider) -> Provider {
        match self.other {
            Some(p) if p != on_screen => p,
            _ if on_screen == Provider::Anthropic => Provider::OpenAi,
            _ => Provider::Anthropic,
        }
    }

    /// Keys of the open view; `None` when the key is not the view's.
    /// Returns whether the sides changed (a new computation is needed).
    /// The next (or previous) row that differs, from the one on top.
    pub fn jump_to_change(&mut self, forward: bool, compared: Option<&Compared>) -> bool {
        let Some(c) = compared else { return false };
        let marked = |r: &Row| match r {
            Row::Lines(l, r) => {
                l.as_ref().is_some_and(|x| x.mark.is_some())
                    || r.as_ref().is_some_and(|x| x.mark.is_some())
            }
            Row::Heading(_) => false,
        };
        // The start of a run of marked rows, so a block counts once.
        let starts: Vec<usize> = (0..c.rows.len())
            .filter(|&i| marked(&c.rows[i]) && (i == 0 || !marked(&c.rows[i - 1])))
            .collect();
        let next = if forward {
            starts.iter().find(|&&i| i > self.scroll).copied()
        } else {
            starts.iter().rev().find(|&&i| i < self.scroll).copied()
        };
        match next {
            Some(i) => {
                self.scroll = i;
                true
            }
            None => false,
        }
    }

    /// Takes the compare view's actions: opening and closing it, the pair
    /// and the other provider (the request is computed again), and, while
    /// it is open, scrolling and the jumps between differences.
    pub fn on_action(
        &mut self,
        action: Action,
        current: Provider,
        compared: Option<&Compared>,
    ) -> Outcome {
        let page = self.height.get().max(1);
        match action {
            Action::Compare => {
                self.open = !self.open;
                self.scroll = 0;
                return Outcome::reformat(Some(if self.open {
                    format!(
                        "compare: {} (C: another pair, o: another provider, c: close)",
                        self.pair.label()
                    )
                } else {
                    "compare closed".into()
                }));
            }
            Action::ComparePair | Action::CompareOther => {
                let was_open = std::mem::replace(&mut self.open, true);
                if action == Action::CompareOther {
                    self.other = Some(self.next_provider(current));
                    self.pair = Pair::Providers;
                } else if was_open {
                    let i = Pair::ALL.iter().position(|p| *p == self.pair).unwrap_or(0);
                    self.pair = Pair::ALL[(i + 1) % Pair::ALL.len()];
                    self.scroll = 0;
                }
                return Outcome::reformat(Some(format!("compare: {}", self.pair.label())));
            }
            _ if !self.open => return Outcome::Pass,
            Action::NextMatch | Action::PrevMatch => {
                let forward = action == Action::NextMatch;
                return Outcome::say(if self.jump_to_change(forward, compared) {
                    format!("compare: the difference at row {}", self.scroll + 1)
                } else {
                    "compare: no more differences that way".into()
                });
            }
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(page),
            Action::PageDown => self.scroll += page,
            Action::Top => self.scroll = 0,
            Action::Bottom => self.scroll = usize::MAX / 2,
            Action::Left => self.hscroll = self.hscroll.saturating_sub(8),
            Action::Right => self.hscroll += 8,
            _ => return Outcome::Pass,
        }
        Outcome::done()
    }

    /// The providers pair's next right-hand provider: never the one on
    /// screen.
    fn next_provider(&self, current: Provider) -> Provider {
        let now = self.other_provider(current);
        let i = Provider::ALL.iter().position(|p| *p == now).unwrap_or(0);
        let next = Provider::ALL[(i + 1) % Provider::ALL.len()];
        if next == current {
            Provider::ALL[(i + 2) % Provider::ALL.len()]
        } else {
            next
        }
    }

    /// Scrolls to the group holding message `index` (the list's selection).
    pub fn reveal(&mut self, index: usize, compared: Option<&Compared>) {
        let Some(c) = compared else { return };
        if let Some((_, row)) = c.groups.iter().find(|(r, _)| {
            r.as_ref()
                .is_some_and(|r| r.contains(&index) || r.start == index)
        }) {
            self.scroll = *row;
        }
    }

    fn render(
        &self,
        frame: &mut Frame,
        area: Rect,
        ui: &Palette,
        compared: Option<&Compared>,
        focused: bool,
        updating: bool,
    ) {
        let title = format!(
            " compare: {} · C pair · o provider · n/N next change · c close {}",
            self.pair.label(),
            if updating { "· updating… " } else { "" }
        );
        let block = pane_block(ui, Line::from(title), focused);
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(c) = compared else {
            frame.render_widget(
                Paragraph::new("comparing…").style(Style::default().fg(ui.muted)),
                inner,
            );
            return;
        };
        if inner.height < 3 {
            return;
        }
        let halves = Layout::default()
            .direction(Direction::Horizontal)
            .constraints([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)])
            .split(inner);
        let height = inner.height as usize - 2;
        self.height.set(height);
        let start = self.scroll.min(c.rows.len().saturating_sub(height));
        let style = |mark: Option<Mark>| match mark {
            Some(Mark::Added) => Style::default().fg(ui.ok),
            Some(Mark::Removed) => Style::default().fg(ui.error),
            Some(Mark::Changed) => Style::default().fg(ui.warning),
            Some(Mark::Moved | Mark::Renamed) => Style::default().fg(ui.focus),
            None => Style::default().fg(ui.text),
        };
        let sign = |mark: Option<Mark>| match mark {
            Some(Mark::Added) => "+",
            Some(Mark::Removed) => "-",
            Some(Mark::Changed) => "~",
            Some(Mark::Moved) => "→",
            Some(Mark::Renamed) => "»",
            None => " ",
        };
        let bold = Style::default().fg(ui.text).add_modifier(Modifier::BOLD);
        for (k, half) in halves.iter().enumerate() {
            let label = if k == 0 { &c.left } else { &c.right };
            let mut lines = vec![
                Line::styled(label.clone(), bold),
                if k == 0 {
                    Line::styled(c.counts.summary(), Style::default().fg(ui.muted))
                } else {
                    Line::styled(
                        "+ added  - removed  ~ changed  → moved",
                        Style::default().fg(ui.muted),
                    )
                },
            ];
            for row in c.rows.iter().skip(start).take(height) {
                lines.push(match row {
                    Row::Heading(h) => Line::styled(
                        format!(
                            "── {} {}",
                            formatscope_core::text::escape_control(h),
                            "─".repeat(half.width as usize)
                        ),
                        Style::default().fg(ui.muted),
                    ),
                    Row::Lines(l, r) => {
                        let cell = if k == 0 { l } else { r };
                        match cell {
                            None => Line::raw(""),
                            Some(line) => {
                                let text: String = line.text.chars().skip(self.hscroll).collect();
                                Line::from(vec![
                                    Span::styled(sign(line.mark), style(line.mark)),
                                    Span::styled(text, style(line.mark)),
                                ])
                            }
                        }
                    }
                });
            }
            // One column between the halves.
            let area = if k == 0 {
                Rect {
                    width: half.width.saturating_sub(1),
                    ..*half
                }
            } else {
                *half
            };
            frame.render_widget(Paragraph::new(lines), area);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `o` opens the providers pair and never puts the provider on screen
    /// on the right; closed, the view passes its scroll keys up.
    #[test]
    fn the_compare_view_takes_its_keys_only_while_open() {
        let mut pane = ComparePane::default();
        assert_eq!(
            pane.on_action(Action::Down, Provider::OpenAi, None),
            Outcome::Pass
        );
        let Outcome::Taken(effect) = pane.on_action(Action::CompareOther, Provider::OpenAi, None)
        else {
            panic!("taken")
        };
        assert!(effect.reformat && pane.open && pane.pair == Pair::Providers);
        for _ in 0..8 {
            pane.on_action(Action::CompareOther, Provider::OpenAi, None);
            assert_ne!(pane.other_provider(Provider::OpenAi), Provider::OpenAi);
        }
        assert_eq!(
            pane.on_action(Action::Down, Provider::OpenAi, None),
            Outcome::done()
        );
        assert_eq!(pane.scroll, 1);
    }
}
