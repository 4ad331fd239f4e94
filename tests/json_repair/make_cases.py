"""Generates tests/json_repair/cases.json with the real json_repair 0.59.10:

    /work/.venv/bin/python tests/json_repair/make_cases.py

Each case is {"input": s, "output": repair_json(s, stream_stable=True)}, or,
when Python raises, {"input": s, "error": "<exception class>"} (the Rust
`try_repair_json` must then return an error, and `repair_json` returns "").

With `--fuzz N SEED PATH` it writes N random cases to PATH instead (run
them with `JSON_REPAIR_CASES=PATH cargo test --test json_repair`).

Inputs:
  * every prefix of realistic tool-argument objects (streaming),
  * hand-written malformed inputs,
  * random mutations (insert/delete/replace of quote, brace, bracket,
    comma, colon, ...) of the realistic objects, with a fixed seed.
"""

import json
import random
import struct
import sys
from pathlib import Path

from importlib.metadata import version

import json_repair

assert version("json_repair") == "0.59.10", version("json_repair")

OUT = Path(__file__).resolve().parent / "cases.json"

# --- realistic tool arguments -------------------------------------------------

OBJECTS = [
    {"location": "Paris", "unit": "celsius"},
    {"query": "weather in Tokyo", "max_results": 5},
    {"city": "北京", "date": "2024-05-01", "days": 3},
    {"text": "Hello, \"world\"!\nNew line\tand tab \\ backslash", "lang": "en"},
    {"emoji": "I ❤️ Rust 😀🎉", "count": 2},
    {"path": "C:\\Users\\me\\file.txt", "mode": "r"},
    {"command": "ls -la /tmp && echo 'done'", "timeout": 30.5},
    {"a": 1, "b": -2, "c": 3.25, "d": -0.001, "e": 1e21, "f": 6.02e-23, "g": 123456789012345678901234567890},
    {"flag": True, "other": False, "nothing": None},
    {"items": [1, 2, 3], "empty": [], "nested": {"x": {}, "y": [[]]}},
    {"user": {"name": "Ada", "roles": ["admin", "dev"], "age": 36}, "active": True},
    {"code": "def f(x):\n    return {\"a\": [x, 'y']}\n", "language": "python"},
    {"sql": "SELECT * FROM t WHERE name = 'O''Brien' AND x > 3;", "db": "main"},
    {"message": "Café déjà vu — naïve façade", "to": ["a@b.c", "d@e.f"]},
    {"matrix": [[1, 2], [3, 4], [5.5, -6e3]], "label": "m"},
    {"html": "<div class=\"x\">{{ value }}</div>", "escape": True},
    {"url": "https://example.com/search?q=a%20b&lang=zh-CN#top", "method": "GET"},
    {"regex": "^\\d{3}-\\d{4}$", "flags": "i"},
    {"mixed": [1, "two", 3.0, None, True, {"six": 6}, [7]], "k": "v"},
    {"unicode_escape": "\u00e9\u4e2d\U0001F600", "ctrl": "\u0001\u001f\u007f"},
    {"big": 98765432109876543210987654321098765432109876543210, "neg": -42, "zero": 0},
    {"description": "A long description, with commas, colons: and {braces} and [brackets].", "id": 7},
    {"title": "Quote: \"to be, or not to be\"", "author": "Shakespeare"},
    {"steps": [{"op": "add", "value": 1}, {"op": "mul", "value": 2.5}], "final": True},
    {"jp": "こんにちは世界", "ko": "안녕하세요", "ar": "مرحبا", "ru": "Привет"},
    {"tabs": "a\tb\tc", "newlines": "line1\nline2\r\nline3"},
    {"nested": {"deep": {"deeper": {"deepest": [1, {"end": "yes"}]}}}},
    {"filename": "report (final).pdf", "size_kb": 1024},
    {"answer": "Yes", "confidence": 0.95, "sources": []},
    {"x": 12.0, "y": 1.5e300, "z": -1e-300, "w": 100000000000000000000.0},
    {"path_list": ["/a/b", "/c/d"], "recursive": False, "pattern": "*.py"},
    {"json_in_string": "{\"inner\": [1, 2, {\"k\": \"v\"}]}", "ok": True},
    {"markdown": "# Title\n\n- item 1\n- item 2\n\n```python\nprint('hi')\n```", "format": "md"},
    {"key with spaces": "value", "key-with-dash": 1, "key_underscore": 2},
    {"": "empty key", "e": ""},
    {"slash": "a/b//c", "comment_like": "// not a comment # nor this /* */"},
    {"single": "it's", "double": "say \"hi\"", "both": "'\"'"},
    {"numbers_as_strings": ["1", "2.5", "-3"], "n": 4},
]

