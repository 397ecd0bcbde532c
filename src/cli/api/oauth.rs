//! OAuth in the REST API (product guide, "Test an OAuth client"): the `auth` member of a
//! server's create and update bodies, which turns OAuth on or off and sets the
//! pre-registered client's redirect URIs, and `/servers/{server}/oauth/tokens`, which lists
//! and revokes the live tokens. A server without OAuth answers the token routes with `404`
//! saying so.
//!
//! `auth` is the server's `auth` entry of `servers.json`. In a body, an object turns OAuth on
//! (or changes it) and `null` turns it off. The object's members replace those settings and
//! the rest keep their current value, or the app's defaults when OAuth was off (consent
//! page, `client_secret_post` and `none`, a new pre-registered client). Every change to
//! `auth` rebuilds the server, which revokes every token and closes its sessions.
//!
//! The conformance presets (`auth.preset`) come from `spec::AuthScenario`, not the fixture;
//! tokens are read and revoked through `live.rs`. Must not touch: engine fields, the fixture,
//! or other resources' files (`servers.rs` uses this one, never the other way round).

use std::sync::{Arc, LazyLock};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ApiError;
use super::body::decode;
use super::live;
use super::openapi::{Docs, Operation, Route, Verb};
use super::support::hosted;
use crate::cli::App;
use crate::cli::auth;
use crate::oauth::{TokenInfo, TokenKind};
use crate::spec::{AuthScenario, OAuthSpec, PreRegisteredClient};

/// The `auth` member of `POST /servers` and `PATCH /servers/{server}`: the server's OAuth
/// settings as `servers.json` stores them, every member optional, plus `redirectUris`.
///
/// An object turns OAuth on, or changes it; `null` (in a `PATCH`) turns it off and deletes
/// the pre-registered client. Members given replace those settings; the others keep their
/// current value, or the app's defaults when OAuth was off: the consent page, token
/// endpoint auth methods `client_secret_post` and `none`, and a new pre-registered client
/// with a generated id and secret and no redirect URIs. `{}` turns OAuth on with the
/// defaults and changes nothing when it is on. A `preRegisteredClients` entry without
/// `clientId`, `clientSecret` or `redirectUris` keeps the current one; `[]` or `null`
/// generates a new client. Another member set to `null` goes back to its default. Any change
/// revokes every token and closes the server's sessions.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthBody {
    /// Shorthand: the pre-registered client's redirect URIs, compared exactly. Without any,
    /// only Dynamic Client Registration works.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_uris: Option<Vec<String>>,
    /// A conformance client auth scenario, such as `auth/scope-step-up` or
    /// `auth/metadata-var1`: every setting becomes that scenario's (members given beside it
    /// still apply on top); the name itself is not saved, its settings are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) preset: Option<String>,
    /// Any `auth` setting of `servers.json`.
    #[serde(flatten)]
    pub(crate) settings: OAuthSpec,
}

/// A live access or refresh token: everything but its value, which the API never shows.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Token {
    /// The id to revoke it by (`at-1`, `rt-2`, ...); not the token.
    pub(crate) id: String,
    /// `access` or `refresh`.
    pub(crate) kind: String,
    /// The client it was issued to.
    pub(crate) client_id: String,
    /// The scopes it grants.
    pub(crate) scopes: Vec<String>,
    /// The resource (RFC 8707) it is bound to: the server's MCP URL as the client used it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) resource: Option<String>,
    /// When it was issued (RFC 3339).
    #[schemars(with = "String")]
    pub(crate) issued_at: DateTime<Utc>,
    /// When it expires (RFC 3339); absent: never (refresh tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub(crate) expires_at: Option<DateTime<Utc>>,
}

impl From<TokenInfo> for Token {
    fn from(info: TokenInfo) -> Self {
        Token {
            id: info.id,
            kind: match info.kind {
                TokenKind::Access => "access",
                _ => "refresh",
            }
            .into(),
            client_id: info.client_id,
            scopes: info.scopes,
            resource: info.resource,
            issued_at: info.issued_at,
            expires_at: info.expires_at,
        }
    }
}

