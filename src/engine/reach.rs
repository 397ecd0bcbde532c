//! Where the server's own HTTP requests may go when a remote party names the target: a
//! relay's authorization hosts learned from an upstream's documents, a Client ID Metadata
//! Document URL. Such a name must not lead to this machine or its private network (the
//! app's own REST API, a local service), so only public addresses count, for an address
//! written in the URL and for every address a name resolves to ([`PublicOnly`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::Host;

#[cfg(any(feature = "relay", feature = "oauth-cimd"))]
pub(crate) use resolver::PublicOnly;

/// Whether `ip` is an address of the public internet: not loopback, private (RFC 1918,
/// unique local), link-local, shared (RFC 6598), unspecified, broadcast, multicast or
/// documentation. An IPv4-mapped IPv6 address is judged as its IPv4 address.
pub(crate) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    let shared = a == 100 && (64..128).contains(&b);
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || shared
        || a == 0)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    let unique_local = first & 0xfe00 == 0xfc00;
    let link_local = first & 0xffc0 == 0xfe80;
    let documentation = first == 0x2001 && ip.segments()[1] == 0x0db8;
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || unique_local
        || link_local
        || documentation)
}

/// Why a URL's host is no public one, when it plainly is not: an address literal outside the
/// public internet, or a name that means this machine (`localhost`, `*.localhost`). A name
/// that resolves to such an address is caught when it is resolved ([`PublicOnly`]).
pub(crate) fn local_host(host: &Host<&str>) -> Option<String> {
    match host {
        Host::Ipv4(ip) if !is_public(IpAddr::V4(*ip)) => {
            Some(format!("{ip} is not a public address"))
        }
        Host::Ipv6(ip) if !is_public(IpAddr::V6(*ip)) => {
            Some(format!("[{ip}] is not a public address"))
        }
        Host::Domain(name) if is_local_name(name) => Some(format!("`{name}` names this machine")),
        _ => None,
    }
}

fn is_local_name(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost" || name.ends_with(".localhost")
}

/// The resolver, with the HTTP client that uses it (features `relay` and `oauth-cimd`).
#[cfg(any(feature = "relay", feature = "oauth-cimd"))]
mod resolver {
    use std::collections::HashSet;
    use std::net::SocketAddr;
    use std::sync::{Arc, Mutex};

    use reqwest::dns::{Addrs, Name, Resolve, Resolving};

    use super::is_public;

    /// A DNS resolver for reqwest that keeps the names it restricts to public addresses: a name
    /// that resolves to none fails to connect, saying so. Other names resolve as usual (a
    /// relay's upstream may well be on this machine).
    #[derive(Debug, Clone)]
    pub(crate) struct PublicOnly {
        /// The names it restricts (lower case), a set that grows as a relay learns them;
        /// `None`: every name (a Client ID Metadata Document's).
        restricted: Option<Arc<Mutex<HashSet<String>>>>,
    }

    impl PublicOnly {
        /// Restricts every name.
        #[cfg(feature = "oauth-cimd")]
        pub(crate) fn all() -> PublicOnly {
            PublicOnly { restricted: None }
        }

        /// Restricts the names in `names`, read at each resolution.
        #[cfg(feature = "relay")]
        pub(crate) fn listed(names: Arc<Mutex<HashSet<String>>>) -> PublicOnly {
            PublicOnly {
                restricted: Some(names),
            }
        }

        fn restricts(&self, name: &str) -> bool {
            self.restricted.as_ref().is_none_or(|names| {
                names
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains(name)
            })
        }
    }

    impl Resolve for PublicOnly {
        fn resolve(&self, name: Name) -> Resolving {
            let host = name.as_str().to_ascii_lowercase();
            let restricted = self.restricts(&host);
            Box::pin(async move {
                // The system's resolver, as reqwest's own default uses it (off the async workers).
                let found: Vec<SocketAddr> =
                    tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
                let kept: Vec<SocketAddr> = if restricted {
                    found.into_iter().filter(|a| is_public(a.ip())).collect()
                } else {
                    found
                };
                if kept.is_empty() && restricted {
                    return Err(format!(
                        "`{host}` resolves to no public address; a host a remote party names may not lead to this machine or its private network"
                    )
                    .into());
                }
                let addrs: Addrs = Box::new(kept.into_iter());
                Ok(addrs)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_of_this_machine_and_private_networks_are_not_public() {
        for local in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.20",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
        ] {
            let ip: IpAddr = local.parse().expect("an address");
            assert!(!is_public(ip), "{local}");
        }
        for public in ["93.184.216.34", "1.1.1.1", "2606:4700::1111"] {
            let ip: IpAddr = public.parse().expect("an address");
            assert!(is_public(ip), "{public}");
        }
    }

    #[test]
    fn a_local_host_is_named_with_the_reason() {
        for (url, reason) in [
            (
                "http://127.0.0.1:6281/api",
                "127.0.0.1 is not a public address",
            ),
            ("http://[::1]:80/", "[::1] is not a public address"),
            ("http://LOCALHOST:6281/", "`localhost` names this machine"),
            (
                "http://api.localhost/",
                "`api.localhost` names this machine",
            ),
        ] {
            let url = url::Url::parse(url).expect("a URL");
            let host = url.host().expect("a host");
            assert_eq!(local_host(&host).as_deref(), Some(reason), "{url}");
        }
        let public = url::Url::parse("https://idp.example.com/").expect("a URL");
        assert_eq!(local_host(&public.host().expect("a host")), None);
    }

    #[cfg(all(feature = "relay", feature = "oauth-cimd"))]
    #[tokio::test]
    async fn a_restricted_name_that_resolves_to_this_machine_is_refused() {
        use reqwest::dns::Resolve;
        use std::sync::Arc;

        // Act: `localhost` resolves, through the system's resolver, to loopback only.
        let refused = PublicOnly::all()
            .resolve("localhost".parse().expect("a name"))
            .await;
        let free = PublicOnly::listed(Arc::default())
            .resolve("localhost".parse().expect("a name"))
            .await;

        // Assert
        let Err(error) = refused else {
            panic!("a restricted name that resolves to loopback was let through");
        };
        assert!(error.to_string().contains("no public address"), "{error}");
        assert!(free.is_ok_and(|mut addrs| addrs.next().is_some()));
    }
}
