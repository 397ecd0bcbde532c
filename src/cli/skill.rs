//! The agent skill (`mcp-decoy skill`): Markdown in the `SKILL.md` format (YAML front matter
//! with `name` and `description`) that teaches a coding agent to drive the REST API, and
//! `mcp-decoy skill install`, which puts it where Claude Code and the agents that read
//! `.agents/skills` find it (product guide, "Debug your client with a coding agent").

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The skill's folder name under `.agents/skills/` and `.claude/skills/`.
pub const SKILL_NAME: &str = "mcp-decoy";

/// The skill's source; `{{VERSION}}` becomes the running version, so an agent can tell an
/// installed skill from an upgraded app.
const SOURCE: &str = include_str!("skill.md");

/// The skill text: `SKILL.md` with YAML front matter (`name`, `description`) and the
/// instructions.
pub fn text() -> String {
    SOURCE.replace("{{VERSION}}", env!("CARGO_PKG_VERSION"))
}

/// Why `skill install` failed: what it was doing, on which path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// No `--dir` and no `HOME` to default to.
    #[error("no home directory: set HOME or pass --dir")]
    NoHome,
    /// A file or folder could not be written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done, e.g. "cannot write".
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// `.claude/skills/mcp-decoy` exists and is not a link, so replacing it could lose the
    /// user's own files.
    #[error(
        "{path} exists and is not a link; move or remove it, then run `mcp-decoy skill install` again"
    )]
    NotALink {
        /// The existing directory or file.
        path: PathBuf,
    },
}

/// Where `skill install` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `DIR/.agents/skills/mcp-decoy/SKILL.md`.
    pub file: PathBuf,
    /// `DIR/.claude/skills/mcp-decoy`, a link to the file's folder.
    pub link: PathBuf,
}

impl std::fmt::Display for Installed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let folder = self.file.parent().unwrap_or(&self.file);
        write!(
            f,
            "Wrote {}\nLinked {} -> {}",
            self.file.display(),
            self.link.display(),
            folder.display()
        )
    }
}

/// Writes `DIR/.agents/skills/mcp-decoy/SKILL.md` and links `DIR/.claude/skills/mcp-decoy`
/// to its folder; `DIR` defaults to `$HOME`. Running it again refreshes the file and the
/// link; an existing `.claude/skills/mcp-decoy` that is not a link is an error naming it.
pub fn install(dir: Option<PathBuf>) -> Result<Installed, InstallError> {
    let dir = match dir {
        Some(dir) => dir,
        None => std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
            .ok_or(InstallError::NoHome)?,
    };
    // Absolute paths, so the printed paths and the link work from any working directory.
    let dir = std::path::absolute(&dir).map_err(|source| InstallError::Io {
        action: "cannot resolve",
        path: dir.clone(),
        source,
    })?;
    let folder = dir.join(".agents").join("skills").join(SKILL_NAME);
    let file = folder.join("SKILL.md");
    let link = dir.join(".claude").join("skills").join(SKILL_NAME);

    // Check the link's place before writing anything, so a refusal leaves no half install.
    match fs::symlink_metadata(&link) {
        Ok(meta) if !meta.file_type().is_symlink() => {
            return Err(InstallError::NotALink { path: link });
        }
        _ => {}
    }

    create_dir(&folder)?;
    write_atomically(&file, text().as_bytes())?;

    if let Some(parent) = link.parent() {
        create_dir(parent)?;
    }
    if fs::symlink_metadata(&link).is_ok() {
        fs::remove_file(&link).map_err(|source| InstallError::Io {
            action: "cannot replace the link",
            path: link.clone(),
            source,
        })?;
    }
    // Relative, so the pair survives moving or copying DIR (a project checkout).
    let target = Path::new("..")
        .join("..")
        .join(".agents")
        .join("skills")
        .join(SKILL_NAME);
    symlink_dir(&target, &link).map_err(|source| InstallError::Io {
        action: "cannot link",
        path: link.clone(),
        source,
    })?;
    Ok(Installed { file, link })
}

