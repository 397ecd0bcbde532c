//! `resources/list`, `resources/templates/list`, `resources/read`, `resources/subscribe`,
//! `resources/unsubscribe` (server/resources page).
//!
//! A server that started without resources or resource templates does not declare the
//! `resources` capability, so these methods answer `-32601` there, like any method it does
//! not offer.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::engine::Engine;
use crate::engine::methods::pagination;
use crate::engine::methods::script::{self, Stop};
use crate::engine::methods::{RequestCtx, method_not_found};
use crate::engine::protocol::jsonrpc::{RpcError, code};
use crate::engine::state::session::MAX_SUBSCRIPTIONS;
use crate::engine::uri_template::UriTemplate;
use crate::engine::{schema, template};
use crate::spec::{ResourceSpec, ResourceTemplateSpec};

/// The first line of the error a resource template answers when it fails to render.
const RENDER_FAILURE_HEADLINE: &str =
    "MCP Decoy: the response template of this resource template failed to render.";

pub(crate) fn list(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "resources/list")?;
    pagination::list(ctx, "resources/list", "resources", ResourceSpec::listing)
}

pub(crate) fn list_templates(ctx: &RequestCtx) -> Result<Value, RpcError> {
    served(ctx, "resources/templates/list")?;
    pagination::list(
        ctx,
        "resources/templates/list",
        "resourceTemplates",
        ResourceTemplateSpec::listing,
    )
}

pub(crate) async fn read(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "resources/read";
    served(ctx, method)?;
    let uri = uri_param(ctx, method)?;
    if let Some(resource) = ctx.engine.catalog.resources.get(uri) {
        return Ok(json!({ "contents": [resource.contents()] }));
    }
    let Some((spec, vars)) = find_template(ctx, uri) else {
        return Err(not_found(ctx, uri));
    };
    let vars: Map<String, Value> = vars.into_iter().map(|(k, v)| (k, json!(v))).collect();
    let mut context = json!({ "uri": uri, "vars": vars, "answers": {} });
    match script::run(ctx, method, &spec.script, spec.script.len(), &mut context).await {
        Ok(()) => {}
        // 2026-07-28: an `ask` answers `input_required` (mrtr.mdx names `resources/read`).
        Err(Stop::InputRequired(result)) => return Ok(result),
        Err(Stop::Refused(error) | Stop::Failed(error)) => return Err(error),
        Err(Stop::Render(problem) | Stop::Client(problem)) => {
            return Err(RpcError::new(
                code::INTERNAL_ERROR,
                format!("MCP Decoy: the script of resource template `{}` stopped before its contents: {problem}", spec.uri_template),
            )
            .with_data(json!({ "uri": uri, "uriTemplate": spec.uri_template })));
        }
    }
    let contents = render(&spec, uri, &context).await.map_err(|problems| {
        tracing::debug!(uri_template = %spec.uri_template, uri, ?problems, "resource template failed to render");
        let mut message = String::from(RENDER_FAILURE_HEADLINE);
        for problem in &problems {
            message.push('\n');
            message.push_str(problem);
        }
        RpcError::new(code::INTERNAL_ERROR, message).with_data(json!({
            "uri": uri,
            "uriTemplate": spec.uri_template,
            "problems": problems,
        }))
    })?;
    Ok(json!({ "contents": contents }))
}

pub(crate) fn subscribe(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "resources/subscribe";
    served(ctx, method)?;
    let uri = uri_param(ctx, method)?;
    if ctx.engine.catalog.resources.get(uri).is_none() && find_template(ctx, uri).is_none() {
        return Err(not_found(ctx, uri));
    }
    if !ctx.session.subscribe(uri) {
        return Err(RpcError::new(
            code::INVALID_PARAMS,
            format!(
                "resources/subscribe: this session already subscribes to {MAX_SUBSCRIPTIONS} URIs, the limit; unsubscribe from one first"
            ),
        )
        .with_data(json!({ "uri": uri, "limit": MAX_SUBSCRIPTIONS })));
    }
    Ok(json!({}))
}

/// Unsubscribing from a URI the session never subscribed to is harmless: the outcome the
/// client asked for already holds.
pub(crate) fn unsubscribe(ctx: &RequestCtx) -> Result<Value, RpcError> {
    let method = "resources/unsubscribe";
    served(ctx, method)?;
    let uri = uri_param(ctx, method)?;
    ctx.session.unsubscribe(uri);
    Ok(json!({}))
}

/// Capabilities must match handlers: no `resources` capability, no resource methods.
fn served(ctx: &RequestCtx, method: &str) -> Result<(), RpcError> {
    if ctx.engine.serves_resources() {
        Ok(())
    } else {
        Err(method_not_found(method))
    }
}

fn uri_param<'a>(ctx: &'a RequestCtx, method: &str) -> Result<&'a str, RpcError> {
    ctx.params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::invalid_params(format!(
                "{method}: `params.uri` must be a string naming a resource"
            ))
        })
}

/// 2025-11-25 server/resources, "Error Handling": `-32002` with the URI in `data`, never an
/// empty `contents`; 2026-07-28 has no -32002 and uses `-32602` (Invalid params) instead.
fn not_found(ctx: &RequestCtx, uri: &str) -> RpcError {
    let code = if ctx.session.version.is_modern() {
        code::INVALID_PARAMS
    } else {
        code::RESOURCE_NOT_FOUND
    };
    RpcError::new(code, "Resource not found").with_data(json!({ "uri": uri }))
}

/// The resource template a `resources/read` of `uri` renders, when no static resource has
/// that URI (its script decides what the request must declare).
pub(crate) fn template_for(
    engine: &Engine,
    uri: &str,
) -> Option<std::sync::Arc<ResourceTemplateSpec>> {
    if engine.catalog.resources.get(uri).is_some() {
        return None;
    }
    matching(engine, uri).map(|(spec, _)| spec)
}

