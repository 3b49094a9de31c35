//! What a policy is before it is compiled: a module's path and text, and the Rego version it
//! is read as.

/// A policy module: its display path and text.
#[derive(Clone, Debug)]
pub struct Module {
    pub path: String,
    pub text: String,
}

/// The Rego syntax modules are read as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RegoVersion {
    /// OPA 0.x: `if`/`contains`/`in`/`every` only with `import future.keywords` or `rego.v1`.
    V0,
    /// OPA 1.x (the default): the keywords always, `if` before every body.
    #[default]
    V1,
}

impl RegoVersion {
    /// `v0` or `v1` (also `0`/`1`).
    pub fn parse(text: &str) -> Option<RegoVersion> {
        match text {
            "v0" | "0" => Some(RegoVersion::V0),
            "v1" | "1" => Some(RegoVersion::V1),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RegoVersion::V0 => "v0",
            RegoVersion::V1 => "v1",
        }
    }
}
