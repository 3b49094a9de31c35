//! Sprig / kube-compare functions: defaults.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
