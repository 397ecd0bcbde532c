//! Compiling a JSON Schema that came from outside (a tool's `inputSchema` or `outputSchema`,
//! the bundled MCP schema, the app's `servers.json` schema) into a [`Validator`], and checking
//! a schema against its draft's metaschema without compiling it.
//!
//! The validator is boon: it passes the JSON-Schema-Test-Suite for drafts 4 to 2020-12 and
//! builds in a sixth of the time jsonschema does, which a dependent's first test build pays
//! (benches/README.md, "First build of a dependent"). The tests check what we send with
//! jsonschema, so the two implementations keep each other honest.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use boon::{Compiler, Draft, SchemaIndex, Schemas, UrlLoader};
use serde_json::Value;

use super::violation::{self, Violation};

/// Where a schema without an `$id` is filed while it compiles; never fetched.
const LOCATION: &str = "urn:mcp-decoy:schema";

/// A compiled schema, shareable across threads.
pub(crate) struct Validator {
    schemas: Schemas,
    index: SchemaIndex,
}

impl std::fmt::Debug for Validator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validator").finish_non_exhaustive()
    }
}

impl Validator {
    /// Every way `value` breaks the schema, flattened to one violation per failing keyword.
    pub(crate) fn violations(&self, value: &Value) -> Vec<Violation> {
        match self.schemas.validate(value, self.index) {
            Ok(()) => Vec::new(),
            Err(error) => violation::flatten(&error, value),
        }
    }
}

/// Refuses every URL: a schema's `$ref` to a remote (or `file:`) document is never fetched,
/// so a tool cannot make the server read the network or the disk.
struct NoFetch;

impl UrlLoader for NoFetch {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(
            format!("`$ref` to {url} is not fetched (only references inside the schema resolve)")
                .into(),
        )
    }
}

fn compiler() -> Compiler {
    let mut compiler = Compiler::new();
    compiler.set_default_draft(Draft::V2020_12);
    compiler.use_loader(Box::new(NoFetch));
    compiler
}

/// Compiles `schema` (its `$ref`s resolve inside it, `$defs` included); `Err` says why it
/// does not compile: it breaks its metaschema, or it refers to a document outside itself.
pub(crate) fn compile(schema: &Value) -> Result<Validator, String> {
    compile_at(schema, "")
}

/// Compiles the subschema of `schema` at the JSON pointer `fragment` (`/$defs/Icon`).
pub(crate) fn compile_at(schema: &Value, fragment: &str) -> Result<Validator, String> {
    // boon reports an internal inconsistency with `debug_assert!`, which would panic in a
    // user's debug test build on a schema a client or a test wrote; an error is what we want.
    let compiled = catch_unwind(AssertUnwindSafe(|| {
        let mut compiler = compiler();
        let mut schemas = Schemas::new();
        compiler
            .add_resource(LOCATION, schema.clone())
            .map_err(|error| compile_error(&error))?;
        compiler
            .compile(&format!("{LOCATION}#{fragment}"), &mut schemas)
            .map(|index| Validator { schemas, index })
            .map_err(|error| compile_error(&error))
    }));
    compiled.unwrap_or_else(|_| Err("the schema validator failed on this schema".into()))
}

/// `{error:#}` names the cause (the metaschema violation, the reference not fetched).
fn compile_error(error: &boon::CompileError) -> String {
    match error {
        boon::CompileError::ValidationError { src, .. } => violation::flatten(src, &Value::Null)
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("; "),
        other => format!("{other:#}").replace(LOCATION, "the schema"),
    }
}

/// The drafts boon knows, with their metaschemas' URLs.
const DRAFTS: [(Draft, &str); 5] = [
    (
        Draft::V2020_12,
        "https://json-schema.org/draft/2020-12/schema",
    ),
    (
        Draft::V2019_09,
        "https://json-schema.org/draft/2019-09/schema",
    ),
    (Draft::V7, "http://json-schema.org/draft-07/schema"),
    (Draft::V6, "http://json-schema.org/draft-06/schema"),
    (Draft::V4, "http://json-schema.org/draft-04/schema"),
];

