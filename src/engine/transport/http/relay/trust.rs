//! The certificates a relay trusts besides the system's roots (`upstream_ca_file`): a
//! private CA or a self-signed certificate of a development upstream. They are added to the
//! system's roots, not put in their place, so the upstream's OAuth legs to public
//! authorization servers still verify.

use crate::error::Error;
use crate::file::Refused;

/// The largest CA file read: system bundles are a few hundred KiB.
const MAX_CA_FILE_BYTES: u64 = 4 * 1024 * 1024;

const FIELD: &str = "upstream_ca_file";

/// The certificates of the PEM file at `path`: at least one, or an error naming the field.
pub(crate) fn certificates(path: &str) -> Result<Vec<reqwest::Certificate>, Error> {
    let invalid = |reason: String| Error::InvalidConfig {
        field: FIELD,
        reason: format!("`{path}` {reason}"),
    };
    let pem = crate::file::read_regular(std::path::Path::new(path), MAX_CA_FILE_BYTES).map_err(
        |refused| match refused {
            Refused::Io(error) => invalid(format!("cannot be read: {error}")),
            other => invalid(format!(
                "{other}; a CA file is a PEM file of a few certificates"
            )),
        },
    )?;
    let certificates = reqwest::Certificate::from_pem_bundle(&pem)
        .map_err(|error| invalid(format!("is no PEM certificate file: {error}")))?;
    if certificates.is_empty() {
        return Err(invalid(
            "holds no certificate: it needs one or more `-----BEGIN CERTIFICATE-----` blocks"
                .into(),
        ));
    }
    Ok(certificates)
}

/// The client's build error, blamed on the CA file when one was given: the only setting of
/// the client that comes from outside and is checked while it is built (each certificate
/// must parse as a trust anchor).
pub(crate) fn build_error(ca_file: Option<&str>, error: &reqwest::Error) -> Error {
    match ca_file {
        Some(path) => Error::InvalidConfig {
            field: FIELD,
            reason: format!("`{path}` holds a certificate the relay cannot trust: {error}"),
        },
        None => Error::InvalidConfig {
            field: "upstream",
            reason: format!("the HTTP client cannot be built: {error}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> String {
        let path =
            std::env::temp_dir().join(format!("mcp-decoy-trust-{name}-{}.pem", std::process::id()));
        std::fs::write(&path, text).expect("a temp file");
        path.to_string_lossy().into_owned()
    }

    fn reason(result: Result<Vec<reqwest::Certificate>, Error>) -> String {
        match result {
            Err(Error::InvalidConfig { field, reason }) => {
                assert_eq!(field, FIELD);
                reason
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_file_without_certificates_is_refused_naming_why() {
        let missing = std::env::temp_dir().join("mcp-decoy-trust-none.pem");
        let missing = missing.to_string_lossy().into_owned();
        assert!(reason(certificates(&missing)).contains("cannot be read"));
        // A device would be read forever, a FIFO would block on open: neither is read.
        assert!(reason(certificates("/dev/zero")).contains("not a regular file"));
        let key_only = file(
            "key",
            "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
        );
        assert!(reason(certificates(&key_only)).contains("holds no certificate"));
        let text = file("text", "not a certificate\n");
        assert!(reason(certificates(&text)).contains("holds no certificate"));
        let broken = file(
            "broken",
            "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
        );
        assert!(reason(certificates(&broken)).contains("is no PEM certificate file"));
        for path in [key_only, text, broken] {
            let _ = std::fs::remove_file(path);
        }
    }
}
