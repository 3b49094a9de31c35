//! `urlParse` and `urlJoin` (Sprig `url.go`) over a port of the pieces of Go's `net/url` they
//! touch: `Parse` (scheme, opaque, authority, user info, host and port checks, percent
//! decoding, fragment) and `URL.String` (percent encoding per component).
//!
//! Sprig panics on a parse error (`unable to parse url: parse "…": …`) and on a non-string
//! dict value (`unable to parse host key, must be of type string, but int found`); text/template
//! reports both as errors calling the function.

use std::collections::BTreeMap;

use crate::funcs::Ctx;
use crate::funcs::args::{go_quote, str_arg};
use crate::value::{FuncError, Value};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
}

#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_query: String,
    force_query: bool,
    fragment: String,
}

pub(super) fn url_parse(_: &mut Ctx<'_>, a: &[Value]) -> Result<Value, FuncError> {
    let u = parse(str_arg(a, 0)).map_err(|e| FuncError::msg(format!("unable to parse url: {e}")))?;
    let userinfo = u.user.as_ref().map(user_string).unwrap_or_default();
    let mut m = BTreeMap::new();
    for (k, v) in [
        ("scheme", u.scheme.clone()),
        ("host", u.host.clone()),
        ("hostname", hostname(&u.host)),
        ("path", u.path.clone()),
        ("query", u.raw_query.clone()),
        ("opaque", u.opaque.clone()),
        ("fragment", u.fragment.clone()),
        ("userinfo", userinfo),
    ] {
        m.insert(k.to_string(), Value::str(v));
    }
    Ok(Value::map(m))
}

pub(super) fn url_join(_: &mut Ctx<'_>, a: &[Value]) -> Result<Value, FuncError> {
    let entries = match a.first() {
        Some(Value::Map(m)) => m.entries.borrow().clone(),
        _ => BTreeMap::new(),
    };
    let get = |key: &str| -> Result<String, FuncError> {
        match entries.get(key) {
            None => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.to_string()),
            // reflect.TypeOf(nil).Kind() dereferences a nil Type.
            Some(Value::Nil | Value::Invalid) => {
                Err(FuncError::msg("runtime error: invalid memory address or nil pointer dereference"))
            }
            Some(v) => Err(FuncError::msg(format!(
                "unable to parse {key} key, must be of type string, but {} found",
                v.kind_name()
            ))),
        }
    };
    let mut u = Url {
        scheme: get("scheme")?,
        host: get("host")?,
        path: get("path")?,
        raw_query: get("query")?,
        opaque: get("opaque")?,
        fragment: get("fragment")?,
        ..Url::default()
    };
    let userinfo = get("userinfo")?;
    if !userinfo.is_empty() {
        let tmp = parse(&format!("proto://{userinfo}@host"))
            .map_err(|e| FuncError::msg(format!("unable to parse userinfo in dict: {e}")))?;
        u.user = tmp.user;
    }
    Ok(Value::str(to_string(&u)))
}

/// `url.Parse`; the error text is `url.Error`'s: `parse "<url>": <reason>`.
fn parse(raw: &str) -> Result<Url, String> {
    let (u, frag) = match raw.find('#') {
        Some(i) => (&raw[..i], Some(&raw[i + 1..])),
        None => (raw, None),
    };
    let wrap = |what: &str, e: String| format!("parse {}: {e}", go_quote(what));
    let mut url = parse_no_fragment(u).map_err(|e| wrap(u, e))?;
    if let Some(f) = frag {
        url.fragment = unescape(f, Mode::Fragment).map_err(|e| wrap(raw, e))?;
    }
    Ok(url)
}

fn parse_no_fragment(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest.to_string();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest.pop();
    } else if let Some(i) = rest.find('?') {
        url.raw_query = rest[i + 1..].to_string();
        rest.truncate(i);
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest;
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path.to_string();
    }
    url.path = unescape(&rest, Mode::Path)?;
    Ok(url)
}

fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

type User = Option<(String, Option<String>)>;

