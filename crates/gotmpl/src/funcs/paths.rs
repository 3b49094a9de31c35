//! Sprig / kube-compare functions: paths.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
