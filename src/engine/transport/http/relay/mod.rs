//! The relay: a server whose answers come from a real MCP server upstream (`relay_to`,
//! `"upstream"` in `servers.json`). It is one more responder behind the same capture layer
//! and guards as a mock: the exchange middleware writes the `http` record and the request
//! body limit, the guard checks `Host` and API keys; the relay forwards the request
//! ([`forward`]), records the JSON-RPC messages it carries both ways as `mcp` records
//! ([`record`], event streams through [`tap`]), and makes the upstream's OAuth observable ([`auth`]): its discovery
//! documents are rewritten so registration and token legs come back through the relay.
//!
//! Routes, relative to the server's prefix (empty for the fixture, `/s/NAME` in the app):
//! `{mount}` (the MCP endpoint) → the upstream URL; `/_up/{authority}/{path}` → that host
//! (allow-listed); `/_authorize/{authority}/{path}` → a one-shot redirect to that
//! authorization endpoint with `resource` patched; `/.well-known/{doc}{...}` → the document
//! at the upstream (RFC 9728) or at an `/_up` issuer (RFC 8414 path insertion).

pub(crate) mod auth;
pub(crate) mod forward;
pub(crate) mod record;
pub(crate) mod sse;
pub(crate) mod tap;
pub(crate) mod trust;

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, RwLock};
use std::time::Duration;

use url::Url;

use crate::engine::reach::{PublicOnly, local_host};
use crate::error::Error;
use crate::spec::{Fault, ServerSpec};

/// How long the upstream has by default to connect and answer.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The longest timeout a spec may ask for.
const MAX_TIMEOUT_MS: u64 = 600_000;
/// The largest body (not an event stream) the relay reads from an upstream; a larger one
/// is a protocol error (502), so a hostile upstream cannot exhaust memory.
pub(crate) const MAX_UPSTREAM_BODY: usize = 16 * 1024 * 1024;
/// Event streams relayed at once per relay; past it a new one gets 503.
pub(crate) const MAX_OPEN_STREAMS: usize = 256;
/// Authorization-server hosts discovery may hand out per relay.
const MAX_DISCOVERED_HOSTS: usize = 64;
/// Allow-listed hosts a spec may name.
const MAX_ALLOWED_HOSTS: usize = 64;

/// One relay's state: the upstream, the HTTP client, and what OAuth discovery taught it.
#[derive(Debug)]
pub(crate) struct Relay {
    /// The upstream MCP endpoint.
    pub(crate) upstream: Url,
    pub(crate) client: reqwest::Client,
    pub(crate) timeout: Duration,
    /// Authorities (`host:port`) the `/_up` legs may reach, with their origin; the
    /// upstream's own and the allow-list are seeded, discovery adds to it.
    hosts: Mutex<HashMap<String, String>>,
    /// How many of `hosts` discovery added (bounded).
    discovered: Mutex<usize>,
    /// The names discovery added, which the client resolves to public addresses only: an
    /// upstream's documents never lead the relay to this machine or its private network.
    learned_names: std::sync::Arc<Mutex<HashSet<String>>>,
    /// The names the user or the upstream URL gave, which may be anywhere.
    given_names: HashSet<String>,
    /// The upstream's real `resource` (RFC 9728), once its metadata passed through.
    real_resource: Mutex<Option<String>>,
    /// The MCP endpoint's path on our listener (`/mcp`, `/s/NAME/mcp`).
    mount: RwLock<String>,
    /// Bounds the event streams relayed at once.
    pub(crate) streams: std::sync::Arc<tokio::sync::Semaphore>,
}

