//! What a server declares of itself: its `capabilities` and its `serverInfo`. Typed, so the
//! `initialize` answer writes them straight to JSON text; the other places that want them
//! as values (`server/discover`, modern results, the manifest) convert them.

use serde::Serialize;
use serde_json::Value;

use super::Engine;
use crate::spec::ProtocolVersion;

/// `{}`: a capability with no options.
#[derive(Debug, Serialize)]
pub(crate) struct Empty {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListChanged {
    list_changed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Subscribable {
    subscribe: bool,
    list_changed: bool,
}

/// 2025-11-25 `tasks`: listing, cancelling and task-augmented `tools/call`.
#[derive(Debug, Serialize)]
pub(crate) struct Tasks {
    list: Empty,
    cancel: Empty,
    requests: TaskRequests,
}

#[derive(Debug, Serialize)]
pub(crate) struct TaskRequests {
    tools: TaskTools,
}

#[derive(Debug, Serialize)]
pub(crate) struct TaskTools {
    call: Empty,
}

/// `capabilities`, members in the order they have always been written.
#[derive(Debug, Serialize)]
pub(crate) struct Capabilities {
    tools: ListChanged,
    logging: Empty,
    completions: Empty,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Subscribable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<ListChanged>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tasks: Option<Tasks>,
}

/// `serverInfo` (spec `Implementation`): the configured one, or the one a replayed cassette
/// recorded.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum ServerInfo<'a> {
    Configured {
        name: &'a str,
        version: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<&'a str>,
    },
    Recorded(&'a Value),
}

impl Engine {
    /// `capabilities`: what the configuration serves. Resources and prompts are declared
    /// when the server has some (server/index: capabilities must match what is served);
    /// logging and completions always are. A 2025-11-25 `initialize` (`legacy`) also
    /// declares `tasks` when a tool can run as a task (2025-11-25 `basic/utilities/tasks`,
    /// "Server Capabilities").
    pub(crate) fn declared(&self, legacy: Option<ProtocolVersion>) -> Capabilities {
        let listed = || ListChanged { list_changed: true };
        Capabilities {
            tools: listed(),
            logging: Empty {},
            completions: Empty {},
            resources: self.serves_resources().then_some(Subscribable {
                subscribe: true,
                list_changed: true,
            }),
            prompts: self.serves_prompts().then(listed),
            tasks: (self.serves_tasks() && legacy == Some(ProtocolVersion::V2025_11_25)).then_some(
                Tasks {
                    list: Empty {},
                    cancel: Empty {},
                    requests: TaskRequests {
                        tools: TaskTools { call: Empty {} },
                    },
                },
            ),
        }
    }

    /// [`declared`](Self::declared) for a modern request or the manifest, as a value.
    pub(crate) fn capabilities(&self) -> Value {
        to_value(&self.declared(None))
    }

    /// `serverInfo`.
    pub(crate) fn identity(&self) -> ServerInfo<'_> {
        if let Some(info) = self.replay().and_then(|p| p.cassette().server_info()) {
            return ServerInfo::Recorded(info);
        }
        ServerInfo::Configured {
            name: &self.spec.name,
            version: &self.spec.version,
            title: self.spec.title.as_deref(),
        }
    }

    /// [`identity`](Self::identity) as a value.
    pub(crate) fn server_info(&self) -> Value {
        to_value(&self.identity())
    }
}

/// These types hold only strings, booleans and maps with string keys, which always convert.
fn to_value(declared: &impl Serialize) -> Value {
    serde_json::to_value(declared).unwrap_or_default()
}
