//! `servers.json`: load it (creating it with the default `echo` server when missing), check it
//! against its JSON Schema and the engine's rules with every problem listed, and save it
//! atomically (temp file, fsync, rename, fsync of the directory) so a crash never leaves a
//! torn file.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{
    Validator, check_faults, check_items, check_skills, compile_schema, guard_problems,
};
use crate::error::Error;
use crate::spec::ServerSpec;

/// The file name in the config directory.
pub const SERVERS_FILE: &str = "servers.json";

/// The contents of `servers.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigFile {
    /// The JSON Schema of this file, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The hosted servers, each at `/s/NAME/mcp`.
    pub servers: Vec<ServerSpec>,
}

impl Default for ConfigFile {
    fn default() -> Self {
        ConfigFile {
            schema: None,
            servers: vec![ServerSpec::echo()],
        }
    }
}

/// The JSON Schema of `servers.json`, generated from the serde types (shipped as
/// `schema/servers.schema.json`; a test keeps the two equal).
pub fn json_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(ConfigFile)).unwrap_or(Value::Null)
}

static VALIDATOR: LazyLock<Option<Validator>> =
    LazyLock::new(|| compile_schema(&json_schema()).ok());

/// A problem in the file: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// JSON pointer into the file; empty for the whole document.
    pub pointer: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.reason)
    }
}

/// `servers.json` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read or written.
    #[error(transparent)]
    Io(#[from] Error),
    /// The file is invalid; every problem is listed.
    #[error("{path} is invalid:\n{}", .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every problem found.
        problems: Vec<Problem>,
    },
}

/// Server names are URL path segments: 1-64 letters, digits, `_`, `-` or `.`.
pub fn check_server_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!("`{name}`: a server name has 1-64 characters"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "`{name}`: {c:?} is not allowed; a server name has letters, digits, `_`, `-` or `.`"
        ));
    }
    if name == "." || name == ".." {
        return Err(format!("`{name}` is not a server name"));
    }
    Ok(())
}

/// Checks a parsed document: the schema first, then the engine's rules per server.
pub fn check(document: &Value) -> Result<ConfigFile, Vec<Problem>> {
    let mut problems: Vec<Problem> = match VALIDATOR.as_ref() {
        // An unknown member is named by its own pointer (`/servers/0/tool`), worded as serde
        // and the REST API word it.
        Some(validator) => validator
            .violations(document)
            .into_iter()
            .map(|violation| Problem {
                pointer: if violation.pointer == "/" {
                    String::new()
                } else {
                    violation.pointer
                },
                reason: violation.reason,
            })
            .collect(),
        None => vec![Problem {
            pointer: String::new(),
            reason: "the servers.json schema failed to compile".into(),
        }],
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    // The schema passed, so what serde still refuses is a rule the schema cannot say (a
    // resource with both `text` and `blob`); the path names the entry at fault.
    let config: ConfigFile = match serde_path_to_error::deserialize(document) {
        Ok(config) => config,
        Err(error) => {
            return Err(vec![Problem {
                pointer: pointer_of(&error.path().to_string()),
                reason: error.into_inner().to_string(),
            }]);
        }
    };
    let mut seen = std::collections::HashSet::new();
    for (index, server) in config.servers.iter().enumerate() {
        let pointer = format!("/servers/{index}");
        if let Err(reason) = check_server_name(&server.name) {
            problems.push(Problem {
                pointer: format!("{pointer}/name"),
                reason,
            });
        } else if !seen.insert(server.name.clone()) {
            problems.push(Problem {
                pointer: format!("{pointer}/name"),
                reason: format!("`{}`: another server has this name", server.name),
            });
        }
        if let Err(error) = check_items(server, server.tools.iter().map(|t| (t, true))) {
            // A template problem points at the template, as a schema problem would.
            let at = match &error {
                Error::Template { tool, .. } => server
                    .tools
                    .iter()
                    .position(|t| &t.name == tool)
                    .map_or(pointer.clone(), |i| format!("{pointer}/tools/{i}/template")),
                _ => pointer.clone(),
            };
            problems.push(Problem {
                pointer: at,
                reason: error.to_string(),
            });
        }
        match check_faults(&server.faults, server.session_expiry.as_ref()) {
            Ok(()) => {}
            // `faults[0].fault.status` → `/servers/0/faults/0/fault/status`
            Err(Error::InvalidFault { field, reason }) => problems.push(Problem {
                pointer: format!(
                    "/servers/{index}/{}",
                    field.replace(['[', '.'], "/").replace(']', "")
                ),
                reason: format!("`{field}` {reason}"),
            }),
            Err(error) => problems.push(Problem {
                pointer,
                reason: error.to_string(),
            }),
        }
        if let Err(Error::InvalidSkill { field, reason }) =
            check_skills(&server.skills, &server.resources)
        {
            // `skills[0].files[1].path` → `/servers/0/skills/0/files/1/path`
            problems.push(Problem {
                pointer: format!(
                    "/servers/{index}/{}",
                    field.replace(['[', '.'], "/").replace(']', "")
                ),
                reason: format!("`{field}` {reason}"),
            });
        }
        for (field, reason) in guard_problems(server, "apiKeys", "allowedHosts") {
            // `apiKeys[2]` → `/servers/0/apiKeys/2`
            let path = field.replace('[', "/").replace(']', "");
            problems.push(Problem {
                pointer: format!("/servers/{index}/{path}"),
                reason: format!("`{field}` {reason}"),
            });
        }
        problems.extend(
            super::auth::server_problems(server)
                .into_iter()
                .map(|(at, reason)| Problem {
                    pointer: format!("/servers/{index}{}", at.pointer()),
                    reason,
                }),
        );
    }
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(problems)
    }
}

