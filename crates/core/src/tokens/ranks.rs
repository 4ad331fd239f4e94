//! A vocabulary's ranks, however they are held: the trait both encoders
//! (bpe.rs merging, backtrack.rs backtracking) read them through, in a file
//! of its own so that neither encoder imports the other's.

use super::backtrack_tables::Links;
use rustc_hash::FxHashMap;
use tiktoken_rs::Rank;

/// A vocabulary's ranks, however they are held.
pub trait Ranks {
    fn rank(&self, bytes: &[u8]) -> Option<Rank>;

    /// The backtracking encoder's tables, if the vocabulary has them.
    fn links(&self) -> Option<Links> {
        None
    }
}

impl Ranks for FxHashMap<Vec<u8>, Rank> {
    fn rank(&self, bytes: &[u8]) -> Option<Rank> {
        self.get(bytes).copied()
    }
}
