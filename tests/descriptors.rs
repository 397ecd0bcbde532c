//! A fixture whose process has run out of file descriptors: its listener cannot accept, and
//! waits a second between tries (as axum::serve does), while the connections it already
//! serves go on being answered, since closing them is what frees descriptors.
//!
//! Alone in its binary: it lowers the limit of descriptors for the whole process.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::time::{Duration, Instant};

use mcp_decoy::MockMcpServer;

#[path = "common/wire.rs"]
mod wire;

use wire::{Wire, authority, initialize, ping};

/// `struct rlimit` of Linux.
#[repr(C)]
struct Limit {
    soft: u64,
    hard: u64,
}

const RLIMIT_NOFILE: i32 = 7;

unsafe extern "C" {
    fn getrlimit(resource: i32, limit: *mut Limit) -> i32;
    fn setrlimit(resource: i32, limit: *const Limit) -> i32;
}

fn descriptor_limit() -> Limit {
    let mut limit = Limit { soft: 0, hard: 0 };
    // SAFETY: getrlimit writes one struct rlimit through a valid pointer.
    assert_eq!(
        unsafe { getrlimit(RLIMIT_NOFILE, &mut limit) },
        0,
        "getrlimit"
    );
    limit
}

fn set_soft_limit(soft: u64, hard: u64) {
    let limit = Limit { soft, hard };
    // SAFETY: setrlimit reads one struct rlimit through a valid pointer.
    assert_eq!(unsafe { setrlimit(RLIMIT_NOFILE, &limit) }, 0, "setrlimit");
}

fn open_descriptors() -> u64 {
    std::fs::read_dir("/proc/self/fd")
        .expect("list /proc/self/fd")
        .count() as u64
}

#[tokio::test]
async fn served_connections_are_answered_while_the_listener_cannot_accept() {
    // Arrange: one kept-alive connection with a session.
    let server = MockMcpServer::builder().start().await;
    let mut wire = Wire::connect(&authority(&server.url())).await;
    let session = initialize(&mut wire).await;

    // Every descriptor left taken, then one given to a connection the server must accept:
    // its `accept` fails with EMFILE, and it waits.
    let saved = descriptor_limit();
    set_soft_limit(open_descriptors() + 16, saved.hard);
    let null = File::open("/dev/null").expect("open /dev/null");
    let mut held = Vec::new();
    while let Ok(copy) = null.try_clone() {
        held.push(copy);
        assert!(held.len() < 64, "the lowered limit was not reached");
    }
    held.pop();
    let waiting =
        std::net::TcpStream::connect(server.address()).expect("connect with the last descriptor");
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Act: ten requests on the connection already served. A server that drove its
    // connections only between its tries to accept would answer about one a second; the
    // bound is only from above what such a server takes.
    let started = Instant::now();
    let statuses: Vec<u16> = {
        let mut statuses = Vec::new();
        for _ in 0..10 {
            statuses.push(ping(&mut wire, &session).await);
        }
        statuses
    };
    let took = started.elapsed();
    drop(held);
    drop(null);
    set_soft_limit(saved.soft, saved.hard);

    // Assert
    assert_eq!(statuses, [200; 10]);
    assert!(
        took < Duration::from_secs(5),
        "ten pings took {took:?} while the listener could not accept"
    );
    // With descriptors back, the waiting connection is accepted: the server still serves.
    drop(waiting);
    let mut fresh = Wire::connect(&authority(&server.url())).await;
    initialize(&mut fresh).await;
}
