//! Release findings (`lint --agentscope VERSION` for a release with no
//! upgrade or port findings of its own: 0.1.6 today): what that release
//! refuses, cannot hold or leaves out of a session the default release
//! formats, for a user whose agent runs it.
//!
//! As for upgrades, nothing is guessed from the session's shape: both
//! releases format the session (and each message with and without a
//! block) through `crate::reference::Reference`, and a finding says what
//! their outputs differ by.

use super::{Input, Sink};
use crate::provider::FormatterId;
use crate::reference::{self, Reference};
use crate::session::Session;

/// The release findings for one formatter.
pub(super) fn checks(
    id: FormatterId,
    release: &dyn Reference,
    input: &Input<'_>,
    sink: &mut Sink<'_>,
) {
    let from = reference::default();
    let Some(family) = release.family_of(id.provider) else {
        return;
    };
    let run = |r: &dyn Reference, s: &Session| r.format(s, family, id.mode.into(), input.env);
    let (before, after) = (run(from, input.session), run(release, input.session));
    if let (Ok(_), Err(e)) = (&before.messages, &after.messages) {
        let message: String = e.message.lines().take(3).collect::<Vec<_>>().join("; ");
        sink.add(
            "release.raises",
            (super::upgrade::first_raising(id, release, input), None),
            Some(id),
            format!("{} raises {}: {message}", release.title(), e.kind),
        );
    }
    // A set: a block lost is skipped below, and a scan of the list per
    // block was quadratic (10,000 empty blocks under 0.1.6: 1.3 s, 20,000: 6 s).
    let mut lost_at = std::collections::HashSet::new();
    for what in &after.lost {
        let at = located(what);
        lost_at.insert(at);
        let why = what.split_once(": ").map_or(what.as_str(), |(_, why)| why);
        sink.add(
            "release.lost",
            at,
            Some(id),
            format!("{}'s Msg cannot hold this: {why}", release.title()),
        );
    }
    let skip =
        |i: usize, j: usize, kind: &str| kind == "text" || lost_at.contains(&(Some(i), Some(j)));
    for (i, j, kind) in super::upgrade::dropped_blocks(release, family, id.mode.into(), input, skip)
    {
        sink.add(
            "release.block-dropped",
            (Some(i), Some(j)),
            Some(id),
            format!(
                "{} leaves this {kind} block out of {}'s request; {} sends it",
                release.title(),
                after.call,
                from.title()
            ),
        );
    }
}

/// "message 3 block 1: why" -> (3, 1).
fn located(what: &str) -> (Option<usize>, Option<usize>) {
    let mut words = what.split([' ', ':']);
    match (words.next(), words.next(), words.next(), words.next()) {
        (Some("message"), Some(i), Some("block"), Some(j)) => (i.parse().ok(), j.parse().ok()),
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lost_block_is_found_where_the_conversion_names_it() {
        assert_eq!(
            super::located("message 3 block 12: a thinking block"),
            (Some(3), Some(12))
        );
        assert_eq!(super::located("the tools"), (None, None));
    }
}
