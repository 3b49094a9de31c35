//! The drift pass's findings: the engine's results for each object as located diagnostics —
//! value drift, missing and unexpected fields, missing and unmatched objects, group rules —
//! at the manifest line ([`driftlint_core::locate`]) and the template line ([`locate`]), plus
//! the reference's own problems, and the fixes ([`fix`]) where the reference fixes a value. The `check` runner (root crate) decides which objects and
//! which reference; this module decides *what* is reported and *where*.

pub mod correlations;
pub mod findings;
pub mod fix;
pub mod locate;
