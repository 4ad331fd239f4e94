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

    /// The compare view's releases pair (`V` while it is open).
    pub(super) fn compare_releases(&mut self) -> Vec<Command> {
        self.compare.pair = Pair::Versions;
        self.compare.release = self.release;
        self.compare.scroll = 0;
        let other = crate::reference::ALL[self.release.max(1) % crate::reference::ALL.len()];
        self.status = format!(
            "compare: {} / {}",
            crate::reference::default().title(),
            other.version()
        );
        self.reformat()
    }

    /// The next AgentScope release (`V`).
    pub(super) fn next_release(&mut self) -> Vec<Command> {
        let next = crate::reference::next(self.reference());
        self.release = crate::reference::ALL
            .iter()
            .position(|r| r.version() == next.version())
            .unwrap_or(0);
        self.release_mode = self.formatter.mode.into();
        let modes: Vec<&str> = next.modes().iter().map(|m| m.name()).collect();
        self.status = match self.release_call() {
            Some(call) => format!("{call} (m: {}; V: next release)", modes.join(", ")),
            None => next.title(),
        };
        self.reformat()
    }
}
