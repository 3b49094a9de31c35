//! Sprig / kube-compare functions: encoding.

use super::Registry;

pub(super) fn register(_r: &mut Registry) {}
