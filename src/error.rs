//! The crate's one error type.

use std::path::PathBuf;

/// The kinds of item a server's catalog holds, for naming them in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ItemKind {
    /// A tool.
    Tool,
    /// A static resource.
    Resource,
    /// A resource template.
    ResourceTemplate,
    /// A prompt.
    Prompt,
}

impl std::fmt::Display for ItemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ItemKind::Tool => "tool",
            ItemKind::Resource => "resource",
            ItemKind::ResourceTemplate => "resource template",
            ItemKind::Prompt => "prompt",
        })
    }
}

/// Everything that can go wrong while building or driving a decoy server.
///
/// Each variant names the item at fault (the tool, the field, the address) so that a failing
/// test explains itself. `MockMcpServerBuilder::start` panics with this message;
/// `try_start` hands it back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool name is empty, too long, or has a character outside `A-Z a-z 0-9 _ - .`.
    #[error(
        "tool `{name}`: invalid name ({reason}); a tool name has 1-128 letters, digits, `_`, `-` or `.`"
    )]
    InvalidToolName {
        /// The rejected name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools, prompts, resources or resource templates of one server share a name (a URI
    /// for resources, a URI template for templates).
    #[error("{kind} `{name}`: a {kind} with this name already exists on the server")]
    Duplicate {
        /// What kind of item.
        kind: ItemKind,
        /// The name used twice.
        name: String,
    },
    /// A live edit named an item the server does not have.
    #[error("{kind} `{name}`: no such {kind} on the server")]
    Unknown {
        /// What kind of item.
        kind: ItemKind,
        /// The name that matched nothing.
        name: String,
    },
    /// A resource, resource template or prompt is invalid.
    #[error("{kind} `{name}`: `{field}` {reason}")]
    Invalid {
        /// What kind of item.
        kind: ItemKind,
        /// Its name, URI or URI template.
        name: String,
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's input or output schema is not a valid JSON Schema object schema.
    #[error("tool `{tool}`: `{field}` is not a valid JSON Schema: {reason}")]
    InvalidSchema {
        /// The tool the schema belongs to.
        tool: String,
        /// `inputSchema` or `outputSchema`.
        field: &'static str,
        /// What the validator reported.
        reason: String,
    },
    /// A response template has an error that no arguments can fix: syntax, an unknown
    /// operator or name, or a limit (nesting, steps, size) it exceeds with any arguments.
    #[error("tool `{tool}`: the response template is refused: {reason}")]
    Template {
        /// The tool the template belongs to.
        tool: String,
        /// What json-e reported.
        reason: String,
    },
    /// One of a tool's responses is invalid (a matcher, a count, a delay, a template).
    #[error("tool `{tool}`: `{field}` {reason}")]
    InvalidResponse {
        /// The tool the response belongs to.
        tool: String,
        /// The field at fault as `servers.json` spells it, e.g.
        /// `responses[1].when.regex.pattern`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A fault rule is invalid (at start, or added live).
    #[error("`{field}` {reason}")]
    InvalidFault {
        /// The field at fault as `servers.json` spells it, e.g. `faults[0].fault.status`
        /// (`rule.…` for a rule added live).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A configuration value is out of range.
    #[error("`{field}`: {reason}")]
    InvalidConfig {
        /// The builder method or config field at fault.
        field: &'static str,
        /// Why the value was rejected.
        reason: String,
    },
    /// The listener could not be bound.
    #[error("failed to bind {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The server's thread or runtime could not be started.
    #[error("failed to start the server runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// `MockMcpServer::wait_for` gave up.
    #[error("waited {waited:?} for the expected traffic; the server received:\n{received}")]
    Timeout {
        /// How long it waited.
        waited: std::time::Duration,
        /// One line per JSON-RPC message captured by then.
        received: String,
    },
    /// A stdio command needs the `mcp-decoy` binary, and it is not there.
    #[error(
        "the mcp-decoy binary was not found: {reason}. Install it with `{install}`, or set MCP_DECOY_BIN to its path"
    )]
    BinaryNotFound {
        /// Where it was looked for.
        reason: String,
        /// The command that installs it.
        install: &'static str,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file at fault.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// How an error message names the JSON type of a value it did not expect ("a string").
pub(crate) fn json_type(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
