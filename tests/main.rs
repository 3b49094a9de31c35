//! End-to-end tests: the `driftlint` binary driven as a user drives it.

mod cli;
