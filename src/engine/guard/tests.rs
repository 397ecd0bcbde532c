use super::*;

fn pattern(entry: &str) -> HostPattern {
    HostPattern::parse(entry).expect("a valid entry")
}

#[test]
fn authorities_split_into_host_and_port() {
    assert_eq!(
        split_authority("Example.COM:8080"),
        Some(("example.com".into(), Some(8080)))
    );
    assert_eq!(
        split_authority("[::1]:3000"),
        Some(("[::1]".into(), Some(3000)))
    );
    assert_eq!(split_authority("[::1]"), Some(("[::1]".into(), None)));
    assert_eq!(
        split_authority("localhost"),
        Some(("localhost".into(), None))
    );
    assert_eq!(split_authority("host:port"), None);
    assert_eq!(split_authority("[::1]x"), None);
    assert_eq!(split_authority(":80"), None);
}

#[test]
fn a_plain_loopback_authority_is_what_the_general_parse_calls_loopback() {
    for plain in ["127.0.0.1:1", "127.0.0.1:65535", "localhost:8080"] {
        assert!(is_plain_loopback(plain.as_bytes()), "{plain}");
        let (host, port) = split_authority(plain).expect("an authority");
        assert!(is_loopback_host(&host) && port.is_some(), "{plain}");
    }
    // Anything else goes the general way, which decides as before.
    for other in [
        "127.0.0.1",
        "127.0.0.1:",
        "127.0.0.1:65536",
        "127.0.0.1:+80",
        "127.0.0.1:123456",
        "localhost:8o",
        "LOCALHOST:80",
        "127.0.0.1.evil.example:80",
        "evil.example:80",
    ] {
        assert!(!is_plain_loopback(other.as_bytes()), "{other}");
    }
}

#[test]
fn loopback_names_are_recognised() {
    for ok in ["localhost", "127.0.0.1", "127.0.0.2", "[::1]"] {
        assert!(is_loopback_host(ok), "{ok}");
    }
    for bad in [
        "localhost.evil.example",
        "10.0.0.1",
        "[::2]",
        "evil.example",
    ] {
        assert!(!is_loopback_host(bad), "{bad}");
    }
}

#[test]
fn host_patterns_match_names_ports_and_subdomains() {
    assert!(pattern("mcp.example.com").matches("mcp.example.com", Some(443)));
    assert!(pattern("MCP.example.com").matches("mcp.example.com", None));
    assert!(pattern("mcp.example.com:8443").matches("mcp.example.com", Some(8443)));
    assert!(!pattern("mcp.example.com:8443").matches("mcp.example.com", Some(80)));
    let wildcard = pattern("*.trycloudflare.com");
    assert!(wildcard.matches("abc-def.trycloudflare.com", None));
    assert!(!wildcard.matches("trycloudflare.com", None));
    assert!(!wildcard.matches("eviltrycloudflare.com", None));
    assert!(pattern("[fd00::1]:80").matches("[fd00::1]", Some(80)));
}

#[test]
fn bad_host_entries_say_why() {
    for (entry, says) in [
        ("", "empty"),
        ("https://mcp.example.com", "URL"),
        ("mcp.example.com/mcp", "URL"),
        ("mcp example.com", "not a host name"),
        ("mcp.example.com:http", "not a host name or `host:port`"),
        ("[nope]", "not a host name"),
    ] {
        let problem = host_problem(entry).expect("a problem");
        assert!(problem.contains(says), "{entry}: {problem}");
    }
}

#[test]
fn bad_keys_say_why() {
    assert!(key_problem("").is_some_and(|p| p.contains("empty")));
    assert!(key_problem("a b").is_some_and(|p| p.contains("visible ASCII")));
    assert!(key_problem("clé").is_some_and(|p| p.contains("visible ASCII")));
    assert!(key_problem(&"k".repeat(513)).is_some_and(|p| p.contains("513 bytes")));
    assert_eq!(key_problem(&"k".repeat(512)), None);
}

#[test]
fn spec_problems_name_each_entry() {
    let mut spec = ServerSpec::new("s");
    spec.api_keys = vec!["a".into(), "".into(), "a".into()];
    spec.allowed_hosts = vec!["ok.example".into(), "http://x".into()];
    let problems = spec_problems(&spec, "apiKeys", "allowedHosts");
    let fields: Vec<&str> = problems.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(fields, ["apiKeys[1]", "apiKeys[2]", "allowedHosts[1]"]);
    assert!(problems[1].1.contains("repeats apiKeys[0]"));
    let error = check_spec(&spec).expect_err("invalid");
    assert!(
        error
            .to_string()
            .contains("`api_keys[1]` must not be empty"),
        "{error}"
    );
    spec.api_keys = vec!["k".into()];
    spec.allowed_hosts.clear();
    spec.auth = Some(crate::spec::OAuthSpec::default());
    let problems = spec_problems(&spec, "apiKeys", "allowedHosts");
    assert_eq!(problems.len(), 1);
    assert!(problems[0].1.contains("OAuth"), "{problems:?}");
}

#[test]
fn bearer_tokens_are_read_case_insensitively() {
    let token = |v: &'static str| bearer_token(&HeaderValue::from_static(v)).map(str::to_string);
    assert_eq!(token("Bearer k1").as_deref(), Some("k1"));
    assert_eq!(token("bearer  k1").as_deref(), Some("k1"));
    assert_eq!(token("Basic a2V5"), None);
    assert_eq!(token("Bearer "), None);
    assert_eq!(token("Bearer"), None);
}

#[test]
fn revoking_the_last_key_keeps_the_server_locked() {
    let mut spec = ServerSpec::new("s");
    spec.api_keys = vec!["k1".into()];
    let guard = Guard::new(&spec);
    let mut headers = HeaderMap::new();
    headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer k1"));
    let principal = guard.check_key(&headers).expect("a known key");
    // Named by a digest prefix, never by the key itself.
    let name = principal.expect("a principal").0;
    assert!(
        name.starts_with("api-key:") && !name.contains("k1"),
        "{name}"
    );
    assert!(guard.revoke_api_key("k1"));
    assert_eq!(guard.check_key(&headers), Err(KeyProblem::Unknown));
    assert_eq!(guard.check_key(&HeaderMap::new()), Err(KeyProblem::Missing));
}
