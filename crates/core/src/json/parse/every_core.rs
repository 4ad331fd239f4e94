//! A session's messages parsed on every core: 100,000 messages are 30 MB
//! of JSON, and the one-core parse was the longest step of `format
//! --count` once counting ran on every core. A scan of strings and
//! brackets splits the list into items; each core parses a run of them
//! exactly as the one-core pass would. Any error sends the whole list back
//! to that pass, which then reports it where it is.

use super::direct::Direct;
use super::{DuplicateKey, NumberText, Packed, Parse, Parser, PathStep};
use std::ops::Range;

impl Parser<'_> {
    /// The messages of a long array (the parser just past its `[`), parsed
    /// and packed on every core: a scan finds where each item starts and
    /// ends, then each core parses a run of items as this parser would
    /// (the same depth, paths, duplicates and surrogates, in file order).
    /// `None`, with nothing consumed, for a short array or any error: the
    /// one-core pass then runs and reports the first error exactly.
    pub(super) fn pack_on_every_core(&mut self, rewrite: NumberText) -> Option<Vec<Packed>> {
        let (items, end) = item_spans(self.bytes, self.pos)?;
        if items.len() < crate::parallel::MIN_ITEMS {
            return None;
        }
        let (text, bytes, depth, path) = (self.text, self.bytes, self.depth, &self.path);
        type Run = (Vec<Packed>, Vec<DuplicateKey>, Vec<usize>);
        let runs = crate::parallel::chunks_at(&items, |first, run| -> Parse<Run> {
            let mut parser = Parser::new(text, bytes, 0);
            parser.depth = depth;
            parser.path = path.clone();
            let mut packed = Vec::with_capacity(run.len());
            let mut direct = Direct::new(rewrite);
            for (k, span) in run.iter().enumerate() {
                parser.pos = span.start;
                parser.path.push(PathStep::Index(first + k));
                let item = match parser.pack_direct(&mut direct)? {
                    Some(item) => item,
                    None => super::pack_tree(parser.value()?.0, rewrite),
                };
                parser.path.pop();
                parser.skip_ws();
                if parser.pos != span.end {
                    return Err(parser.err("expected `,` or `]`"));
                }
                packed.push(item);
            }
            Ok((packed, parser.duplicates, parser.lone_surrogates))
        });
        let mut packed = Vec::with_capacity(items.len());
        for run in runs {
            let (p, duplicates, surrogates) = run.ok()?;
            packed.extend(p);
            self.duplicates.extend(duplicates);
            self.lone_surrogates.extend(surrogates);
        }
        self.pos = end;
        Some(packed)
    }
}

