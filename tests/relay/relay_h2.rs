//! The relay to an HTTP/2-only TLS upstream (issue 14: "an http/2-only upstream works"): the
//! rmcp server behind rustls that offers only `h2` by ALPN and speaks only HTTP/2, its
//! certificate issued at test time by a private CA the relay is told to trust
//! (`relay_ca_file`, `"upstreamCaFile"`). The rmcp client's session goes through and the
//! capture names HTTP/2 as the upstream leg's version; without the CA the client gets 502
//! naming `tls`; a CA file that is missing or holds no certificate is a start error.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::upstream::{Mode, failure_of, rmcp_router};
use common::{Answers, connect_answering};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use mcp_decoy::log::FailureCause;
use mcp_decoy::spec::ServerSpec;
use mcp_decoy::{Error, MockMcpServer};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use serde_json::json;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_util::sync::CancellationToken;

/// A private CA and the upstream's certificate it issued, for `localhost` and `127.0.0.1`;
/// the CA's PEM lives in a file, as a user's would.
struct Pki {
    ca_file: PathBuf,
    leaf: CertificateDer<'static>,
    leaf_key: PrivatePkcs8KeyDer<'static>,
}

impl Pki {
    fn new(name: &str) -> Pki {
        let ca_key = KeyPair::generate().expect("a CA key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(rcgen::DnType::CommonName, "mcp-decoy test CA");
        let ca_cert = ca.self_signed(&ca_key).expect("the CA certificate");
        let issuer = Issuer::new(ca, ca_key);
        let leaf_key = KeyPair::generate().expect("a server key");
        let leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("server params")
            .signed_by(&leaf_key, &issuer)
            .expect("the server certificate");
        let ca_file = scratch(name, "ca.pem");
        std::fs::write(&ca_file, ca_cert.pem()).expect("write the CA file");
        Pki {
            ca_file,
            leaf: leaf.der().clone(),
            leaf_key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()),
        }
    }

    /// The upstream's TLS: its certificate, and `h2` the only protocol ALPN may pick.
    fn server_config(&self) -> Arc<ServerConfig> {
        let provider = Arc::new(tokio_rustls::rustls::crypto::aws_lc_rs::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![self.leaf.clone()],
                PrivateKeyDer::Pkcs8(self.leaf_key.clone_key()),
            )
            .expect("the server certificate and key");
        config.alpn_protocols = vec![b"h2".to_vec()];
        Arc::new(config)
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.ca_file);
    }
}

/// A file path of this test process, unique per test.
fn scratch(name: &str, file: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "mcp-decoy-relay-h2-{name}-{}-{file}",
        std::process::id()
    ))
}

/// The rmcp server on `https://localhost:PORT/mcp`, HTTP/2 only; stops when dropped.
struct H2Upstream {
    url: String,
    pki: Pki,
    stop: CancellationToken,
}

impl Drop for H2Upstream {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn h2_upstream(name: &str, mode: Mode) -> H2Upstream {
    let pki = Pki::new(name);
    let acceptor = TlsAcceptor::from(pki.server_config());
    let stop = CancellationToken::new();
    let router = rmcp_router(mode, &stop);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port for the upstream");
    let port = listener.local_addr().expect("its address").port();
    let until = stop.clone();
    tokio::spawn(async move {
        loop {
            let (socket, _) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(_) => continue,
                },
                () = until.cancelled() => return,
            };
            let _ = socket.set_nodelay(true);
            let (acceptor, router) = (acceptor.clone(), router.clone());
            tokio::spawn(async move {
                // A client that offers no `h2` fails the handshake: nothing else is served.
                let Ok(tls) = acceptor.accept(socket).await else {
                    return;
                };
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), TowerToHyperService::new(router))
                    .await;
            });
        }
    });
    H2Upstream {
        url: format!("https://localhost:{port}/mcp"),
        pki,
        stop,
    }
}

fn relay_trusting(upstream: &H2Upstream) -> mcp_decoy::MockMcpServerBuilder {
    MockMcpServer::builder()
        .relay_to(&upstream.url)
        .relay_ca_file(&upstream.pki.ca_file)
}

/// The rmcp client's session through the relay (initialize, tools/list, tools/call), and
/// every relayed POST's record naming HTTP/2 as the upstream leg's version.
async fn session_over_h2(relay: &MockMcpServer) {
    let (client, _hearing) = connect_answering(&relay.url(), Answers::default()).await;
    assert_eq!(common::list_tools_with(&client).await, ["echo", "work"]);
    let echoed = common::call_with(&client, "echo", json!({ "message": "over h2" })).await;
    assert_eq!(common::text(&echoed), "over h2");
    client.cancel().await.expect("the client closes");

    let log = relay.log();
    for method in ["initialize", "tools/list", "tools/call"] {
        let record = log.mcp().method(method).last().cloned();
        let record = record.unwrap_or_else(|| panic!("no {method} record"));
        assert!(record.response.is_some(), "{method} has no response");
    }
    let posts = log.http().method("POST").all();
    assert!(posts.len() >= 3, "{posts:?}");
    for post in posts {
        let upstream = post.upstream.as_ref().expect("a relayed exchange");
        assert_eq!(upstream.failure, None, "{post:?}");
        assert_eq!(upstream.status, post.status);
        assert_eq!(upstream.version.as_deref(), Some("HTTP/2.0"), "{post:?}");
    }
}

