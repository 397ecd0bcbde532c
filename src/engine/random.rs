//! Unpredictable bytes for secrets (session ids, tokens, keys), from the operating system.
//!
//! A small secret (a session id, a key) is cut from a buffer of the operating system's bytes
//! that each thread draws 512 at a time: each byte is handed out once, and a fixture's life
//! (a start's key, a session's id) costs no system call per secret. A process that
//! forks while this is in use is not served: the child's fixture runtimes did not survive
//! the fork either.

use std::cell::RefCell;

/// Secrets up to this size are cut from the thread's buffer; larger ones are drawn alone.
const POOLED: usize = 64;

/// The operating system's bytes a thread holds, and how many it has handed out.
struct Pool {
    bytes: [u8; 512],
    used: usize,
}

thread_local! {
    static POOL: RefCell<Pool> = const { RefCell::new(Pool { bytes: [0; 512], used: 512 }) };
}

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
    if buffer.len() > POOLED {
        return draw(buffer);
    }
    POOL.with_borrow_mut(|pool| {
        if pool.used + buffer.len() > pool.bytes.len() {
            draw(&mut pool.bytes);
            pool.used = 0;
        }
        let next = pool.used + buffer.len();
        let taken = &mut pool.bytes[pool.used..next];
        buffer.copy_from_slice(taken);
        // Handed out once: the copy left behind is wiped.
        taken.fill(0);
        pool.used = next;
    });
}

fn draw(buffer: &mut [u8]) {
    if let Err(error) = getrandom::fill(buffer) {
        panic!("the operating system's random number generator failed: {error}");
    }
}

/// 128 random bits as lowercase hex: session, task and bridge ids.
pub(crate) fn hex_id() -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // Written by hand into an array: `format!` per byte cost a session more than the rest of
    // making it, and a `String::push` per digit encodes a `char` each time (3 K instructions
    // an id in a debug build).
    // A plain index loop: a debug build's `enumerate` alone cost 1.8 K.
    let drawn = bytes::<16>();
    let mut id = [0u8; 32];
    let mut at = 0;
    while at < drawn.len() {
        id[2 * at] = DIGITS[usize::from(drawn[at] >> 4)];
        id[2 * at + 1] = DIGITS[usize::from(drawn[at] & 0xf)];
        at += 1;
    }
    // Always ASCII: every byte is one of `DIGITS`.
    String::from_utf8_lossy(&id).into_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        assert_ne!(super::bytes::<16>(), super::bytes::<16>());
    }

    #[test]
    fn draws_across_refills_never_repeat_and_large_ones_are_filled() {
        // 100 draws of 16 bytes take the thread's buffer through three refills.
        let drawn: std::collections::HashSet<[u8; 16]> =
            (0..100).map(|_| super::bytes::<16>()).collect();
        assert_eq!(drawn.len(), 100);
        assert!(!drawn.contains(&[0; 16]));
        let large = super::bytes::<200>();
        assert!(large.iter().any(|&b| b != 0));
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
