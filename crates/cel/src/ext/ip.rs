//! Kubernetes' IP and CIDR libraries (`k8s.io/apiserver/pkg/cel/library/ip.go`, `cidr.go`):
//! `ip(string)`, `isIP(string)`, `ip.isCanonical(string)`, `family`, `isUnspecified`,
//! `isLoopback`, `isLinkLocalMulticast`, `isLinkLocalUnicast`, `isGlobalUnicast`;
//! `cidr(string)`, `isCIDR(string)`, `containsIP`, `containsCIDR`, `ip`, `masked`,
//! `prefixLength`. As Kubernetes, IPv4-mapped IPv6 addresses and zones are refused.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use cel::common::value::CowVal;
use cel::objects::Opaque;
use cel::{DeclarationError, Env, Value};

use super::{DYN, Res, bad, give, global, member, string_arg, values};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ip(pub IpAddr);

impl Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        "net.IP"
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    len: u8,
}

impl Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        "net.CIDR"
    }
}

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    global(env, "ip", 1, ip)?;
    global(env, "isIP", 1, is_ip)?;
    global(env, "ip.isCanonical", 1, is_canonical)?;
    global(env, "cidr", 1, cidr)?;
    global(env, "isCIDR", 1, is_cidr)?;
    member(env, "family", DYN, 0, family)?;
    member(env, "isUnspecified", DYN, 0, |a| predicate("isUnspecified", a, |ip| ip.is_unspecified()))?;
    member(env, "isLoopback", DYN, 0, |a| predicate("isLoopback", a, |ip| ip.is_loopback()))?;
    member(env, "isLinkLocalMulticast", DYN, 0, |a| predicate("isLinkLocalMulticast", a, link_local_multicast))?;
    member(env, "isLinkLocalUnicast", DYN, 0, |a| predicate("isLinkLocalUnicast", a, link_local_unicast))?;
    member(env, "isGlobalUnicast", DYN, 0, |a| predicate("isGlobalUnicast", a, global_unicast))?;
    member(env, "containsIP", DYN, 1, contains_ip)?;
    member(env, "containsCIDR", DYN, 1, contains_cidr)?;
    member(env, "ip", DYN, 0, cidr_ip)?;
    member(env, "masked", DYN, 0, masked)?;
    member(env, "prefixLength", DYN, 0, prefix_length)?;
    // `string(ip(…))`, `string(cidr(…))`: the canonical text (Go's `netip` `String`).
    let net_ip = cel::common::types::Type::new_opaque_type("net.IP");
    let net_cidr = cel::common::types::Type::new_opaque_type("net.CIDR");
    env.add_overload("string", "string_net_ip", vec![net_ip], to_string)?;
    env.add_overload("string", "string_net_cidr", vec![net_cidr], to_string)?;
    Ok(())
}

fn to_string<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let text = match &a[0] {
        Value::Opaque(o) => {
            if let Some(Ip(ip)) = o.downcast_ref::<Ip>() {
                ip.to_string()
            } else if let Some(c) = o.downcast_ref::<Cidr>() {
                format!("{}/{}", c.addr, c.len)
            } else {
                return Err(bad("string", "expects an IP or a CIDR"));
            }
        }
        other => return Err(bad("string", format!("expects an IP or a CIDR, not {}", other.type_of()))),
    };
    give(Value::String(text.into()))
}

/// Parses an address as Go's `netip.ParseAddr` with Kubernetes' refusals.
pub fn parse_ip(s: &str) -> Result<IpAddr, String> {
    if s.contains('%') {
        return Err(format!("IP address with zone value is not allowed: {s}"));
    }
    let addr: IpAddr = s.parse().map_err(|_| format!("IP Address {s:?} parse error during conversion from string"))?;
    if let IpAddr::V6(v6) = addr
        && v6.to_ipv4_mapped().is_some()
    {
        return Err(format!("IPv4-mapped IPv6 address {s:?} is not allowed"));
    }
    Ok(addr)
}

pub fn parse_cidr(s: &str) -> Result<Cidr, String> {
    let (a, l) = s.split_once('/').ok_or_else(|| {
        format!("network address parse error during conversion from string: {s:?} has no prefix length")
    })?;
    let addr = parse_ip(a)?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let len: u8 =
        l.parse().ok().filter(|n| *n <= max && !l.starts_with('+') && (l == "0" || !l.starts_with('0'))).ok_or_else(
            || format!("network address parse error during conversion from string: {s:?}: bad prefix length {l:?}"),
        )?;
    Ok(Cidr { addr, len })
}

