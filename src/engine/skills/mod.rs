//! The skills a server serves (the `io.modelcontextprotocol/skills` extension, SEP-2640),
//! checked and indexed once when it starts: each file becomes a `skill://` resource of the
//! catalog, and the index keeps the entries `skills/list` and `skills/get` answer with (the
//! skill's URI, its frontmatter, each file's digest and size).

mod frontmatter;

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::engine::validate::items::MAX_ITEMS;
use crate::error::Error;
use crate::spec::{ResourceBody, ResourceSpec, SkillFileSpec, SkillSpec};

/// Files per skill, `SKILL.md` included: the most the extension says a server should serve.
pub(crate) const MAX_FILES: usize = 512;
/// Bytes of one skill's files together: the most the extension says a server should serve.
pub(crate) const MAX_SKILL_BYTES: usize = 16 * 1024 * 1024;
/// The Agent Skills format's longest `description`.
const MAX_DESCRIPTION_CHARS: usize = 1024;
const SKILL_MD: &str = "SKILL.md";
/// The MIME type of a folder among `resources/directory/read` children.
const FOLDER_MIME: &str = "inode/directory";

/// The entries of the served skills, in listing order, the URIs of their files, and each
/// folder's direct children (for `resources/directory/read`).
#[derive(Debug, Default)]
pub(crate) struct Skills {
    entries: Vec<Value>,
    by_uri: HashMap<String, usize>,
    files: HashSet<String>,
    folders: HashMap<String, Vec<Value>>,
}

impl Skills {
    /// The entries, as `skills/list` lists them.
    pub(crate) fn entries(&self) -> &[Value] {
        &self.entries
    }

    /// The entry of the skill whose `SKILL.md` has this URI.
    pub(crate) fn entry(&self, uri: &str) -> Option<&Value> {
        self.by_uri.get(uri).map(|&at| &self.entries[at])
    }

    /// The direct children of the skill folder `uri` (`skill://<path>` or a subfolder), as
    /// `resources/directory/read` lists them; `None` when `uri` is no folder.
    pub(crate) fn folder(&self, uri: &str) -> Option<&[Value]> {
        self.folders.get(uri).map(Vec::as_slice)
    }

    /// Whether `uri` is a file of a served skill (its resource belongs to the skill).
    #[cfg(feature = "decoy-cli")]
    pub(crate) fn has_file(&self, uri: &str) -> bool {
        self.files.contains(uri)
    }
}

/// Checks `specs` and builds their index and their files' resources; `resources` are the
/// server's own, which no skill file may share a URI with.
pub(crate) fn index(
    specs: &[SkillSpec],
    resources: &[ResourceSpec],
) -> Result<(Skills, Vec<ResourceSpec>), Error> {
    let taken: HashSet<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    let mut skills = Skills::default();
    let mut served = Vec::new();
    for (at, spec) in specs.iter().enumerate() {
        let (entry, files) = skill(spec, at)?;
        let uri = entry["uri"].as_str().unwrap_or_default().to_string();
        for file in &files {
            if taken.contains(file.uri.as_str()) || !skills.files.insert(file.uri.clone()) {
                return Err(invalid(
                    at,
                    "path",
                    format!("gives {}, a URI the server already serves", file.uri),
                ));
            }
        }
        let root = uri.strip_suffix("/SKILL.md").unwrap_or(&uri).to_string();
        for file in &files {
            add_to_folders(&mut skills.folders, &root, file);
        }
        if resources.len() + served.len() + files.len() > MAX_ITEMS {
            return Err(invalid(
                at,
                "files",
                format!(
                    "take the server past {MAX_ITEMS} resources, skill files included, the most a server holds"
                ),
            ));
        }
        skills.by_uri.insert(uri, skills.entries.len());
        skills.entries.push(entry);
        served.extend(files);
    }
    Ok((skills, served))
}

