//! The golden suites' harness (libtest-mimic): one trial per vector, named
//! `SUITE::CASE::VARIANT`, so `cargo test -- library_trip` runs only that
//! case's vectors; and one `SUITE::vector_count` trial per suite that fails
//! when the suite's manifest is missing or lists fewer vectors than it has.

#![allow(dead_code)] // each suite uses part of these helpers

use libtest_mimic::{Arguments, Failed, Trial};

/// A suite's trials, or why they could not be listed, and how many it has.
pub struct Suite {
    pub name: String,
    pub listed: Result<Vec<Trial>, String>,
    pub at_least: usize,
    /// Set when the count is exact (a fixed upstream set).
    pub at_most: Option<usize>,
}

impl Suite {
    /// A suite that must have at least `at_least` vectors.
    pub fn new(name: &str, listed: Result<Vec<Trial>, String>, at_least: usize) -> Suite {
        Suite {
            name: name.to_string(),
            listed,
            at_least,
            at_most: None,
        }
    }

    /// The same suite, with exactly `at_least` vectors.
    pub fn exactly(mut self) -> Suite {
        self.at_most = Some(self.at_least);
        self
    }
}

/// A failure with `message` (what differs, and where).
pub fn fail(message: impl Into<String>) -> Failed {
    message.into().into()
}

/// Runs the suites' trials as libtest does (filters, `--exact`, `--list`,
/// `--nocapture`...), each suite with its count trial; prints one count line
/// per suite first; `others` are the binary's other tests.
pub fn run(suites: Vec<Suite>, others: Vec<Trial>) -> ! {
    let args = Arguments::from_args();
    let mut all = others;
    for suite in suites {
        let (at_least, at_most) = (suite.at_least, suite.at_most);
        let found = suite.listed.as_ref().map(Vec::len).map_err(Clone::clone);
        // `--list` output is read by tools (nextest): nothing else on it.
        if !args.list {
            match &found {
                Ok(n) => println!("{}: {n} vectors", suite.name),
                Err(e) => println!("{}: no vectors: {e}", suite.name),
            }
        }
        let name = suite.name.clone();
        all.push(Trial::test(format!("{name}::vector_count"), move || {
            let n = found.map_err(fail)?;
            match at_most {
                Some(max) if n > max => Err(fail(format!(
                    "{name}: {n} vectors, expected exactly {max}"
                ))),
                _ if n < at_least => Err(fail(format!(
                    "{name}: only {n} vectors, expected at least {at_least} (is a vector missing from the manifest?)"
                ))),
                _ => Ok(()),
            }
        }));
        all.extend(suite.listed.unwrap_or_default());
    }
    libtest_mimic::run(&args, all).exit()
}

/// A plain test (a function that panics on failure) as a trial.
pub fn test(name: &str, f: fn()) -> Trial {
    Trial::test(name, move || {
        f();
        Ok(())
    })
}

/// A vector's trial name from its expected file's path,
/// `expected/CASE/FORMATTER[.VARIANT].json`: `SUITE::CASE::FORMATTER[::VARIANT]`.
pub fn name_from_expected(suite: &str, rel: &str) -> String {
    let stem = rel.trim_end_matches(".json");
    let stem = stem.split_once('/').map_or(stem, |(_, rest)| rest);
    let Some((case, file)) = stem.split_once('/') else {
        return format!("{suite}::{}", part(stem));
    };
    let mut name = format!("{suite}::{}", part(case));
    for p in file.splitn(2, '.') {
        name.push_str("::");
        name.push_str(&part(p));
    }
    name
}

/// A trial's name part: what libtest filters match, without the `::` that
/// separates the parts.
pub fn part(text: &str) -> String {
    text.replace("::", "_")
}
