//! The run-wide template budget: weighted steps and wall time shared by every execution that
//! holds the same [`Budget`] (through [`crate::Limits::budget`]), across threads.
//!
//! Per-execution limits ([`crate::Limits::fuel`], output size, depth) stop one runaway render;
//! they do not stop a reference whose every render is merely expensive, run once per object
//! (ten objects × three seconds each). A budget is created once per run and shared by all of
//! its renders, so the whole run's template work is bounded however many renders there are.
//!
//! Steps are weighted: a node or a range iteration costs one, a function costs what it does
//! (key generation and password hashing a lot, list and string building per element or byte;
//! see [`crate::funcs::cost`]). Executions take steps from the shared counter in chunks, so the
//! atomic is touched rarely; what an execution took and did not use goes back when it ends.
//!
//! Time is the time spent executing templates, summed over the executions (and so over
//! threads), not the time since the run began: reading a large input before the first render
//! must not eat the templates' allowance. Each execution adds its elapsed time whenever it
//! takes a chunk and when it ends; the total is checked at each chunk.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Weighted steps of a default budget: about five seconds of the most expensive work (one
/// step is roughly ten nanoseconds of evaluation; see `funcs::cost`).
pub const DEFAULT_STEPS: u64 = 500_000_000;
/// Template execution time of a default budget, summed over executions: a backstop for work
/// no weight foresaw.
pub const DEFAULT_WALL: Duration = Duration::from_secs(30);

/// Steps an execution takes from the shared counter at a time.
pub(crate) const CHUNK: u64 = 4_096;

/// A budget shared by every execution of a run. Cloning shares it.
#[derive(Clone)]
pub struct Budget(Arc<Shared>);

struct Shared {
    remaining: AtomicU64,
    granted: AtomicU64,
    /// Execution time so far, in nanoseconds, summed over executions.
    spent_nanos: AtomicU64,
    wall: Duration,
}

/// Which part of the budget ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exhausted {
    Steps(u64),
    Time(Duration),
}

impl std::fmt::Display for Exhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exhausted::Steps(n) => write!(
                f,
                "template execution exceeded the run's budget of {n} weighted steps, shared by every template \
                 execution of this run (expensive functions such as key generation weigh more)"
            ),
            Exhausted::Time(d) => write!(
                f,
                "template execution exceeded the run's time budget of {} s, shared by every template execution \
                 of this run (summed over executions)",
                d.as_secs_f64()
            ),
        }
    }
}

impl Budget {
    /// A budget of `steps` weighted steps and `wall` of template execution time.
    pub fn new(steps: u64, wall: Duration) -> Budget {
        Budget(Arc::new(Shared {
            remaining: AtomicU64::new(steps),
            granted: AtomicU64::new(steps),
            spent_nanos: AtomicU64::new(0),
            wall,
        }))
    }

    /// Adds `steps` to the budget (a caller that scales the budget with its input).
    pub fn grant(&self, steps: u64) {
        self.0.granted.fetch_add(steps, Ordering::Relaxed);
        self.0.remaining.fetch_add(steps, Ordering::Relaxed);
    }

    /// Steps not yet taken by any execution (steps held by running executions excluded).
    pub fn remaining(&self) -> u64 {
        self.0.remaining.load(Ordering::Relaxed)
    }

    /// Steps used so far (held by running executions included).
    pub fn used(&self) -> u64 {
        self.0.granted.load(Ordering::Relaxed).saturating_sub(self.remaining())
    }

    /// Execution time spent so far, summed over executions.
    pub fn spent(&self) -> Duration {
        Duration::from_nanos(self.0.spent_nanos.load(Ordering::Relaxed))
    }

    /// Records `elapsed` execution time, then takes at least `need` steps (up to `want`, when
    /// there are that many) from the shared counter; an error once the steps or the time are
    /// gone.
    pub(crate) fn take(&self, need: u64, want: u64, elapsed: Duration) -> Result<u64, Exhausted> {
        self.record(elapsed)?;
        let mut taken = 0;
        self.0
            .remaining
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                taken = if r >= want.max(need) { want.max(need) } else { r };
                (taken >= need).then_some(r - taken)
            })
            .map(|_| taken)
            .map_err(|_| Exhausted::Steps(self.0.granted.load(Ordering::Relaxed)))
    }

    /// Gives back steps an execution took and did not use, and records its last `elapsed`.
    pub(crate) fn give_back(&self, steps: u64, elapsed: Duration) {
        if steps > 0 {
            self.0.remaining.fetch_add(steps, Ordering::Relaxed);
        }
        let _ = self.record(elapsed);
    }

    fn record(&self, elapsed: Duration) -> Result<(), Exhausted> {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let total = self.0.spent_nanos.fetch_add(nanos, Ordering::Relaxed).saturating_add(nanos);
        if u128::from(total) > self.0.wall.as_nanos() { Err(Exhausted::Time(self.0.wall)) } else { Ok(()) }
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(DEFAULT_STEPS, DEFAULT_WALL)
    }
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget").field("remaining", &self.remaining()).field("wall", &self.0.wall).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_shared_taken_and_given_back() {
        let z = Duration::ZERO;
        let b = Budget::new(100, DEFAULT_WALL);
        let c = b.clone();
        assert_eq!(b.take(10, 60, z).unwrap(), 60);
        assert_eq!(c.remaining(), 40);
        // Fewer than wanted but at least what is needed: all that is left.
        assert_eq!(c.take(30, 60, z).unwrap(), 40);
        assert_eq!(b.take(1, 1, z), Err(Exhausted::Steps(100)));
        b.give_back(25, z);
        assert_eq!(b.used(), 75);
        b.grant(10);
        assert_eq!(c.take(35, 35, z).unwrap(), 35);
    }

    #[test]
    fn execution_time_is_summed_over_executions() {
        let b = Budget::new(u64::MAX / 2, Duration::from_secs(10));
        let c = b.clone();
        assert!(b.take(1, 1, Duration::from_secs(4)).is_ok());
        c.give_back(0, Duration::from_secs(5));
        assert_eq!(b.spent(), Duration::from_secs(9));
        assert_eq!(c.take(1, 1, Duration::from_secs(2)), Err(Exhausted::Time(Duration::from_secs(10))));
        assert!(Exhausted::Time(Duration::from_secs(30)).to_string().contains("time budget of 30 s"));
    }
}
