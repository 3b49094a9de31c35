//! The names of the per-caller copies of built-ins that need to know who calls them, which
//! regorus' extensions do not: conftest's file built-ins get a copy per policy directory
//! ([`super::files`]), `rego.metadata.*` a copy per calling rule ([`super::metadata`]); the
//! calls are renamed before regorus compiles a module ([`super::rewrite`]). Messages name a
//! copy by its built-in's own name ([`public_name`]).
//!
//! Knows names only: nothing of files, annotations or syntax trees.

/// conftest's built-ins that read files relative to the calling policy, with their arity.
pub const FILE_BUILTINS: [(&str, u8); 2] = [("parse_config_file", 1), ("parse_combined_config_files", 1)];

/// OPA's annotation built-ins.
pub const METADATA_BUILTINS: [&str; 2] = ["rego.metadata.rule", "rego.metadata.chain"];

/// The copy of file built-in `base` for policy directory `dir`.
pub fn for_dir(base: &str, dir: usize) -> String {
    format!("{base}__f{dir}")
}

/// The copy of annotation built-in `base` for rule `rule` of module `module`.
pub fn for_rule(base: &str, module: usize, rule: usize) -> String {
    format!("{base}__m{module}r{rule}")
}

/// The built-in a copy stands for (`parse_config_file__f2` is `parse_config_file`); any other
/// name as it is.
pub fn public_name(name: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if let Some((base, n)) = name.rsplit_once("__f")
        && digits(n)
        && FILE_BUILTINS.iter().any(|(b, _)| *b == base)
    {
        return base;
    }
    if let Some((base, tag)) = name.rsplit_once("__m")
        && let Some((m, r)) = tag.split_once('r')
        && digits(m)
        && digits(r)
        && METADATA_BUILTINS.contains(&base)
    {
        return base;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_named_by_their_builtin() {
        assert_eq!(public_name(&for_dir("parse_config_file", 3)), "parse_config_file");
        assert_eq!(public_name(&for_rule("rego.metadata.chain", 0, 12)), "rego.metadata.chain");
        assert_eq!(public_name("my__f1"), "my__f1");
        assert_eq!(public_name("count"), "count");
    }
}