fn mask(addr: IpAddr, len: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let bits = u32::from(v4);
            let m = if len == 0 { 0 } else { u32::MAX << (32 - len as u32) };
            IpAddr::V4(Ipv4Addr::from(bits & m))
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6);
            let m = if len == 0 { 0 } else { u128::MAX << (128 - len as u32) };
            IpAddr::V6(Ipv6Addr::from(bits & m))
        }
    }
}

fn contains(c: &Cidr, ip: IpAddr) -> bool {
    c.addr.is_ipv4() == ip.is_ipv4() && mask(ip, c.len) == mask(c.addr, c.len)
}

fn link_local_multicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
    }
}

fn link_local_unicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.octets()[..2] == [169, 254],
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

/// Go's `netip.Addr.IsGlobalUnicast`.
fn global_unicast(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            !(v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_loopback()
                || v4.is_multicast()
                || link_local_unicast(ip))
        }
        IpAddr::V6(v6) => !(v6.is_unspecified() || v6.is_loopback() || v6.is_multicast() || link_local_unicast(ip)),
    }
}

fn this_ip(function: &str, v: &Value) -> Result<IpAddr, cel::ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Ip>().map(|i| i.0).ok_or_else(|| bad(function, "expects an IP")),
        Value::String(s) => parse_ip(s).map_err(|e| bad(function, e)),
        other => Err(bad(function, format!("expects an IP, not {}", other.type_of()))),
    }
}

fn this_cidr(function: &str, v: &Value) -> Result<Cidr, cel::ExecutionError> {
    match v {
        Value::Opaque(o) => o.downcast_ref::<Cidr>().cloned().ok_or_else(|| bad(function, "expects a CIDR")),
        Value::String(s) => parse_cidr(s).map_err(|e| bad(function, e)),
        other => Err(bad(function, format!("expects a CIDR, not {}", other.type_of()))),
    }
}

fn ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let addr = parse_ip(string_arg("ip", &a[0])?).map_err(|e| bad("ip", e))?;
    give(Value::Opaque(Arc::new(Ip(addr))))
}

fn is_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(parse_ip(string_arg("isIP", &a[0])?).is_ok()))
}

fn is_canonical<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let s = string_arg("ip.isCanonical", &a[0])?;
    let addr = parse_ip(s).map_err(|e| bad("ip.isCanonical", e))?;
    give(Value::Bool(addr.to_string() == s))
}

fn cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let c = parse_cidr(string_arg("cidr", &a[0])?).map_err(|e| bad("cidr", e))?;
    give(Value::Opaque(Arc::new(c)))
}

fn is_cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    give(Value::Bool(parse_cidr(string_arg("isCIDR", &a[0])?).is_ok()))
}

fn family<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let ip = this_ip("family", &values(&args)?[0])?;
    give(Value::Int(if ip.is_ipv4() { 4 } else { 6 }))
}

fn predicate<'b, 'v>(function: &str, args: Vec<CowVal<'b, 'v>>, p: fn(IpAddr) -> bool) -> Res<'b, 'v> {
    let a = values(&args)?;
    match &a[0] {
        Value::Opaque(o) if o.downcast_ref::<Ip>().is_some() => give(Value::Bool(p(this_ip(function, &a[0])?))),
        other => Err(bad(function, format!("expects an IP, not {}", other.type_of()))),
    }
}

fn contains_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let c = this_cidr("containsIP", &a[0])?;
    let ip = this_ip("containsIP", &a[1])?;
    give(Value::Bool(contains(&c, ip)))
}

fn contains_cidr<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let c = this_cidr("containsCIDR", &a[0])?;
    let other = this_cidr("containsCIDR", &a[1])?;
    give(Value::Bool(other.len >= c.len && contains(&c, other.addr)))
}

fn cidr_ip<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let a = values(&args)?;
    let c = match &a[0] {
        Value::Opaque(o) => o.downcast_ref::<Cidr>().cloned().ok_or_else(|| bad("ip", "expects a CIDR"))?,
        other => return Err(bad("ip", format!("expects a CIDR, not {}", other.type_of()))),
    };
    give(Value::Opaque(Arc::new(Ip(c.addr))))
}

fn masked<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let c = this_cidr("masked", &values(&args)?[0])?;
    give(Value::Opaque(Arc::new(Cidr { addr: mask(c.addr, c.len), len: c.len })))
}

fn prefix_length<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Res<'b, 'v> {
    let c = this_cidr("prefixLength", &values(&args)?[0])?;
    give(Value::Int(c.len as i64))
}
