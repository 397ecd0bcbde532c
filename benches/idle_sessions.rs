//! What an idle session costs (issue 49): the server's heap, counted exactly by a counting
//! allocator, per session for 2,000 fresh sessions and for 2,000 that first streamed five
//! answers of 100 KiB and were sent 200 `list_changed` while idle, with default limits. What
//! such a session keeps for resumption is charged to the shared budget of retained events
//! (`max_retained_event_bytes`, 64 MiB): the table shows that pool's bytes apart from the
//! session's own cost.
//!
//! `cargo bench --bench idle_sessions`; `IDLE_SESSIONS` changes the count. The client runs in
//! the same process and is dropped before each reading; the log keeps one record, so the
//! capture is not counted.

mod common;

use common::{open_session, post};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use mcp_decoy::spec::{Listing, LogLevel};
use mcp_decoy::{MockMcpServer, Tool};
use serde_json::json;

/// The system allocator, counting the bytes it holds.
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn held() -> isize {
    HELD.load(Ordering::Relaxed)
}

/// Opens `count` sessions; each makes `calls` streamed calls of `size` bytes first.
async fn sessions(url: &str, count: usize, calls: usize, size: usize) {
    let http = reqwest::Client::new();
    let text = "x".repeat(size);
    for _ in 0..count {
        let session = open_session(&http, url).await;
        for id in 1..=calls {
            let reply = post(&http, url, Some(&session), &json!({ "jsonrpc": "2.0", "id": id,
                "method": "tools/call", "params": { "name": "shout", "arguments": { "message": text } } })).await;
            let body = reply.bytes().await.expect("the answer");
            assert!(body.len() > size, "the echo came back");
        }
    }
}

fn shout() -> Tool {
    Tool::new("shout")
        .log(LogLevel::Info, "shouting")
        .respond_with(json!({ "content": [{ "type": "text", "text": "${args.message}" }] }))
}

/// One row: the server's heap per session after `calls` calls and `notes` list_changed.
async fn row(label: &str, count: usize, calls: usize, notes: usize) {
    let server = MockMcpServer::builder()
        .tool(shout())
        .log_limit(1)
        .start()
        .await;
    let url = server.url();
    // A first session pays the server's lazy initialisation; it is not counted.
    sessions(&url, 1, calls, 100 * 1024).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let before = held();
    let events_before = server.memory().retained_events.used_bytes as isize;
    sessions(&url, count, calls, 100 * 1024).await;
    for _ in 0..notes {
        server.notify_list_changed(Listing::Tools);
    }
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let after = held();
    let memory = server.memory();
    let events = memory.retained_events.used_bytes as isize - events_before;
    let per = (after - before) / count as isize;
    let own = (after - before - events) / count as isize;
    println!(
        "| {label} | {count} | {} | {} KiB | {} KiB | {} B | {} B | {} |",
        memory.sessions.live,
        (after - before) / 1024,
        events / 1024,
        per,
        own,
        memory.retained_events.evicted,
    );
    drop(server);
}

fn main() {
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_some_and(|f| !"idle_sessions".contains(f.as_str())) {
        return;
    }
    let count: usize = std::env::var("IDLE_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    println!(
        "| sessions | count | live | server heap added | retained events | per session | own per session | events evicted |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    rt.block_on(async {
        row("fresh", count, 0, 0).await;
        row(
            "after 5 streamed 100 KiB calls and 200 list_changed",
            count,
            5,
            200,
        )
        .await;
    });
}
