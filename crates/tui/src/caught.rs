//! A panic caught away from the loop's thread (the worker, the I/O
//! thread, a send): the message it carried, and the debug builds' switch
//! that raises one for the end-to-end tests. A leaf module, so the threads
//! that catch panics need not import the runtime that spawned them.

/// A panic's message (`panic!`'s text, else a note that it had none).
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into())
}

/// Debug builds only: `FORMATSCOPE_TEST_PANIC=worker,io,send` makes the
/// first job of each place named panic, so the end-to-end tests can check
/// that a panic away from the interface ends in an error on screen with
/// the terminal the app's. A release build has no such switch.
pub(crate) fn test_panic(place: &str) {
    #[cfg(debug_assertions)]
    {
        static DONE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let named = std::env::var("FORMATSCOPE_TEST_PANIC")
            .is_ok_and(|v| v.split(',').any(|p| p.trim() == place));
        if named {
            let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
            if !done.iter().any(|d| d == place) {
                done.push(place.to_string());
                drop(done);
                panic!("FORMATSCOPE_TEST_PANIC={place}");
            }
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = place;
}
