//! Sprig / kube-compare functions: lists.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