/// Where the items of the array whose `[` is just before `at` start and
/// end (from the first byte of each item to the `,` or `]` after it), and
/// the position after its `]`: a scan of strings and brackets only, which
/// the parse of each item then checks. `None` at the end of the input.
fn item_spans(bytes: &[u8], at: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let skip_ws = |mut i: usize| {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
            i += 1;
        }
        i
    };
    let mut items = Vec::new();
    let mut start = skip_ws(at);
    if bytes.get(start) == Some(&b']') {
        return Some((items, start + 1));
    }
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // To the closing quote: past each backslash and what it
                // escapes.
                i += 1;
                loop {
                    i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                    if bytes[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b',' if depth == 0 => {
                items.push(start..i);
                start = skip_ws(i + 1);
                i = start;
                continue;
            }
            b']' => {
                items.push(start..i);
                return Some((items, i + 1));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Options};
    use proptest::prelude::*;

    /// The numbers' rewrite the parses below apply: a decimal gains a
    /// digit.
    fn longer(text: &str) -> Option<String> {
        text.contains('.').then(|| format!("{text}5"))
    }

    const PARALLEL: Options = Options {
        spans: false,
        pack_messages: Some(longer),
    };
    /// Spans keep the one-core pass, which reads each message as a tree.
    const SERIAL: Options = Options {
        spans: true,
        pack_messages: Some(longer),
    };

    #[test]
    fn a_long_list_packed_on_every_core_is_the_one_core_pass() {
        let wide: Vec<String> = (0..200).map(|k| format!(r#""k{k}": {k}.5"#)).collect();
        let mut items: Vec<String> = (0..1_000)
            .map(|i| format!(r#"{{"n": {i}, "f": {i}.25, "s": "a \"]\" , [{{x\u00e9\n", "l": [{i}, {{"k": [], "e": {{}}}}, true, null, NaN, -Infinity, 1E+05]}}"#))
            .collect();
        items[300] = r#"{"n": 1, "n": 2, "s": "\ud800"}"#.into();
        items[400] = r#"{"lone": "\udc00 and \ud83d\ude00", "deep": [[[[{"a": [[]]}]]]]}"#.into();
        items[500] = format!(r#"{{"many": [{}]}}"#, vec!["0.5"; 300].join(","));
        items[600] = format!("{{{}}}", wide.join(", "));
        items[700] = r#" {"o": {"d": 1, "d": 2}} "#.into();
        items[800] = r#"{"a": {"d": 1}, "b": {"d": 2}, "d": 3}"#.into();
        let text = format!(r#"{{"messages": [ {} ], "tools": []}}"#, items.join(" ,\n"));
        let parallel = PARALLEL;
        let serial = SERIAL;
        let (a, b) = (
            parse(text.as_bytes(), parallel).expect("parses"),
            parse(text.as_bytes(), serial).expect("parses"),
        );
        assert_eq!(a.packed, b.packed);
        assert_eq!(a.packed.as_ref().map(Vec::len), Some(1_000));
        assert_eq!(a.duplicates, b.duplicates);
        assert_eq!(a.duplicates.len(), 2);
        assert_eq!(a.duplicates[1].pointer, "/messages/700/o");
        assert_eq!(a.lone_surrogates, b.lone_surrogates);
        assert_eq!(a.lone_surrogates.len(), 2);
        let first = a.packed.as_ref().expect("packed")[0].unpack_one();
        assert_eq!(first["f"], serde_json::json!(0.255));
        assert_eq!(a.value, b.value);
        // Errors are the one-core pass's, where it finds them.
        for bad in [r#"{"n": }"#, "", r#"{"n": 1"#, r#"{"n": 1}}"#, "[1,]"] {
            let mut broken = items.clone();
            broken[400] = bad.into();
            let text = format!(r#"{{"messages": [{}]}}"#, broken.join(","));
            assert_eq!(
                parse(text.as_bytes(), parallel).map(|_| ()),
                parse(text.as_bytes(), serial).map(|_| ()),
                "{bad}"
            );
        }
    }

    /// A message's JSON text: keys from a few letters (so objects repeat
    /// them), escapes, lone surrogates, every kind of number.
    fn item_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            r#""([a-d ]|\\["\\/bfnrt]|\\u00e9|\\ud83d\\ude00|\\udc00|\\ud800|é|😀){0,6}""#,
            "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,2})?",
            Just("true".to_string()),
            Just("null".to_string()),
            Just("NaN".to_string()),
            Just("-Infinity".to_string()),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8)
                    .prop_map(|items| format!("[{}]", items.join(", "))),
                proptest::collection::vec(("[a-c]{1,2}", inner), 0..8).prop_map(|members| {
                    let members: Vec<String> = members
                        .iter()
                        .map(|(k, v)| format!(r#""{k}":{v}"#))
                        .collect();
                    format!("{{{}}}", members.join(" , "))
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn messages_read_straight_into_bytes_are_the_trees_packed(
            items in proptest::collection::vec(item_text(), 1..24)
        ) {
            let list: Vec<&String> = items.iter().cycle().take(300).collect();
            let list: Vec<&str> = list.iter().map(|s| s.as_str()).collect();
            let text = format!(r#"{{"messages": [{}]}}"#, list.join(",\n"));
            let (a, b) = (
                parse(text.as_bytes(), PARALLEL).expect("parses"),
                parse(text.as_bytes(), SERIAL).expect("parses"),
            );
            prop_assert_eq!(a.packed, b.packed);
            prop_assert_eq!(a.duplicates, b.duplicates);
            prop_assert_eq!(a.lone_surrogates, b.lone_surrogates);
        }
    }
}