/// The metaschemas of [`DRAFTS`], each compiled once per process when a schema of its draft
/// is first checked: a process whose tools all use the default draft never compiles the
/// other four (compiling all five was most of the first fixture's start).
static METASCHEMAS: [OnceLock<Option<Validator>>; 5] = [const { OnceLock::new() }; 5];

fn metaschema(draft: Draft) -> Option<&'static Validator> {
    let at = DRAFTS.iter().position(|(known, _)| *known == draft)?;
    METASCHEMAS[at]
        .get_or_init(|| {
            let mut schemas = Schemas::new();
            let index = compiler().compile(DRAFTS[at].1, &mut schemas).ok()?;
            Some(Validator { schemas, index })
        })
        .as_ref()
}

/// How `schema` breaks the metaschema of its `$schema` (2020-12 when it names none), without
/// compiling it: a tool may point a `$ref` at a URL that is never fetched and still be a
/// valid tool. `Err` when `$schema` names a draft this validator does not know.
pub(crate) fn meta_violations(schema: &Value) -> Result<Vec<Violation>, String> {
    let draft = match schema.get("$schema") {
        None => Draft::V2020_12,
        Some(Value::String(url)) => Draft::from_url(url)
            .ok_or_else(|| format!("`$schema` {url} is not a JSON Schema draft this server knows (4, 6, 7, 2019-09, 2020-12)"))?,
        Some(other) => return Err(format!("`$schema` must be a string, not {other}")),
    };
    match metaschema(draft) {
        Some(meta) => Ok(meta.violations(schema)),
        None => Err("the metaschema failed to compile".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_compiles_and_reports_each_violation_with_its_pointer() {
        let validator = compile(&json!({
            "type": "object",
            "properties": { "limit": { "type": "integer", "minimum": 1 } },
            "required": ["query"]
        }))
        .expect("compiles");
        assert_eq!(
            validator.violations(&json!({ "query": "x", "limit": 2 })),
            []
        );
        let text: Vec<String> = validator
            .violations(&json!({ "limit": 0 }))
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(
            text,
            [
                r#"at /: "query" is a required property"#,
                "at /limit: 0 is less than the minimum of 1"
            ]
        );
    }

    #[test]
    fn local_refs_resolve_and_remote_or_file_refs_are_never_fetched() {
        let local = json!({ "$defs": { "n": { "type": "integer" } }, "properties": { "a": { "$ref": "#/$defs/n" } } });
        let validator = compile(&local).expect("a local $ref compiles");
        assert_eq!(validator.violations(&json!({ "a": "x" })).len(), 1);
        for remote in ["https://canary.invalid/u.json", "file:///etc/passwd"] {
            let error =
                compile(&json!({ "properties": { "u": { "$ref": remote } } })).expect_err(remote);
            assert!(error.contains("is not fetched"), "{remote}: {error}");
        }
    }

    #[test]
    fn a_broken_schema_names_the_keyword_at_fault() {
        let error =
            compile(&json!({ "type": "object", "properties": { "a": { "type": "nonsense" } } }))
                .expect_err("not a type");
        assert!(error.contains("/properties/a/type"), "{error}");
        let problems = meta_violations(&json!({ "properties": { "a": { "minimum": "one" } } }))
            .expect("2020-12");
        assert!(
            problems
                .iter()
                .any(|p| p.pointer == "/properties/a/minimum"),
            "{problems:?}"
        );
        assert!(meta_violations(&json!({ "$schema": "https://example.com/mine" })).is_err());
        let draft7 =
            json!({ "$schema": "http://json-schema.org/draft-07/schema#", "type": "object" });
        assert_eq!(meta_violations(&draft7).expect("draft 7"), []);
    }
}