/// One skill's entry and its files' resources.
fn skill(spec: &SkillSpec, at: usize) -> Result<(Value, Vec<ResourceSpec>), Error> {
    if spec.files.is_empty() {
        return Err(invalid(
            at,
            "files",
            "is empty: a skill has at least its SKILL.md".into(),
        ));
    }
    if spec.files.len() > MAX_FILES {
        return Err(invalid(
            at,
            "files",
            format!(
                "has {} files, above the limit of {MAX_FILES}",
                spec.files.len()
            ),
        ));
    }
    let mut paths = HashSet::new();
    let mut contents = Vec::with_capacity(spec.files.len());
    let mut total = 0usize;
    for (n, file) in spec.files.iter().enumerate() {
        let field = |member: &str| format!("files[{n}].{member}");
        check_file_path(&file.path).map_err(|reason| invalid(at, &field("path"), reason))?;
        if !paths.insert(file.path.as_str()) {
            return Err(invalid(
                at,
                &field("path"),
                format!("repeats `{}`", file.path),
            ));
        }
        let bytes = bytes(file).map_err(|(member, reason)| invalid(at, &field(member), reason))?;
        total = total.saturating_add(bytes.len());
        contents.push(bytes);
    }
    if total > MAX_SKILL_BYTES {
        return Err(invalid(
            at,
            "files",
            format!("hold {total} bytes together, above the limit of {MAX_SKILL_BYTES}"),
        ));
    }
    let Some(md) = spec.files.iter().position(|f| f.path == SKILL_MD) else {
        return Err(invalid(
            at,
            "files",
            "has no SKILL.md at the skill's root".into(),
        ));
    };
    let md_field = format!("files[{md}].text");
    let text = spec.files[md]
        .text
        .as_deref()
        .ok_or_else(|| invalid(at, &md_field, "is missing: SKILL.md is text".into()))?;
    let parsed = frontmatter::parse(text)
        .map_err(|reason| invalid(at, &md_field, format!("(SKILL.md) {reason}")))?;
    let name = required(&parsed, "name").map_err(|r| invalid(at, &md_field, r))?;
    check_name(name).map_err(|r| invalid(at, &md_field, format!("(SKILL.md) `name` {r}")))?;
    let description = required(&parsed, "description").map_err(|r| invalid(at, &md_field, r))?;
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(invalid(
            at,
            &md_field,
            format!("(SKILL.md) `description` is longer than {MAX_DESCRIPTION_CHARS} characters"),
        ));
    }
    let path = spec.path.as_deref().unwrap_or(name);
    check_skill_path(path, name).map_err(|reason| invalid(at, "path", reason))?;

    // SKILL.md first, as the extension's examples list it.
    let mut order: Vec<usize> = vec![md];
    order.extend((0..spec.files.len()).filter(|&n| n != md));
    let mut listed = Vec::with_capacity(order.len());
    let mut resources = Vec::with_capacity(order.len());
    for n in order {
        let file = &spec.files[n];
        let uri = format!("skill://{path}/{}", file.path);
        listed.push(json!({
            "uri": uri,
            "digest": format!("sha256:{}", hex(&Sha256::digest(&contents[n]))),
            "size": contents[n].len(),
        }));
        let body = match (&file.served_text, &file.text, &file.blob) {
            (Some(served), _, _) => ResourceBody::Text {
                text: served.clone(),
            },
            (None, Some(text), _) => ResourceBody::Text { text: text.clone() },
            (None, None, blob) => ResourceBody::Blob {
                blob: blob.clone().unwrap_or_default(),
            },
        };
        let is_md = n == md;
        let shown = if is_md { name } else { file.path.as_str() };
        resources.push(ResourceSpec {
            description: is_md.then(|| description.to_string()),
            mime_type: Some(mime_type(file)),
            size: Some(contents[n].len() as u64),
            ..ResourceSpec::new(uri, shown, body)
        });
    }
    let frontmatter = match &spec.listed_frontmatter {
        None => Value::Object(parsed.clone()),
        Some(listed @ Value::Object(_)) => listed.clone(),
        Some(other) => {
            return Err(invalid(
                at,
                "listedFrontmatter",
                format!("is {}, not an object", crate::error::json_type(other)),
            ));
        }
    };
    let entry = json!({
        "uri": format!("skill://{path}/{SKILL_MD}"),
        "frontmatter": frontmatter,
        "resources": listed,
    });
    Ok((entry, resources))
}