impl Relay {
    /// The relay of a checked spec, `None` for a mock.
    pub(crate) fn of(spec: &ServerSpec) -> Result<Option<Relay>, Error> {
        let Some(upstream) = &spec.upstream else {
            return Ok(None);
        };
        let upstream = upstream_url(upstream)?;
        let timeout = Duration::from_millis(spec.upstream_timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
        let mut hosts = HashMap::new();
        let mut given_names = HashSet::new();
        hosts.insert(authority(&upstream), origin(&upstream));
        given_names.extend(upstream.host_str().map(str::to_ascii_lowercase));
        for entry in &spec.upstream_auth_hosts {
            let (authority, origin) = allowed_host(entry)?;
            if let Ok(url) = Url::parse(&origin) {
                given_names.extend(url.host_str().map(str::to_ascii_lowercase));
            }
            hosts.insert(authority, origin);
        }
        let learned_names = std::sync::Arc::<Mutex<HashSet<String>>>::default();
        let ca_file = spec.upstream_ca_file.as_deref();
        let extra_roots = ca_file.map(trust::certificates).transpose()?;
        let client = reqwest::Client::builder()
            // Redirects reach the client verbatim, as the upstream sent them.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .tcp_nodelay(true)
            .pool_max_idle_per_host(32)
            .tls_certs_merge(extra_roots.unwrap_or_default())
            .dns_resolver(PublicOnly::listed(learned_names.clone()))
            .build()
            .map_err(|error| trust::build_error(ca_file, &error))?;
        Ok(Some(Relay {
            upstream,
            client,
            timeout,
            hosts: Mutex::new(hosts),
            discovered: Mutex::new(0),
            learned_names,
            given_names,
            real_resource: Mutex::new(None),
            mount: RwLock::new("/mcp".into()),
            streams: std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_OPEN_STREAMS)),
        }))
    }

    pub(crate) fn set_mount(&self, path: &str) {
        *self.mount.write().unwrap_or_else(|p| p.into_inner()) = path.to_string();
    }

    pub(crate) fn mount(&self) -> String {
        self.mount.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The part of the mount before `/mcp`: empty for the fixture, `/s/NAME` in the app.
    pub(crate) fn prefix(&self) -> String {
        let mount = self.mount();
        mount
            .strip_suffix("/mcp")
            .unwrap_or(mount.as_str())
            .to_string()
    }

    /// The origin of an authority the `/_up` legs may reach, if any may.
    pub(crate) fn allowed(&self, authority: &str) -> Option<String> {
        let hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        hosts.get(&authority.to_ascii_lowercase()).cloned()
    }

    /// Allows the host of `url`, which discovery is handing out; whether it is allowed.
    /// The bound reached refuses new ones, and so does a host that is no public one (this
    /// machine, its private network) unless the user listed it in `upstream_auth_hosts`:
    /// a hostile upstream naming the app's own REST API gets no leg to it.
    pub(crate) fn discover(&self, url: &Url) -> bool {
        let key = authority(url);
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        if hosts.contains_key(&key) {
            return true;
        }
        let Some(host) = url.host() else {
            return false;
        };
        if let Some(reason) = local_host(&host) {
            tracing::warn!(url = %url, %reason, "mcp-decoy: the relay does not reach a host the upstream named; list it in upstream_auth_hosts to allow it");
            return false;
        }
        let mut discovered = self.discovered.lock().unwrap_or_else(|p| p.into_inner());
        if *discovered >= MAX_DISCOVERED_HOSTS {
            return false;
        }
        *discovered += 1;
        hosts.insert(key, origin(url));
        if let Some(name) = url.domain().map(str::to_ascii_lowercase)
            && !self.given_names.contains(&name)
        {
            self.learned_names
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(name);
        }
        true
    }

    pub(crate) fn real_resource(&self) -> String {
        let known = self.real_resource.lock().unwrap_or_else(|p| p.into_inner());
        known.clone().unwrap_or_else(|| self.upstream.to_string())
    }

    pub(crate) fn learn_resource(&self, resource: &str) {
        *self.real_resource.lock().unwrap_or_else(|p| p.into_inner()) = Some(resource.into());
    }

    /// Whether the app's root route should hand `path` to this relay: a well-known document
    /// whose path names this server (`/.well-known/…/s/NAME/…`).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn claims_root(&self, path: &str) -> bool {
        let prefix = self.prefix();
        !prefix.is_empty()
            && path.strip_prefix("/.well-known/").is_some_and(|rest| {
                rest.split_once('/')
                    .is_some_and(|(_, tail)| format!("/{tail}").starts_with(&format!("{prefix}/")))
            })
    }
}

/// `host:port` of a URL, lower case, the port always written.
pub(crate) fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// `scheme://host:port` of a URL.
pub(crate) fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn upstream_url(text: &str) -> Result<Url, Error> {
    let invalid = |reason: String| Error::InvalidConfig {
        field: "upstream",
        reason,
    };
    let url = Url::parse(text).map_err(|e| invalid(format!("`{text}` is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid(format!(
            "`{text}` must be an http:// or https:// URL"
        )));
    }
    if url.host_str().is_none() {
        return Err(invalid(format!("`{text}` has no host")));
    }
    if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(format!(
            "`{text}` must have no fragment and no credentials"
        )));
    }
    Ok(url)
}

/// An allow-list entry: `host`, `host:port` (https) or an origin.
fn allowed_host(entry: &str) -> Result<(String, String), Error> {
    let text = if entry.contains("://") {
        entry.to_string()
    } else {
        format!("https://{entry}")
    };
    let url = Url::parse(&text)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .filter(|u| matches!(u.path(), "" | "/") && u.query().is_none())
        .ok_or_else(|| Error::InvalidConfig {
            field: "upstream_auth_hosts",
            reason: format!(
                "`{entry}` is neither a host, `host:port` nor an http(s) origin such as `https://idp.example.com`"
            ),
        })?;
    Ok((authority(&url), origin(&url)))
}

