//! The tasks extension's messages for the schema checks of `schema.rs`: the 2026-07-28 schema
//! leaves them to the extension, so `tasks.schema.json` defines them and they join the core
//! definitions here.

use serde_json::{Value, json};

/// The extension's definitions (`tests/common/tasks.schema.json`).
const TASKS_EXTENSION: &str = include_str!("tasks.schema.json");

/// `root` (the 2026-07-28 schema) with the extension's definitions, whose `$ref`s point at
/// both, and its notification among the server's notifications.
pub fn with_extension(mut root: Value) -> Value {
    let extension: Value =
        serde_json::from_str(TASKS_EXTENSION).expect("tests/common/tasks.schema.json is not JSON");
    if let (Some(defs), Some(added)) = (
        root["$defs"].as_object_mut(),
        extension["$defs"].as_object(),
    ) {
        for (name, definition) in added {
            assert!(
                !defs.contains_key(name),
                "tasks.schema.json redefines the core {name}"
            );
            defs.insert(name.clone(), definition.clone());
        }
    }
    if let Some(members) = root["$defs"]["ServerNotification"]["anyOf"].as_array_mut() {
        members.push(json!({ "$ref": "#/$defs/TaskStatusNotification" }));
    }
    root
}
