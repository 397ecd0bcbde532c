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
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A tool name is empty, too long, or has a character outside `A-Z a-z 0-9 _ - .`.
    InvalidToolName {
        /// The rejected name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tools, prompts, resources or resource templates of one server share a name (a URI
    /// for resources, a URI template for templates).
    Duplicate {
        /// What kind of item.
        kind: ItemKind,
        /// The name used twice.
        name: String,
    },
    /// A live edit named an item the server does not have.
    Unknown {
        /// What kind of item.
        kind: ItemKind,
        /// The name that matched nothing.
        name: String,
    },
    /// A resource, resource template or prompt is invalid.
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
    Template {
        /// The tool the template belongs to.
        tool: String,
        /// What json-e reported.
        reason: String,
    },
    /// One of a tool's responses is invalid (a matcher, a count, a delay, a template).
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
    InvalidFault {
        /// The field at fault as `servers.json` spells it, e.g. `faults[0].fault.status`
        /// (`rule.…` for a rule added live).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A skill (`skills` of a server spec) is invalid.
    InvalidSkill {
        /// The field at fault as `servers.json` spells it, e.g. `skills[0].files[1].path`.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A configuration value is out of range.
    InvalidConfig {
        /// The builder method or config field at fault.
        field: &'static str,
        /// Why the value was rejected.
        reason: String,
    },
    /// The listener could not be bound.
    Bind {
        /// The address asked for.
        addr: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The server's thread or runtime could not be started.
    Runtime(std::io::Error),
    /// `MockMcpServer::wait_for` gave up.
    Timeout {
        /// How long it waited.
        waited: std::time::Duration,
        /// One line per JSON-RPC message captured by then.
        received: String,
    },
    /// `stdio_command` has no program to run: the bridge this build compiled is missing
    /// (the build script said why), or `MCP_DECOY_BIN` names no file.
    BinaryNotFound {
        /// What is missing, and where it was looked for.
        reason: String,
        /// What to do about it.
        install: &'static str,
    },
    /// A cassette (a file, or one inline in `servers.json`) is invalid.
    Cassette {
        /// The file, when it came from one.
        path: Option<PathBuf>,
        /// The field at fault, as a path into the cassette (`interactions[2].request.method`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A file could not be read or written.
    Io {
        /// The file at fault.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

// Written out rather than derived: thiserror's proc macro was the largest part of a
// dependent's first build that this one impl needed (benches/README.md, "First build").
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::InvalidToolName { name, reason } => write!(
                f,
                "tool `{name}`: invalid name ({reason}); a tool name has 1-128 letters, digits, `_`, `-` or `.`"
            ),
            Error::Duplicate { kind, name } => write!(
                f,
                "{kind} `{name}`: a {kind} with this name already exists on the server"
            ),
            Error::Unknown { kind, name } => {
                write!(f, "{kind} `{name}`: no such {kind} on the server")
            }
            Error::Invalid {
                kind,
                name,
                field,
                reason,
            } => write!(f, "{kind} `{name}`: `{field}` {reason}"),
            Error::InvalidSchema {
                tool,
                field,
                reason,
            } => write!(
                f,
                "tool `{tool}`: `{field}` is not a valid JSON Schema: {reason}"
            ),
            Error::Template { tool, reason } => {
                write!(
                    f,
                    "tool `{tool}`: the response template is refused: {reason}"
                )
            }
            Error::InvalidResponse {
                tool,
                field,
                reason,
            } => write!(f, "tool `{tool}`: `{field}` {reason}"),
            Error::InvalidFault { field, reason } | Error::InvalidSkill { field, reason } => {
                write!(f, "`{field}` {reason}")
            }
            Error::InvalidConfig { field, reason } => write!(f, "`{field}`: {reason}"),
            Error::Bind { addr, source } => write!(f, "failed to bind {addr}: {source}"),
            Error::Runtime(source) => write!(f, "failed to start the server runtime: {source}"),
            Error::Timeout { waited, received } => write!(
                f,
                "waited {waited:?} for the expected traffic; the server received:\n{received}"
            ),
            Error::BinaryNotFound { reason, install } => {
                write!(f, "no program for stdio_command: {reason}; {install}")
            }
            Error::Cassette {
                path,
                field,
                reason,
            } => {
                let file = path
                    .as_ref()
                    .map(|p| format!(" {}", p.display()))
                    .unwrap_or_default();
                write!(f, "cassette{file}: `{field}`: {reason}")
            }
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Bind { source, .. } | Error::Runtime(source) | Error::Io { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
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
