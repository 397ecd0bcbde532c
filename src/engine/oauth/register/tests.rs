use super::*;

#[test]
fn https_documents_need_the_app_build() {
    let https = url::Url::parse("https://app.example.com/client.json").expect("a URL");
    let problem = tls_problem(&https, false).expect("no TLS");
    assert!(
        problem.contains("no TLS") && problem.contains("decoy-cli"),
        "{problem}"
    );
    assert_eq!(tls_problem(&https, true), None);
    let loopback = url::Url::parse("http://127.0.0.1:9/client.json").expect("a URL");
    assert_eq!(tls_problem(&loopback, false), None);
}

#[test]
fn a_build_without_oauth_cimd_names_the_feature() {
    let reason = cimd_unavailable("http://127.0.0.1:9/client.json");
    assert!(
        reason.contains("`oauth-cimd` feature")
            && reason.contains("http://127.0.0.1:9/client.json"),
        "{reason}"
    );
}

#[test]
fn redirect_uris_follow_the_oauth_2_1_rules() {
    for ok in [
        "https://app.example.com/cb",
        "http://127.0.0.1:33418/callback",
        "http://localhost/cb",
        "http://[::1]:9/cb",
        "com.example.app:/oauth",
    ] {
        assert_eq!(check_redirect_uri(ok), Ok(()), "{ok}");
    }
    for (bad, says) in [
        ("/relative", "not an absolute URI"),
        ("http://app.example.com/cb", "not loopback"),
        ("https://app.example.com/cb#x", "fragment"),
        ("javascript:alert(1)", "never a redirect URI"),
        ("custom:/cb", "private-use scheme"),
    ] {
        let reason = check_redirect_uri(bad).expect_err(bad);
        assert!(reason.contains(says), "{bad}: {reason}");
    }
}