# Pretty-printed, compact and ensure_ascii variants of some of them.
TEXTS = []
for i, obj in enumerate(OBJECTS):
    TEXTS.append(json.dumps(obj, ensure_ascii=False))
    if i % 3 == 0:
        TEXTS.append(json.dumps(obj, ensure_ascii=True))
    if i % 4 == 1:
        TEXTS.append(json.dumps(obj, ensure_ascii=False, indent=2))
    if i % 5 == 2:
        TEXTS.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
# Number forms json.dumps never writes.
TEXTS += [
    '{"a": 12., "b": 1}',
    '{"n": 1E5, "m": -0, "o": 0.0e0, "p": 1e+2, "q": 1.5E-3}',
    '{"big": -123456789012345678901234567890123456789, "x": 00012}',
    '{"weird": NaN, "inf": Infinity, "ninf": -Infinity}',
    '{"tie": 2345351608740.53125, "tie2": 1603805800971978.25, "tie3": [149564678587243.125]}',
    '{"s": "\\ud83d\\ude00 and \\u00e9 and \\"q\\" and \\\\ and \\/ and \\b\\f"}',
    '{"lone": "\\ud800 x \\udc00"}',
    '[{"a": 1}, {"b": [true, false, null]}, "str", 3.14]',
]

# --- hand-written malformed inputs --------------------------------------------

