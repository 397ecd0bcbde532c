use super::*;

#[test]
fn the_mount_prefix_is_the_mcp_path_without_its_last_segment() {
    assert_eq!(Mount::at("/mcp").prefix, "");
    assert_eq!(Mount::at("/s/weather/mcp").prefix, "/s/weather");
}

#[test]
fn paths_follow_the_configuration() {
    let spec = OAuthSpec {
        issuer_path: Some("/tenant1".into()),
        ..OAuthSpec::default()
    };
    let server = AuthServer::new(spec);
    let mount = Mount::at("/mcp");
    assert_eq!(
        server.resource_metadata_path(&mount).as_deref(),
        Some("/.well-known/oauth-protected-resource/mcp")
    );
    let paths: Vec<String> = server
        .metadata_paths(&mount)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        paths,
        [
            "/.well-known/oauth-authorization-server/tenant1",
            "/.well-known/openid-configuration/tenant1",
            "/tenant1/.well-known/openid-configuration",
        ]
    );
    server.migrate();
    assert_eq!(server.issuer_path(&mount), "/tenant1/as2");
}

#[test]
fn the_app_mount_puts_everything_under_the_server() {
    let server = AuthServer::new(OAuthSpec::default());
    server.set_mount("/s/weather/mcp");
    let root = server.root_paths();
    assert_eq!(
        root,
        [
            "/.well-known/oauth-protected-resource/s/weather/mcp",
            "/.well-known/oauth-authorization-server/s/weather",
            "/.well-known/openid-configuration/s/weather",
        ]
    );
    assert!(matches!(
        server.route("/s/weather/oauth/token"),
        Some(Endpoint::Token)
    ));
    assert!(matches!(
        server.route("/s/weather/.well-known/openid-configuration"),
        Some(Endpoint::ServerMetadata(AuthServerMetadata::OpenIdAppended))
    ));
    assert!(server.route("/oauth/token").is_none());
}

#[test]
fn scope_tokens_exclude_spaces_quotes_and_backslashes() {
    assert!("mcp:read".chars().all(is_scope_char));
    assert!(!"a b".chars().all(is_scope_char));
    assert!(!"a\"b".chars().all(is_scope_char));
    assert!(!"a\\b".chars().all(is_scope_char));
}
