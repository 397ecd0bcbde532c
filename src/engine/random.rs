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

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        assert_ne!(super::bytes::<16>(), super::bytes::<16>());
    }
}