MALFORMED = [
    "", " ", "   \n\t  ", "null", "true", "false", "None", "True", "1", "-1", "1.5", "12.", "-",
    "1e5", "0x1F", "NaN", "Infinity", "-Infinity", "nan", '""', '"abc"', "'abc'", "abc", "hello world",
    "[]", "{}", "[", "{", "]", "}", "[1, 2, 3]", "[1, 2, 3", "[1, 2, 3,]", "[1,,2]", "[,1]",
    "{'a': 'b'}", "{'a': 1, 'b': [1, 2, 'c']}", "{a: 1, b: 2}", "{a: b, c: d}", "{\"a\": b c d}",
    '{"a": 1,}', '{"a": 1,,"b": 2}', '{"a": 1 "b": 2}', '{"a" 1}', '{"a":}', '{"a": }', '{"a": , "b": 2}',
    '{"a"}', '{"a", "b"}', '{"a": "b" "c": "d"}', '{"a": True, "b": False, "c": None}',
    '{"a": true, "b": TRUE, "c": Null, "d": nul}', '{"a": tru}', '{"a": fals', '{"a": n',
    '{"a": 1} // comment', '{"a": 1 /* block */}', '# comment\n{"a": 1}', '// c\n{"a": 1}',
    '{"a": 1, // comment\n "b": 2}', '{"a": /* c */ 1}', '{"a": 1 # hash\n}', "/* only */", "//",
    '```json\n{"a": 1}\n```', '```json\n{"a": 1}', '```\n{"a": 1}\n```', 'Here is the JSON: {"a": 1}',
    '{"a": 1} trailing text', 'prefix {"a": 1} suffix', '{"a":1}{"b":2}', '{"a":1}{"a":2}',
    '{"a":1} {"a":1, "b":2}', '{"a":1}, {"b":2}', '[1][2]', '{"a":1}[2]', '{"a": "b"}\n{"a": "c"}',
    '{"a": "he said "hi" to me"}', '{"a": "unterminated', '{"a": "x", "b": "unterminated',
    '{"a": ""b""}', '{"a": """}', '{""a"": 1}', '{"a": "b""}', "{'a': \"b'}", '{"a": \'b"}',
    '{"a": 1, "a": 2}', '[{"a": 1, "a": 2}]', '[{"a": 1 "a": 2}]', '[{"a": 1}, {"a": 2}]',
    '{"a": "\\ud83d"}', '{"a": "\\udc00\\ud800"}', '{"a": "\\u12"}', '{"a": "\\x41"}', '{"a": "\\q"}',
    '{"a": NaN}', '{"a": Infinity, "b": -Infinity}', '{"a": nan}', '(1, 2)', '(1)', '()', '("a",)',
    '{"a": (1, 2)}', '{"a": (1)}', '[(1, 2), (3,)]', 'note (x): {"a": 1}', '(\n{"a": 1}\n)',
    '{"a": [1, 2}', '{"a": {"b": 1]', '{"a": [}', '[{]', '{]', '[}', '{"a": [1, 2, 3], [4, 5]}',
    '{"rows": [[1, 2], [3, 4]], [5, 6]}', '{"rows": [[1, 2], 3, 4], [5, 6]}', '{"a": [1], [2, [3]]}',
    '{"key": "val\\', '{"key": "val\\n', '{"key": "val\\n123,`key2:value2', '{"key": "val\\n123,`key2:value2`"}',
    '{"a": 1, b: "c", \'d\': e}', '{“a”: “b”}', '{"a": “b”}', '{‘a’: 1}', '{"a": \'it\'s\'}',
    '{"a": 1.2.3}', '{"a": 1/2}', '{"a": 1,000}', '{"a": 1_000}', '{"a": -}', '{"a": 1e}', '{"a": .5}',
    '{"a": -.5e-3}', '{"a": 12abc}', '{"a": 123' + "4" * 30 + "}", '[1 2 3]', '["a" "b" "c"]', '["a", b, c]',
    '[..., 1]', '[1, ...]', '{"a": [...]}', '{"a": "b", ...}', '{"text": "a}b"}', '{"text": "a]b"}',
    '{"a": "x"} ```', '{"code": "x = {1: 2}"}', '{"a": "b", "c": {"d": "e"}', '{"a": {"b": {"c": {',
    '{\\"a\\": \\"b\\"}', '{\\"a\\": 1, \\"c\\": [1]}', "{\\'a\\': \\'b\\'}", '"{\\"a\\": 1}"',
    '{"a": "line1\nline2"}', '{"a": "tab\there"}', '{"a"\n:\n1\n}', '{\n  "a": 1,\n  "b": [\n    2,\n',
    '[\n  {"a": 1},\n  {"b": 2},\n', '{"a": {"b": 1}, "a": {"c": 2}}', '[{"a": 1}, {"a": 1}]',
    '{"a": [1, 2, 3]} {"a": [1, 2, 3, 4]}', '{"a": 1}}', '{"a": 1}]', '[1]]', '{{"a": 1}}', '[[1]',
    '{:"a": 1}', '{"a"::1}', '{"a": :1}', '{,"a": 1}', '{"a": 1, }', '{"a": [1, 2, ], }',
    '{"a": "café", "b": "中文", "c": "😀"}', "{'中文': '值'}", "{键: 值}", '{"a": 一}', '{"a": ٣}', '{"a": ²}',
    '{"a": \u00a0 1}', '{"a":\u30001}', '\ufeff{"a": 1}', '{"a": "\u2028"}', '{"a": "\x7f\x01"}',
    '{"a": {"b": [1, {"c": "d"', '{"a": [{"b": "c"}, {"d": ', '{"tool": "search", "args": {"q": "x", "n"',
    '[{"a": 1}, {"a": 2, "b": 3}', '{"a": "x", "b": "y", "a": "z"}', '{"a":"b","a":"c"} {"a":"d"}',
    "''", "' '", "'", '"', '""""', "```", "```json", "```json\n", "```json\n{", "{'a': '''}",
    '{"a": `x`}', '{`a`: 1}', '{"a": b"c"}', '{"a": "b\\"}', '{"a": "b\\\\"}', '{"a": "b\\\\\\"}',
    '[1, 2, "3", [4, "5"], {"6": 7}]', '{"a": [1, "b": 2]}', '["a": 1]', '["a": 1, "b": 2]',
    '{"a": 1} {"b": 2} {"c": 3}', '1 2 3', '"a" "b"', 'true false', '{} {}', '[] []', '{"a": {}} {}',
    '{"a": "b"} # done', '{"a": 0, "b": 00, "c": -0, "d": 0.0, "e": -0.0}', '{"a": 1e400, "b": -1e400}',
    # A fenced block in key position parses to a non-string: AssertionError.
    '{"```json{"a": 1}```": 2}', '{{\\"```json(```', '{"```json[1, 2]```": 3, "b": 4}', '{"```json"x"```": 1}',
    '{"a": "```json{"b": 1}```"}', '["```json{"b": 1}```"]', '{"a": "```json false```"}',
    '{"a": 1' + "0" * 4300 + '}', '{"a": ' + "9" * 4301 + "}", "[" + "1" * 4301 + "]",
]

# Deep nesting: well within Python's recursion limit, and well beyond it.
DEEP = [
    "[" * 100,
    "[" * 100 + "]" * 100,
    '{"a": ' * 60,
    '{"a": ' * 60 + "1" + "}" * 60,
    '[{"a": ' * 40,
    "(" * 50,
    "[" * 500 + "]" * 500,
    '{"a":' * 500 + "1" + "}" * 500,
    "[" * 2000,
    "[" * 2000 + "]" * 2000,
    '{"a": ' * 600,
    "(" * 600,
    "[" * 600 + "1",
]

# --- random valid JSON (the json.loads fast path and float repr) -------------


