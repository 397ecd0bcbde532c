//! A cassette becomes an editable server: the tools, resources and prompts its lists
//! showed, each tool answering every recorded call with a fixed response (the recorded
//! result, or its error as a fault), each resource with the contents it was read with, and
//! each prompt with the messages it was got with. Recorded text is escaped so json-e
//! renders it as it was (`${` stays `${`).

use serde_json::{Map, Value};

use super::format::{Cassette, RecordedResponse};
use crate::spec::{
    Fault, Matcher, PromptArgumentSpec, PromptSpec, ResourceBody, ResourceSpec, ResponseSpec,
    ServerSpec, ToolAnnotations, ToolSpec,
};

/// What a 2026-07-28 result carries that the server adds again by itself.
const ADDED_BY_THE_SERVER: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

impl Cassette {
    /// The recorded server as a `servers.json` server named `name`: its identity and
    /// instructions, the tools, resources and prompts its lists showed (and those the
    /// session called but never listed), with fixed answers taken from the recorded calls
    /// (one response per distinct set of arguments; the first call's answer is also the
    /// tool's fallback template). Edit it in the app, or start it with
    /// [`MockMcpServerBuilder::from_spec`](crate::MockMcpServerBuilder::from_spec).
    ///
    /// # Example
    /// ```
    /// use mcp_decoy::cassette::Cassette;
    ///
    /// let cassette = Cassette::from_json(r#"{ "version": 1, "interactions": [{
    ///   "request": { "method": "tools/call", "params": { "name": "echo", "arguments": { "message": "hi" } } },
    ///   "response": { "result": { "content": [{ "type": "text", "text": "hi" }] } }
    /// }] }"#).unwrap();
    /// let spec = cassette.to_server_spec("recorded");
    /// assert_eq!(spec.tools[0].name, "echo");
    /// assert_eq!(spec.tools[0].responses.len(), 1);
    /// ```
    pub fn to_server_spec(&self, name: &str) -> ServerSpec {
        let mut spec = ServerSpec::new(name);
        if let Some(info) = self.server_info() {
            if let Some(version) = info.get("version").and_then(Value::as_str) {
                spec.version = version.to_string();
            }
            spec.title = info
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        spec.instructions = [&self.server.initialize, &self.server.discover]
            .into_iter()
            .flatten()
            .find_map(|r| r.get("instructions").and_then(Value::as_str))
            .map(str::to_string);
        spec.tools = self.tools();
        spec.resources = self.resources();
        spec.prompts = self.prompts();
        spec
    }

    /// The recorded results of `method`, with their params.
    fn results<'a>(
        &'a self,
        method: &'a str,
    ) -> impl Iterator<Item = (&'a Value, &'a RecordedResponse)> {
        self.interactions
            .iter()
            .filter(move |i| i.request.method == method)
            .map(|i| (i.request.params(), &i.response))
    }

