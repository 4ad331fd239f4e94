//! A session's messages parsed on every core: 100,000 messages are 30 MB
//! of JSON, and the one-core parse was the longest step of `format
//! --count` once counting ran on every core. A scan of strings and
//! brackets splits the list into items; each core parses a run of them
//! exactly as the one-core pass would. Any error sends the whole list back
//! to that pass, which then reports it where it is.

use super::{DuplicateKey, Packed, Parse, Parser, PathStep};
use serde_json::Value;
use std::ops::Range;

impl Parser<'_> {
    /// The messages of a long array (the parser just past its `[`), parsed
    /// and packed on every core: a scan finds where each item starts and
    /// ends, then each core parses a run of items as this parser would
    /// (the same depth, paths, duplicates and surrogates, in file order).
    /// `None`, with nothing consumed, for a short array or any error: the
    /// one-core pass then runs and reports the first error exactly.
    pub(super) fn pack_on_every_core(&mut self, prepare: fn(&mut Value)) -> Option<Vec<Packed>> {
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
            for (k, span) in run.iter().enumerate() {
                parser.pos = span.start;
                parser.path.push(PathStep::Index(first + k));
                let (mut value, _) = parser.value()?;
                parser.path.pop();
                parser.skip_ws();
                if parser.pos != span.end {
                    return Err(parser.err("expected `,` or `]`"));
                }
                prepare(&mut value);
                packed.push(Packed::pack_one(&value));
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
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
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
    use serde_json::Value;

    #[test]
    fn a_long_list_packed_on_every_core_is_the_one_core_pass() {
        fn mark(v: &mut Value) {
            v["seen"] = Value::Bool(true);
        }
        let mut items: Vec<String> = (0..1_000)
            .map(|i| format!(r#"{{"n": {i}, "s": "a \"]\" , [{{x", "l": [{i}, {{"k": []}}]}}"#))
            .collect();
        items[300] = r#"{"n": 1, "n": 2, "s": "\ud800"}"#.into();
        items[700] = r#" {"o": {"d": 1, "d": 2}} "#.into();
        let text = format!(r#"{{"messages": [ {} ], "tools": []}}"#, items.join(" ,\n"));
        let parallel = Options {
            pack_messages: Some(mark),
            ..Default::default()
        };
        // Spans keep the one-core pass.
        let serial = Options {
            spans: true,
            ..parallel
        };
        let (a, b) = (
            parse(text.as_bytes(), parallel).expect("parses"),
            parse(text.as_bytes(), serial).expect("parses"),
        );
        assert_eq!(a.packed, b.packed);
        assert_eq!(a.packed.as_ref().map(Vec::len), Some(1_000));
        assert_eq!(a.duplicates, b.duplicates);
        assert_eq!(a.duplicates[1].pointer, "/messages/700/o");
        assert_eq!(a.lone_surrogates, b.lone_surrogates);
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
}