pub(crate) fn routes(docs: &mut Docs) -> Vec<Route> {
    vec![
        Operation::new(
            Verb::Get,
            "/servers/{server}/oauth/tokens",
            "listTokens",
            "List the live access and refresh tokens of a server that uses OAuth.",
        )
        .describe(
            "Oldest first, access tokens before refresh tokens; expired ones are left out. \
             Each has an `id` to revoke it by, its client, scopes and expiry; the token \
             values are never shown. A server that does not use OAuth answers `404`.",
        )
        .reply(200, docs.schema::<Vec<Token>>())
        .errors(&[404])
        .to(list),
        Operation::new(
            Verb::Delete,
            "/servers/{server}/oauth/tokens",
            "revokeTokens",
            "Revoke every access and refresh token of a server that uses OAuth.",
        )
        .describe(
            "Clients must authorize again: their next request gets `401`. Sessions stay \
             open. A server that does not use OAuth answers `404`.",
        )
        .no_content()
        .errors(&[404])
        .to(revoke_all),
        Operation::new(
            Verb::Delete,
            "/servers/{server}/oauth/tokens/{token}",
            "revokeToken",
            "Revoke one token, by the `id` that the list returns.",
        )
        .describe(
            "After an access token is revoked, its client's next request gets `401`; \
             revoking a refresh token leaves the access token valid, and the next refresh \
             fails. An unknown or expired id answers `404`, as does a server that does not \
             use OAuth.",
        )
        .no_content()
        .errors(&[404])
        .to(revoke),
    ]
}

/// What a token route answers for a server that does not use OAuth.
fn no_oauth(server: &str) -> ApiError {
    ApiError::not_found(format!("server `{server}` does not use OAuth")).field("server")
}

async fn list(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<axum::Json<Vec<Token>>, ApiError> {
    let tokens = live::tokens(&hosted(&app, &server)?).ok_or_else(|| no_oauth(&server))?;
    Ok(axum::Json(tokens.into_iter().map(Token::from).collect()))
}

async fn revoke_all(
    State(app): State<Arc<App>>,
    Path(server): Path<String>,
) -> Result<StatusCode, ApiError> {
    // Under the write lock, so a rebuild cannot move the tokens away mid-revoke.
    let _writes = app.writes.lock().await;
    live::revoke_all_tokens(&hosted(&app, &server)?).ok_or_else(|| no_oauth(&server))?;
    Ok(StatusCode::NO_CONTENT)
}

async fn revoke(
    State(app): State<Arc<App>>,
    Path((server, token)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let _writes = app.writes.lock().await;
    let revoked =
        live::revoke_token(&hosted(&app, &server)?, &token).ok_or_else(|| no_oauth(&server))?;
    if revoked {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found(format!(
            "server `{server}` has no live token `{token}`; GET /servers/{server}/oauth/tokens lists them"
        ))
        .field("token"))
    }
}

/// The members an `auth` object may have: those of `servers.json` and `redirectUris`.
static MEMBERS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let schema = serde_json::to_value(schemars::schema_for!(OAuthSpec)).unwrap_or(Value::Null);
    let mut members: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    members.push("redirectUris".into());
    members.push("preset".into());
    members
});

