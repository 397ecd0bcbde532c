//! `sse-retry`: the client waits the `retry` the server sent before it reconnects, and resumes
//! with `Last-Event-ID` (SEP-1699; the suite's `src/scenarios/client/sse-retry.ts`).

use chrono::{DateTime, Utc};
use serde_json::json;

use super::first_request;
use crate::grade::check::{Check, CheckStatus, SpecReference};
use crate::log::{Entry, HttpKind, Log};
use crate::{Fault, FaultRule, MockMcpServer, MockMcpServerBuilder, Tool};

const TOOL: &str = "test_reconnection";
/// The `retry` the priming event carries, in milliseconds.
const RETRY_MS: u64 = 500;
/// The suite's tolerances: 50 ms early for the scheduler, 200 ms late for the network, and
/// past twice the retry the client is taken to ignore it.
const EARLY_MS: f64 = 50.0;
const LATE_MS: f64 = 200.0;
const VERY_LATE_FACTOR: f64 = 2.0;

fn sep_1699() -> SpecReference {
    SpecReference::new(
        "SEP-1699",
        "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1699",
    )
}

pub(super) fn server() -> MockMcpServerBuilder {
    MockMcpServer::builder()
        .name("sse-retry-test-server")
        .version("1.0.0")
        .tool(
            Tool::new(TOOL)
                .description(
                    "A tool that triggers SSE stream closure to test client reconnection behavior",
                )
                .input_schema(json!({ "type": "object", "properties": {}, "required": [] }))
                .respond_with(json!({ "content": [
                    { "type": "text", "text": "Reconnection test completed successfully" }
                ] })),
        )
        // The call's stream closes after its priming event; the result waits for the GET.
        .fault(FaultRule::on_tool(TOOL).fault(Fault::sse_polling(RETRY_MS)))
}

pub(super) fn checks(log: &Log, _version: crate::ProtocolVersion) -> Vec<Check> {
    let gets: Vec<(DateTime<Utc>, Option<&str>)> = log
        .records()
        .iter()
        .filter_map(|record| match &record.entry {
            Entry::Http(h) if h.kind == HttpKind::Exchange && h.method == "GET" => {
                Some((record.at, h.request_header("last-event-id")))
            }
            _ => None,
        })
        .collect();
    let count = gets.len();
    let reconnect = |status: CheckStatus| {
        Check::new(
            "client-sse-graceful-reconnect",
            "ClientGracefulReconnect",
            "Client reconnects via GET after SSE stream is closed gracefully",
            status,
            sep_1699(),
        )
    };
    let closed_at = stream_closed_at(log);
    if count == 0 {
        let why = if first_request(log, "tools/call").is_none() {
            "Client did not call the tool test_reconnection, so no stream was closed to reconnect to."
        } else {
            "Client did not attempt GET reconnection after stream closure. Client should treat \
             graceful stream close as reconnectable."
        };
        return vec![
            reconnect(CheckStatus::Failure)
                .details(json!({
                    "getConnectionCount": 0,
                    "toolStreamClosed": closed_at.is_some(),
                    "retryValue": RETRY_MS,
                }))
                .error(why),
        ];
    }
    let mut checks =
        vec![reconnect(CheckStatus::Success).details(json!({ "getConnectionCount": count }))];
    // The suite times the last GET against the close of the call's stream.
    let reconnected_at = gets.last().map(|(at, _)| *at);
    checks.push(match (closed_at, reconnected_at) {
        (Some(closed), Some(reconnected)) => timing((reconnected - closed).as_seconds_f64() * 1e3, count),
        _ => Check::new(
            "client-sse-retry-timing",
            "ClientRespectsRetryField",
            "Client MUST respect the retry field timing",
            CheckStatus::Warning,
            sep_1699(),
        )
        .details(json!({ "toolStreamClosed": closed_at.is_some(), "getConnectionCount": count }))
        .error(
            "Could not measure timing - tool stream close time or GET reconnection time not recorded",
        ),
    });
    let last_event_ids: Vec<&str> = gets.iter().filter_map(|(_, id)| *id).collect();
    let resumed = !last_event_ids.is_empty();
    let check = Check::new(
        "client-sse-last-event-id",
        "ClientSendsLastEventId",
        "Client SHOULD send Last-Event-ID header on reconnection for resumability",
        if resumed {
            CheckStatus::Success
        } else {
            CheckStatus::Warning
        },
        sep_1699(),
    )
    .details(json!({
        "hasLastEventId": resumed,
        "lastEventIds": last_event_ids,
        "getConnectionCount": count,
    }));
    checks.push(if resumed {
        check
    } else {
        check.error(
            "Client did not send Last-Event-ID header on reconnection. This is a SHOULD \
             requirement for resumability.",
        )
    });
    checks
}

