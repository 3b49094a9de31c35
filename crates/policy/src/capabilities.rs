//! Which built-ins a policy may call, as OPA's capabilities define them.
//!
//! By default every built-in regorus has except those that reach outside the evaluation:
//! the network, the environment, the clock and randomness ([`DENIED_BY_DEFAULT`]), so two
//! runs on the same commit always agree. `time.now_ns` is allowed with a fixed clock
//! (`--now`). `--capabilities FILE` reads OPA's capabilities JSON
//! (`{"builtins": [{"name": "…"}, …], …}`, as `opa capabilities` prints it): exactly the
//! built-ins it names are allowed, so a file widens the set (`rand.intn`) or narrows it.
//! A name regorus does not implement stays an undefined function whatever the file says.
//!
//! A call outside the set is a compile-time error naming the built-in ([`super::compile`]):
//! Rego has no dynamic calls, so every call is seen before any input is evaluated.

use std::collections::BTreeSet;
use std::path::Path;

use super::PolicyError;

/// Built-ins refused unless a capabilities file names them.
pub const DENIED_BY_DEFAULT: [&str; 9] = [
    "http.send",
    "net.lookup_ip_addr",
    "opa.runtime",
    "time.now_ns",
    "rand.intn",
    "uuid.rfc4122",
    "uuid.parse",
    "io.jwt.decode_verify",
    "crypto.x509.parse_and_verify_certificates",
];

/// The most bytes a capabilities file may have.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The built-ins a policy may call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `None`: the default set.
    builtins: Option<BTreeSet<String>>,
}

impl Capabilities {
    /// Reads OPA's capabilities JSON.
    pub fn load(path: &Path) -> Result<Capabilities, PolicyError> {
        let shown = path.display().to_string();
        let bytes = driftlint_core::input::read_bounded(path, MAX_BYTES)
            .map_err(|e| PolicyError::Read { path: shown.clone(), message: e.to_string() })?;
        Capabilities::parse(&shown, &bytes)
    }

    /// Parses OPA's capabilities JSON: the `builtins` array of `{"name": …}` objects (other
    /// keys — `decl`, `features`, `future_keywords` — are accepted and not used).
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Capabilities, PolicyError> {
        let fail = |message: String| PolicyError::Data { message: format!("{path}: {message}") };
        let doc: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| fail(e.to_string()))?;
        let Some(list) = doc.get("builtins").and_then(serde_json::Value::as_array) else {
            return Err(fail("a capabilities file needs a `builtins` array (OPA's format)".into()));
        };
        let mut builtins = BTreeSet::new();
        for (i, b) in list.iter().enumerate() {
            let Some(name) = b.get("name").and_then(serde_json::Value::as_str) else {
                return Err(fail(format!("`builtins[{i}]` has no string `name`")));
            };
            builtins.insert(name.to_string());
        }
        Ok(Capabilities { builtins: Some(builtins) })
    }

    /// Whether a policy may call built-in `name`; `fixed_clock`: `--now` was given.
    pub fn allows(&self, name: &str, fixed_clock: bool) -> bool {
        if name == "time.now_ns" && fixed_clock {
            return true;
        }
        match &self.builtins {
            Some(set) => set.contains(name) || name == "print",
            None => !DENIED_BY_DEFAULT.contains(&name),
        }
    }

    /// Why a call is refused, for the message.
    pub fn why_not(&self, name: &str) -> String {
        match &self.builtins {
            Some(_) => "the capabilities file does not name it".into(),
            None if name == "time.now_ns" => {
                "it reads the clock; give a fixed one with `--now RFC3339`, or allow it with `--capabilities`".into()
            }
            None => "it reaches outside the evaluation (network, environment, clock or randomness); allow it with `--capabilities FILE`".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_refuses_the_outside_world_and_a_file_decides_exactly() {
        let d = Capabilities::default();
        assert!(d.allows("count", false) && !d.allows("rand.intn", false) && !d.allows("http.send", false));
        assert!(!d.allows("time.now_ns", false) && d.allows("time.now_ns", true));
        let f = Capabilities::parse("c.json", br#"{"builtins": [{"name": "rand.intn"}, {"name": "count"}]}"#).unwrap();
        assert!(f.allows("rand.intn", false) && f.allows("count", false) && !f.allows("sum", false));
        assert!(f.allows("print", false));
        for bad in [&b"{}"[..], br#"{"builtins": [{}]}"#, b"nope"] {
            assert!(matches!(Capabilities::parse("c.json", bad), Err(PolicyError::Data { .. })));
        }
    }
}
