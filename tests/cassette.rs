//! Record and replay with the official rmcp client: a session against a mock is saved as a
//! cassette file, replayed from the file with the mock gone, and the client sees the same
//! answers; the file is the same when the session is recorded twice, and holds no secret.

mod common;

use std::path::PathBuf;

use common::call_with;
use common::recorded::{session, weather_server};
use mcp_decoy::MockMcpServer;
use mcp_decoy::cassette::{Cassette, MessageKind, RecordedResponse};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

/// A scratch directory for this test's files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("mcp-decoy-cassette-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        Scratch(dir)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_recorded_session_replays_from_its_file_with_the_original_server_gone() {
    // Arrange: record the rmcp client's session against the mock, save it, stop the mock.
    let scratch = Scratch::new("replay");
    let path = scratch.file("weather.json");
    let original = weather_server().start().await;
    let seen_live = session(&original.url()).await;
    original
        .log()
        .to_cassette()
        .save(&path)
        .expect("save the cassette");
    original.shutdown().await;

    // Act: the same client session against a replay of the file.
    let replay = MockMcpServer::from_cassette(&path)
        .expect_all_used()
        .start()
        .await;
    let seen_replayed = session(&replay.url()).await;

    // Assert: the client saw what it saw live, progress and the request to its model too.
    assert_eq!(seen_replayed, seen_live);
    assert_eq!(
        seen_live["forecast"]["content"][0]["text"],
        "Forecast for Paris: 14°C"
    );
    assert_eq!(seen_live["server"]["serverInfo"]["name"], "weather");
    assert_eq!(
        seen_live["server"]["instructions"],
        "Ask for a city's forecast."
    );
    let heard = seen_live["heard"].as_array().expect("heard");
    assert_eq!(
        heard[0],
        json!({ "progress": 1.0, "total": 2.0, "message": "halfway" }),
        "{heard:?}"
    );
    assert_eq!(heard[2]["asked"], "sampling/createMessage", "{heard:?}");
    assert_eq!(seen_live["asked"]["content"][0]["text"], "model said Paris");
    // The replay answered through its own pipeline, so its capture shows the same calls.
    assert_eq!(replay.log().tool_calls("get_forecast").len(), 1);
}

#[tokio::test]
async fn each_exchange_is_one_interaction_with_the_messages_that_belonged_to_it() {
    let server = weather_server().start().await;
    session(&server.url()).await;

    let cassette = server.log().to_cassette();

    let methods: Vec<&str> = cassette
        .interactions
        .iter()
        .map(|i| i.request.method.as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "tools/list",
            "tools/call",
            "tools/call",
            "tools/call",
            "resources/list",
            "resources/read",
            "prompts/list",
            "prompts/get"
        ]
    );
    let initialize = cassette
        .server
        .initialize
        .as_ref()
        .expect("the initialize result");
    assert_eq!(initialize["serverInfo"]["version"], "2.1.0");
    let report = &cassette.interactions[2];
    let progress: Vec<_> = report
        .messages
        .iter()
        .map(|m| (m.kind, m.method.as_str(), m.params.clone()))
        .collect();
    assert_eq!(
        progress,
        [
            (
                MessageKind::Notification,
                "notifications/progress",
                Some(
                    json!({ "progressToken": "[progress-token]", "progress": 1.0, "total": 2.0, "message": "halfway" })
                )
            ),
            (
                MessageKind::Notification,
                "notifications/progress",
                Some(json!({ "progressToken": "[progress-token]", "progress": 2.0, "total": 2.0 }))
            ),
        ]
    );
    let asked = &cassette.interactions[3].messages;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        (asked[0].kind, asked[0].method.as_str()),
        (MessageKind::Request, "sampling/createMessage")
    );
    let Some(RecordedResponse::Result(answer)) = &asked[0].answer else {
        panic!("the client's answer is recorded: {asked:?}");
    };
    assert_eq!(answer["content"]["text"], "Paris");
}

#[tokio::test]
async fn recording_the_same_session_twice_gives_byte_identical_files() {
    let mut files = Vec::new();
    for _ in 0..2 {
        let server = weather_server().start().await;
        session(&server.url()).await;
        files.push(server.log().to_cassette().to_json());
    }

    assert_eq!(files[0], files[1]);
    // What varies between the runs is in neither file.
    assert!(!files[0].contains("\"id\""), "{}", files[0]);
    assert!(Cassette::from_json(&files[0]).is_ok());
}

#[tokio::test]
async fn no_secret_of_the_session_reaches_the_file() {
    // Arrange: a server behind an API key, a client that sends it as a bearer token and
    // passes a password and a token in its arguments.
    let scratch = Scratch::new("secrets");
    let path = scratch.file("secret.json");
    let server = weather_server().api_key("sk-live-7f3a9c").start().await;
    let config =
        StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header("sk-live-7f3a9c");
    let transport = StreamableHttpClientTransport::from_config(config);
    let (client, _heard) =
        common::connect_answering_over(transport, common::recorded::answers(), "the keyed server")
            .await;
    let result = call_with(
        &client,
        "get_forecast",
        json!({ "city": "Oslo", "password": "hunter2-pw", "session_token": "tok-91xq", "note": "Authorization: Bearer abc-123-bearer" }),
    )
    .await;
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Forecast for Oslo: 14°C")
    );

    // Act
    server.log().to_cassette().save(&path).expect("save");

    // Assert
    let text = std::fs::read_to_string(&path).expect("read the file back");
    for secret in ["sk-live-7f3a9c", "hunter2-pw", "tok-91xq", "abc-123-bearer"] {
        assert!(
            !text.contains(secret),
            "{secret} reached the cassette:\n{text}"
        );
    }
    assert!(text.contains("\"password\": \"[redacted]\""), "{text}");
    let _ = client.cancel().await;
}

#[tokio::test]
#[ignore = "prints a cassette for reading"]
async fn print_a_cassette() {
    let server = weather_server().start().await;
    session(&server.url()).await;
    println!("{}", server.log().to_cassette().to_json());
}

/// Issue 41: a file that is no cassette is refused naming the field at fault, never quoting
/// what the file holds (the app reads a cassette from any path a REST call names).
#[test]
fn a_file_that_is_no_cassette_is_refused_without_quoting_its_contents() {
    // Arrange: two files a user keeps secrets in.
    let dir =
        std::env::temp_dir().join(format!("mcp-decoy-cassette-secret-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let cases = [
        (
            "typed.json",
            r#"{"version": "TOPSECRET-VALUE-123"}"#,
            "version",
        ),
        ("keyed.json", r#"{"TOPSECRET-KEY-456": 1}"#, "unknown field"),
    ];
    for (name, text, says) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write the file");

        // Act
        let error = Cassette::load(&path).expect_err("no cassette");

        // Assert
        let shown = error.to_string();
        assert!(!shown.contains("TOPSECRET"), "{shown}");
        assert!(shown.contains(says), "{shown}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
