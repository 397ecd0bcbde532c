//! The tasks of one server (2025-11-25 `basic/utilities/tasks`, the 2026-07-28 tasks
//! extension): each task's fixed facts ([`TaskMeta`]), where its script stands and what
//! the client did with it ([`TaskState`]), and the store that keeps them.
//!
//! Bounded three ways: at most `max_tasks` tasks are kept (the oldest finished one is
//! forgotten first, and a new live task past the limit is refused); each task remembers at
//! most [`MAX_POLLS_KEPT`] poll times; and a finished task is charged in bytes to the pool of
//! finished tasks, which forgets the oldest past its budget (live tasks are never charged). A task's TTL runs on the server's clock; an expired task
//! stays in the store, answering "expired", until the limit pushes it out.
//!
//! State only: how a script advances is `methods::tasks`'s.

mod info;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime};

use serde_json::Value;
use tokio::sync::watch;

pub use info::{TaskInfo, TaskStatus};

use super::pool::{GiveUp, Holder, Key, Pool};
use crate::log::Era;
use crate::signal::Signal;
use crate::spec::{AskMethod, TaskFaults, ToolSpec};

/// Poll times kept per task; older ones are dropped (the count keeps counting).
pub(crate) const MAX_POLLS_KEPT: usize = 1_000;

/// What a task was created with; never changes.
#[derive(Debug)]
pub(crate) struct TaskMeta {
    pub(crate) era: Era,
    /// Who the creating request's credentials named; other principals cannot see the task.
    pub(crate) principal: Option<String>,
    /// The legacy session that created it (status notifications go there).
    pub(crate) session: Option<String>,
    /// The tool as it was when the call arrived: later edits do not change a running task.
    pub(crate) tool: Arc<ToolSpec>,
    /// The template that renders the result (a chosen response's, or the tool's).
    pub(crate) template: Value,
    pub(crate) created_at: SystemTime,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) poll_interval_ms: u64,
    pub(crate) faults: TaskFaults,
    /// The creating call's `_meta.progressToken` (valid for the task's whole life).
    pub(crate) progress_token: Option<Value>,
    /// The client capabilities the creating request declared (which `ask`s it can answer).
    pub(crate) capabilities: Value,
}

/// A request of an `ask` step that the client has yet to answer.
#[derive(Debug, Clone)]
pub(crate) struct Asked {
    pub(crate) key: String,
    pub(crate) method: AskMethod,
    pub(crate) params: Value,
    pub(crate) timeout_ms: u64,
    /// 2025-11-25: sent on a `tasks/result` stream, whose handler awaits the answer.
    pub(crate) sent: bool,
}

/// How a task ended, when it has.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ending {
    /// The result of the underlying request (an `isError` one included).
    Result(Value),
    /// The JSON-RPC error object the request ended with.
    Error(Value),
}

/// Where a task's script stands and what the client did with it.
#[derive(Debug)]
pub(crate) struct TaskState {
    pub(crate) status: TaskStatus,
    pub(crate) status_message: Option<String>,
    pub(crate) last_updated_at: SystemTime,
    pub(crate) ending: Option<Ending>,
    /// The next script step to run.
    pub(crate) cursor: usize,
    /// When (server clock) the script reached `cursor`: delays count from here.
    pub(crate) reached_at: SystemTime,
    /// `{args, answers}`, as the templates see them.
    pub(crate) context: Value,
    /// The round of `ask`s the client has not answered yet.
    pub(crate) pending: Vec<Asked>,
    /// Every key the task asked for, and the ones answered, in order.
    pub(crate) asked: Vec<String>,
    pub(crate) answered: Vec<String>,
    /// A fault made the task disappear.
    pub(crate) lost: bool,
    pub(crate) polls: VecDeque<SystemTime>,
    pub(crate) poll_count: u64,
    pub(crate) refused_polls: u64,
    pub(crate) cancel_requested: bool,
    /// The status the last status notification announced.
    pub(crate) announced: TaskStatus,
}

