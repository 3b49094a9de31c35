//! Sprig / kube-compare functions: strings.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
