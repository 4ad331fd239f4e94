//! Formatting on every core gives what one core gives (issue 30): the
//! request, the warnings AgentScope logs, the media a tool result saves
//! and a later message reads back, and the first error in order, for every
//! provider in both modes, through both paths (the reference formatter and
//! the workbench's units), at sizes past the golden cases.

use formatscope::formatter::{
    format, message_keys, FormatOptions, FormatterId, Mode, Provider, SegmentError, Segmented,
};
use formatscope::media::{MediaEnv, NoNetwork};
use formatscope::session::{Msg, MsgItem, PackedMessage};
use serde_json::{json, Value};
use std::sync::Arc;

/// A one-pixel PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// `n` session messages: three speakers' text, tool calls and results,
/// blocks some providers skip with a warning, and media in a few places (a
/// tool result's base64 image, saved; a local file; with `read_back` the
/// saved image read by a later message, which only multi-agent formatters
/// save it for).
fn session(n: usize, read_back: bool) -> Vec<Value> {
    (0..n)
        .map(|i| match i % 11 {
            _ if i == n / 3 => json!({"name": "tool", "role": "system", "content": [
                {"type": "tool_result", "id": format!("c{i}"), "name": "snap", "output": [
                    {"type": "text", "text": "a picture"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]}]}),
            _ if i == n / 2 => json!({"name": "Ann", "role": "user", "content": [
                {"type": "text", "text": "this one"},
                {"type": "image", "source": {"type": "url", "url": "pixel.png"}}]}),
            _ if read_back && i == 2 * n / 3 => json!({"name": "Ann", "role": "user", "content": [
                {"type": "image", "source": {"type": "url", "url": "/tmp/tmpc414cd0e.png"}}]}),
            3 => json!({"name": "Bob", "role": "assistant", "content": [
                {"type": "tool_use", "id": format!("c{i}"), "name": "search", "input": {"q": i}}]}),
            4 => json!({"name": "tool", "role": "system", "content": [
                {"type": "tool_result", "id": format!("c{i}"), "name": "search",
                 "output": [{"type": "text", "text": format!("result {i}")}]}]}),
            7 => json!({"name": "Bob", "role": "assistant", "content": [
                {"type": "thinking", "thinking": format!("hmm {i}")},
                {"type": "text", "text": format!("I think {i}")}]}),
            k => {
                let (name, role) = (["Ann", "Bob", "Cy"][k % 3], ["user", "assistant"][k % 2]);
                json!({"name": name, "role": role,
                    "content": format!("Message {i}: the library opens at nine. 图书馆九点开门。")})
            }
        })
        .collect()
}

/// Both paths' output on `env`'s run: the reference formatter's request,
/// and the units' request assembled; each with the warnings it logged.
type Outcome = Vec<(Result<Vec<Value>, String>, Vec<String>)>;

fn both_paths(id: FormatterId, dicts: &[Value], dir: &std::path::Path) -> Outcome {
    let options = FormatOptions::default();
    let env = MediaEnv::new(dir, Arc::new(NoNetwork));
    let msgs: Result<Vec<Arc<Msg>>, _> = dicts
        .iter()
        .map(|d| Msg::from_dict(d).map(Arc::new))
        .collect();
    let reference = msgs
        .map_err(|e| e.message)
        .and_then(|msgs| format(id, &options, &msgs, &env, None).map_err(|e| e.message));
    let reference = (reference, env.take_warnings());
    let packed: Vec<PackedMessage> = dicts.iter().map(PackedMessage::new).collect();
    let items: Result<Vec<MsgItem>, _> = packed
        .iter()
        .map(|m| MsgItem::packed(m.clone()).map_err(|(e, _)| e.message))
        .collect();
    let env = MediaEnv::new(dir, Arc::new(NoNetwork));
    let units = items.and_then(|items| {
        Segmented::build_with(
            id,
            &options,
            &items,
            &message_keys(&packed),
            &env,
            None,
            true,
        )
        .map_err(|e| match e {
            SegmentError::Format(e) => e.message,
            SegmentError::Promotion => "promotion".into(),
        })
        .and_then(|seg| seg.assemble(0, &env).map_err(|e| e.message))
    });
    vec![reference, (units, env.take_warnings())]
}

fn on_one_core<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool")
        .install(f)
}

fn every_formatter() -> Vec<FormatterId> {
    Provider::ALL
        .into_iter()
        .flat_map(|p| {
            [
                FormatterId::new(p, Mode::Chat),
                FormatterId::new(p, Mode::MultiAgent),
            ]
        })
        .collect()
}

#[test]
fn every_formatter_on_every_core_formats_as_on_one() {
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(dir.path().join("pixel.png"), base64_decode(PNG)).expect("writes");
    let mut read_back = Vec::new();
    for id in every_formatter() {
        for back in [false, true] {
            let dicts = session(3_001, back);
            let one = on_one_core(|| both_paths(id, &dicts, dir.path()));
            let every = both_paths(id, &dicts, dir.path());
            assert!(
                back || one[0].0.is_ok(),
                "{id}: {:?}",
                one[0].0.as_ref().err()
            );
            assert_eq!(every, one, "{id}, read back {back}");
            // The two paths agree with each other too.
            assert_eq!(
                every[0], every[1],
                "{id}, read back {back}: reference and units"
            );
            if back && one[0].0.is_ok() {
                read_back.push(id);
            }
        }
    }
    // Formatters that turn a tool result's image into a saved file's path
    // read it back in a later message.
    assert!(read_back.len() >= 2, "read back by {read_back:?}");
}

#[test]
fn the_first_bad_message_in_order_fails_the_format_on_every_core() {
    let dir = tempfile::tempdir().expect("a folder");
    let mut dicts = session(3_000, false);
    // Far apart, in different cores' chunks: a result block without a type
    // (formatting raises), and earlier a block whose type cannot be read
    // (telling tool messages apart raises).
    dicts[2_600] = json!({"name": "tool", "role": "system", "content": [
        {"type": "tool_result", "id": "x", "name": "f", "output": [{"text": "no type"}]}]});
    dicts[900] = json!({"name": "Ann", "role": "user", "content": [{"text": "no type"}]});
    for bad in [vec![2_600], vec![900, 2_600]] {
        let mut these = session(3_000, false);
        for i in &bad {
            these[*i] = dicts[*i].clone();
        }
        for id in every_formatter() {
            let one = on_one_core(|| both_paths(id, &these, dir.path()));
            let every = both_paths(id, &these, dir.path());
            assert!(one[0].0.is_err(), "{id} with {bad:?} fails");
            assert_eq!(every, one, "{id} with {bad:?}");
        }
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .expect("base64")
}