/// Makes a body's `auth` member whole (see [`AuthBody`]): `current` is the server's OAuth
/// before the change, `None` when it is off or the server is new. `null` stays `null`.
pub(crate) fn resolve(current: Option<&OAuthSpec>, given: Value) -> Result<Value, ApiError> {
    let mut given = match given {
        Value::Null => return Ok(Value::Null),
        Value::Object(map) => map,
        _ => {
            return Err(ApiError::bad_request(
                "auth",
                "`auth` must be an object (OAuth on) or null (OAuth off)",
            ));
        }
    };
    if let Some(unknown) = given.keys().find(|k| !MEMBERS.contains(k)) {
        return Err(ApiError::bad_request(
            format!("auth.{unknown}"),
            format!(
                "`auth` has no member `{unknown}`; it takes {}",
                MEMBERS.join(", ")
            ),
        ));
    }
    let preset = match given.remove("preset") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(AuthScenario::from_name(&name).ok_or_else(|| {
            ApiError::bad_request(
                "auth.preset",
                format!(
                    "`{name}` is not a conformance auth scenario; one of {}",
                    AuthScenario::ALL.map(|s| s.name()).join(", ")
                ),
            )
        })?),
        Some(_) => {
            return Err(ApiError::bad_request(
                "auth.preset",
                "`auth.preset` must be the name of a conformance auth scenario, e.g. `auth/scope-step-up`",
            ));
        }
    };
    if given.contains_key("redirectUris") && given.contains_key("preRegisteredClients") {
        return Err(ApiError::bad_request(
            "auth.redirectUris",
            "give `redirectUris` or `preRegisteredClients`, not both",
        ));
    }
    // Typed first, so a wrong type names its member before anything is merged (decoding
    // `AuthBody` itself would lose the path inside its flattened settings).
    let mut settings = given.clone();
    settings.retain(|_, value| !value.is_null());
    if let Some(uris) = settings.remove("redirectUris") {
        let _: Vec<String> = decode(&uris).map_err(|e| prefixed(e, "auth.redirectUris"))?;
    }
    // Entries may leave out what the current client fills in; the merged server is decoded
    // (naming any entry at fault) once they are complete.
    match settings.remove("preRegisteredClients") {
        None | Some(Value::Null | Value::Array(_)) => {}
        Some(_) => {
            return Err(ApiError::bad_request(
                "auth.preRegisteredClients",
                "`auth.preRegisteredClients` must be an array with one client, or null",
            ));
        }
    }
    let _: OAuthSpec = decode(&Value::Object(settings)).map_err(|e| prefixed(e, "auth"))?;
    let current_client = current.and_then(|c| c.pre_registered_clients.first().cloned());
    // A preset replaces every setting (the members given beside it still apply on top); the
    // app keeps its one pre-registered client unless the preset names its own.
    let base = match preset {
        Some(scenario) => {
            let mut spec = scenario.oauth_spec();
            if spec.pre_registered_clients.is_empty() {
                spec.pre_registered_clients =
                    vec![current_client.clone().unwrap_or_else(auth::new_client)];
            }
            spec
        }
        None => current.cloned().unwrap_or_else(auth::turned_on),
    };
    let mut merged = match serde_json::to_value(&base) {
        Ok(Value::Object(map)) => map,
        _ => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the current OAuth settings could not be read",
            ));
        }
    };
    // `null` resets a member to the app's default, or the engine's when the app has none.
    let app_defaults = match serde_json::to_value(auth::turned_on()) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let mut redirect_uris = None;
    for (key, value) in given {
        if key == "redirectUris" {
            redirect_uris = Some(value);
        } else if value.is_null() {
            match app_defaults.get(&key) {
                Some(default) if key != "preRegisteredClients" => {
                    merged.insert(key, default.clone());
                }
                _ => {
                    merged.remove(&key);
                }
            }
        } else {
            merged.insert(key, value);
        }
    }
    let fallback = current_client
        .clone()
        .or_else(|| base.pre_registered_clients.first().cloned())
        .unwrap_or_else(auth::new_client);
    let mut clients = match merged.remove("preRegisteredClients") {
        Some(Value::Array(list)) if !list.is_empty() => list
            .into_iter()
            .enumerate()
            .map(|(i, entry)| match entry {
                Value::Object(entry) if i == 0 => Value::Object(completed(entry, &fallback)),
                other => other,
            })
            .collect(),
        _ => vec![client_value(&match current_client {
            // `[]` or `null` asks for new credentials, even when OAuth is on.
            Some(_) => auth::new_client(),
            None => fallback,
        })],
    };
    if let Some(uris) = redirect_uris
        && let Some(Value::Object(first)) = clients.first_mut()
    {
        first.insert("redirectUris".into(), uris);
    }
    merged.insert("preRegisteredClients".into(), Value::Array(clients));
    Ok(Value::Object(merged))
}

