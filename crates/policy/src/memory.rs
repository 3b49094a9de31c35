//! A memory ceiling for policy evaluation. regorus bounds time, but a rule that doubles a
//! value a few dozen times (`x := array.concat(y, y)` in a chain) allocates gigabytes between
//! two time checks, and regorus' own memory limits need its allocator as the program's global
//! allocator (which costs the comparison engine several times its memory). So one watchdog
//! thread samples the process's resident memory while queries run, and stops the run with a
//! clear error naming the query when it grew by more than [`LIMIT`] since the first query.
//! Linux only (it reads `/proc/self/statm`); elsewhere only the time limit applies.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How much the resident memory may grow while policies are evaluated.
pub const LIMIT: u64 = 1 << 30;
/// How often it is sampled.
const INTERVAL: Duration = Duration::from_millis(10);

/// Queries running now, and the last one started (for the message).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static CURRENT: Mutex<String> = Mutex::new(String::new());
static WATCHDOG: OnceLock<()> = OnceLock::new();

/// Keeps the watchdog looking while it lives: one per query.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Marks `query` of the policies in `files` as running (named in the message).
pub fn watch(query: &str, files: &str) -> Guard {
    WATCHDOG.get_or_init(start);
    if let Ok(mut current) = CURRENT.lock() {
        current.clear();
        for part in ["`", query, "` (", files, ")"] {
            current.push_str(part);
        }
    }
    ACTIVE.fetch_add(1, Ordering::Relaxed);
    Guard
}

/// The resident memory of this process in bytes, when the system says.
fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn start() {
    let Some(baseline) = resident() else { return };
    let spawned = std::thread::Builder::new().name("policy-memory".into()).spawn(move || {
        loop {
            std::thread::sleep(INTERVAL);
            if ACTIVE.load(Ordering::Relaxed) == 0 {
                continue;
            }
            if let Some(now) = resident()
                && now > baseline + LIMIT
            {
                let what = CURRENT.lock().map(|c| c.clone()).unwrap_or_default();
                eprintln!(
                    "error: policy evaluation of {} used more than {} MiB of memory; stopped (a policy that builds huge values)",
                    driftlint_core::escape::text(&what),
                    LIMIT >> 20
                );
                std::process::exit(2);
            }
        }
    });
    // Without the thread, only the time limit applies.
    drop(spawned);
}
