//! Unpredictable bytes for secrets (session ids, tokens, keys), from the operating system.

/// `N` bytes from the operating system's generator.
///
/// # Panics
/// When the operating system has no generator to give (no `getrandom(2)`, no `/dev/urandom`):
/// a server that cannot make a secret must not make a guessable one instead.
pub(crate) fn bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    fill(&mut bytes);
    bytes
}

/// Fills `buffer` from the operating system's generator; panics as [`bytes`] does.
pub(crate) fn fill(buffer: &mut [u8]) {
    if let Err(error) = getrandom::fill(buffer) {
        panic!("the operating system's random number generator failed: {error}");
    }
}

/// 128 random bits as lowercase hex: session, task and bridge ids.
pub(crate) fn hex_id() -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Written by hand: `format!` per byte cost a session more than the rest of making it.
    let mut id = String::with_capacity(32);
    for byte in bytes::<16>() {
        id.push(char::from(DIGITS[usize::from(byte >> 4)]));
        id.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    id
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        assert_ne!(super::bytes::<16>(), super::bytes::<16>());
    }

    #[test]
    fn an_id_is_32_lowercase_hex_digits() {
        let id = super::hex_id();
        assert_eq!(id.len(), 32, "{id}");
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{id}"
        );
        assert_ne!(id, super::hex_id());
    }
}
