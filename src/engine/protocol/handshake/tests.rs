use super::super::message::{Body, Message};
use super::*;

fn message(text: &str) -> Message {
    match Body::parse(text.as_bytes()) {
        Ok(Body::One(message)) => message,
        other => panic!("{text}: {other:?}"),
    }
}

fn initialize(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params" : {params} ,"x":2}}"#)
}

#[test]
fn the_members_are_found_as_sent_and_the_last_of_a_name_counts() {
    let params = r#"{"protocolVersion":"2025-11-25", "capabilities" : {"roots":{}},
        "clientInfo":{"name":"a"},"clientInfo" :	{ "name":"b","version":"1" } ,
        "_m\u0065ta":{"k":[1,{"x":"]}"}]},"other":null }"#;
    let message = message(&initialize(params));
    let handshake = message.handshake().expect("a handshake");
    assert_eq!(handshake.protocol_version(), Some(r#""2025-11-25""#));
    assert_eq!(handshake.capabilities(), Some(r#"{"roots":{}}"#));
    assert_eq!(
        handshake.client_info(),
        Some(r#"{ "name":"b","version":"1" }"#)
    );
    assert_eq!(handshake.client_info_strings(), [true, true]);
    assert_eq!(handshake.meta(), Some(r#"{"k":[1,{"x":"]}"}]}"#));
    let expected: Value = serde_json::from_str(params).expect("valid JSON");
    assert_eq!(handshake.value(), &expected);
    assert_eq!(handshake.clone().into_value(), expected);
    assert_eq!(&*handshake.text, params);
}

#[test]
fn what_client_info_names_itself_with_is_read_in_the_same_pass() {
    for (client_info, strings) in [
        (r#"{}"#, [false, false]),
        (r#"{ }"#, [false, false]),
        (r#"{"name":"n"}"#, [true, false]),
        (r#"{"version":"1","name":7}"#, [false, true]),
        (r#"{"name":"n","name":null,"version":"v"}"#, [false, true]),
        (
            r#"{"name":"\"quoted\"","version":"1","icons":[{"src":"}"}]}"#,
            [true, true],
        ),
    ] {
        for params in [
            format!(r#"{{"protocolVersion":"v","clientInfo":{client_info}}}"#),
            format!(r#"{{"clientInfo": {client_info} , "protocolVersion":"v"}}"#),
        ] {
            let message = message(&initialize(&params));
            let handshake = message.handshake().expect("a handshake");
            assert_eq!(handshake.client_info(), Some(client_info), "{params}");
            assert_eq!(handshake.client_info_strings(), strings, "{params}");
            let expected: Value = serde_json::from_str(&params).expect("valid JSON");
            assert_eq!(handshake.value(), &expected, "{params}");
        }
    }
}

/// Params that cannot be read where they stand are read as a value with their body: the
/// message is the same, only without a handshake.
#[test]
fn what_cannot_be_read_in_the_pass_is_read_as_a_value() {
    for params in [
        r#"{"clientInfo":"text"}"#,
        r#"{"clientInfo":[{"name":"n"}]}"#,
        r#"{"client\u0049nfo":{"name":"n","version":"1"}}"#,
        r#"[1]"#,
        r#""text""#,
        r#"null"#,
    ] {
        let text = initialize(params);
        let message = message(&text);
        assert!(message.handshake().is_none(), "{params}");
        let expected: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(message.into_value(), expected, "{params}");
    }
    let escaped = r#"{"method":"initialize","par\u0061ms":{"protocolVersion":"v"}}"#;
    let escaped = message(escaped);
    assert!(escaped.handshake().is_none());
}

#[test]
fn a_member_that_nests_too_deep_to_read_alone_is_read_with_its_body() {
    let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
    for (name, depth, handshake) in [
        ("other", MAX_BRACKETS, true),
        ("other", MAX_BRACKETS + 1, false),
        ("capabilities", MAX_BRACKETS + 1, false),
    ] {
        let params = format!(r#"{{"protocolVersion":"v","{name}":{}}}"#, deep(depth));
        assert_eq!(
            message(&initialize(&params)).handshake().is_some(),
            handshake
        );
    }
    let params = format!(r#"{{"clientInfo":{{"icons":{}}}}}"#, deep(MAX_BRACKETS + 1));
    assert!(message(&initialize(&params)).handshake().is_none());
}

#[test]
fn empty_params_are_a_handshake_with_no_member() {
    for params in ["{}", "{ \n }"] {
        let message = message(&initialize(params));
        let handshake = message.handshake().expect("a handshake");
        assert_eq!(&*handshake.text, params);
        assert_eq!(handshake.protocol_version(), None);
        assert_eq!(handshake.client_info(), None);
        assert_eq!(handshake.value(), &serde_json::json!({}));
    }
}

/// Params of any shape, written compact or pretty, read as `serde_json` reads them: the
/// handshake's value, and each member's text is the last member of its name.
mod differential {
    use proptest::prelude::*;

    use super::*;

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-z\"\\\\{}\\[\\]:, é]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec((name(), inner), 0..4).prop_map(|members| {
                    Value::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
                }),
            ]
        })
    }

    fn name() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "protocolVersion",
            "capabilities",
            "clientInfo",
            "_meta",
            "name",
            "version",
            "x",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn params_read_in_the_pass_are_the_params_serde_json_reads(
            members in prop::collection::vec((name(), value()), 0..6),
            pretty in any::<bool>(),
        ) {
            let params = Value::Object(
                members.iter().map(|(k, v)| ((*k).into(), v.clone())).collect(),
            );
            let text = if pretty {
                serde_json::to_string_pretty(&params).expect("written")
            } else {
                params.to_string()
            };
            let body = initialize(&text);
            let expected: Value = serde_json::from_str(&body).expect("valid JSON");
            let message = message(&body);
            // Read in the pass unless `clientInfo` is there and no object.
            let in_the_pass = params.get("clientInfo").is_none_or(Value::is_object);
            prop_assert_eq!(message.handshake().is_some(), in_the_pass);
            if let Some(handshake) = message.handshake() {
                prop_assert_eq!(handshake.value(), &params);
                let last = |name: &str| params.get(name).cloned();
                let read = |text: Option<&str>| {
                    text.map(|t| serde_json::from_str::<Value>(t).expect("a member's text"))
                };
                prop_assert_eq!(read(handshake.protocol_version()), last("protocolVersion"));
                prop_assert_eq!(read(handshake.capabilities()), last("capabilities"));
                prop_assert_eq!(read(handshake.client_info()), last("clientInfo"));
                prop_assert_eq!(read(handshake.meta()), last("_meta"));
            }
            prop_assert_eq!(message.into_value(), expected);
        }
    }
}

#[test]
fn each_member_reads_nothing_of_what_is_no_object() {
    for text in ["[]", r#"[{"a":1}]"#, r#""{\"a\":1}""#, "null"] {
        let mut found = 0;
        assert!(each_member(text, |_, _| found += 1).is_err(), "{text}");
        assert_eq!(found, 0, "{text}");
    }
}
