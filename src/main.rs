//! The `formatscope` binary: a thin command line over the core library.

mod cli;

// Formatting builds many small JSON values; mimalloc makes that ~30% faster
// than the system allocator (cargo bench --bench budget).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's arenas are committed lazily: see .cargo/config.toml.
// A subcommand reports what the user must know and returns its exit code;
// an `Err` is a failure nobody expects, which std prints (`Error: ...`,
// with its causes) before exiting 1.
fn main() -> anyhow::Result<std::process::ExitCode> {
    cli::run()
}

/// `mi_option_purge_delay`: mimalloc.h (v3) numbers its options in the
/// order of `mi_option_e`, where the purge delay is the 16th; the bindings
/// do not name it. The test below checks the number against its default.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc 3 keeps freed pages for a second before giving them back. The
/// workbench runs for hours and its jobs free as much as they keep (a unit
/// formatted, then packed; a message laid out, then dropped), so pages held
/// a second raise its resident memory by a tenth (10,000 messages: 50 -> 46
/// MB); the workbench alone asks for them back at once. A command exits
/// within seconds, and giving pages back only to fault them in again cost
/// it a quarter of its time (`format` of 100,000 messages in process: 105
/// -> 77 ms with the default delay), so commands keep mimalloc's default.
/// `MIMALLOC_PURGE_DELAY` still decides when set.
pub(crate) fn return_freed_memory_at_once() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's integer options; mimalloc reads it
        // at each purge, so setting it after start-up is allowed.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads and sets mimalloc's integer options.
        unsafe {
            // mimalloc 3's documented default purge delay, in milliseconds.
            assert_eq!(libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY), 1000);
            return_freed_memory_at_once();
            assert_eq!(libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY), 0);
        }
    }
}
