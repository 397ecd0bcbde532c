//! A script's steps and a tool's task settings: what no call can fix, checked before a
//! server runs them (step templates that do not parse, progress that does not grow, a TTL
//! or poll interval out of range, asking first without an `ask`).

use serde_json::Value;

use crate::engine::template;
use crate::error::{Error, ItemKind};
use crate::spec::{MAX_TASK_MS, Step, ToolSpec};

/// A tool's task settings: TTL and poll interval in range, and asking first only with an
/// `ask` to ask.
pub(crate) fn task(spec: &ToolSpec) -> Result<(), Error> {
    let Some(task) = &spec.task else {
        return Ok(());
    };
    let invalid = |field: &'static str, reason: String| Error::Invalid {
        kind: ItemKind::Tool,
        name: spec.name.clone(),
        field,
        reason,
    };
    if let Some(ttl) = task.ttl_ms.filter(|ttl| *ttl == 0 || *ttl > MAX_TASK_MS) {
        return Err(invalid(
            "task.ttlMs",
            format!("is {ttl}; it must be 1 to {MAX_TASK_MS} milliseconds, or null for unlimited"),
        ));
    }
    if task.poll_interval_ms == 0 || task.poll_interval_ms > MAX_TASK_MS {
        return Err(invalid(
            "task.pollIntervalMs",
            format!(
                "is {}; it must be 1 to {MAX_TASK_MS} milliseconds",
                task.poll_interval_ms
            ),
        ));
    }
    if task.ask_first && !matches!(spec.script.first(), Some(Step::Ask { .. })) {
        return Err(invalid(
            "task.askFirst",
            "is set, but the script does not start with an `ask` step".into(),
        ));
    }
    Ok(())
}

/// Step templates parse, and progress grows from step to step (basic/utilities/progress:
/// "The `progress` value MUST increase with each notification"); the reason names the step.
pub(crate) fn steps(script: &[Step]) -> Result<(), String> {
    steps_with(script, &serde_json::json!({ "args": {}, "answers": {} }))
}

/// [`steps`] for templates that see `context` (a resource template's `{uri, vars, answers}`).
pub(crate) fn steps_with(script: &[Step], context: &Value) -> Result<(), String> {
    let mut last_progress: Option<f64> = None;
    for (n, step) in script.iter().enumerate() {
        let templates: Vec<Value> = match step {
            Step::Progress {
                progress, message, ..
            } => {
                if !progress.is_finite() || last_progress.is_some_and(|last| *progress <= last) {
                    return Err(format!(
                        "step {n}: progress {progress} must be a finite number greater than the previous progress step's"
                    ));
                }
                last_progress = Some(*progress);
                message.iter().cloned().map(Value::String).collect()
            }
            Step::Log { data, logger, .. } => std::iter::once(data.clone())
                .chain(logger.iter().cloned().map(Value::String))
                .collect(),
            Step::Delay { .. } | Step::Notify { .. } => Vec::new(),
            Step::Ask { params, .. } => vec![params.clone()],
            Step::Wait { ms } => vec![ms.clone()],
            Step::Fail { message, data, .. } => std::iter::once(Value::String(message.clone()))
                .chain(data.iter().cloned())
                .collect(),
        };
        for template in templates {
            template::check_with(&template, context)
                .map_err(|reason| format!("step {n}: the template does not parse: {reason}"))?;
        }
    }
    Ok(())
}