    /// The items of every page of a list method's recorded results, first of a key kept.
    fn listed(&self, method: &str, member: &str, key: &str) -> Vec<Map<String, Value>> {
        let mut items: Vec<Map<String, Value>> = Vec::new();
        for (_, response) in self.results(method) {
            let RecordedResponse::Result(result) = response else {
                continue;
            };
            for item in result
                .get(member)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(item) = item.as_object()
                    && !items.iter().any(|i| i.get(key) == item.get(key))
                {
                    items.push(item.clone());
                }
            }
        }
        items
    }

    fn tools(&self) -> Vec<ToolSpec> {
        let mut tools: Vec<ToolSpec> = self
            .listed("tools/list", "tools", "name")
            .into_iter()
            .filter_map(|item| tool(&item))
            .collect();
        for (params, response) in self.results("tools/call") {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                continue;
            };
            if !tools.iter().any(|t| t.name == name) {
                tools.push(ToolSpec::new(name));
            }
            let Some(tool) = tools.iter_mut().find(|t| t.name == name) else {
                continue;
            };
            let arguments = params
                .get("arguments")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new()));
            let when = Matcher::Arguments(arguments);
            if tool
                .responses
                .iter()
                .any(|r| r.when.as_ref() == Some(&when))
            {
                continue;
            }
            let mut answer = ResponseSpec {
                when: Some(when),
                ..ResponseSpec::default()
            };
            match response {
                RecordedResponse::Result(result) => answer.result = Some(fixed(result)),
                RecordedResponse::Error(error) => answer.fault = Some(fault(error)),
            }
            if tool.responses.is_empty()
                && let Some(result) = &answer.result
            {
                tool.template = result.clone();
            }
            tool.responses.push(answer);
        }
        tools
    }

    fn resources(&self) -> Vec<ResourceSpec> {
        let read: Vec<(&str, &Value)> = self
            .results("resources/read")
            .filter_map(|(params, response)| match response {
                RecordedResponse::Result(result) => Some((
                    params.get("uri")?.as_str()?,
                    result.get("contents")?.get(0)?,
                )),
                RecordedResponse::Error(_) => None,
            })
            .collect();
        let mut listed = self.listed("resources/list", "resources", "uri");
        for (uri, contents) in &read {
            if !listed
                .iter()
                .any(|item| item.get("uri").and_then(Value::as_str) == Some(uri))
            {
                let mut item = Map::new();
                item.insert("uri".into(), Value::String(uri.to_string()));
                item.insert("name".into(), Value::String(uri.to_string()));
                if let Some(mime) = contents.get("mimeType") {
                    item.insert("mimeType".into(), mime.clone());
                }
                listed.push(item);
            }
        }
        listed
            .into_iter()
            .filter_map(|item| {
                let uri = item.get("uri")?.as_str()?;
                let name = item.get("name").and_then(Value::as_str).unwrap_or(uri);
                let contents = read.iter().find(|(u, _)| u == &uri).map(|(_, c)| *c);
                let body = match contents {
                    Some(c) if c.get("blob").is_some() => ResourceBody::Blob {
                        blob: text(c, "blob").unwrap_or_default(),
                    },
                    Some(c) => ResourceBody::Text {
                        text: text(c, "text").unwrap_or_default(),
                    },
                    None => ResourceBody::Text {
                        text: String::new(),
                    },
                };
                let mut resource = ResourceSpec::new(uri, name, body);
                resource.title = text(&Value::Object(item.clone()), "title");
                resource.description = text(&Value::Object(item.clone()), "description");
                resource.mime_type = text(&Value::Object(item.clone()), "mimeType");
                resource.annotations = item.get("annotations").cloned();
                resource.icons = item.get("icons").cloned();
                resource.meta = item.get("_meta").cloned();
                Some(resource)
            })
            .collect()
    }

    fn prompts(&self) -> Vec<PromptSpec> {
        let mut prompts: Vec<PromptSpec> = self
            .listed("prompts/list", "prompts", "name")
            .into_iter()
            .filter_map(|item| {
                let item = Value::Object(item);
                let mut prompt = PromptSpec::new(text(&item, "name")?);
                prompt.title = text(&item, "title");
                prompt.description = text(&item, "description");
                prompt.arguments = item
                    .get("arguments")
                    .and_then(|a| serde_json::from_value::<Vec<PromptArgumentSpec>>(a.clone()).ok())
                    .unwrap_or_default();
                prompt.icons = item.get("icons").cloned();
                prompt.meta = item.get("_meta").cloned();
                Some(prompt)
            })
            .collect();
        for (params, response) in self.results("prompts/get") {
            let (Some(name), RecordedResponse::Result(result)) =
                (params.get("name").and_then(Value::as_str), response)
            else {
                continue;
            };
            if !prompts.iter().any(|p| p.name == name) {
                prompts.push(PromptSpec::new(name));
            }
            if let (Some(prompt), Some(messages)) = (
                prompts.iter_mut().find(|p| p.name == name),
                result.get("messages"),
            ) && prompt.template == crate::spec::default_prompt_template()
            {
                prompt.template = escape(messages);
            }
        }
        prompts
    }
}

fn text(value: &Value, member: &str) -> Option<String> {
    value.get(member)?.as_str().map(str::to_string)
}

/// A tool from its `tools/list` entry.
fn tool(item: &Map<String, Value>) -> Option<ToolSpec> {
    let item = Value::Object(item.clone());
    let mut tool = ToolSpec::new(text(&item, "name")?);
    tool.title = text(&item, "title");
    tool.description = text(&item, "description");
    if let Some(schema) = item.get("inputSchema") {
        tool.input_schema = schema.clone();
    }
    tool.output_schema = item.get("outputSchema").cloned();
    tool.annotations = item
        .get("annotations")
        .and_then(|a| serde_json::from_value::<ToolAnnotations>(a.clone()).ok())
        .unwrap_or_default();
    tool.icons = item.get("icons").cloned();
    tool.meta = item.get("_meta").cloned();
    Some(tool)
}

/// A recorded result as a fixed template: what the server adds by itself left out, and
/// escaped for json-e.
fn fixed(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(object) = result.as_object_mut() {
        for member in ADDED_BY_THE_SERVER {
            object.shift_remove(member);
        }
        if let Some(meta) = object.get_mut("_meta").and_then(Value::as_object_mut) {
            meta.shift_remove("io.modelcontextprotocol/serverInfo");
            if meta.is_empty() {
                object.shift_remove("_meta");
            }
        }
    }
    escape(&result)
}

fn fault(error: &Value) -> Fault {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(-32603);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let fault = Fault::error(code, message);
    match error.get("data") {
        Some(data) => fault.with_data(data.clone()),
        None => fault,
    }
}

/// json-e renders `$${` as `${` and a `$$key` member as `$key`: what a recorded value says
/// is then never evaluated.
fn escape(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace("${", "$${")),
        Value::Array(items) => Value::Array(items.iter().map(escape).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, member)| {
                    let key = if key.starts_with('$') {
                        format!("${key}")
                    } else {
                        key.clone()
                    };
                    (key, escape(member))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}
