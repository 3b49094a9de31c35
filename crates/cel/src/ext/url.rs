//! Kubernetes' URLs library (`k8s.io/apiserver/pkg/cel/library/urls.go`): `url(string)`,
//! `isURL(string)` and the getters `getScheme`, `getHost`, `getHostname`, `getPort`,
//! `getEscapedPath`, `getQuery`. Parsing follows Go's `url.ParseRequestURI`: an absolute URI
//! or an absolute path, no fragment splitting, percent-escapes checked.

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::value::CowVal;
use cel::objects::{Key, Map, Opaque};
use cel::{DeclarationError, Env, Value};

use super::{DYN, Res, bad, give, global, member, string_arg, values};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    opaque: String,
    /// `host[:port]` as written.
    host: String,
    path: String,
    raw_query: String,
}

impl Opaque for Url {
    fn runtime_type_name(&self) -> &str {
        "kubernetes.URL"
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "url", 1, url)?;
    global(env, "isURL", 1, is_url)?;
    for (name, op) in [
        ("getScheme", get_scheme as cel::common::functions::Function),
        ("getHost", get_host),
        ("getHostname", get_hostname),
        ("getPort", get_port),
        ("getEscapedPath", get_escaped_path),
        ("getQuery", get_query),
    ] {
        member(env, name, DYN, 0, op)?;
    }
    Ok(())
}

/// Go's `url.ParseRequestURI`, reduced to what the getters need.
pub fn parse(raw: &str) -> Result<Url, String> {
    if raw.is_empty() {
        return Err("empty url".into());
    }
    if raw.chars().any(|c| c.is_ascii_control()) {
        return Err("invalid control character in URL".into());
    }
    let (scheme, rest) = match scheme_of(raw)? {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => (String::new(), raw),
    };
    let (rest, raw_query) = match rest.split_once('?') {
        Some((r, q)) => (r, q.to_string()),
        None => (rest, String::new()),
    };
    if !rest.starts_with('/') {
        if !scheme.is_empty() {
            return Ok(Url { scheme, opaque: rest.to_string(), host: String::new(), path: String::new(), raw_query });
        }
        return Err("invalid URI for request".into());
    }
    let (host, path) = if !scheme.is_empty() && rest.starts_with("//") {
        let after = &rest[2..];
        let end = after.find('/').unwrap_or(after.len());
        let authority = &after[..end];
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        check_host(host)?;
        (host.to_string(), after[end..].to_string())
    } else {
        (String::new(), rest.to_string())
    };
    unescape(&path)?;
    Ok(Url { scheme, opaque: String::new(), host, path, raw_query })
}

fn scheme_of(raw: &str) -> Result<Option<(&str, &str)>, String> {
    for (i, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err("missing protocol scheme".into()),
            ':' => return Ok(Some((&raw[..i], &raw[i + 1..]))),
            _ => return Ok(None),
        }
    }
    Ok(None)
}

fn check_host(host: &str) -> Result<(), String> {
    if let Some(inner) = host.strip_prefix('[') {
        let Some((addr, port)) = inner.split_once(']') else { return Err("missing ']' in host".into()) };
        if addr.parse::<std::net::Ipv6Addr>().is_err() && !addr.contains('%') {
            return Err(format!("invalid IPv6 host {addr:?}"));
        }
        return check_port(port);
    }
    let (name, port) = match host.rsplit_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (host, None),
    };
    if let Some(p) = port {
        check_port(&format!(":{p}"))?;
    }
    if name.chars().any(|c| {
        c == ' '
            || c == '<'
            || c == '>'
            || c == '"'
            || c == '{'
            || c == '}'
            || c == '|'
            || c == '\\'
            || c == '^'
            || c == '`'
    }) {
        return Err(format!("invalid character in host name {name:?}"));
    }
    Ok(())
}

fn check_port(port: &str) -> Result<(), String> {
    match port.strip_prefix(':') {
        None if port.is_empty() => Ok(()),
        Some(p) if p.chars().all(|c| c.is_ascii_digit()) => Ok(()),
        _ => Err(format!("invalid port {port:?} after host")),
    }
}

fn unescape(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3).filter(|h| h.chars().all(|c| c.is_ascii_hexdigit()));
            let Some(h) = hex else { return Err(format!("invalid URL escape {:?}", &s[i..(i + 3).min(s.len())])) };
            out.push(u8::from_str_radix(h, 16).map_err(|e| e.to_string())?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn this_url(function: &str, v: &Value) -> Result<Url, cel::ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Url>().cloned().ok_or_else(|| bad(function, "expects a URL")),
        other => Err(bad(function, format!("expects a URL, not {}", other.type_of()))),
    }
}

fn url<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("url", &a[0])?;
    let u = parse(s).map_err(|e| bad("url", format!("URL parse error during conversion from string: {e}")))?;
    give(Value::Opaque(Arc::new(u)))
}

fn is_url<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(parse(string_arg("isURL", &a[0])?).is_ok()))
}

fn text<'b, 'v>(s: impl Into<String>) -> Res<'b, 'v> {
    give(Value::String(Arc::new(s.into())))
}

fn get_scheme<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    text(this_url("getScheme", &values(&args)?[0])?.scheme)
}

fn get_host<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    text(this_url("getHost", &values(&args)?[0])?.host)
}

/// Go's `URL.Hostname`: the host without port, an IPv6 address without brackets.
fn get_hostname<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let u = this_url("getHostname", &values(&args)?[0])?;
    let h = u.host.as_str();
    let name = if let Some(inner) = h.strip_prefix('[') {
        inner.split_once(']').map_or(inner, |(a, _)| a)
    } else {
        h.rsplit_once(':').map_or(h, |(n, _)| n)
    };
    text(name)
}

fn get_port<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let u = this_url("getPort", &values(&args)?[0])?;
    let h = u.host.as_str();
    let tail = if h.starts_with('[') { h.split_once(']').map_or("", |(_, t)| t) } else { h };
    text(tail.rsplit_once(':').map_or("", |(_, p)| p))
}

fn get_escaped_path<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    text(this_url("getEscapedPath", &values(&args)?[0])?.path)
}

/// `map(string, list(string))` of the query, as Go's `URL.Query`.
fn get_query<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let u = this_url("getQuery", &values(&args)?[0])?;
    let mut m: HashMap<Key, Vec<Value>> = HashMap::new();
    for pair in u.raw_query.split(['&']).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (Ok(k), Ok(v)) = (unescape(&k.replace('+', " ")), unescape(&v.replace('+', " "))) else { continue };
        m.entry(Key::String(Arc::new(k))).or_default().push(Value::String(Arc::new(v)));
    }
    let map = m.into_iter().map(|(k, v)| (k, Value::List(Arc::new(v)))).collect();
    give(Value::Map(Map { map: Arc::new(map) }))
}
