//! Go RE2 patterns for the inline diff functions (§5.5): the Go-template engine's
//! translator and per-thread cache ([`driftlint_gotmpl::compile_go_regex_cached`], the one the
//! Sprig `regex*` functions use). Named groups keep Go's names per group index, duplicates
//! included (Go's `SubexpNames`), which `capturegroups` relies on.

pub use driftlint_gotmpl::funcs::regex::quote_meta;
pub use driftlint_gotmpl::{GoRegex, compile_go_regex as compile, compile_go_regex_cached as compile_cached};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_names_and_ascii_classes() {
        let r = compile(r"(?<a>\d+)-(?P<a>\w+)-(x)").unwrap();
        assert_eq!(r.names, vec![None, Some("a".into()), Some("a".into()), None]);
        assert!(r.re.is_match("12-ab-x"));
        assert!(!compile(r"\d").unwrap().re.is_match("٣"));
        assert!(compile(r"[[:alpha:]]+").unwrap().re.is_match("abc"));
    }

    #[test]
    fn go_errors() {
        assert_eq!(
            compile("(?<username[a-z0-9]+) x (?<username>").unwrap_err(),
            "error parsing regexp: invalid named capture: `(?<username[a-z0-9]+) x (?<username>`"
        );
        assert!(compile("(").unwrap_err().starts_with("error parsing regexp: "));
    }

    #[test]
    fn quote_meta_like_go() {
        assert_eq!(quote_meta("a.b*c [x]"), r"a\.b\*c \[x\]");
    }
}