/// Checks the relay settings of a spec: a relay has no catalog, no `auth`, only `error`
/// and `http` faults, a timeout within bounds; a mock has no relay settings.
pub(crate) fn check_spec(spec: &ServerSpec) -> Result<(), Error> {
    let invalid = |field: &'static str, reason: String| Err(Error::InvalidConfig { field, reason });
    if spec.upstream.is_none() {
        if !spec.upstream_auth_hosts.is_empty() {
            return invalid(
                "upstream_auth_hosts",
                "is for a relay; set `upstream` too".into(),
            );
        }
        if spec.upstream_timeout_ms.is_some() {
            return invalid(
                "upstream_timeout_ms",
                "is for a relay; set `upstream` too".into(),
            );
        }
        if spec.upstream_ca_file.is_some() {
            return invalid(
                "upstream_ca_file",
                "is for a relay; set `upstream` too".into(),
            );
        }
        return Ok(());
    }
    if !spec.tools.is_empty()
        || !spec.resources.is_empty()
        || !spec.resource_templates.is_empty()
        || !spec.prompts.is_empty()
        || !spec.skills.is_empty()
    {
        return invalid(
            "upstream",
            "a relay serves its upstream's catalog: it has no tools, resources, prompts or skills of its own".into(),
        );
    }
    if spec.auth.is_some() {
        return invalid(
            "auth",
            "a relay relays its upstream's OAuth; it has no authorization server of its own".into(),
        );
    }
    if let Some(ms) = spec.upstream_timeout_ms
        && !(1..=MAX_TIMEOUT_MS).contains(&ms)
    {
        return invalid(
            "upstream_timeout_ms",
            format!("is {ms}; it must be 1 to {MAX_TIMEOUT_MS}"),
        );
    }
    if spec.upstream_auth_hosts.len() > MAX_ALLOWED_HOSTS {
        return invalid(
            "upstream_auth_hosts",
            format!(
                "lists {}; at most {MAX_ALLOWED_HOSTS}",
                spec.upstream_auth_hosts.len()
            ),
        );
    }
    for entry in &spec.upstream_auth_hosts {
        allowed_host(entry)?;
    }
    for rule in &spec.faults {
        if !matches!(
            rule.fault,
            None | Some(Fault::Error { .. } | Fault::Http { .. })
        ) {
            return invalid(
                "faults",
                format!(
                    "`{}` cannot happen on a relay, which passes the upstream's answer on; a relay's rules may delay, answer `error` or an `http` status",
                    rule.fault.as_ref().map(Fault::label).unwrap_or_default()
                ),
            );
        }
    }
    upstream_url(spec.upstream.as_deref().unwrap_or_default()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_entries_name_an_authority_and_its_origin() {
        assert_eq!(
            allowed_host("idp.example.com").ok(),
            Some((
                "idp.example.com:443".into(),
                "https://idp.example.com".into()
            ))
        );
        assert_eq!(
            allowed_host("http://127.0.0.1:8080").ok(),
            Some(("127.0.0.1:8080".into(), "http://127.0.0.1:8080".into()))
        );
        assert!(allowed_host("https://idp.example.com/path").is_err());
        assert!(allowed_host("ftp://x").is_err());
    }

    #[test]
    fn a_relay_spec_is_checked() {
        let relay = |url: &str| ServerSpec {
            upstream: Some(url.into()),
            ..ServerSpec::new("r")
        };
        assert!(check_spec(&relay("https://mcp.example.com/mcp")).is_ok());
        for bad in ["ftp://x/mcp", "not a url", "http://", "https://u:p@h/mcp"] {
            assert!(check_spec(&relay(bad)).is_err(), "{bad}");
        }
        let with_tools = ServerSpec {
            tools: vec![crate::spec::ToolSpec::echo()],
            ..relay("https://h/mcp")
        };
        assert!(check_spec(&with_tools).is_err());
        let stray = ServerSpec {
            upstream_timeout_ms: Some(5),
            ..ServerSpec::new("m")
        };
        assert!(check_spec(&stray).is_err());
        let stray = ServerSpec {
            upstream_ca_file: Some("ca.pem".into()),
            ..ServerSpec::new("m")
        };
        assert!(matches!(
            check_spec(&stray),
            Err(Error::InvalidConfig {
                field: "upstream_ca_file",
                ..
            })
        ));
    }
}
