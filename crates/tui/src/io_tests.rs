use super::*;

#[test]
fn a_read_session_is_parsed_on_the_io_thread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.json");
    let keys = vec!["\"k\": 1"; 1000].join(", ");
    let text = format!(
        "{{\"messages\": [{{\"name\": \"a\", \"role\": \"user\", \"content\": \"hi\", \"x\": {{{keys}}}}}]}}"
    );
    std::fs::write(&path, &text).expect("write");
    let Some(Event::FileRead { result, .. }) =
        execute(Command::Read(path.clone()), &Log::default())
    else {
        panic!("a read answers FileRead");
    };
    let FileResult::Text { text: read, .. } = result else {
        panic!("the file reads");
    };
    let origin = path.display().to_string();
    // Parsed already: the interface takes it without parsing.
    let ahead = AHEAD.lock().expect("lock");
    assert!(ahead
        .as_ref()
        .is_some_and(|a| Arc::ptr_eq(&a.text, &read) && a.origin == origin));
    drop(ahead);
    let session = parse_read(&read, &origin).expect("parses");
    assert_eq!(session.warnings.len(), 1);
    assert!(AHEAD.lock().expect("lock").is_none(), "taken once");
    // Another text (even equal) is parsed where it is asked for.
    let copy: Arc<String> = Arc::new(String::clone(&read));
    assert_eq!(
        parse_read(&copy, &origin).expect("parses").warnings.len(),
        1
    );
}
