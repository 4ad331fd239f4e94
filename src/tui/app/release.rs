//! The AgentScope release on screen (`V`) and its modes (`m`): an index
//! into `reference::ALL`, so nothing here names a version.

use super::*;

impl App {
    /// The AgentScope release on screen.
    pub fn reference(&self) -> &'static dyn crate::reference::Reference {
        crate::reference::ALL[self.release % crate::reference::ALL.len()]
    }

    /// "AgentScope 0.1.6 OpenAIFormatter.format_auto" when a release other
    /// than the default formats the request.
    pub fn release_call(&self) -> Option<String> {
        (self.release != 0).then(|| {
            let r = self.reference();
            format!(
                "{} {}",
                r.title(),
                r.call(self.formatter.provider, self.release_mode)
            )
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
        let n = crate::reference::ALL.len();
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
            crate::reference::default().title(),
            crate::reference::ALL[other % n].version()
        );
        self.reformat()
    }

    /// The next AgentScope release (`V`).
    pub(super) fn next_release(&mut self) -> Vec<Command> {
        self.release = (self.release + 1) % crate::reference::ALL.len();
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