fn create_dir(path: &Path) -> Result<(), InstallError> {
    fs::create_dir_all(path).map_err(|source| InstallError::Io {
        action: "cannot create",
        path: path.to_path_buf(),
        source,
    })
}

/// A temp file renamed over the old one: an agent reading the skill mid-refresh sees the old
/// text or the new, never half of it.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let io = |source| InstallError::Io {
        action: "cannot write",
        path: path.to_path_buf(),
        source,
    };
    let temp = path.with_extension(format!("md.{}.tmp", std::process::id()));
    fs::write(&temp, bytes).map_err(io)?;
    fs::rename(&temp, path).map_err(|source| {
        let _ = fs::remove_file(&temp);
        io(source)
    })
}

#[cfg(unix)]
fn symlink_dir(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink_dir(target: &Path, link: &Path) -> io::Result<()> {
    std::os::windows::fs::symlink_dir(target, link)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("mcp-decoy-skill-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the temp dir");
        dir
    }

    #[test]
    fn the_skill_has_front_matter_with_name_and_description() {
        let text = text();
        let front = text
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map(|(front, _)| front)
            .expect("YAML front matter between --- lines");
        assert!(front.lines().any(|l| l == "name: mcp-decoy"), "{front}");
        assert!(
            front.lines().any(|l| l.starts_with("description: ")),
            "{front}"
        );
        assert!(!text.contains("{{VERSION}}"));
        assert!(text.contains(env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn the_skill_uses_every_route_of_the_guide() {
        let text = text();
        for route in [
            "GET /servers",
            "POST /servers",
            "PATCH /servers/{server}",
            "DELETE /servers/{server}",
            "POST /servers/{server}/tools",
            "PATCH /servers/{server}/tools/{tool}",
            "DELETE /servers/{server}/tools/{tool}",
            "GET /servers/{server}/sessions",
            "DELETE /servers/{server}/sessions/{session}",
            "GET /servers/{server}/oauth/tokens",
            "DELETE /servers/{server}/oauth/tokens/{token}",
            "GET /servers/{server}/logs?q=&carriedBy=&cursor=&limit=",
            "GET /servers/{server}/logs/{id}",
            "DELETE /servers/{server}/logs",
            "GET /servers/{server}/logs/stream?after=&q=",
            "GET /servers/{server}/logs/export",
        ] {
            assert!(text.contains(&format!("`{route}`")), "missing {route}");
        }
    }

    #[test]
    fn install_writes_the_file_and_links_the_claude_folder_to_it() {
        let dir = temp_dir("install");
        let installed = install(Some(dir.clone())).expect("install");
        assert_eq!(
            installed.file,
            dir.join(".agents/skills/mcp-decoy/SKILL.md")
        );
        assert_eq!(fs::read_to_string(&installed.file).expect("read"), text());
        let link = dir.join(".claude/skills/mcp-decoy");
        assert!(
            fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(link.join("SKILL.md")).expect("read through the link"),
            text()
        );

        // Again: the file is refreshed and the link replaced.
        fs::write(&installed.file, "old").expect("overwrite");
        install(Some(dir.clone())).expect("install again");
        assert_eq!(
            fs::read_to_string(link.join("SKILL.md")).expect("read"),
            text()
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn install_refuses_to_replace_a_real_directory_and_names_it() {
        let dir = temp_dir("refuse");
        let existing = dir.join(".claude/skills/mcp-decoy");
        fs::create_dir_all(&existing).expect("a real directory");
        let error = install(Some(dir.clone())).expect_err("refused");
        assert!(
            error.to_string().contains(&existing.display().to_string()),
            "{error}"
        );
        assert!(!dir.join(".agents").exists(), "nothing written on refusal");
        let _ = fs::remove_dir_all(&dir);
    }
}