impl TaskState {
    /// Moves the task to `status` (a terminal one never changes: the spec's lifecycle).
    pub(crate) fn set_status(&mut self, status: TaskStatus, now: SystemTime) {
        if self.status.is_terminal() {
            return;
        }
        self.status = status;
        self.last_updated_at = now;
    }

    /// Ends the task with `ending` as `status`, unless it already ended.
    pub(crate) fn end(&mut self, status: TaskStatus, ending: Ending, now: SystemTime) {
        if self.status.is_terminal() {
            return;
        }
        self.pending.clear();
        self.ending = Some(ending);
        self.set_status(status, now);
    }

    /// Records one `tasks/get`; returns how long after the previous one it came.
    pub(crate) fn record_poll(&mut self, now: SystemTime) -> Option<Duration> {
        let since = self
            .polls
            .back()
            .map(|last| now.duration_since(*last).unwrap_or_default());
        if self.polls.len() >= MAX_POLLS_KEPT {
            self.polls.pop_front();
        }
        self.polls.push_back(now);
        self.poll_count = self.poll_count.saturating_add(1);
        since
    }
}

/// One task: its id, fixed facts and state.
#[derive(Debug)]
pub(crate) struct Task {
    pub(crate) id: String,
    pub(crate) meta: TaskMeta,
    /// Held while the script advances, so two requests never run the same step twice.
    pub(crate) driving: tokio::sync::Mutex<()>,
    state: Mutex<TaskState>,
}

