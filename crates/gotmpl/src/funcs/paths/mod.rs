//! Sprig's path and URL functions: `base dir clean ext isAbs` (Go's `path`), their `os*`
//! twins (`path/filepath`, which on Linux computes exactly the same results), and
//! `urlParse`/`urlJoin` over a port of the parts of Go's `net/url` they use ([`url`]).

mod url;

use super::args::str_arg;
use super::{Param, Registry};
use crate::value::Value;

const S: Param = Param::String;

pub(super) fn register(r: &mut Registry) {
    for (go, os) in [("base", "osBase"), ("dir", "osDir"), ("clean", "osClean"), ("ext", "osExt")] {
        let f: super::FuncImpl = match go {
            "base" => |_, a| Ok(Value::str(base(str_arg(a, 0)))),
            "dir" => |_, a| Ok(Value::str(dir(str_arg(a, 0)))),
            "clean" => |_, a| Ok(Value::str(clean(str_arg(a, 0)))),
            _ => |_, a| Ok(Value::str(ext(str_arg(a, 0)))),
        };
        r.add(go, &[S], None, f);
        r.add(os, &[S], None, f);
    }
    r.add("isAbs", &[S], None, |_, a| Ok(Value::Bool(str_arg(a, 0).starts_with('/'))));
    r.add("osIsAbs", &[S], None, |_, a| Ok(Value::Bool(str_arg(a, 0).starts_with('/'))));
    r.add("urlParse", &[S], None, url::url_parse);
    r.add("urlJoin", &[Param::Map], None, url::url_join);
}

/// `path.Base`: the last element, trailing slashes removed; `"."` for empty, `"/"` for root.
pub(super) fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let p = p.trim_end_matches('/');
    let p = match p.rfind('/') {
        Some(i) => &p[i + 1..],
        None => p,
    };
    if p.is_empty() { "/".into() } else { p.into() }
}

/// `path.Dir`: everything before the last element, cleaned.
pub(super) fn dir(p: &str) -> String {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..i])
}

/// `path.Ext`: from the last dot of the last element.
pub(super) fn ext(p: &str) -> String {
    for (i, b) in p.bytes().enumerate().rev() {
        if b == b'/' {
            break;
        }
        if b == b'.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

/// `path.Clean`: lexical processing of `.`, `..` and repeated slashes (Pike's rules).
pub(super) fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let b = p.as_bytes();
    let n = b.len();
    let rooted = b[0] == b'/';
    let mut out: Vec<u8> = Vec::with_capacity(n);
    let (mut r, mut dotdot) = (0usize, 0usize);
    if rooted {
        out.push(b'/');
        r = 1;
        dotdot = 1;
    }
    while r < n {
        if b[r] == b'/' || (b[r] == b'.' && (r + 1 == n || b[r + 1] == b'/')) {
            // An empty or `.` element.
            r += 1;
        } else if b[r] == b'.' && b[r + 1] == b'.' && (r + 2 == n || b[r + 2] == b'/') {
            r += 2;
            if out.len() > dotdot {
                out.pop();
                while out.len() > dotdot && out.last() != Some(&b'/') {
                    out.pop();
                }
                if out.len() > dotdot {
                    // Drop the separator before the removed element too.
                    out.pop();
                }
            } else if !rooted {
                if !out.is_empty() {
                    out.push(b'/');
                }
                out.extend_from_slice(b"..");
                dotdot = out.len();
            }
        } else {
            if (rooted && out.len() != 1) || (!rooted && !out.is_empty()) {
                out.push(b'/');
            }
            while r < n && b[r] != b'/' {
                out.push(b[r]);
                r += 1;
            }
        }
    }
    if out.is_empty() {
        return ".".into();
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_go_path() {
        assert_eq!(clean("/a/./b/../c//d/"), "/a/c/d");
        assert_eq!(clean("../../x"), "../../x");
        assert_eq!(clean("a/../.."), "..");
        assert_eq!(clean("a//b/./c/.."), "a/b");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(clean("abc/def/../../.."), "..");
        assert_eq!(dir("/a/b/c.txt"), "/a/b");
        assert_eq!(dir("/"), "/");
        assert_eq!(dir(""), ".");
        assert_eq!(base("/a/b/"), "b");
        assert_eq!(base("/"), "/");
        assert_eq!(ext("/a.b/c"), "");
    }
}