/// The first visible template, in listing order, that `uri` is an expansion of.
fn find_template(
    ctx: &RequestCtx,
    uri: &str,
) -> Option<(
    std::sync::Arc<ResourceTemplateSpec>,
    BTreeMap<String, String>,
)> {
    matching(&ctx.engine, uri)
}

fn matching(
    engine: &Engine,
    uri: &str,
) -> Option<(
    std::sync::Arc<ResourceTemplateSpec>,
    BTreeMap<String, String>,
)> {
    engine
        .catalog
        .templates
        .visible()
        .into_iter()
        .find_map(|spec| {
            // Checked when the template entered the catalog, so this parse succeeds.
            let vars = UriTemplate::parse(&spec.uri_template).ok()?.matches(uri)?;
            Some((spec, vars))
        })
}

/// Renders a template's `template` over `{uri, vars, answers}` (`context`) into
/// `ReadResourceResult.contents`, or says everything that is wrong with the output.
async fn render(
    spec: &ResourceTemplateSpec,
    uri: &str,
    context: &Value,
) -> Result<Vec<Value>, Vec<String>> {
    let output = template::render_value(&spec.template, context)
        .await
        .map_err(|e| vec![e])?;
    let items = match output {
        Value::Array(items) => items,
        object @ Value::Object(_) => vec![object],
        other => {
            return Err(vec![format!(
                "the output must be a ResourceContents object or an array of them, got {other}"
            )]);
        }
    };
    if items.is_empty() {
        return Err(vec![
            "the output is an empty array; a resource has at least one ResourceContents".into(),
        ]);
    }
    let mut problems = Vec::new();
    let contents: Vec<Value> = items
        .into_iter()
        .enumerate()
        .map(|(n, mut item)| {
            if let Value::Object(object) = &mut item {
                object.entry("uri").or_insert_with(|| json!(uri));
                if let Some(mime_type) = &spec.mime_type {
                    object.entry("mimeType").or_insert_with(|| json!(mime_type));
                }
            }
            problems.extend(contents_problems(n, &item));
            item
        })
        .collect();
    if problems.is_empty() {
        Ok(contents)
    } else {
        Err(problems)
    }
}

/// Why `item` is neither a `TextResourceContents` nor a `BlobResourceContents`; empty when it
/// is one of them.
fn contents_problems(n: usize, item: &Value) -> Vec<String> {
    let text = schema::definition_problems("TextResourceContents", item);
    if text.is_empty() {
        return Vec::new();
    }
    let blob = schema::definition_problems("BlobResourceContents", item);
    if blob.is_empty() {
        return Vec::new();
    }
    // Report against the kind the author was evidently writing.
    let (kind, problems) = if item.get("blob").is_some() && item.get("text").is_none() {
        ("BlobResourceContents", blob)
    } else {
        ("TextResourceContents", text)
    };
    problems
        .into_iter()
        .map(|p| format!("contents[{n}] is not a valid {kind}: {p}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(template: Value, mime_type: Option<&str>) -> ResourceTemplateSpec {
        ResourceTemplateSpec {
            uri_template: "test://template/{id}/data".into(),
            name: "data".into(),
            title: None,
            description: None,
            mime_type: mime_type.map(str::to_string),
            annotations: None,
            icons: None,
            meta: None,
            template,
            completions: BTreeMap::new(),
            script: Vec::new(),
            published: true,
        }
    }

    /// The context of a read of `test://template/<value>/data`.
    fn id(value: &str) -> Value {
        json!({ "uri": format!("test://template/{value}/data"), "vars": { "id": value }, "answers": {} })
    }

    #[tokio::test]
    async fn uri_and_mime_type_are_filled_in_when_missing() {
        let t = spec(
            json!({ "text": { "$json": { "id": "${vars.id}" } } }),
            Some("application/json"),
        );
        let contents = render(&t, "test://template/123/data", &id("123"))
            .await
            .expect("renders");
        assert_eq!(
            contents,
            vec![json!({
                "text": "{\"id\":\"123\"}",
                "uri": "test://template/123/data",
                "mimeType": "application/json"
            })]
        );
    }

    #[tokio::test]
    async fn an_array_keeps_what_each_item_says() {
        let t = spec(
            json!([
                { "text": "a", "uri": "test://other", "mimeType": "text/plain" },
                { "blob": "aGk=" }
            ]),
            Some("application/json"),
        );
        let contents = render(&t, "test://template/1/data", &id("1"))
            .await
            .expect("renders");
        assert_eq!(contents[0]["uri"], "test://other");
        assert_eq!(contents[0]["mimeType"], "text/plain");
        assert_eq!(contents[1]["uri"], "test://template/1/data");
        assert_eq!(contents[1]["mimeType"], "application/json");
    }

    #[tokio::test]
    async fn output_that_is_not_resource_contents_names_each_problem() {
        let t = spec(json!({ "txt": "oops" }), None);
        let problems = render(&t, "test://template/1/data", &id("1"))
            .await
            .expect_err("no text");
        assert!(
            problems.iter().any(|p| p
                .starts_with("contents[0] is not a valid TextResourceContents")
                && p.contains("text")),
            "{problems:?}"
        );
        let scalar = spec(json!("just text"), None);
        assert!(render(&scalar, "u:x", &id("1")).await.is_err());
        let empty = spec(json!([]), None);
        assert!(render(&empty, "u:x", &id("1")).await.is_err());
        let failing = spec(json!({ "text": { "$eval": "vars.id + 1" } }), None);
        assert!(render(&failing, "u:x", &id("1")).await.is_err());
    }
}
