//! Sprig / kube-compare functions: semver.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