/// A serde path (`servers[0].resources[1]`) as a JSON pointer (`/servers/0/resources/1`);
/// `.` (the whole document) is the empty pointer.
fn pointer_of(path: &str) -> String {
    if path == "." {
        return String::new();
    }
    format!(
        "/{}",
        path.replace('[', "/").replace(']', "").replace('.', "/")
    )
    .replace("//", "/")
}

/// Reads `path`, creating it with the default `echo` server when it does not exist.
pub fn load_or_create(path: &Path) -> Result<ConfigFile, ConfigError> {
    remove_stale_temp_files(path);
    match load(path)? {
        Some(config) => Ok(config),
        None => {
            let config = ConfigFile::default();
            save(path, &config)?;
            Ok(config)
        }
    }
}

/// Reads and checks `path`; `None` when it does not exist.
pub fn load(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Io(Error::Io {
                path: path.to_path_buf(),
                source,
            }));
        }
    };
    let document: Value = serde_json::from_str(&text).map_err(|error| ConfigError::Invalid {
        path: path.to_path_buf(),
        problems: vec![Problem {
            pointer: String::new(),
            reason: format!("not valid JSON: {error}"),
        }],
    })?;
    check(&document)
        .map(Some)
        .map_err(|problems| ConfigError::Invalid {
            path: path.to_path_buf(),
            problems,
        })
}

/// A process killed in the middle of [`save`] leaves its temp file behind; the next start
/// removes it (the real file is whole either way).
fn remove_stale_temp_files(path: &Path) {
    let Some(dir) = path.parent() else { return };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{SERVERS_FILE}.");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(".tmp") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Writes `config` to `path` so that a crash at any point leaves either the old file or the
/// new one: a temp file in the same directory, fsync, rename over, fsync of the directory.
/// The file holds client secrets and API keys, so it is its owner's alone: written `0600`, or
/// stricter when the user made the old file so, in a directory created `0700`.
pub fn save(path: &Path, config: &ConfigFile) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    create_private_dir(dir).map_err(io)?;
    let mut text =
        serde_json::to_string_pretty(config).map_err(|e| io(std::io::Error::other(e)))?;
    text.push('\n');
    let temp = dir.join(format!(".{SERVERS_FILE}.{}.tmp", std::process::id()));
    // A temp file a crash left behind is ours to replace.
    let _ = fs::remove_file(&temp);
    {
        let mut file = private_file(&temp, path).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    fs::rename(&temp, path).map_err(io)?;
    // The rename is durable only once the directory entry is.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Creates `dir` and its missing parents, readable by their owner only (`0700` on Unix).
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// A new file at `temp`, `create_new` so no link planted there is followed, with the mode
/// `0600` or the stricter one of the file it will replace, `replacing`.
fn private_file(temp: &Path, replacing: &Path) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(replacing)
            .map(|m| m.permissions().mode() & 0o600)
            .unwrap_or(0o600);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        mode
    };
    #[cfg(not(unix))]
    let _ = replacing;
    let file = options.open(temp)?;
    // The mode given at creation passes through the umask; this one does not.
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_problem_is_listed_with_its_pointer() {
        let document = json!({ "servers": [
            { "name": "ok", "tools": [{ "name": "bad name" }] },
            { "name": "a/b" },
            { "name": "ok" }
        ] });
        let problems = check(&document).expect_err("invalid");
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert!(
            text.iter()
                .any(|p| p.starts_with("/servers/0:") && p.contains("bad name")),
            "{text:?}"
        );
        assert!(
            text.iter().any(|p| p.starts_with("/servers/1/name:")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|p| p.starts_with("/servers/2/name:") && p.contains("another server")),
            "{text:?}"
        );
    }

    #[test]
    fn schema_violations_name_the_field() {
        let problems =
            check(&json!({ "servers": [{ "name": 7 }], "extra": true })).expect_err("invalid");
        assert!(
            problems.iter().any(|p| p.pointer == "/servers/0/name"),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.reason.contains("extra")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_saved_file_loads_back_and_a_missing_one_is_created_with_echo() {
        let dir = std::env::temp_dir().join(format!("mcp-decoy-config-{}", std::process::id()));
        let path = dir.join(SERVERS_FILE);
        let _ = fs::remove_file(&path);
        let created = load_or_create(&path).expect("created");
        assert_eq!(created.servers[0].name, "echo");
        assert_eq!(load_or_create(&path).expect("loaded"), created);
        // A temp file left by a process killed mid-save is removed at the next start.
        let leftover = dir.join(format!(".{SERVERS_FILE}.12345.tmp"));
        fs::write(&leftover, "{").expect("write the leftover");
        assert_eq!(load_or_create(&path).expect("loaded"), created);
        assert!(!leftover.exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
