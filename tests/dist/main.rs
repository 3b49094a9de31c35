//! Distribution tests: the pre-commit hooks of `.pre-commit-hooks.yaml` run by the real
//! `pre-commit`, and the composite action of `action.yml` run step by step with a fake GitHub
//! runner environment.

mod action;
mod editors;
mod fixture;
mod precommit;
mod readme;
mod runner;
mod toolchain;