#[tokio::test]
async fn rmcp_through_a_relay_to_an_http2_only_tls_upstream_answering_on_event_streams() {
    let upstream = h2_upstream("sse", Mode::StatefulSse).await;
    let relay = relay_trusting(&upstream).start().await;
    session_over_h2(&relay).await;
    // The upstream's session id came back over HTTP/2 and the client used it.
    let call = relay.log().mcp().method("tools/call").last().cloned();
    assert!(call.expect("the call").session.is_some());
}

#[tokio::test]
async fn rmcp_through_a_relay_to_an_http2_only_tls_upstream_answering_json() {
    let upstream = h2_upstream("json", Mode::StatelessJson).await;
    let relay = relay_trusting(&upstream).start().await;
    session_over_h2(&relay).await;
}

/// The upstream really is HTTP/2-only: a client trusting the same CA reaches it over h2,
/// and one that speaks only HTTP/1.1 cannot.
#[tokio::test]
async fn the_upstream_refuses_http1() {
    let upstream = h2_upstream("h1", Mode::StatelessJson).await;
    let ca = std::fs::read(&upstream.pki.ca_file).expect("the CA file");
    let trusting = |h1_only: bool| {
        let roots = reqwest::Certificate::from_pem_bundle(&ca).expect("the CA");
        let builder = reqwest::Client::builder().tls_certs_merge(roots);
        let builder = if h1_only {
            builder.http1_only()
        } else {
            builder
        };
        builder.build().expect("a client")
    };
    let post = |client: reqwest::Client| {
        client
            .post(&upstream.url)
            .header("accept", "application/json, text/event-stream")
            .json(&common::initialize_body())
            .send()
    };
    let h2 = post(trusting(false))
        .await
        .expect("an HTTP/2 client is served");
    assert_eq!(h2.version(), reqwest::Version::HTTP_2);
    assert_eq!(h2.status(), 200);
    // Refused in the handshake, by ALPN (the CA is trusted, so not for the certificate).
    let h1 = post(trusting(true))
        .await
        .expect_err("an HTTP/1.1 client is refused");
    let chain = format!("{h1:?}");
    assert!(chain.contains("NoApplicationProtocol"), "{chain}");
}

#[tokio::test]
async fn without_the_ca_the_relay_answers_502_naming_tls() {
    let upstream = h2_upstream("untrusted", Mode::StatelessJson).await;
    let relay = MockMcpServer::builder()
        .relay_to(&upstream.url)
        .start()
        .await;
    let (body, cause) = failure_of(&relay).await;
    assert_eq!(cause, FailureCause::Tls);
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("(tls)"), "{message}");
    let exchange = relay.log().http().last().cloned().expect("the exchange");
    assert_eq!(exchange.upstream.expect("relayed").version, None);
}

/// `servers.json`'s shape: `upstreamCaFile` beside `upstream`, through the same spec.
#[tokio::test]
async fn a_servers_json_relay_with_upstream_ca_file_reaches_the_upstream() {
    let upstream = h2_upstream("spec", Mode::StatelessJson).await;
    let spec: ServerSpec = serde_json::from_value(json!({
        "name": "dev",
        "upstream": upstream.url,
        "upstreamCaFile": upstream.pki.ca_file,
    }))
    .expect("a relay spec");
    let round_trip = serde_json::to_value(&spec).expect("serialises");
    assert_eq!(
        round_trip["upstreamCaFile"].as_str().map(Path::new),
        Some(upstream.pki.ca_file.as_path())
    );
    let relay = mcp_decoy::MockMcpServerBuilder::from_spec(spec)
        .start()
        .await;
    let client = common::connect(&relay.url()).await;
    assert_eq!(common::tool_names(&client).await, ["echo", "work"]);
    client.cancel().await.expect("the client closes");
}

fn start_error(reason: &Error) -> String {
    match reason {
        Error::InvalidConfig { field, reason } => {
            assert_eq!(*field, "upstream_ca_file", "{reason}");
            reason.clone()
        }
        other => panic!("expected a configuration error, got {other}"),
    }
}

#[tokio::test]
async fn a_ca_file_that_is_missing_or_holds_no_certificate_is_a_start_error() {
    let start = |path: &Path| {
        MockMcpServer::builder()
            .relay_to("https://localhost:8443/mcp")
            .relay_ca_file(path)
            .try_start()
    };
    let missing = scratch("missing", "none.pem");
    let error = start(&missing)
        .await
        .expect_err("a missing file is refused");
    assert!(error.to_string().contains("`upstream_ca_file`"), "{error}");
    assert!(start_error(&error).contains("cannot be read"), "{error}");

    // A private key where the certificate should be: a common mix-up.
    let key_only = scratch("key-only", "key.pem");
    let key = KeyPair::generate().expect("a key");
    std::fs::write(&key_only, key.serialize_pem()).expect("write the file");
    let error = start(&key_only)
        .await
        .expect_err("no certificate is refused");
    assert!(
        start_error(&error).contains("holds no certificate"),
        "{error}"
    );
    let _ = std::fs::remove_file(&key_only);

    // Only a relay trusts an upstream.
    let pki = Pki::new("mock");
    let error = MockMcpServer::builder()
        .relay_ca_file(&pki.ca_file)
        .try_start()
        .await
        .expect_err("a mock with a CA file is refused");
    assert!(start_error(&error).contains("is for a relay"), "{error}");
}