/// A pre-registered client entry with its missing members taken from `fallback`.
fn completed(mut entry: Map<String, Value>, fallback: &PreRegisteredClient) -> Map<String, Value> {
    let Value::Object(defaults) = client_value(fallback) else {
        return entry;
    };
    for (key, value) in defaults {
        entry.entry(key).or_insert(value);
    }
    entry
}

fn client_value(client: &PreRegisteredClient) -> Value {
    serde_json::to_value(client).unwrap_or(Value::Null)
}

/// The error of a nested decode, with its field under `prefix`.
fn prefixed(mut error: ApiError, prefix: &str) -> ApiError {
    error.field = Some(match error.field.as_deref() {
        None | Some("body") => prefix.to_string(),
        Some(field) if field.starts_with('[') => format!("{prefix}{field}"),
        Some(field) => format!("{prefix}.{field}"),
    });
    error
}

/// The first problem of a server's `auth` entry, as a `400` naming the field.
pub(crate) fn check(server: &crate::spec::ServerSpec) -> Result<(), ApiError> {
    match auth::server_problems(server).into_iter().next() {
        None => Ok(()),
        Some((at, reason)) => {
            let field = at.field();
            Err(ApiError::bad_request(
                field.clone(),
                format!("`{field}`: {reason}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolved(current: Option<&OAuthSpec>, given: Value) -> OAuthSpec {
        let value = resolve(current, given).expect("resolves");
        serde_json::from_value(value).expect("an OAuthSpec")
    }

    #[test]
    fn an_empty_object_turns_oauth_on_with_the_app_defaults_and_keeps_it_when_on() {
        let on = resolved(None, json!({}));
        assert_eq!(on.consent, crate::spec::Consent::Page);
        assert_eq!(on.pre_registered_clients.len(), 1);
        assert_eq!(resolved(Some(&on), json!({})), on);
    }

    #[test]
    fn redirect_uris_keep_the_client_and_the_other_settings() {
        let mut on = resolved(None, json!({}));
        on.scopes_supported = vec!["mcp".into()];
        let next = resolved(
            Some(&on),
            json!({ "redirectUris": ["http://localhost:3000/callback"] }),
        );
        let (before, after) = (
            &on.pre_registered_clients[0],
            &next.pre_registered_clients[0],
        );
        assert_eq!(after.client_id, before.client_id);
        assert_eq!(after.client_secret, before.client_secret);
        assert_eq!(after.redirect_uris, ["http://localhost:3000/callback"]);
        assert_eq!(next.scopes_supported, ["mcp"]);
        let same = resolved(
            Some(&on),
            json!({ "preRegisteredClients": [{ "redirectUris": ["http://localhost:3000/callback"] }] }),
        );
        assert_eq!(same, next);
    }

    #[test]
    fn null_resets_a_member_to_the_app_default() {
        let on = resolved(
            None,
            json!({ "consent": "auto", "scopesSupported": ["mcp"] }),
        );
        assert_eq!(on.consent, crate::spec::Consent::Auto);
        let reset = resolved(
            Some(&on),
            json!({ "consent": null, "scopesSupported": null }),
        );
        assert_eq!(reset.consent, crate::spec::Consent::Page);
        assert!(reset.scopes_supported.is_empty());
        assert_eq!(reset.pre_registered_clients, on.pre_registered_clients);
    }

    #[test]
    fn an_empty_client_list_rotates_the_credentials() {
        let on = resolved(None, json!({}));
        let next = resolved(Some(&on), json!({ "preRegisteredClients": [] }));
        assert_ne!(
            next.pre_registered_clients[0].client_id,
            on.pre_registered_clients[0].client_id
        );
    }

    #[test]
    fn unknown_members_and_wrong_types_are_named() {
        let unknown = resolve(None, json!({ "redirectUri": [] })).expect_err("unknown");
        assert_eq!(unknown.field.as_deref(), Some("auth.redirectUri"));
        let wrong = resolve(None, json!({ "consent": 7 })).expect_err("wrong type");
        assert_eq!(
            wrong.field.as_deref(),
            Some("auth.consent"),
            "{}",
            wrong.detail
        );
        let not_object = resolve(None, json!(true)).expect_err("not an object");
        assert_eq!(not_object.field.as_deref(), Some("auth"));
    }
}
