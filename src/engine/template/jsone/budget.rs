//! What one render may spend. json-e has loops (`$map`, `$reduce`, `range`) and string
//! building, so a short template can ask for unbounded time and memory; every step and every
//! byte of output is charged here, and the render stops with a [`Kind::Limit`] error when the
//! budget runs out or its deadline passes.
//!
//! [`Kind::Limit`]: super::Kind::Limit

use std::time::{Duration, Instant};

use super::error::Error;

/// Bytes charged for one array element or object entry beyond its own content.
pub(crate) const ENTRY_BYTES: usize = 32;

/// The limits of one render.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    /// Evaluation steps: one per template node, expression node, loop iteration or copied
    /// value.
    pub(crate) steps: u64,
    /// Bytes of values built (strings, array and object entries), counted as they are made.
    pub(crate) bytes: usize,
    /// Wall-clock time for the whole render; it also bounds how long a render can hold up
    /// a server's shutdown.
    pub(crate) time: Duration,
}

/// Defaults: a template a person writes renders in microseconds with a few hundred steps;
/// these stop only runaway loops, after about 100 ms of work in a release build.
pub(crate) const DEFAULT_STEPS: u64 = 1_000_000;
pub(crate) const DEFAULT_BYTES: usize = 16 * 1024 * 1024;
pub(crate) const DEFAULT_TIME: Duration = Duration::from_secs(1);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: DEFAULT_STEPS,
            bytes: DEFAULT_BYTES,
            time: DEFAULT_TIME,
        }
    }
}

/// The budget left during one render.
pub(crate) struct Budget<'l> {
    limits: &'l Limits,
    steps: u64,
    bytes: usize,
    deadline: Instant,
}

/// How many steps pass between clock checks.
const CHECK_EVERY: u64 = 4096;

impl<'l> Budget<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Budget {
            limits,
            steps: 0,
            bytes: 0,
            deadline: Instant::now() + limits.time,
        }
    }

    /// The steps and bytes charged so far.
    #[cfg(test)]
    pub(crate) fn spent(&self) -> (u64, usize) {
        (self.steps, self.bytes)
    }

    /// Charges `n` steps.
    pub(crate) fn step(&mut self, n: u64) -> Result<(), Error> {
        let before = self.steps;
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limits.steps {
            return Err(Error::limit(format!(
                "the render took more than {} steps",
                self.limits.steps
            )));
        }
        if before / CHECK_EVERY != self.steps / CHECK_EVERY {
            self.check_clock()?;
        }
        Ok(())
    }

    /// Charges `n` bytes of built values.
    pub(crate) fn alloc(&mut self, n: usize) -> Result<(), Error> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.bytes {
            return Err(Error::limit(format!(
                "the render built more than {} bytes of values",
                self.limits.bytes
            )));
        }
        Ok(())
    }

    fn check_clock(&self) -> Result<(), Error> {
        if Instant::now() > self.deadline {
            return Err(Error::limit(format!(
                "the render took longer than {} ms",
                self.limits.time.as_millis()
            )));
        }
        Ok(())
    }
}
