//! Protocol revision negotiation for legacy sessions (lifecycle page, "Version negotiation")
//! and the `MCP-Protocol-Version` header check (transports page, "Protocol Version Header").

use crate::spec::ProtocolVersion;

/// The client's revision if served, else the newest served (lifecycle: the server "MUST
/// respond with another protocol version it supports", which "SHOULD be the latest"). Only
/// legacy revisions have `initialize`; `None` when the server serves none of them.
pub(crate) fn negotiate(
    requested: &str,
    served_newest_first: &[ProtocolVersion],
) -> Option<ProtocolVersion> {
    let legacy = || {
        served_newest_first
            .iter()
            .copied()
            .filter(|v| !v.is_modern())
    };
    legacy()
        .find(|v| v.as_str() == requested)
        .or_else(|| legacy().next())
}

/// Checks the `MCP-Protocol-Version` header of a request in a session: absent is accepted
/// (the session names the revision), unsupported or different from the negotiated one is
/// not. The message says what was sent and what was expected.
pub(crate) fn check_header(
    header: Option<&str>,
    session: ProtocolVersion,
    served: &[ProtocolVersion],
) -> Result<(), String> {
    let Some(sent) = header else { return Ok(()) };
    let sent = sent.trim();
    match ProtocolVersion::parse(sent) {
        Some(v) if served.contains(&v) => {
            if v == session {
                Ok(())
            } else {
                Err(format!(
                    "MCP-Protocol-Version header `{sent}` does not match the version negotiated for this session, `{session}`"
                ))
            }
        }
        // The list is written only for the error: every request in a session passes here.
        _ => Err(format!(
            "unsupported MCP-Protocol-Version header `{sent}`: this server supports {}",
            versions_list(served)
        )),
    }
}

/// `2025-11-25, 2025-06-18`: the served revisions, as error messages name them.
pub(crate) fn versions_list(versions: &[ProtocolVersion]) -> String {
    versions
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn negotiation_keeps_a_served_version_and_falls_back_to_the_newest() {
        let all = [V2025_11_25, V2025_06_18, V2025_03_26];
        assert_eq!(negotiate("2025-06-18", &all), Some(V2025_06_18));
        assert_eq!(negotiate("2024-11-05", &all), Some(V2025_11_25));
        assert_eq!(negotiate("2025-11-25", &[V2025_03_26]), Some(V2025_03_26));
        assert_eq!(
            negotiate("2026-07-28", &[V2026_07_28, V2025_06_18]),
            Some(V2025_06_18)
        );
        assert_eq!(negotiate("2025-11-25", &[V2026_07_28]), None);
    }

    #[test]
    fn header_must_be_served_and_match_the_session() {
        let all = [V2025_11_25, V2025_06_18];
        assert!(check_header(None, V2025_06_18, &all).is_ok());
        assert!(check_header(Some("2025-06-18"), V2025_06_18, &all).is_ok());
        assert!(
            check_header(Some("1999-01-01"), V2025_06_18, &all)
                .unwrap_err()
                .contains("supports 2025-11-25, 2025-06-18")
        );
        assert!(
            check_header(Some("2025-11-25"), V2025_06_18, &all)
                .unwrap_err()
                .contains("does not match")
        );
        assert!(
            check_header(Some("2025-03-26"), V2025_06_18, &all)
                .unwrap_err()
                .contains("unsupported")
        );
    }
}
