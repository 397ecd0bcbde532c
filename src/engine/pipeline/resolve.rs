//! The resolve stage: what a request names, looked up once, before anything decides about
//! it. A `tools/call` becomes a [`Call`] (its tool, its arguments read by one rule, and,
//! once the session is known, whether it becomes a task); a `prompts/get` or a templated
//! `resources/read` carries the prompt or template whose script may talk. Admission (the
//! 2026-07-28 checks), the plan, the run stage and the handler all read this value; none of
//! them looks the name up again.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::engine::Engine;
use crate::engine::capture::Recorder;
use crate::engine::methods::tools::Call;
use crate::engine::methods::{resources, tasks, unknown};
use crate::engine::protocol::jsonrpc::{RpcError, member};
use crate::engine::protocol::method::Method;
use crate::engine::state::session::Session;
use crate::spec::{PromptSpec, ResourceTemplateSpec, Step, ToolSpec};

/// A request recorded and admitted, with the session that answers it and what it names,
/// resolved once.
#[derive(Debug)]
pub(crate) struct Received {
    pub(crate) session: Arc<Session>,
    pub(crate) id: Value,
    pub(crate) method: String,
    pub(crate) params: Value,
    pub(crate) record: Recorder,
    pub(crate) target: Target,
}

impl Received {
    /// A request of `session`; `target` is what its method and params name
    /// ([`Target::of`]), to which the session adds whether a call becomes a task.
    pub(crate) fn new(
        engine: &Engine,
        session: Arc<Session>,
        record: Recorder,
        (id, method, params): (Value, String, Value),
        mut target: Target,
    ) -> Self {
        target.decide_task(engine, &session, &params);
        Received {
            session,
            id,
            method,
            params,
            record,
            target,
        }
    }
}

/// What one request names.
#[derive(Debug, Default)]
pub(crate) enum Target {
    /// A `tools/call` (boxed: each of its parts may hold an error to answer with).
    Call(Box<Call>),
    /// A `prompts/get` of a served prompt.
    Prompt(Arc<PromptSpec>),
    /// A `resources/read` of a URI that only a template serves.
    Template(Arc<ResourceTemplateSpec>),
    /// Any other request, one that names nothing served, or any request of a server that
    /// replays a cassette (the recording answers, not the catalog).
    #[default]
    Nothing,
}

impl Target {
    /// Looks up what `method` with `params` names.
    pub(crate) fn of(engine: &Engine, method: Option<Method>, params: &Value) -> Target {
        if engine.replay().is_some() {
            return Target::Nothing;
        }
        let text = |key: &str| member(params, key).and_then(Value::as_str);
        match method {
            Some(Method::ToolsCall) => Target::Call(Box::new(Call {
                tool: tool(engine, text("name")),
                arguments: arguments(params),
                task: Ok(None),
            })),
            Some(Method::PromptsGet) => text("name")
                .and_then(|name| engine.catalog.prompts.get(name))
                .map_or(Target::Nothing, Target::Prompt),
            Some(Method::ResourcesRead) => text("uri")
                .and_then(|uri| resources::template_for(engine, uri))
                .map_or(Target::Nothing, Target::Template),
            _ => Target::Nothing,
        }
    }

    /// Decides, now that the session is known, whether a call becomes a task.
    pub(crate) fn decide_task(&mut self, engine: &Engine, session: &Session, params: &Value) {
        if let Target::Call(call) = self {
            if let Ok(tool) = &call.tool {
                call.task = tasks::wanted(engine, session, params, tool);
            }
        }
    }

    /// The call, for a `tools/call`.
    pub(crate) fn call(&self) -> Option<&Call> {
        match self {
            Target::Call(call) => Some(call),
            _ => None,
        }
    }

    /// The served tool a call names.
    pub(crate) fn tool(&self) -> Option<&Arc<ToolSpec>> {
        self.call()?.tool.as_ref().ok()
    }

    /// The steps that run while the request is answered (a task runs the rest later).
    pub(crate) fn script(&self) -> &[Step] {
        match self {
            Target::Call(call) => match (&call.tool, &call.task) {
                (Ok(tool), Ok(Some(_))) => &tool.script[..tasks::sync_prefix(tool)],
                (Ok(tool), _) => &tool.script,
                (Err(_), _) => &[],
            },
            Target::Prompt(prompt) => &prompt.script,
            Target::Template(template) => &template.script,
            _ => &[],
        }
    }
}

fn tool(engine: &Engine, name: Option<&str>) -> Result<Arc<ToolSpec>, RpcError> {
    let name = name.ok_or_else(|| {
        RpcError::invalid_params("tools/call: `params.name` must be a string naming a tool")
    })?;
    engine.catalog.tools.get(name).ok_or_else(|| {
        let mut error = unknown("tool", "name", name);
        // A draft, or a typo: say which, so the client's error shows the fix.
        if let Some(miss) = engine.tool_miss(name) {
            error.message = format!("{}: {miss}", error.message);
        }
        error
    })
}

/// `params.arguments` by the one rule: absent or `null` is `{}`, an object is itself,
/// anything else is refused.
fn read_arguments(params: &Value) -> Result<Option<&Value>, RpcError> {
    match member(params, "arguments") {
        None | Some(Value::Null) => Ok(None),
        Some(args @ Value::Object(_)) => Ok(Some(args)),
        Some(other) => Err(RpcError::invalid_params(format!(
            "tools/call: `params.arguments` must be an object, got {}",
            crate::error::json_type(other)
        ))),
    }
}

fn arguments(params: &Value) -> Result<Value, RpcError> {
    read_arguments(params).map(|args| args.cloned().unwrap_or_else(|| Value::Object(Map::new())))
}

/// The arguments as the matchers of fault rules and responses read them: `{}` when there
/// are none, or when the call is refused for them.
pub(crate) fn matched(params: &Value) -> &Value {
    read_arguments(params).ok().flatten().unwrap_or(&EMPTY)
}

static EMPTY: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| Value::Object(Map::new()));
