//! How many cases a property test runs: its own number in the default
//! run, that many times `FORMATSCOPE_LONG` in the long run
//! (`scripts/test long`, which CI runs too). The default run stays a few
//! minutes on two cores; the long one looks much further.

pub fn cases(default: u32) -> u32 {
    let factor = std::env::var("FORMATSCOPE_LONG")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&f| f > 0)
        .unwrap_or(1);
    default.saturating_mul(factor)
}

/// A property test too slow for the default run (sessions of thousands of
/// messages against AgentScope's quadratic loop): its cases in the long
/// run only, none in the default one.
#[allow(dead_code)] // not every test binary that includes this has one
pub fn only(cases: u32) -> u32 {
    if std::env::var_os("FORMATSCOPE_LONG").is_some() {
        cases
    } else {
        0
    }
}
