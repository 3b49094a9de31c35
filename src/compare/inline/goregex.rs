//! Go RE2 patterns for the inline diff functions (§5.5): the Go-template engine's
//! translator ([`driftlint_gotmpl::compile_go_regex`], the one the Sprig `regex*` functions
//! use), behind a per-thread cache. Named groups keep Go's names per group index, duplicates
//! included (Go's `SubexpNames`), which `capturegroups` relies on.

pub use driftlint_gotmpl::GoRegex;
pub use driftlint_gotmpl::funcs::regex::quote_meta;

/// Patterns kept per thread by [`compile_cached`] before the cache starts over.
const CACHE_LIMIT: usize = 256;

thread_local! {
    static CACHE: std::cell::RefCell<std::collections::HashMap<String, std::rc::Rc<Result<GoRegex, String>>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Compiles a Go pattern. The error is Go's text, `error parsing regexp: …`.
pub fn compile(pat: &str) -> Result<GoRegex, String> {
    driftlint_gotmpl::compile_go_regex(pat)
}

/// [`compile`], remembered per thread: a template's `regex` pattern is the same for every CR
/// it is compared with, and compiling it dominated the inline step.
pub fn compile_cached(pat: &str) -> std::rc::Rc<Result<GoRegex, String>> {
    CACHE.with(|cache| {
        if let Some(hit) = cache.borrow().get(pat) {
            return hit.clone();
        }
        let compiled = std::rc::Rc::new(compile(pat));
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(pat.to_owned(), compiled.clone());
        compiled
    })
}

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
