use super::*;
use crate::py::{normalize_numbers, py_repr, python_float_repr};
use proptest::prelude::*;
use serde_json::json;

/// A value as a loaded session holds it: numbers in Python's text.
fn session_value(json_text: &str) -> Value {
    let mut v: Value = serde_json::from_str(json_text).expect("valid json");
    normalize_numbers(&mut v);
    v
}

/// Equal, and written alike (key order and number text included: a
/// preserve_order Map's `==` ignores order).
fn assert_same(got: &Value, want: &Value) {
    assert_eq!(got, want);
    assert_eq!(got.to_string(), want.to_string());
}

fn round_trips(v: &Value) {
    let repr = py_repr(v);
    let got = literal(&repr).unwrap_or_else(|e| panic!("{repr}: {e}"));
    assert_same(&got, v);
}

fn err(text: &str) -> String {
    match literal(text) {
        Ok(v) => panic!("{text:?} parsed as {v}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn reprs_read_back_as_the_values_they_print() {
    let strings = [
        "",
        "it's",
        "say \"hi\"",
        "both ' and \"",
        "line\nbreak\r\n\ttab",
        "back\\slash \\n not a newline",
        "\u{7f} \u{85} \u{a0} \u{ad} \u{200b} \u{2028} \u{feff} \u{e000} \u{378}",
        "\u{0} \u{7} \u{1b}",
        "emoji 😀 👩‍👩‍👧 CJK 東京 new \u{1fae8} tag \u{e0001}",
        "', role='user', metadata=",
    ];
    for s in strings {
        round_trips(&json!(s));
        round_trips(&json!({ s: [s] }));
    }
    for text in [
        "0",
        "-1",
        "123456789012345678901234567890",
        "-1000000000000000000000000000000000000000",
        "0.1",
        "1e16",
        "1e-7",
        "-0.0",
        "100000.0",
        "1e15",
        "1.5e300",
        "5e-324",
        "0.30000000000000004",
        "true",
        "false",
        "null",
        "[]",
        "{}",
        "[[], {}, [[[]]], {\"a\": {}}]",
        r#"{"type": "tool_use", "id": "call_1", "input": {"city": "東京", "n": [1, 2.5, null]}}"#,
        r#"[{"type": "text", "text": "hi"}, {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}]"#,
        r#"{"$bytes": "AAEC/4A="}"#,
        r#"{"$bytes": ""}"#,
        r#"{"'": "\"", "\"": "'", "k\n": "\\"}"#,
    ] {
        round_trips(&session_value(text));
    }
    // The texts Python gives those floats.
    assert_eq!(py_repr(&session_value("[1e16, 1e-7]")), "[1e+16, 1e-07]");
}

#[test]
fn what_python_writes_reads_as_json_dumps_reads() {
    // repr(v) and json.dumps(v, ensure_ascii=False) of the same values,
    // from Python 3.11: tuples, int/float/bool/None keys, odd characters.
    let pairs = [
        (r"(1,)", "[1]"),
        (r"((), (1, 2), [3])", "[[], [1, 2], [3]]"),
        (
            r"{1: 'a', None: 'c', 2.5: 'd', 1e+16: 'e', -7: 'f'}",
            r#"{"1": "a", "null": "c", "2.5": "d", "1e+16": "e", "-7": "f"}"#,
        ),
        (
            r"{True: 1, False: 2, nan: 3, inf: 4, -inf: 5}",
            r#"{"true": 1, "false": 2, "NaN": 3, "Infinity": 4, "-Infinity": 5}"#,
        ),
        (r"{'1': 'a', 1: 'b'}", r#"{"1": "b"}"#),
        (
            r#"'it\'s "q" \\ \x00\x7f\x85\xad\u200b\u2028\U0001fae8 é😀'"#,
            r#""it's \"q\" \\ \u0000\u007f\u0085\u00ad\u200b\u2028🫨 é😀""#,
        ),
        (r#""it's""#, r#""it's""#),
        (
            r"[1e-07, -0.0, 1e+16, 100000.0]",
            "[1e-07, -0.0, 1e+16, 100000.0]",
        ),
    ];
    for (repr, dumped) in pairs {
        let want: Value = serde_json::from_str(dumped).expect("valid json");
        let got = literal(repr).unwrap_or_else(|e| panic!("{repr}: {e}"));
        assert_same(&got, &want);
    }
}

#[test]
fn escapes_are_read_as_python_reads_them() {
    for (text, want) in [
        (
            r"'\a\b\f\v\0\7\101\1012'",
            "\u{7}\u{8}\u{c}\u{b}\u{0}\u{7}AA2",
        ),
        (r"'\x41\u00e9\U0001F600'", "Aé😀"),
        (r"'\d\ '", "\\d\\ "),
        ("'a\\\nb'", "ab"),
        (r#"'\'\"\\'"#, "'\"\\"),
        (r"'\777'", "\u{1ff}"),
    ] {
        assert_eq!(literal(text), Ok(json!(want)), "{text}");
    }
    assert_eq!(
        literal(r#"b'\x00ab\'"\n\u00'"#),
        Ok(json!({"$bytes": "AGFiJyIKXHUwMA=="}))
    );
    assert_eq!(literal(r#"b"it's""#), Ok(json!({"$bytes": "aXQncw=="})));
    assert_eq!(err(r"'\x4'"), r"at 1: \x needs two hex digits");
    assert_eq!(err(r"'\U00110000'"), "at 1: escape beyond U+10FFFF");
    assert_eq!(err(r"'\N{DASH}'"), r"at 1: \N{...} is not supported");
    assert_eq!(err(r"b'\400'"), r"at 2: octal escape above \377");
    assert_eq!(err("b'é'"), "at 2: expected ASCII in a bytes literal");
    assert_eq!(
        err("'a\nb'"),
        "at 2: expected a closing quote before the line break"
    );
}

#[test]
fn lone_surrogates_are_errors_or_replacement_characters() {
    assert_eq!(
        err(r"['ok', 'a\ud800b']"),
        r"at 9: lone surrogate \ud800 is not UTF-8"
    );
    assert_eq!(
        err(r"'\udc00'"),
        r"at 1: lone surrogate \udc00 is not UTF-8"
    );
    // A high one at the end, and one followed by a plain character.
    assert_eq!(
        err(r"'\ud83d'"),
        r"at 1: lone surrogate \ud83d is not UTF-8"
    );
    let got = literal_lenient(r"['\ud800', 'x\udfffy\ud83d', '\ud83d\ud83d\ude00']");
    assert_eq!(
        got,
        Ok(LenientLiteral {
            value: json!(["\u{fffd}", "x\u{fffd}y\u{fffd}", "\u{fffd}😀"]),
            replaced_surrogates: 4,
        })
    );
    // An escaped pair is the character it encodes (as JSON reads it).
    assert_eq!(literal(r"'\ud83d\ude00'"), Ok(json!("😀")));
}

#[test]
fn nan_and_infinity_are_errors_or_the_projects_numbers() {
    assert_eq!(err("nan"), "at 0: nan is not a JSON number");
    assert_eq!(err("[1.0, -inf]"), "at 6: -inf is not a JSON number");
    assert_eq!(err("{'a': inf}"), "at 6: inf is not a JSON number");
    let lenient = literal_lenient("[nan, inf, -inf, 1]").map(|l| l.value.to_string());
    assert_eq!(lenient, Ok("[NaN,Infinity,-Infinity,1]".to_string()));
    // Exactly what py_repr prints for the project's non-finite numbers.
    let v = Value::Array(["NaN", "Infinity", "-Infinity"].map(number).to_vec());
    assert_eq!(py_repr(&v), "[nan, inf, -inf]");
    assert_eq!(literal_lenient(&py_repr(&v)).map(|l| l.value), Ok(v));
    assert_eq!(err("-nan"), "at 0: expected a number");
}

#[test]
fn errors_name_the_offset() {
    for (text, want) in [
        ("", "at 0: expected a value"),
        ("[1, 2", "at 5: expected ',' or ']'"),
        ("[1 2]", "at 3: expected ',' or ']'"),
        ("(1 2)", "at 3: expected ',' or ')'"),
        ("{'a' 1}", "at 5: expected ':'"),
        ("{'a': 1 'b': 2}", "at 8: expected ',' or '}'"),
        ("{1, 2}", "at 2: expected ':'"),
        (
            "{(1, 2): 3}",
            "at 1: a dict key must be a str, int, float, bool or None",
        ),
        (
            "{b'k': 3}",
            "at 1: a dict key must be a str, int, float, bool or None",
        ),
        (
            "{[]: 3}",
            "at 1: a dict key must be a str, int, float, bool or None",
        ),
        ("{: 3}", "at 1: expected a dict key"),
        ("'abc", "at 4: expected a closing quote"),
        ("'abc\\", "at 5: expected a closing quote"),
        ("datetime.datetime(2020, 1, 1)", "at 0: expected a value"),
        ("Nonesuch", "at 0: expected a value"),
        ("1j", "at 1: expected a number as repr() writes it"),
        ("01", "at 1: expected a number as repr() writes it"),
        ("1_000", "at 1: expected a number as repr() writes it"),
        ("1.", "at 2: expected a digit after '.'"),
        ("1e+", "at 3: expected an exponent"),
        ("-", "at 0: expected a number"),
        ("1 2", "at 2: expected the end of the literal"),
        ("[1,, 2]", "at 3: expected a value"),
        ("{'a': 1} x", "at 9: expected the end of the literal"),
    ] {
        assert_eq!(err(text), want, "{text}");
    }
}

#[test]
fn python_syntax_repr_never_writes_is_still_read() {
    for (text, want) in [
        (" [ 1 ,\n 2 , ] ", json!([1, 2])),
        ("{'a': 1,}", json!({"a": 1})),
        ("()", json!([])),
        ("(1)", json!(1)),
        ("(1,)", json!([1])),
        ("((1, 2),)", json!([[1, 2]])),
        ("\"x\"", json!("x")),
        ("1E5", number("1E5")),
    ] {
        assert_eq!(literal(text), Ok(want), "{text}");
    }
}

#[test]
fn nesting_is_bounded() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(literal(&ok).is_ok());
    // Dicts and tuples (larger frames) as deep as allowed, in a Msg too.
    let dicts = format!(
        "{}1{}",
        "{'a': (".repeat(MAX_DEPTH / 2),
        ",)}".repeat(MAX_DEPTH / 2)
    );
    assert!(literal(&dicts).is_ok());
    let msg = SPEC_EXAMPLE.replace("metadata={}", &format!("metadata={dicts}"));
    assert!(msg_repr(&msg).is_ok_and(|m| m.metadata.is_some()));
    let deep = "[{'a': ".repeat(MAX_DEPTH / 2 + 1);
    assert_eq!(
        literal(&deep).map_err(|e| e.kind),
        Err(LiteralErrorKind::TooDeep)
    );
    let hostile = "(".repeat(1_000_000);
    assert_eq!(
        err(&hostile),
        format!("at {MAX_DEPTH}: nested deeper than {MAX_DEPTH}")
    );
}

/// The example of live-tracing.md §2.4.
const SPEC_EXAMPLE: &str = r#"Msg(id='exUcot9erAFXHTkzQAhGL4', name='Friday', content=[{'type': 'tool_use', 'id': 'call_0001', 'name': 'get_weather', 'input': {'city': '東京'}, 'raw_input': '{"city":"東京"}'}], role='assistant', metadata={}, timestamp='2026-11-27 14:04:40.381', invocation_id='chatcmpl-1')"#;

#[test]
fn the_spec_example_reads_as_a_session_message() {
    let msg = msg_repr(SPEC_EXAMPLE).expect("the spec's example");
    assert_eq!(
        msg.to_session_message().to_string(),
        r#"{"id":"exUcot9erAFXHTkzQAhGL4","name":"Friday","role":"assistant","content":[{"type":"tool_use","id":"call_0001","name":"get_weather","input":{"city":"東京"},"raw_input":"{\"city\":\"東京\"}"}],"metadata":{},"timestamp":"2026-11-27 14:04:40.381","invocation_id":"chatcmpl-1"}"#
    );
    assert_eq!(msg.metadata, Some(json!({})));
    assert_eq!(msg.replaced_surrogates, 0);
}

/// Printed by AgentScope 1.0.21 on Python 3.11.7 (`repr(Msg(...))`, the id
/// set by hand), as JSON strings.
const REAL: [&str; 4] = [
    r#""Msg(id='exUcot9erAFXHTkzQAhGL4', name='Friday', content=[{'type': 'tool_use', 'id': 'call_0001', 'name': 'get_weather', 'input': {'city': '東京'}, 'raw_input': '{\"city\":\"東京\"}'}], role='assistant', metadata={}, timestamp='2026-11-27 14:04:40.381', invocation_id='chatcmpl-1')""#,
    r#""Msg(id='id1', name='O'Brien', content='it\\'s \"quoted\" both\\n\\ttab \\x7f \\x85 \\u200b 😀 \\U0001fae8 東京 \\ud800', role='user', metadata={'n': 1000000000000000000000000000000, 'f': [0.1, 1e+16, 1e-07, -0.0, 100000.0, nan, inf, -inf], 't': (1,), 'k': {1: 'b', None: 'c', 2.5: 'd'}, 'b': b'\\x00ab\\'\"'}, timestamp='2026-01-01 00:00:00.000', invocation_id='None')""#,
    r#""Msg(id='id2', name='two\nlines', content=[{'type': 'text', 'text': \"x', role='user', metadata={}, timestamp='y\"}], role='system', metadata={'a': datetime.datetime(2020, 1, 1, 0, 0)}, timestamp='2026-01-01 00:00:00.000', invocation_id='None')""#,
    r#""Msg(id='id3', name='user', content=\"', role='user', metadata=\", role='user', metadata={}, timestamp='2026-01-01 00:00:00.000', invocation_id='None')""#,
];

fn real(i: usize) -> MsgRepr {
    let text: String = serde_json::from_str(REAL[i]).expect("a JSON string");
    msg_repr(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn real_agentscope_reprs_read_back() {
    let a = real(0);
    assert_eq!(Ok(a.clone()), msg_repr(SPEC_EXAMPLE));

    let b = real(1);
    assert_eq!((b.id.as_str(), b.name.as_str()), ("id1", "O'Brien"));
    assert_eq!(
        b.content,
        json!("it's \"quoted\" both\n\ttab \u{7f} \u{85} \u{200b} 😀 \u{1fae8} 東京 \u{fffd}")
    );
    assert_eq!(b.replaced_surrogates, 1);
    assert_eq!(b.invocation_id, None);
    assert_eq!(
        b.metadata.map(|m| m.to_string()),
        Some(
            r#"{"n":1000000000000000000000000000000,"f":[0.1,1e+16,1e-07,-0.0,100000.0,NaN,Infinity,-Infinity],"t":[1],"k":{"1":"b","null":"c","2.5":"d"},"b":{"$bytes":"AGFiJyI="}}"#
                .to_string()
        )
    );

    let c = real(2);
    assert_eq!((c.name.as_str(), c.role.as_str()), ("two\nlines", "system"));
    assert_eq!(
        c.content,
        json!([{"type": "text", "text": "x', role='user', metadata={}, timestamp='y"}])
    );
    assert_eq!(c.metadata, None);
    assert_eq!(c.timestamp, "2026-01-01 00:00:00.000");
    assert_eq!(
        c.to_session_message().to_string(),
        r#"{"id":"id2","name":"two\nlines","role":"system","content":[{"type":"text","text":"x', role='user', metadata={}, timestamp='y"}],"metadata":{},"timestamp":"2026-01-01 00:00:00.000"}"#
    );

    let d = real(3);
    assert_eq!(d.content, json!("', role='user', metadata="));
    assert_eq!((d.role.as_str(), d.metadata), ("user", Some(json!({}))));
}

#[test]
fn raw_fields_hold_the_delimiters_of_other_fields() {
    let msg = |name: &str, content: &str, metadata: &str, ts: &str, inv: &str| {
        let text = format!(
            "Msg(id='i', name='{name}', content={content}, role='user', metadata={metadata}, timestamp='{ts}', invocation_id='{inv}')"
        );
        msg_repr(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
    };
    // A name holding `', content=` before the real one.
    let m = msg("a', content=b", "'hi'", "{}", "t", "x");
    assert_eq!(
        (m.name.as_str(), m.content.clone()),
        ("a', content=b", json!("hi"))
    );
    // The first split parses as far as `, role='` but the rest does not fit.
    let m = msg("a', content='x', role='", "'hi'", "{}", "t", "x");
    assert_eq!(m.name, "a', content='x', role='");
    // Non-literal metadata holding `, timestamp='` inside a string.
    let m = msg("n", "[]", "{'d': Foo(', timestamp=\\'x')}", "2026", "None");
    assert_eq!((m.metadata, m.timestamp.as_str()), (None, "2026"));
    // Unbalanced non-literal metadata: the first `, timestamp='`.
    let m = msg("n", "[]", "<don't>", "2026", "inv'x");
    assert_eq!(
        (m.timestamp.as_str(), m.invocation_id),
        ("2026", Some("inv'x".into()))
    );
    // `'None'` is no invocation id; an empty one is one.
    assert_eq!(
        msg("n", "''", "{}", "", "").invocation_id,
        Some(String::new())
    );
    assert_eq!(msg("", "''", "{}", "", "None").invocation_id, None);
}

#[test]
fn malformed_msgs_say_where() {
    let bad = |text: &str| msg_repr(text).map_err(|e| e.to_string()).err();
    assert_eq!(bad("Message()"), Some("at 0: expected \"Msg(id='\"".into()));
    assert_eq!(
        bad("Msg(id='x'"),
        Some("at 10: expected \"')\" at the end".into())
    );
    assert_eq!(
        bad("Msg(id='x', name='n', content=[1, role='user', metadata={}, timestamp='t', invocation_id='i')"),
        Some("at 34: expected a value".into())
    );
    assert_eq!(
        bad("Msg(id='x', name='n', content=oops, role='user', metadata={}, timestamp='t', invocation_id='i')"),
        Some("at 30: expected a value".into())
    );
    assert_eq!(
        bad("Msg(id='x', name='n', content='c', role='user', metadata={}, timestamp='t')"),
        Some("at 72: expected \"', invocation_id='\"".into())
    );
    assert_eq!(
        bad(&SPEC_EXAMPLE.replace("', content=", "', contents=")),
        Some("at 39: expected \"', content=\"".into())
    );
}

/// xorshift64*: the same bytes every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Nothing panics: every prefix of real reprs, random splices of their
/// pieces and random bytes.
#[test]
fn no_input_panics() {
    let reprs: Vec<String> = (0..REAL.len())
        .map(|i| serde_json::from_str(REAL[i]).expect("a JSON string"))
        .collect();
    let try_all = |text: &str| {
        let _ = literal(text);
        let _ = literal_lenient(text);
        let _ = msg_repr(text);
    };
    for repr in &reprs {
        for (i, _) in repr.char_indices() {
            try_all(&repr[..i]);
            try_all(&repr[i..]);
            let content = repr.find("content=").map_or(0, |c| c + 8);
            if i > content {
                try_all(&repr[content..i]);
            }
        }
    }
    let pieces: Vec<&str> = reprs
        .iter()
        .flat_map(|r| r.split_inclusive([',', '\'', '\\', '[', '(', '{']))
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..20_000 {
        let mut text = String::from(if rng.below(2) == 0 { "Msg(id='" } else { "" });
        for _ in 0..rng.below(30) {
            text.push_str(pieces[rng.below(pieces.len())]);
        }
        try_all(&text);
        let bytes: Vec<u8> = (0..rng.below(40))
            .map(|_| b"'\"\\xuU0d8[](){}:, -1e.nafTNb"[rng.below(28)])
            .collect();
        try_all(&String::from_utf8_lossy(&bytes));
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<String>().prop_map(Value::String),
        "[ '\"\\\\\n\t\u{7f}\u{85}\u{200b}😀\u{1fae8}東a]{0,12}".prop_map(Value::String),
        any::<i64>().prop_map(|n| json!(n)),
        "-?[1-9][0-9]{18,40}".prop_map(|t| number(&t)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| number(&python_float_repr(f))),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| {
            use base64::Engine;
            json!({"$bytes": base64::engine::general_purpose::STANDARD.encode(b)})
        }),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((any::<String>(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_value_round_trips_through_its_repr(v in json_value()) {
        let repr = py_repr(&v);
        let got = literal(&repr);
        prop_assert_eq!(got.as_ref().map(Value::to_string), Ok(v.to_string()), "{}", repr);
    }

    #[test]
    fn every_msg_round_trips_through_its_repr(
        name in any::<String>(),
        content in json_value(),
        metadata in json_value(),
        ts in "[ -~]{0,30}",
    ) {
        let text = format!(
            "Msg(id='x', name='{name}', content={}, role='assistant', metadata={}, timestamp='{ts}', invocation_id='None')",
            py_repr(&content),
            py_repr(&metadata),
        );
        let msg = msg_repr(&text);
        prop_assert!(msg.is_ok(), "{}: {:?}", text, msg);
        let msg = msg.unwrap_or_else(|_| unreachable!());
        prop_assert_eq!(&msg.name, &name);
        prop_assert_eq!(msg.content.to_string(), content.to_string());
        prop_assert_eq!(msg.metadata.map(|m| m.to_string()), Some(metadata.to_string()));
        prop_assert_eq!(&msg.timestamp, &ts);
    }
}
