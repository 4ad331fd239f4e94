//! Property tests: no input makes the core panic, and every failure is an
//! error object the user can read.

#[path = "support/long.rs"]
mod long;
use formatscope::formatter::{FormatOptions, FormatterId};
use formatscope::media::NoNetwork;
use formatscope::pipeline::{self, ReferenceRequest};
use formatscope::session::parse_session;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

/// Strings that mean something to the formatters, and some that do not.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("text".to_string()),
        Just("image".to_string()),
        Just("audio".to_string()),
        Just("video".to_string()),
        Just("thinking".to_string()),
        Just("tool_use".to_string()),
        Just("tool_result".to_string()),
        Just("url".to_string()),
        Just("base64".to_string()),
        Just("../media/pixel.png".to_string()),
        Just("data:image/png;base64,AAAA".to_string()),
        Just("https://example.com/a.png".to_string()),
        Just("audio/wav".to_string()),
        "[a-z<|>=/. ]{0,12}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("type".to_string()),
                        Just("text".to_string()),
                        Just("source".to_string()),
                        Just("url".to_string()),
                        Just("data".to_string()),
                        Just("media_type".to_string()),
                        Just("id".to_string()),
                        Just("name".to_string()),
                        Just("input".to_string()),
                        Just("output".to_string()),
                        Just("thinking".to_string()),
                        Just("thought_signature".to_string()),
                    ],
                    inner
                ),
                0..5
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just(json!("system")),
            Just(json!("user")),
            Just(json!("assistant")),
            json_value()
        ],
        prop_oneof![
            word().prop_map(Value::from),
            prop::collection::vec(json_value(), 0..4).prop_map(Value::from),
            json_value()
        ],
        json_value(),
    )
        .prop_map(|(role, content, name)| json!({"name": name, "role": role, "content": content}))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::long::cases(300), ..ProptestConfig::default() })]

    #[test]
    fn no_session_makes_any_formatter_panic(
        messages in prop::collection::vec(message(), 0..6),
        tools in json_value(),
        budget in prop::option::of(-2i64..400),
    ) {
        let doc = json!({"messages": messages, "tools": tools});
        let session = parse_session(&doc.to_string(), "prop.json").expect("valid JSON loads");
        for formatter in FormatterId::all() {
            let request = ReferenceRequest {
                formatter,
                options: FormatOptions::default(),
                max_tokens: budget,
                count: true,
                tools: true,
            token_counter: None,
            };
            let out = pipeline::run_reference(&session, &request, Arc::new(NoNetwork));
            // Either messages or an error object, never both, never neither.
            prop_assert!(out.contains_key("messages") != out.contains_key("error"));
            if let Some(Value::String(kind)) = out.get("error_type") {
                prop_assert!(!kind.is_empty());
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics_the_loader(text in "\\PC{0,200}") {
        let _ = parse_session(&text, "any.json");
    }
}