impl Task {
    /// A new `working` task at the start of its script (or at `cursor`).
    pub(crate) fn new(meta: TaskMeta, context: Value, cursor: usize) -> Task {
        let created = meta.created_at;
        Task {
            id: new_task_id(),
            driving: tokio::sync::Mutex::new(()),
            state: Mutex::new(TaskState {
                status: TaskStatus::Working,
                status_message: None,
                last_updated_at: created,
                ending: None,
                cursor,
                reached_at: created,
                context,
                pending: Vec::new(),
                asked: Vec::new(),
                answered: Vec::new(),
                lost: false,
                polls: VecDeque::new(),
                poll_count: 0,
                refused_polls: 0,
                cancel_requested: false,
                announced: TaskStatus::Working,
            }),
            meta,
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, TaskState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// When the TTL ends, if it does.
    pub(crate) fn expires_at(&self) -> Option<SystemTime> {
        self.meta
            .ttl_ms
            .map(|ttl| self.meta.created_at + Duration::from_millis(ttl))
    }

    pub(crate) fn expired(&self, now: SystemTime) -> bool {
        self.expires_at().is_some_and(|at| now >= at)
    }

    /// Whether the task can still change: not ended, lost or expired.
    pub(crate) fn is_live(&self, now: SystemTime) -> bool {
        let state = self.state();
        !state.status.is_terminal() && !state.lost && !self.expired(now)
    }

    /// What tests and the app see of the task now.
    pub(crate) fn info(&self, now: SystemTime) -> TaskInfo {
        TaskInfo::of(self, &self.state(), now)
    }
}

/// 128 random bits as hex: a task id is the only key to a task on a server without
/// credentials, so it must not be guessable (2025-11-25 "Security Considerations").
fn new_task_id() -> String {
    crate::engine::random::hex_id()
}

/// Every task of one server.
#[derive(Debug)]
pub(crate) struct Tasks {
    kept: Arc<Kept>,
    max: usize,
    /// Bumped on every change (and when the clock moves), waking whoever waits on a task.
    changes: Signal,
    /// The background driver of this server's tasks (see `methods::tasks`), once started.
    ticker: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Tasks created since the ticker last looked: it watches only live tasks, so a store
    /// full of finished ones costs it nothing.
    created: Mutex<Vec<Arc<Task>>>,
    /// Where finished tasks are charged.
    pool: Arc<Pool>,
}

/// The kept tasks, the pool's holder.
#[derive(Debug, Default)]
struct Kept(Mutex<Inner>);

#[derive(Debug, Default)]
struct Inner {
    by_id: HashMap<String, Arc<Task>>,
    /// Creation order, for forgetting the oldest.
    order: VecDeque<Slot>,
    next_serial: u64,
}

/// A task's place in the creation order.
#[derive(Debug)]
struct Slot {
    /// Increasing with creation: the pool's key for the task.
    serial: u64,
    id: String,
    /// What the pool was charged once the task finished (0 before).
    bytes: usize,
}

impl Inner {
    fn position(&self, serial: u64) -> Option<usize> {
        self.order
            .binary_search_by_key(&serial, |slot| slot.serial)
            .ok()
    }
}

impl Kept {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Holder for Kept {
    fn give_up(&self, (serial, _): Key) -> GiveUp {
        let mut inner = self.inner();
        let Some(at) = inner.position(serial) else {
            return GiveUp::Gone;
        };
        if let Some(slot) = inner.order.remove(at) {
            inner.by_id.remove(&slot.id);
        }
        GiveUp::Freed
    }

    fn holds(&self, (serial, _): Key) -> bool {
        self.inner().position(serial).is_some()
    }
}

impl Tasks {
    pub(crate) fn new(max: usize, pool: Arc<Pool>) -> Self {
        Tasks {
            kept: Arc::default(),
            max: max.max(1),
            changes: Signal::default(),
            ticker: Mutex::default(),
            created: Mutex::default(),
            pool,
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.kept.inner()
    }

    /// Drops the slot at `at`, giving back what it was charged.
    fn forget(&self, inner: &mut Inner, at: usize) {
        if let Some(slot) = inner.order.remove(at) {
            inner.by_id.remove(&slot.id);
            if slot.bytes > 0 {
                self.pool.release(slot.bytes, true);
            }
        }
    }

    /// Charges a finished task to the pool, once; forgetting the oldest finished tasks
    /// when the pool is over budget.
    pub(crate) fn finished(&self, task: &Task) {
        let bytes = {
            let state = task.state();
            if !state.status.is_terminal() {
                return;
            }
            let ending = match &state.ending {
                Some(Ending::Result(v) | Ending::Error(v)) => crate::log::size::value(v),
                None => 0,
            };
            std::mem::size_of::<Task>()
                + ending
                + crate::log::size::value(&state.context)
                + crate::log::size::value(&task.meta.template)
                + state.polls.len() * std::mem::size_of::<SystemTime>()
        };
        let serial = {
            let mut inner = self.inner();
            let Some(slot) = inner
                .order
                .iter_mut()
                .rev()
                .find(|slot| slot.id == task.id && slot.bytes == 0)
            else {
                return;
            };
            slot.bytes = bytes;
            self.pool.charge(bytes);
            slot.serial
        };
        let kept: Weak<dyn Holder> = Arc::downgrade(&self.kept) as Weak<dyn Holder>;
        self.pool.track(kept, (serial, 0), bytes);
    }

    /// Keeps a new task. At the limit the oldest finished task is forgotten; when every
    /// kept task is live, the new one is refused with the reason.
    pub(crate) fn insert(&self, task: Arc<Task>, now: SystemTime) -> Result<(), String> {
        let mut inner = self.inner();
        if inner.by_id.len() >= self.max {
            let finished = inner
                .order
                .iter()
                .position(|slot| inner.by_id.get(&slot.id).is_none_or(|t| !t.is_live(now)));
            let Some(slot) = finished else {
                return Err(format!(
                    "this server already runs {} live tasks, its limit (max_tasks); let one finish or cancel it first",
                    self.max
                ));
            };
            self.forget(&mut inner, slot);
        }
        let serial = inner.next_serial;
        inner.next_serial += 1;
        inner.order.push_back(Slot {
            serial,
            id: task.id.clone(),
            bytes: 0,
        });
        inner.by_id.insert(task.id.clone(), task.clone());
        drop(inner);
        self.created
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(task);
        self.poke();
        Ok(())
    }

    /// The tasks created since the last call (the ticker's new work).
    pub(crate) fn take_created(&self) -> Vec<Arc<Task>> {
        std::mem::take(&mut *self.created.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Task>> {
        self.inner().by_id.get(id).cloned()
    }

    /// Every kept task, oldest first.
    pub(crate) fn all(&self) -> Vec<Arc<Task>> {
        let inner = self.inner();
        inner
            .order
            .iter()
            .filter_map(|slot| inner.by_id.get(&slot.id).cloned())
            .collect()
    }

    /// Wakes everyone waiting on a task: something changed, or the clock moved.
    pub(crate) fn poke(&self) {
        self.changes.notify();
    }

    /// A receiver that sees every [`poke`](Self::poke) from now on.
    pub(crate) fn subscribe(&self) -> watch::Receiver<()> {
        self.changes.subscribe()
    }

    /// Forgets every task (a restart).
    pub(crate) fn clear(&self) {
        let mut inner = self.inner();
        inner.by_id.clear();
        for slot in inner.order.drain(..) {
            if slot.bytes > 0 {
                self.pool.release(slot.bytes, false);
            }
        }
        drop(inner);
        self.take_created();
        self.poke();
    }

    /// Starts the background driver with `start` unless one is running (a restart stops
    /// the runtime it ran on, so it is started again on the new one).
    pub(crate) fn ensure_ticker(&self, start: impl FnOnce() -> tokio::task::JoinHandle<()>) {
        let mut ticker = self.ticker.lock().unwrap_or_else(|p| p.into_inner());
        if ticker
            .as_ref()
            .is_none_or(tokio::task::JoinHandle::is_finished)
        {
            *ticker = Some(start());
        }
    }
}

impl Drop for Tasks {
    fn drop(&mut self) {
        // The pool may outlive this server (the app's servers share one).
        for slot in self.inner().order.drain(..) {
            if slot.bytes > 0 {
                self.pool.release(slot.bytes, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(now: SystemTime) -> Arc<Task> {
        let meta = TaskMeta {
            era: Era::Modern,
            principal: None,
            session: None,
            tool: Arc::new(ToolSpec::new("t")),
            template: json!({}),
            created_at: now,
            ttl_ms: Some(1_000),
            poll_interval_ms: 100,
            faults: TaskFaults::default(),
            progress_token: None,
            capabilities: json!({}),
        };
        Arc::new(Task::new(meta, json!({ "args": {}, "answers": {} }), 0))
    }

    #[test]
    fn at_the_limit_the_oldest_finished_task_goes_and_live_ones_refuse_a_new_one() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let tasks = Tasks::new(2, Arc::new(Pool::new(usize::MAX)));
        let (a, b) = (task(now), task(now));
        tasks.insert(a.clone(), now).expect("first");
        tasks.insert(b.clone(), now).expect("second");
        let error = tasks.insert(task(now), now).expect_err("both live");
        assert!(error.contains("max_tasks"), "{error}");
        a.state()
            .end(TaskStatus::Completed, Ending::Result(json!({})), now);
        let c = task(now);
        tasks
            .insert(c.clone(), now)
            .expect("a finished one makes room");
        assert!(tasks.get(&a.id).is_none() && tasks.get(&c.id).is_some());
        // An expired task counts as finished too.
        let later = now + Duration::from_secs(2);
        tasks.insert(task(later), later).expect("b expired");
        assert!(tasks.get(&b.id).is_none());
    }

    #[test]
    fn a_terminal_status_never_changes_and_polls_are_bounded() {
        let now = SystemTime::UNIX_EPOCH;
        let t = task(now);
        let mut state = t.state();
        state.end(TaskStatus::Cancelled, Ending::Result(json!({})), now);
        state.set_status(TaskStatus::Working, now);
        state.end(TaskStatus::Completed, Ending::Result(json!({})), now);
        assert_eq!(state.status, TaskStatus::Cancelled);
        for n in 0..(MAX_POLLS_KEPT as u64 + 5) {
            state.record_poll(now + Duration::from_millis(n));
        }
        assert_eq!(state.polls.len(), MAX_POLLS_KEPT);
        assert_eq!(state.poll_count, MAX_POLLS_KEPT as u64 + 5);
        assert_ne!(t.id, task(now).id);
        assert_eq!(t.id.len(), 32);
    }
}
