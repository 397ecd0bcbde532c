//! What a server declares of itself: its `capabilities` and its `serverInfo`. Typed, so the
//! `initialize` answer writes them straight to JSON text (the capabilities once per process);
//! the other places that want them as values (`server/discover`, modern results, the manifest)
//! convert them.

use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::Engine;
use crate::log::write_str;
use crate::spec::ProtocolVersion;

/// `{}`: a capability with no options.
#[derive(Debug, Serialize)]
pub(crate) struct Empty {}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListChanged {
    list_changed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Subscribable {
    subscribe: bool,
    list_changed: bool,
}

/// 2025-11-25 `tasks`: listing, cancelling and task-augmented `tools/call`.
#[derive(Debug, Serialize)]
pub(crate) struct Tasks {
    list: Empty,
    cancel: Empty,
    requests: TaskRequests,
}

#[derive(Debug, Serialize)]
pub(crate) struct TaskRequests {
    tools: TaskTools,
}

#[derive(Debug, Serialize)]
pub(crate) struct TaskTools {
    call: Empty,
}

/// `capabilities`, members in the order they have always been written.
#[derive(Debug, Serialize)]
pub(crate) struct Capabilities {
    tools: ListChanged,
    logging: Empty,
    completions: Empty,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Subscribable>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts: Option<ListChanged>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tasks: Option<Tasks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<Extensions>,
}

/// `extensions` (SEP-2133): the skills extension, declared in both eras (the tasks
/// extension joins it in `server/discover`).
#[derive(Debug, Serialize)]
pub(crate) struct Extensions {
    #[serde(rename = "io.modelcontextprotocol/skills")]
    skills: SkillsSettings,
}

/// The skills extension's settings: `{}`, or its optional directory reads.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SkillsSettings {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    directory_read: bool,
}

/// `serverInfo` (spec `Implementation`): the configured one, or the one a replayed cassette
/// recorded.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub(crate) enum ServerInfo<'a> {
    Configured {
        name: &'a str,
        version: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        title: Option<&'a str>,
    },
    Recorded(&'a Value),
}

impl ServerInfo<'_> {
    /// Writes this as JSON text, as `serde_json` would (`lifecycle`'s tests hold the two
    /// equal), without escaping names that need none.
    pub(crate) fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            ServerInfo::Configured {
                name,
                version,
                title,
            } => {
                out.extend_from_slice(br#"{"name":"#);
                write_str(out, name);
                out.extend_from_slice(br#","version":"#);
                write_str(out, version);
                if let Some(title) = title {
                    out.extend_from_slice(br#","title":"#);
                    write_str(out, title);
                }
                out.push(b'}');
                Ok(())
            }
            ServerInfo::Recorded(value) => serde_json::to_writer(out, value),
        }
    }
}

impl Engine {
    /// `capabilities`: what the configuration serves. Resources and prompts are declared
    /// when the server has some (server/index: capabilities must match what is served);
    /// logging and completions always are. A 2025-11-25 `initialize` (`legacy`) also
    /// declares `tasks` when a tool can run as a task (2025-11-25 `basic/utilities/tasks`,
    /// "Server Capabilities"). As JSON text, for `initialize` ([`CAPABILITIES`]).
    pub(crate) fn declared_text(&self, legacy: ProtocolVersion) -> &'static RawValue {
        let declares = Declares::of(self, Some(legacy));
        CAPABILITIES[declares.index()].get_or_init(|| raw(&declares.capabilities()))
    }

    /// For a modern request or the manifest, as a value.
    pub(crate) fn capabilities(&self) -> Value {
        to_value(&Declares::of(self, None).capabilities())
    }

    /// `serverInfo`.
    pub(crate) fn identity(&self) -> ServerInfo<'_> {
        if let Some(info) = self.replay().and_then(|p| p.cassette().server_info()) {
            return ServerInfo::Recorded(info);
        }
        ServerInfo::Configured {
            name: &self.spec.name,
            version: &self.spec.version,
            title: self.spec.title.as_deref(),
        }
    }

    /// [`identity`](Self::identity) as a value.
    pub(crate) fn server_info(&self) -> Value {
        to_value(&self.identity())
    }
}

