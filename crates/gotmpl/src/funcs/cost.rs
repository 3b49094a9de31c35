//! What a function call weighs against the run-wide [`crate::Budget`], in steps (one step is
//! about what one template node costs to evaluate, some ten nanoseconds).
//!
//! Two parts: a fixed weight charged *before* the call for functions whose work does not show
//! in their result (key generation, password hashing), so a call the budget cannot pay for is
//! never started; and a weight charged *after* every call for the size of what it built (a
//! list per element, a map per entry, a string per 16 bytes), which covers `until`, `seq`,
//! `repeat`, `append`/`concat` (they copy the whole list: a loop of `append`s weighs what it
//! copies, quadratic work being paid for quadratically), `toYaml` and the rest.
//!
//! The fixed weights were measured on a release build (RSA-4096 generation ≈ 1–2 s, RSA-2048
//! ≈ 0.1–0.3 s, bcrypt cost 10 ≈ 50 ms, scrypt N=32768 ≈ 50–100 ms) and rounded up.

use crate::value::Value;

/// Weight charged before calling `name` with `args`.
pub(crate) fn before(name: &str, args: &[Value]) -> u64 {
    match name {
        // 4096-bit RSA unless another type is named (Sprig's default).
        "genPrivateKey" => match args.first().and_then(Value::as_str) {
            Some("" | "rsa") | None => 200_000_000,
            Some(_) => 100_000,
        },
        // Each generates a 2048-bit RSA key.
        "genCA" | "genSelfSignedCert" | "genSignedCert" => 30_000_000,
        // A signature with a given key.
        "genCAWithKey" | "genSelfSignedCertWithKey" | "genSignedCertWithKey" | "buildCustomCert" => 1_000_000,
        // bcrypt at Go's default cost 10.
        "bcrypt" | "htpasswd" => 6_000_000,
        // scrypt N=32768, r=8, p=1 (32 MiB of memory).
        "derivePassword" => 10_000_000,
        "encryptAES" | "decryptAES" => {
            1_000 + args.iter().filter_map(Value::as_str).map(str::len).sum::<usize>() as u64 / 4
        }
        _ => 0,
    }
}

/// Weight of a call's result: what it allocated.
pub(crate) fn after(result: &Value) -> u64 {
    match result {
        Value::String(s) => s.len() as u64 / 16,
        Value::List(l) => l.items.len() as u64,
        Value::Map(m) => m.entries.try_borrow().map_or(0, |e| e.len() as u64),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expensive_calls_weigh_more_than_cheap_ones() {
        assert!(before("genPrivateKey", &[Value::str("rsa")]) > before("genPrivateKey", &[Value::str("ed25519")]));
        assert!(before("bcrypt", &[Value::str("x")]) >= 1_000_000);
        assert_eq!(before("upper", &[Value::str("x")]), 0);
        assert_eq!(after(&Value::list(vec![Value::Nil; 1000])), 1000);
        assert_eq!(after(&Value::str("x".repeat(1600))), 100);
    }
}
