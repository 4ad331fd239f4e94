//! Who said each message: its speaker's name (a number for the name) and
//! its role, kept beside the messages' keys and changed where they change.
//!
//! A report reads 8 bytes a message here instead of each message itself
//! (about a hundred bytes, its name inline): at 100,000 messages the
//! report's reading of every message had outgrown the caches, and a warm
//! count took 6× as long as at 25,000 messages instead of 4×.

use super::report::Speakers;
use crate::session::{MsgItem, Role};
use std::ops::Range;
use std::sync::Arc;

/// One message's speaker (its number in [`Who::names`]) and role.
#[derive(Clone, Copy)]
struct Said {
    name: u32,
    role: Role,
}

/// Every message's speaker and role, in order, and every name seen.
#[derive(Default)]
pub(super) struct Who {
    /// Each name numbered the first time it is seen (names no message has
    /// any more stay: a session has a handful).
    names: Speakers,
    said: Vec<Said>,
}

impl Who {
    pub(super) fn of(msgs: &[MsgItem]) -> Who {
        let mut who = Who::default();
        who.splice(0..0, msgs);
        who
    }

    /// Messages `range` replaced by `msgs`.
    pub(super) fn splice(&mut self, range: Range<usize>, msgs: &[MsgItem]) {
        let names = &mut self.names;
        let said: Vec<Said> = msgs.iter().map(|m| said(names, m)).collect();
        self.said.splice(range, said);
    }

    /// Message `i` replaced by `msg`.
    pub(super) fn set(&mut self, i: usize, msg: &MsgItem) {
        let said = said(&mut self.names, msg);
        if let Some(slot) = self.said.get_mut(i) {
            *slot = said;
        }
    }

    pub(super) fn clear(&mut self) {
        self.said.clear();
    }

    /// A report's speakers, each given its place the first time a message
    /// of the report names it.
    pub(super) fn places(&self) -> Places<'_> {
        Places {
            who: self,
            place: Vec::new(),
            names: Vec::new(),
        }
    }
}

fn said(names: &mut Speakers, msg: &MsgItem) -> Said {
    Said {
        name: names.place(&msg.name()),
        role: msg.role(),
    }
}

/// The speakers of a report being made: names by their place in it.
pub(super) struct Places<'a> {
    who: &'a Who,
    /// Each name's place in the report by its number (`u32::MAX`: not
    /// yet placed).
    place: Vec<u32>,
    names: Vec<Arc<str>>,
}

impl Places<'_> {
    /// Message `i`'s speaker's place in the report, and its role.
    pub(super) fn of(&mut self, i: usize) -> (u32, Role) {
        let Some(&Said { name, role }) = self.who.said.get(i) else {
            return (self.place_of(""), Role::User);
        };
        if self.place.len() <= name as usize {
            self.place.resize(name as usize + 1, u32::MAX);
        }
        let place = self.place[name as usize];
        if place != u32::MAX {
            return (place, role);
        }
        let place = self.names.len() as u32;
        self.place[name as usize] = place;
        let named = self
            .who
            .names
            .name(name)
            .map_or_else(|| "".into(), Arc::clone);
        self.names.push(named);
        (place, role)
    }

    /// The place of a name no message has numbered (a list out of step
    /// with the messages, which is a bug: the report still adds up).
    fn place_of(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| &**n == name) {
            Some(place) => place as u32,
            None => {
                self.names.push(name.into());
                self.names.len() as u32 - 1
            }
        }
    }

    pub(super) fn into_names(self) -> Vec<Arc<str>> {
        self.names
    }
}