/// `capabilities` as JSON text, one per set of optional capabilities ([`Declares::index`]),
/// written once per process: every `initialize` answer escaped the same constant names
/// again, which a debug build does a byte at a time.
static CAPABILITIES: [OnceLock<Box<RawValue>>; 32] = [const { OnceLock::new() }; 32];

/// Which optional capabilities a server declares, read once so that a text and its index
/// agree.
#[derive(Debug, Clone, Copy)]
struct Declares {
    resources: bool,
    prompts: bool,
    tasks: bool,
    skills: bool,
    directory_read: bool,
}

impl Declares {
    fn of(engine: &Engine, legacy: Option<ProtocolVersion>) -> Declares {
        Declares {
            resources: engine.serves_resources(),
            prompts: engine.serves_prompts(),
            tasks: engine.serves_tasks() && legacy == Some(ProtocolVersion::V2025_11_25),
            skills: engine.skills().is_some(),
            directory_read: engine.skills().is_some() && engine.spec().skills_directory_read,
        }
    }

    fn index(self) -> usize {
        usize::from(self.resources)
            | usize::from(self.prompts) << 1
            | usize::from(self.tasks) << 2
            | usize::from(self.skills) << 3
            | usize::from(self.directory_read) << 4
    }

    fn capabilities(self) -> Capabilities {
        let listed = || ListChanged { list_changed: true };
        Capabilities {
            tools: listed(),
            logging: Empty {},
            completions: Empty {},
            resources: self.resources.then_some(Subscribable {
                subscribe: true,
                list_changed: true,
            }),
            prompts: self.prompts.then(listed),
            tasks: self.tasks.then_some(Tasks {
                list: Empty {},
                cancel: Empty {},
                requests: TaskRequests {
                    tools: TaskTools { call: Empty {} },
                },
            }),
            extensions: self.skills.then_some(Extensions {
                skills: SkillsSettings {
                    directory_read: self.directory_read,
                },
            }),
        }
    }
}

/// These types hold only strings, booleans and maps with string keys, which always convert.
fn to_value(declared: &impl Serialize) -> Value {
    serde_json::to_value(declared).unwrap_or_default()
}

/// As [`to_value`], to text.
fn raw(declared: &impl Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(declared).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use crate::spec::ServerSpec;

    #[test]
    fn each_set_of_capabilities_is_written_as_its_own_text() {
        let engine = Engine::for_tests(ServerSpec::new("texts"));
        let version = ProtocolVersion::V2025_11_25;
        for index in 0..8_usize {
            let (resources, prompts, tasks) = (index & 1 != 0, index & 2 != 0, index & 4 != 0);
            engine.serves_resources.store(resources, Ordering::Release);
            engine.serves_prompts.store(prompts, Ordering::Release);
            engine.serves_tasks.store(tasks, Ordering::Release);

            let text: Value =
                serde_json::from_str(engine.declared_text(version).get()).expect("JSON text");

            let typed = Declares::of(&engine, Some(version)).capabilities();
            assert_eq!(text, to_value(&typed), "{index}");
            assert_eq!(text.get("resources").is_some(), resources, "{text}");
            assert_eq!(text.get("prompts").is_some(), prompts, "{text}");
            assert_eq!(text.get("tasks").is_some(), tasks, "{text}");
        }
        // 2025-06-18 has no tasks: a server with a task tool declares none to it.
        let older: Value =
            serde_json::from_str(engine.declared_text(ProtocolVersion::V2025_06_18).get())
                .expect("JSON text");
        assert!(older.get("tasks").is_none(), "{older}");
    }
}