def random_valid(rng):
    def rstr():
        pool = ["a", "é", "中", "😀", '"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u2028", " ", "/", "'",
                "\ud800", "\udfff", "\U0010ffff", "\u00a0"]
        return "".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))

    def rnum():
        r = rng.random()
        if r < 0.3:
            return rng.randint(-(10 ** rng.randint(1, 40)), 10 ** rng.randint(1, 40))
        if r < 0.5:
            return struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if r < 0.7:
            # Few fraction bits: often exactly halfway between two shortest reprs.
            return float(rng.randint(2**40, 2**53)) / 2 ** rng.randint(1, 10)
        return rng.choice([0.0, -0.0, 1e16, 1e15, 1e-5, 1e-4, 0.1, 1 / 3, 5e-324, float("inf"), float("nan")])

    def rval(d=0):
        r = rng.random()
        if d > 4 or r < 0.4:
            return rng.choice([rstr, rnum, lambda: rng.choice([True, False, None])])()
        if r < 0.7:
            return [rval(d + 1) for _ in range(rng.randint(0, 4))]
        return {rstr(): rval(d + 1) for _ in range(rng.randint(0, 4))}

    while True:
        s = json.dumps(rval(), ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
        # Inputs are Rust strings: no lone surrogate code points.
        if not any(0xD800 <= ord(c) <= 0xDFFF for c in s):
            return s


# --- random mutations -----------------------------------------------------------

MUTATION_CHARS = ['"', "'", "{", "}", "[", "]", ",", ":", " ", "\\", "\n", "/", "#", "(", ")", "`", "1", "a", "“", "”"]


def mutate(rng, s):
    chars = list(s)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.4 and chars:
            pos = min(pos, len(chars) - 1)
            # Prefer deleting structural characters.
            structural = [i for i, c in enumerate(chars) if c in "\"'{}[],:"]
            if structural and rng.random() < 0.7:
                pos = rng.choice(structural)
            del chars[pos]
        elif op < 0.8:
            chars.insert(pos, rng.choice(MUTATION_CHARS))
        elif chars:
            pos = min(pos, len(chars) - 1)
            chars[pos] = rng.choice(MUTATION_CHARS)
    out = "".join(chars)
    if rng.random() < 0.3:
        out = out[: rng.randint(0, len(out))]
    return out


TOKENS = [
    "{", "}", "[", "]", "(", ")", '"', "'", "“", "”", ",", ":", " ", "\n", "\\", "/", "*", "#", "`",
    "```json", "```", "a", "key", "b c", "true", "false", "null", "True", "None", "t", "f", "n", "1", "-",
    ".", "e", "_", "0", "12", "é", "中", "😀", "\\u", "\\ud83d", "00e9", "...", "\u00a0", "²", "\\n",
    '"a": ', '"b"', "'c'", ', "d": [', "{\"k\": ", "//", "/*", "*/", "\t", "“x”",
]


def random_jsonish(rng):
    return "".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 30)))


def fuzz_inputs(n, seed):
    """--fuzz N: N random inputs (token soups and mutations), for a wider
    differential run than the committed cases."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        r = rng.random()
        if r < 0.5:
            out.append(random_jsonish(rng))
        elif r < 0.9:
            s = rng.choice(TEXTS)
            for _ in range(rng.randint(1, 4)):
                s = mutate(rng, s)
            out.append(s)
        else:
            t = random_jsonish(rng)
            out += [t[:k] for k in range(len(t) + 1)]
    return out


def run(s):
    try:
        return {"input": s, "output": json_repair.repair_json(s, stream_stable=True)}
    except Exception as e:  # noqa: BLE001
        return {"input": s, "error": type(e).__name__}


def main():
    sys.setrecursionlimit(1000)
    if len(sys.argv) > 1 and sys.argv[1] == "--fuzz":
        n, seed, out = int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
        cases = [run(s) for s in dict.fromkeys(fuzz_inputs(n, seed))]
        out.write_text(json.dumps(cases, ensure_ascii=True) + "\n")
        print(f"wrote {len(cases)} fuzz cases to {out}")
        return
    inputs = []
    for t in TEXTS:
        inputs += [t[:k] for k in range(len(t) + 1)]
    inputs += MALFORMED
    inputs += DEEP
    rng = random.Random(20240501)
    inputs += [random_valid(rng) for _ in range(500)]
    for _ in range(3000):
        inputs.append(mutate(rng, rng.choice(TEXTS)))
    # Prefixes of a few mutated texts too (streams of malformed JSON).
    for _ in range(20):
        t = mutate(rng, rng.choice(TEXTS))
        inputs += [t[:k] for k in range(len(t) + 1)]

    seen = set()
    cases = []
    for s in inputs:
        if s in seen:
            continue
        seen.add(s)
        cases.append(run(s))
    errors = sum(1 for c in cases if "error" in c)
    OUT.write_text(json.dumps(cases, ensure_ascii=True, indent=0) + "\n")
    print(f"wrote {len(cases)} cases ({errors} where Python raises) to {OUT}")


if __name__ == "__main__":
    main()