fn parse_authority(authority: &str) -> Result<(User, String), String> {
    let at = authority.rfind('@');
    let host = parse_host(match at {
        Some(i) => &authority[i + 1..],
        None => authority,
    })?;
    let Some(i) = at else { return Ok((None, host)) };
    let userinfo = &authority[..i];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some((u, p)) => (unescape(u, Mode::UserPassword)?, Some(unescape(p, Mode::UserPassword)?)),
    };
    Ok((Some(user), host))
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c) || !c.is_ascii())
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()))
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".into());
        };
        let colon_port = &host[i + 1..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
        if let Some(zone) = host[..i].find("%25") {
            let h1 = unescape(&host[..zone], Mode::Host)?;
            let h2 = unescape(&host[zone..i], Mode::Zone)?;
            let h3 = unescape(&host[i..], Mode::Host)?;
            return Ok(h1 + &h2 + &h3);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
    }
    unescape(host, Mode::Host)
}

/// `URL.Hostname`: the host without its port and IPv6 brackets.
fn hostname(host: &str) -> String {
    let mut h = host;
    if let Some(i) = h.rfind(':')
        && valid_optional_port(&h[i..])
    {
        h = &h[..i];
    }
    if h.starts_with('[') && h.ends_with(']') && h.len() >= 2 {
        h = &h[1..h.len() - 1];
    }
    h.to_string()
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone) && b"!$&'()*+,;=:[]<>\"".contains(&c) {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
                Mode::Fragment => false,
                Mode::Host | Mode::Zone => true,
            };
        }
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn unhex(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// `url.unescape` for the modes `Parse` uses.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len() || !is_hex(b[i + 1]) || !is_hex(b[i + 2]) {
                    let end = (i + 3).min(b.len());
                    return Err(format!("invalid URL escape {}", go_quote(&String::from_utf8_lossy(&b[i..end]))));
                }
                let esc = &s[i..i + 3];
                if mode == Mode::Host && unhex(b[i + 1]) < 8 && esc != "%25" {
                    return Err(format!("invalid URL escape {}", go_quote(esc)));
                }
                if mode == Mode::Zone {
                    let v = (unhex(b[i + 1]) << 4) | unhex(b[i + 2]);
                    if esc != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(format!("invalid URL escape {}", go_quote(esc)));
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", go_quote(&(c as char).to_string())));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push((unhex(b[i + 1]) << 4) | unhex(b[i + 2]));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

fn user_string((name, password): &(String, Option<String>)) -> String {
    let mut s = escape(name, Mode::UserPassword);
    if let Some(p) = password {
        s.push(':');
        s.push_str(&escape(p, Mode::UserPassword));
    }
    s
}

/// `URL.String` (no `RawPath`/`RawFragment`, as `urlJoin` never sets them).
fn to_string(u: &Url) -> String {
    let mut buf = String::new();
    if !u.scheme.is_empty() {
        buf.push_str(&u.scheme);
        buf.push(':');
    }
    if !u.opaque.is_empty() {
        buf.push_str(&u.opaque);
    } else {
        if !u.scheme.is_empty() || !u.host.is_empty() || u.user.is_some() {
            if !u.host.is_empty() || !u.path.is_empty() || u.user.is_some() {
                buf.push_str("//");
            }
            if let Some(user) = &u.user {
                buf.push_str(&user_string(user));
                buf.push('@');
            }
            if !u.host.is_empty() {
                buf.push_str(&escape(&u.host, Mode::Host));
            }
        }
        let path = if u.path == "*" { "*".to_string() } else { escape(&u.path, Mode::Path) };
        if !path.is_empty() && !path.starts_with('/') && !u.host.is_empty() {
            buf.push('/');
        }
        if buf.is_empty() && path.split('/').next().is_some_and(|seg| seg.contains(':')) {
            // A relative path whose first segment has a colon would read as a scheme.
            buf.push_str("./");
        }
        buf.push_str(&path);
    }
    if u.force_query || !u.raw_query.is_empty() {
        buf.push('?');
        buf.push_str(&u.raw_query);
    }
    if !u.fragment.is_empty() {
        buf.push('#');
        buf.push_str(&escape(&u.fragment, Mode::Fragment));
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_like_go() {
        let u = parse("https://user:pw@example.com:8443/p/a?x=1&y=2#frag").unwrap();
        assert_eq!((u.scheme.as_str(), u.host.as_str(), u.path.as_str()), ("https", "example.com:8443", "/p/a"));
        assert_eq!(hostname(&u.host), "example.com");
        assert_eq!(user_string(u.user.as_ref().unwrap()), "user:pw");
        assert_eq!(parse("http://[::1").err().unwrap(), "parse \"http://[::1\": missing ']' in host");
        assert_eq!(parse("mailto:someone@example.com").unwrap().opaque, "someone@example.com");
        assert_eq!(parse("http://h/a%20b").unwrap().path, "/a b");
    }
}
