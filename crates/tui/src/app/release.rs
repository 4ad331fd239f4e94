//! The AgentScope release on screen (`V`), its providers (the digit keys)
//! and its modes (`m`): an index into `reference::ALL` and the release's
//! own provider list, so nothing here names a version or a provider.

use super::*;
use formatscope_core::reference::Family;

impl App {
    /// The AgentScope release on screen.
    pub fn reference(&self) -> &'static dyn formatscope_core::reference::Reference {
        formatscope_core::reference::ALL[self.release % formatscope_core::reference::ALL.len()]
    }

    /// The release on screen when it is not the default one, for its jobs.
    pub(super) fn release_job(&self) -> Option<ReleaseJob> {
        (self.release != 0).then(|| ReleaseJob {
            release: self.reference(),
            family: self.family(),
            mode: self.release_mode,
        })
    }

    /// The release's provider on screen: the one picked that 1.0.21 does
    /// not have, else the formatter's, else the release's first.
    pub fn family(&self) -> &'static Family {
        let r = self.reference();
        self.family
            .and_then(|id| r.family(id))
            .or_else(|| r.family_of(self.formatter.provider))
            .unwrap_or(&r.families()[0])
    }

    /// Picks the release's provider `family` in `mode` (a digit key, the
    /// picker): one 1.0.21 has becomes the formatter's provider, so the
    /// budget, the wire and sends follow it.
    pub(super) fn pick_family(
        &mut self,
        family: &'static Family,
        mode: formatscope_core::reference::Mode,
    ) -> Vec<Command> {
        let was = (self.family, self.formatter, self.release_mode);
        self.release_mode = mode;
        if let Some(m) = mode.formatter_mode() {
            self.formatter.mode = m;
        }
        match family.provider {
            Some(p) => {
                self.family = None;
                self.formatter.provider = p;
            }
            None => self.family = Some(family.id),
        }
        if was == (self.family, self.formatter, self.release_mode) {
            return Vec::new();
        }
        self.status = match self.release_call() {
            Some(call) => call,
            None => format!("{}", self.formatter),
        };
        self.reformat()
    }

    /// A digit key: the release's provider at `index`.
    pub(super) fn pick_provider(&mut self, index: usize) -> Vec<Command> {
        let r = self.reference();
        match r.families().get(index) {
            Some(f) => {
                let mode = if self.release == 0 {
                    self.formatter.mode.into()
                } else {
                    self.release_mode
                };
                self.pick_family(f, mode)
            }
            None => {
                self.status = format!(
                    "{} has {} providers (1–{}; p lists every formatter)",
                    r.title(),
                    r.families().len(),
                    r.families().len()
                );
                Vec::new()
            }
        }
    }

    /// "AgentScope 0.1.6 OpenAIFormatter.format_auto" when a release other
    /// than the default formats the request.
    pub fn release_call(&self) -> Option<String> {
        (self.release != 0).then(|| {
            let r = self.reference();
            format!("{} {}", r.title(), r.call(self.family(), self.release_mode))
        })
    }

    /// The next mode of the release on screen (`m` under another release).
    pub(super) fn next_release_mode(&mut self) -> Vec<Command> {
        let modes = self.reference().modes();
        let at = modes.iter().position(|m| *m == self.release_mode);
        self.release_mode = modes[at.map_or(0, |i| (i + 1) % modes.len())];
        if let Some(mode) = self.release_mode.formatter_mode() {
            self.formatter.mode = mode;
        }
        self.status = self.release_call().unwrap_or_default();
        self.reformat()
    }

    /// The compare view's releases pair (`V` while it is open): the default
    /// release against the one on screen, or the next; `V` again moves the
    /// right-hand side on to the next release.
    pub(super) fn compare_releases(&mut self) -> Vec<Command> {
        let n = formatscope_core::reference::ALL.len();
        let other = if self.compare.pair == Pair::Versions {
            // Past the default release (0), wrapping round.
            self.compare.release.max(1) % (n - 1) + 1
        } else if self.release != 0 {
            self.release
        } else {
            1
        };
        self.compare.pair = Pair::Versions;
        self.compare.release = other;
        self.compare.scroll = 0;
        self.status = format!(
            "compare: {} / {} (V: another release)",
            formatscope_core::reference::default().title(),
            formatscope_core::reference::ALL[other % n].version()
        );
        self.reformat()
    }

    /// The next AgentScope release (`V`).
    pub(super) fn next_release(&mut self) -> Vec<Command> {
        self.release = (self.release + 1) % formatscope_core::reference::ALL.len();
        let next = self.reference();
        self.release_mode = self.formatter.mode.into();
        let modes: Vec<&str> = next.modes().iter().map(|m| m.name()).collect();
        self.status = match self.release_call() {
            Some(call) => format!("{call} (m: {}; V: next release)", modes.join(", ")),
            None => next.title(),
        };
        self.reformat()
    }
}
