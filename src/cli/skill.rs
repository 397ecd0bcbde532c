//! The agent skill (`mcp-decoy skill`): Markdown that teaches a coding agent to drive the
//! REST API.

/// The skill text.
pub fn text() -> &'static str {
    "---\nname: mcp-decoy\ndescription: Debug an MCP client with MCP Decoy's REST API.\n---\n"
}

/// Writes `DIR/.agents/skills/mcp-decoy/SKILL.md` and links `DIR/.claude/skills/mcp-decoy`
/// to its folder; `DIR` defaults to the home directory.
pub fn install(dir: Option<std::path::PathBuf>) -> Result<std::path::PathBuf, std::io::Error> {
    let _ = dir;
    Err(std::io::Error::other("not yet"))
}
