//! How a fault breaks a JSON-RPC message's text: the capture shows the same broken text the
//! client reads, so both use these.

use serde_json::Value;

/// The response with the quote of its first key removed (`{jsonrpc":"2.0",...`): unmistakably
/// not JSON, and still readable in a capture.
pub(crate) fn malformed(response: &Value) -> String {
    let text = response.to_string();
    text.replacen('"', "", 1)
}

/// The first half of the response's text.
pub(crate) fn half(response: &Value) -> String {
    let text = response.to_string();
    let mut end = text.len() / 2;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn broken_bodies_are_not_json() {
        let response = json!({ "jsonrpc": "2.0", "id": 7, "result": { "text": "é" } });
        assert!(serde_json::from_str::<Value>(&malformed(&response)).is_err());
        assert!(serde_json::from_str::<Value>(&half(&response)).is_err());
    }
}