/// When the event stream that answered the tool's call ended.
fn stream_closed_at(log: &Log) -> Option<DateTime<Utc>> {
    let carrier = log
        .mcp()
        .from_client()
        .method("tools/call")
        .name(TOOL)
        .first()?
        .carried_by?;
    log.records().iter().find_map(|record| match &record.entry {
        Entry::Http(h) if h.kind == HttpKind::StreamEnd && h.stream_of == Some(carrier) => {
            Some(record.at)
        }
        _ => None,
    })
}

fn timing(delay_ms: f64, count: usize) -> Check {
    let retry = RETRY_MS as f64;
    let (min, max, very_late) = (retry - EARLY_MS, retry + LATE_MS, retry * VERY_LATE_FACTOR);
    let too_early = delay_ms < min;
    let slightly_late = delay_ms > max;
    let is_very_late = delay_ms > very_late;
    let (status, message) = if too_early {
        (
            CheckStatus::Failure,
            Some(format!(
                "Client reconnected too early ({delay_ms:.0}ms instead of {RETRY_MS}ms). Client \
                 MUST respect the retry field and wait the specified time."
            )),
        )
    } else if is_very_late {
        (
            CheckStatus::Failure,
            Some(format!(
                "Client reconnected very late ({delay_ms:.0}ms instead of {RETRY_MS}ms). Client \
                 appears to be ignoring the retry field and using its own backoff strategy."
            )),
        )
    } else if slightly_late {
        (
            CheckStatus::Warning,
            Some(format!(
                "Client reconnected slightly late ({delay_ms:.0}ms instead of {RETRY_MS}ms). \
                 This is acceptable but may indicate network delays."
            )),
        )
    } else {
        (CheckStatus::Success, None)
    };
    let check = Check::new(
        "client-sse-retry-timing",
        "ClientRespectsRetryField",
        "Client MUST respect the retry field, waiting the given number of milliseconds before \
         attempting to reconnect",
        status,
        sep_1699(),
    )
    .details(json!({
        "expectedRetryMs": RETRY_MS,
        "actualDelayMs": delay_ms.round(),
        "minAcceptableMs": min,
        "maxAcceptableMs": max,
        "veryLateThresholdMs": very_late,
        "earlyToleranceMs": EARLY_MS,
        "lateToleranceMs": LATE_MS,
        "withinTolerance": !too_early && !slightly_late,
        "tooEarly": too_early,
        "slightlyLate": slightly_late,
        "veryLate": is_very_late,
        "getConnectionCount": count,
    }));
    match message {
        Some(message) => check.error(message),
        None => check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_s_tolerances_decide_the_timing_status() {
        let status = |ms| timing(ms, 1).status;
        assert_eq!(status(449.0), CheckStatus::Failure);
        assert_eq!(status(450.0), CheckStatus::Success);
        assert_eq!(status(700.0), CheckStatus::Success);
        assert_eq!(status(701.0), CheckStatus::Warning);
        assert_eq!(status(1001.0), CheckStatus::Failure);
    }
}
