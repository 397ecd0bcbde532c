//! The MCP methods this server answers, parsed once so no handler compares method names as
//! strings.

/// The methods a legacy session can call (besides `initialize`, which opens the session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Ping,
    ToolsList,
    ToolsCall,
    ResourcesList,
    ResourceTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    LoggingSetLevel,
    ServerDiscover,
    /// 2026-07-28 only; the transport answers it with a long-lived stream
    /// (`methods::listen`) before dispatch.
    SubscriptionsListen,
    /// Tasks: `tasks/get` and `tasks/cancel` in both eras, `tasks/result` and `tasks/list`
    /// in 2025-11-25 sessions, `tasks/update` in 2026-07-28.
    TasksGet,
    TasksResult,
    TasksList,
    TasksCancel,
    TasksUpdate,
    /// The skills extension (SEP-2640), in both eras.
    SkillsList,
    SkillsGet,
    /// The skills extension's optional `directoryRead`.
    ResourcesDirectoryRead,
}

impl Method {
    pub(crate) fn parse(method: &str) -> Option<Self> {
        Some(match method {
            "ping" => Method::Ping,
            "tools/list" => Method::ToolsList,
            "tools/call" => Method::ToolsCall,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::ResourceTemplatesList,
            "resources/read" => Method::ResourcesRead,
            "resources/subscribe" => Method::ResourcesSubscribe,
            "resources/unsubscribe" => Method::ResourcesUnsubscribe,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "completion/complete" => Method::CompletionComplete,
            "logging/setLevel" => Method::LoggingSetLevel,
            "server/discover" => Method::ServerDiscover,
            "subscriptions/listen" => Method::SubscriptionsListen,
            "tasks/get" => Method::TasksGet,
            "tasks/result" => Method::TasksResult,
            "tasks/list" => Method::TasksList,
            "tasks/cancel" => Method::TasksCancel,
            "tasks/update" => Method::TasksUpdate,
            "skills/list" => Method::SkillsList,
            "skills/get" => Method::SkillsGet,
            "resources/directory/read" => Method::ResourcesDirectoryRead,
            _ => return None,
        })
    }
}

/// The name of every [`Method`], for hints to a client that asked for another.
pub(crate) const NAMES: &[&str] = &[
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
    "skills/list",
    "skills/get",
    "resources/directory/read",
];

/// `initialize`, which opens a legacy session and so is no method of one.
pub(crate) const INITIALIZE: &str = "initialize";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_to_a_method() {
        for name in NAMES {
            assert!(Method::parse(name).is_some(), "{name}");
        }
    }
}
