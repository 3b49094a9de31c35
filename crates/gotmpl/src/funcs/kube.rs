//! Sprig / kube-compare functions: kube.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
