//! Sprig / kube-compare functions: date.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
