//! A server that replays a cassette answers every request from it: the handshakes with the
//! recorded server's identity and capabilities, `ping` by itself, and each other request
//! with its recorded interaction's messages (progress under the live request's token, its
//! requests to the client, awaited) and response. A request that matches none gets an
//! error that says which interaction was nearest and how it differs.

use std::time::Duration;

use serde_json::{Map, Value};

use super::{RequestCtx, discover};
use crate::cassette::{MessageKind, Played, Player, RecordedResponse};
use crate::engine::protocol::jsonrpc::{RpcError, code};

/// How long a replayed request to the client waits for its answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(30);

/// The `initialize` result's capabilities and instructions as recorded (the negotiated
/// version and the recorded `serverInfo` are already set).
pub(crate) fn handshake(player: &Player, result: &mut Map<String, Value>) {
    let server = &player.cassette().server;
    let Some(recorded) = server.initialize.as_ref().or(server.discover.as_ref()) else {
        return;
    };
    for member in ["capabilities", "instructions"] {
        match recorded.get(member) {
            Some(value) => result.insert(member.into(), value.clone()),
            None => result.shift_remove(member),
        };
    }
}

/// Answers one request from the cassette.
pub(crate) async fn answer(
    ctx: &RequestCtx,
    player: &Player,
    method: &str,
) -> Result<Value, RpcError> {
    match method {
        "ping" => return Ok(Value::Object(Map::new())),
        "server/discover" if ctx.session.version.is_modern() => return Ok(discovered(ctx, player)),
        _ => {}
    }
    let Played { messages, response } = match player.answer(method, &ctx.params) {
        Ok(played) => played,
        Err(miss) => {
            return Err(RpcError::new(code::INTERNAL_ERROR, miss.message()).with_data(miss.data()));
        }
    };
    for message in messages {
        let mut params = message.params.unwrap_or(Value::Null);
        match message.kind {
            MessageKind::Notification if message.method == "notifications/progress" => {
                // Progress goes only to a request that asked for it, under its own token.
                let Some(token) = ctx.progress_token() else {
                    continue;
                };
                if let Some(object) = params.as_object_mut() {
                    object.insert("progressToken".into(), token.clone());
                }
                ctx.outbox.notify(&message.method, params);
            }
            MessageKind::Notification => ctx.outbox.notify(&message.method, params),
            MessageKind::Request => {
                if let Err(reason) = ctx.outbox.ask(&message.method, params, ASK_TIMEOUT).await {
                    return Err(RpcError::new(
                        code::INTERNAL_ERROR,
                        format!(
                            "mcp-decoy replay: the recorded {} request failed: {reason}",
                            message.method
                        ),
                    ));
                }
            }
        }
    }
    match response {
        RecordedResponse::Result(result) => Ok(result),
        RecordedResponse::Error(error) => Err(RpcError::from_value(&error)),
    }
}

/// `server/discover` as recorded, or made from the recorded `initialize`.
fn discovered(ctx: &RequestCtx, player: &Player) -> Value {
    let server = &player.cassette().server;
    if let Some(result) = &server.discover {
        return result.clone();
    }
    let mut result = discover::discover(&ctx.engine);
    if let Some(recorded) = &server.initialize {
        for member in ["capabilities", "instructions"] {
            if let Some(value) = recorded.get(member) {
                result[member] = value.clone();
            }
        }
    }
    result
}
