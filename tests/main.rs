//! End-to-end tests: the `driftlint` binary driven as a user drives it.

mod cli;
#[path = "support/env.rs"]
mod support;
#[path = "support/tests.rs"]
mod support_tests;
