//! Sprig / kube-compare functions: regex.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
