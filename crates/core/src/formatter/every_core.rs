//! Formatting a long request's pieces (units, groups) on every core, with
//! the output, the first error and the logged warnings exactly those of
//! formatting them one after another.
//!
//! One formatting run ([`MediaEnv`]) is not shared between threads: it
//! remembers the base64 media tool results "save", which later pieces may
//! read back, and it logs warnings in order. So only pieces that read no
//! media ([`MsgItem::may_read_media`]) are spread, each chunk on a run of
//! its own through the same gate, whose warnings then join the caller's in
//! the pieces' order; a piece that may read media runs on the caller's run,
//! in its place. A chunk stops at its first error, and nothing after the
//! first error in order is kept, as a loop that stops there keeps nothing.
//!
//! [`MsgItem::may_read_media`]: crate::session::MsgItem::may_read_media

use crate::media::MediaEnv;
use crate::parallel;

/// `work(piece, run)` for each of `pieces` in order: the results, or the
/// first error in order. Runs of at least [`parallel::MIN_ITEMS`] pieces
/// for which `reads_media` is false are spread over every core; the rest
/// run here on `env`.
pub fn in_order<P: Sync, R: Send, E: Send>(
    pieces: &[P],
    env: &MediaEnv,
    reads_media: impl Fn(&P) -> bool + Sync,
    work: impl Fn(&P, &MediaEnv) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let mut out = Vec::with_capacity(pieces.len());
    let runs = env.runs();
    let mut at = 0;
    while at < pieces.len() {
        let quiet = pieces[at..]
            .iter()
            .position(&reads_media)
            .unwrap_or(pieces.len() - at);
        if quiet < parallel::MIN_ITEMS {
            // Too few to spread: these and the piece that reads media, here.
            let end = (at + quiet + 1).min(pieces.len());
            for piece in &pieces[at..end] {
                out.push(work(piece, env)?);
            }
            at = end;
            continue;
        }
        let chunks = parallel::chunks(&pieces[at..at + quiet], |chunk| {
            let run = runs.run();
            let mut done = Vec::with_capacity(chunk.len());
            for piece in chunk {
                match work(piece, &run) {
                    Ok(r) => done.push(r),
                    Err(e) => return (done, Some(e), run),
                }
            }
            (done, None, run)
        });
        for (done, error, run) in chunks {
            out.extend(done);
            env.absorb(run);
            if let Some(e) = error {
                return Err(e);
            }
        }
        at += quiet;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::NoNetwork;
    use crate::py::PyErr;
    use std::sync::Arc;

    /// Piece `i` logs a warning; multiples of 7 read media (and log that
    /// they ran on the caller's run); `fail` raises.
    fn run_all(n: usize, fail: &[usize]) -> (Result<Vec<usize>, PyErr>, Vec<String>) {
        let env = MediaEnv::new(".", Arc::new(NoNetwork));
        let pieces: Vec<usize> = (0..n).collect();
        let out = in_order(
            &pieces,
            &env,
            |i| i % 700 == 0,
            |&i, run| {
                run.warn(format!("piece {i}"));
                if fail.contains(&i) {
                    return Err(PyErr::value(format!("bad {i}")));
                }
                Ok(i)
            },
        );
        (out, env.take_warnings())
    }

    fn one_by_one(n: usize, fail: &[usize]) -> (Result<Vec<usize>, PyErr>, Vec<String>) {
        let mut warnings = Vec::new();
        let mut out = Vec::new();
        for i in 0..n {
            warnings.push(format!("piece {i}"));
            if fail.contains(&i) {
                return (Err(PyErr::value(format!("bad {i}"))), warnings);
            }
            out.push(i);
        }
        (Ok(out), warnings)
    }

    #[test]
    fn spread_pieces_give_what_a_loop_gives() {
        for (n, fail) in [
            (0, vec![]),
            (10, vec![]),
            (5_000, vec![]),
            (5_000, vec![3_333, 4_000]),
            (5_000, vec![1_400]),
            (5_000, vec![4_999]),
            (300, vec![0]),
        ] {
            let (got, warnings) = run_all(n, &fail);
            let (want, want_warnings) = one_by_one(n, &fail);
            assert_eq!(
                got.map_err(|e| e.message),
                want.map_err(|e| e.message),
                "{n} pieces, failing {fail:?}"
            );
            assert_eq!(warnings, want_warnings, "{n} pieces, failing {fail:?}");
        }
    }
}
