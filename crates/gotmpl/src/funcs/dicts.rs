//! Sprig / kube-compare functions: dicts.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