/// Files the folders from `root` down to `file`, each folder listing its direct children
/// once, in the order first seen.
fn add_to_folders(folders: &mut HashMap<String, Vec<Value>>, root: &str, file: &ResourceSpec) {
    let relative = file
        .uri
        .strip_prefix(root)
        .unwrap_or(&file.uri)
        .trim_start_matches('/');
    let mut folder = root.to_string();
    let mut segments = relative.split('/').peekable();
    while let Some(segment) = segments.next() {
        let child_uri = format!("{folder}/{segment}");
        let children = folders.entry(folder.clone()).or_default();
        if segments.peek().is_none() {
            let mut child = json!({ "uri": file.uri, "name": segment });
            if let Some(mime) = &file.mime_type {
                child["mimeType"] = json!(mime);
            }
            if let Some(size) = file.size {
                child["size"] = json!(size);
            }
            children.push(child);
        } else if !children.iter().any(|c| c["uri"] == child_uri.as_str()) {
            children.push(json!({ "uri": child_uri, "name": segment, "mimeType": FOLDER_MIME }));
        }
        folder = child_uri;
    }
}

fn invalid(at: usize, field: &str, reason: String) -> Error {
    Error::InvalidSkill {
        field: format!("skills[{at}].{field}"),
        reason,
    }
}

/// A file's raw bytes, the ones its digest and size describe.
fn bytes(file: &SkillFileSpec) -> Result<Vec<u8>, (&'static str, String)> {
    use base64::Engine as _;
    match (&file.text, &file.blob) {
        (Some(text), None) => Ok(text.as_bytes().to_vec()),
        (None, Some(blob)) => base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| ("blob", format!("is not base64: {e}"))),
        (Some(_), Some(_)) => Err(("blob", "is set besides `text`: a file has one".into())),
        (None, None) if file.served_text.is_some() => Err((
            "text",
            "is missing: `servedText` stands in for a file's contents, and this file has none (no file at this path)".into(),
        )),
        (None, None) => Err(("text", "is missing: a file has `text` or `blob`".into())),
    }
}

fn required<'a>(frontmatter: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match frontmatter.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(other) => Err(format!(
            "(SKILL.md) frontmatter `{key}` is {}, not a non-empty string",
            crate::error::json_type(other)
        )),
        None => Err(format!("(SKILL.md) frontmatter has no `{key}`")),
    }
}

/// The Agent Skills naming rules: 1-64 lowercase letters, digits and hyphens, no hyphen
/// first, last or doubled.
fn check_name(name: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(format!(
            "is {name:?}: a skill name has 1-64 lowercase letters, digits and hyphens, no hyphen first, last or doubled"
        ))
    }
}

/// A skill path: segments of URI-safe characters, the last one the skill's name.
fn check_skill_path(path: &str, name: &str) -> Result<(), String> {
    let segments: Vec<&str> = path.split('/').collect();
    if let Some(bad) = segments.iter().find(|s| !segment_ok(s)) {
        return Err(format!(
            "is {path:?}: segment {bad:?} is not 1-255 letters, digits, `-`, `.`, `_` or `~` (and not `.` or `..`)"
        ));
    }
    if segments.last() != Some(&name) {
        return Err(format!(
            "is {path:?}: its last segment must be the skill's name, {name:?} (from SKILL.md)"
        ));
    }
    Ok(())
}

/// A path within the skill folder: relative, no empty, `.` or `..` segment.
fn check_file_path(path: &str) -> Result<(), String> {
    if path.split('/').all(segment_ok) {
        Ok(())
    } else {
        Err(format!(
            "is {path:?}: a file path is relative, `/`-separated segments of 1-255 letters, digits, `-`, `.`, `_` or `~` (no `.` or `..`)"
        ))
    }
}

fn segment_ok(segment: &str) -> bool {
    (1..=255).contains(&segment.len())
        && segment != "."
        && segment != ".."
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

fn mime_type(file: &SkillFileSpec) -> String {
    if let Some(mime) = &file.mime_type {
        return mime.clone();
    }
    let extension = file
        .path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md") => "text/markdown",
        Some("json") => "application/json",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js") => "text/javascript",
        Some("html") => "text/html",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ if file.blob.is_some() => "application/octet-stream",
        _ => "text/plain",
    }
    .to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
