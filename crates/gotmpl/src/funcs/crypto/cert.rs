//! Sprig's key and certificate functions: `genPrivateKey`, `genCA[WithKey]`,
//! `genSelfSignedCert[WithKey]`, `genSignedCert[WithKey]`, `buildCustomCert`.
//!
//! Certificates are built the way Go's `x509.CreateCertificate` builds Sprig's template: v3,
//! random 128-bit serial, CN-only subject, validity from now for `daysValid` days, key usage
//! digitalSignature|keyEncipherment (+certSign for a CA, critical), extended key usage
//! serverAuth+clientAuth, basic constraints (critical), a subject key id for CAs, the
//! authority key id of the signing CA, and DNS/IP subject alternative names. The TBS structure
//! is written with a small DER encoder; keys and signatures come from RustCrypto (RSA
//! PKCS#1 v1.5 with SHA-256, ECDSA P-256 with SHA-256, Ed25519). Keys are PEM-encoded as
//! Sprig does: `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC 1), `PRIVATE KEY` (PKCS#8)
//! for Ed25519.
//!
//! The result is Sprig's `certificate` struct, an [`Object`] with `.Cert` and `.Key`.

use std::any::Any;
use std::time::{SystemTime, UNIX_EPOCH};

use rand_core::{OsRng, RngCore};
use sha1::Digest;

use crate::funcs::encoding::{b64_decode, b64_encode};
use crate::funcs::strings::{from_bytes, go_quote, int_arg, str_arg, strval};
use crate::funcs::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Object, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);
const L: Param = Param::List;
const CERT: Param = Param::Named("sprig.certificate");

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("genPrivateKey", &[S], None, |_, a| {
        Ok(Value::str(gen_private_key(str_arg(a, 0))))
    });
    r.add("buildCustomCert", &[S, S], None, build_custom_cert);
    r.add("genCA", &[S, I], None, |_, a| {
        let key = new_rsa(2048)?;
        ca(str_arg(a, 0), int_arg(a, 1), key)
    });
    r.add("genCAWithKey", &[S, I, S], None, |_, a| {
        ca(str_arg(a, 0), int_arg(a, 1), key_arg(a, 2)?)
    });
    r.add("genSelfSignedCert", &[S, L, L, I], None, |_, a| {
        let key = new_rsa(2048)?;
        self_signed(a, key)
    });
    r.add(
        "genSelfSignedCertWithKey",
        &[S, L, L, I, S],
        None,
        |_, a| self_signed(a, key_arg(a, 4)?),
    );
    r.add("genSignedCert", &[S, L, L, I, CERT], None, |_, a| {
        let key = new_rsa(2048)?;
        signed(a, key)
    });
    r.add(
        "genSignedCertWithKey",
        &[S, L, L, I, CERT, S],
        None,
        |_, a| signed(a, key_arg(a, 5)?),
    );
}

/// Sprig's `certificate{Cert, Key string}`.
#[derive(Debug, Clone)]
pub(crate) struct Certificate {
    cert: String,
    key: String,
}

impl Object for Certificate {
    fn type_name(&self) -> &str {
        "sprig.certificate"
    }
    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(Value::str(&self.cert)),
            "Key" => Some(Value::str(&self.key)),
            _ => None,
        }
    }
    fn display(&self) -> String {
        format!("{{{} {}}}", self.cert, self.key)
    }
    fn go_syntax(&self) -> String {
        format!(
            "sprig.certificate{{Cert:{}, Key:{}}}",
            go_quote(&self.cert),
            go_quote(&self.key)
        )
    }
    fn deep_equal(&self, other: &dyn Object) -> bool {
        other
            .as_any()
            .downcast_ref::<Certificate>()
            .is_some_and(|o| o.cert == self.cert && o.key == self.key)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

enum Key {
    Rsa(Box<rsa::RsaPrivateKey>),
    Ec(p256::SecretKey),
    Ed(ed25519_dalek::SigningKey),
    /// A DSA key parses, but Go's x509 cannot certify it.
    Dsa,
}

fn new_rsa(bits: usize) -> Result<Key, FuncError> {
    rsa::RsaPrivateKey::new(&mut OsRng, bits)
        .map(|k| Key::Rsa(Box::new(k)))
        .map_err(|e| FuncError::msg(format!("error generating rsa key: {e}")))
}

/// `genPrivateKey`: Sprig returns failures as the result text, not as errors.
fn gen_private_key(typ: &str) -> String {
    let key = match typ {
        "" | "rsa" => match new_rsa(4096) {
            Ok(k) => k,
            Err(e) => return format!("failed to generate private key: {e}"),
        },
        "ecdsa" => Key::Ec(p256::SecretKey::random(&mut OsRng)),
        "ed25519" => Key::Ed(ed25519_dalek::SigningKey::generate(&mut OsRng)),
        "dsa" => {
            return "failed to generate dsa params: DSA key generation is not supported".into();
        }
        _ => return format!("Unknown type {typ}"),
    };
    key_pem(&key).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// PEM

fn pem_encode(label: &str, der: &[u8]) -> String {
    let b64 = b64_encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        out.push_str(&from_bytes(chunk));
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

/// `pem.Decode`: the first well-formed block (type, DER), or `None`.
fn pem_decode(text: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = from_bytes(text);
    let mut rest = text.as_str();
    loop {
        let start = if rest.starts_with("-----BEGIN ") {
            0
        } else {
            rest.find("\n-----BEGIN ")? + 1
        };
        let after = &rest[start + 11..];
        let type_end = after.find("-----")?;
        let label = &after[..type_end];
        let body_start = &after[type_end + 5..];
        let end_marker = format!("-----END {label}-----");
        let ok_label = !label.contains('\n');
        if ok_label && let Some(end) = body_start.find(&end_marker) {
            let body: String = body_start[..end]
                .lines()
                .filter(|l| !l.contains(':'))
                .flat_map(|l| l.chars())
                .filter(|c| !c.is_whitespace())
                .collect();
            if let Ok(der) = b64_decode(&body) {
                return Some((label.to_string(), der));
            }
        }
        rest = body_start;
    }
}

fn key_pem(key: &Key) -> Result<String, FuncError> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    match key {
        Key::Rsa(k) => {
            let der = k
                .to_pkcs1_der()
                .map_err(|e| FuncError::msg(format!("error pem-encoding key: {e}")))?;
            Ok(pem_encode("RSA PRIVATE KEY", der.as_bytes()))
        }
        Key::Ec(k) => {
            // SEC 1 ECPrivateKey as Go's MarshalECPrivateKey writes it: version 1, the scalar,
            // [0] the named curve (prime256v1), [1] the uncompressed public point.
            let point = p256::EncodedPoint::from(k.public_key());
            let mut bits = vec![0u8];
            bits.extend_from_slice(point.as_bytes());
            let der = seq(&[
                &[0x02, 0x01, 0x01],
                &tlv(0x04, &k.to_bytes()),
                &tlv(0xA0, OID_P256),
                &tlv(0xA1, &tlv(0x03, &bits)),
            ]);
            Ok(pem_encode("EC PRIVATE KEY", &der))
        }
        Key::Ed(k) => {
            // PKCS#8 v1 as Go's MarshalPKCS8PrivateKey writes it: no public key attached.
            let inner = tlv(0x04, k.as_bytes());
            let der = seq(&[
                &[0x02, 0x01, 0x00],
                &seq(&[OID_ED25519]),
                &tlv(0x04, &inner),
            ]);
            Ok(pem_encode("PRIVATE KEY", &der))
        }
        Key::Dsa => Err(FuncError::msg(
            "error pem-encoding key: DSA keys are not supported",
        )),
    }
}

/// Sprig's `parsePrivateKeyPEM`, with its error texts.
fn parse_key(text: &str) -> Result<Key, String> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::DecodePrivateKey;
    let Some((label, der)) = pem_decode(text.as_bytes()) else {
        return Err("no PEM data in input".into());
    };
    if label == "PRIVATE KEY" {
        if let Ok(k) = rsa::RsaPrivateKey::from_pkcs8_der(&der) {
            return Ok(Key::Rsa(Box::new(k)));
        }
        if let Ok(k) = p256::SecretKey::from_pkcs8_der(&der) {
            return Ok(Key::Ec(k));
        }
        if let Ok(k) = ed25519_dalek::SigningKey::from_pkcs8_der(&der) {
            return Ok(Key::Ed(k));
        }
        return Err("decoding PEM as PKCS#8: x509: failed to parse private key".into());
    }
    let Some(kind) = label.strip_suffix(" PRIVATE KEY") else {
        return Err(format!("no private key data in PEM block of type {label}"));
    };
    match kind {
        "RSA" => rsa::RsaPrivateKey::from_pkcs1_der(&der)
            .map(|k| Key::Rsa(Box::new(k)))
            .map_err(|e| {
                format!("parsing RSA private key from PEM: x509: failed to parse private key: {e}")
            }),
        "EC" => p256::SecretKey::from_sec1_der(&der)
            .map(Key::Ec)
            .map_err(|e| {
                format!(
                    "parsing EC private key from PEM: x509: failed to parse EC private key: {e}"
                )
            }),
        "DSA" => Ok(Key::Dsa),
        _ => Err(format!("invalid private key type {label}")),
    }
}

fn key_arg(a: &[Value], i: usize) -> Result<Key, FuncError> {
    parse_key(str_arg(a, i)).map_err(|e| FuncError::msg(format!("parsing private key: {e}")))
}

// ---------------------------------------------------------------------------------------------
// DER

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let len = (n as u64).to_be_bytes();
        let skip = len.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (8 - skip) as u8);
        out.extend_from_slice(&len[skip..]);
    }
    out.extend_from_slice(content);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A non-negative DER INTEGER from big-endian bytes.
fn uint(b: &[u8]) -> Vec<u8> {
    let skip = b.iter().take_while(|&&x| x == 0).count();
    let mut c = b[skip..].to_vec();
    if c.first().is_none_or(|&x| x & 0x80 != 0) {
        c.insert(0, 0);
    }
    tlv(0x02, &c)
}

const OID_CN: &[u8] = &[0x06, 0x03, 0x55, 0x04, 0x03];
const OID_SHA256_RSA: &[u8] = &[
    0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B,
];
const OID_ECDSA_SHA256: &[u8] = &[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02];
const OID_P256: &[u8] = &[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07];
const OID_ED25519: &[u8] = &[0x06, 0x03, 0x2B, 0x65, 0x70];
const OID_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x0F];
const OID_EXT_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x25];
const OID_BASIC_CONSTRAINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x13];
const OID_SUBJECT_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x0E];
const OID_AUTHORITY_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x23];
const OID_SAN: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x11];
const OID_SERVER_AUTH: &[u8] = &[0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
const OID_CLIENT_AUTH: &[u8] = &[0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02];

/// `pkix.Name{CommonName: cn}` as an RDNSequence; Go writes a PrintableString when it can.
fn name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return seq(&[]);
    }
    let printable = cn
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?*".contains(&b));
    let value = tlv(if printable { 0x13 } else { 0x0C }, cn.as_bytes());
    seq(&[&tlv(0x31, &seq(&[OID_CN, &value]))])
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// An X.509 time: UTCTime for 1950–2049, GeneralizedTime otherwise.
fn x509_time(unix: i64) -> Result<Vec<u8>, FuncError> {
    let (y, mo, d) = civil(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    let (h, mi, se) = (s / 3600, (s / 60) % 60, s % 60);
    if !(0..=9999).contains(&y) {
        return Err(FuncError::msg(
            "error creating certificate: x509: validity period out of range",
        ));
    }
    Ok(if (1950..2050).contains(&y) {
        tlv(
            0x17,
            format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{se:02}Z", y % 100).as_bytes(),
        )
    } else {
        tlv(
            0x18,
            format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{se:02}Z").as_bytes(),
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Certificates

/// What Sprig's `getBaseCertTemplate` collects from its arguments.
struct Template {
    cn: String,
    ips: Vec<Vec<u8>>,
    dns: Vec<String>,
    days: i64,
}

/// `getNetIPs` and `getAlternateDNSStrs`, with their error texts.
fn template(a: &[Value]) -> Result<Template, FuncError> {
    let list = |i: usize| match a.get(i) {
        Some(Value::List(l)) => l.items.to_vec(),
        _ => Vec::new(),
    };
    let mut ips = Vec::new();
    for ip in list(1) {
        let Value::String(s) = &ip else {
            return Err(FuncError::msg(format!(
                "error parsing ip: {} is not a string",
                strval(&ip)
            )));
        };
        match s.parse::<std::net::IpAddr>() {
            // net.IP.To4: an IPv4(-mapped) address is written in 4 bytes.
            Ok(std::net::IpAddr::V4(v4)) => ips.push(v4.octets().to_vec()),
            Ok(std::net::IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => ips.push(v4.octets().to_vec()),
                None => ips.push(v6.octets().to_vec()),
            },
            Err(_) => return Err(FuncError::msg(format!("error parsing ip: {s}"))),
        }
    }
    let mut dns = Vec::new();
    for d in list(2) {
        let Value::String(s) = &d else {
            return Err(FuncError::msg(format!(
                "error processing alternate dns name: {} is not a string",
                strval(&d)
            )));
        };
        dns.push(s.to_string());
    }
    Ok(Template {
        cn: str_arg(a, 0).to_string(),
        ips,
        dns,
        days: int_arg(a, 3),
    })
}

/// The signee's public key: SubjectPublicKeyInfo DER and the key bytes the key id hashes.
fn public_key(key: &Key) -> Result<(Vec<u8>, Vec<u8>), FuncError> {
    use rsa::pkcs1::EncodeRsaPublicKey;
    use rsa::pkcs8::EncodePublicKey;
    let fail = |e: &dyn std::fmt::Display| {
        FuncError::msg(format!("error retrieving public key from signee key: {e}"))
    };
    match key {
        Key::Rsa(k) => {
            let p = rsa::RsaPublicKey::from(k.as_ref());
            Ok((
                p.to_public_key_der().map_err(|e| fail(&e))?.into_vec(),
                p.to_pkcs1_der().map_err(|e| fail(&e))?.into_vec(),
            ))
        }
        Key::Ec(k) => {
            let p = k.public_key();
            let point = p256::EncodedPoint::from(p);
            Ok((
                p.to_public_key_der().map_err(|e| fail(&e))?.into_vec(),
                point.as_bytes().to_vec(),
            ))
        }
        Key::Ed(k) => {
            let p = k.verifying_key();
            Ok((
                p.to_public_key_der().map_err(|e| fail(&e))?.into_vec(),
                p.as_bytes().to_vec(),
            ))
        }
        Key::Dsa => Err(FuncError::msg(
            "error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported",
        )),
    }
}

fn sig_alg(key: &Key) -> Vec<u8> {
    match key {
        Key::Rsa(_) => seq(&[OID_SHA256_RSA, &[0x05, 0x00]]),
        Key::Ec(_) => seq(&[OID_ECDSA_SHA256]),
        _ => seq(&[OID_ED25519]),
    }
}

fn sign(key: &Key, tbs: &[u8]) -> Result<Vec<u8>, FuncError> {
    use rsa::signature::{SignatureEncoding, Signer};
    match key {
        Key::Rsa(k) => {
            let sk = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(k.as_ref().clone());
            let sig = sk
                .try_sign(tbs)
                .map_err(|e| FuncError::msg(format!("error creating certificate: {e}")))?;
            Ok(sig.to_vec())
        }
        Key::Ec(k) => {
            let sk = p256::ecdsa::SigningKey::from(k);
            let sig: p256::ecdsa::Signature = sk.sign(tbs);
            Ok(sig.to_der().as_bytes().to_vec())
        }
        Key::Ed(k) => Ok(k.sign(tbs).to_bytes().to_vec()),
        Key::Dsa => Err(FuncError::msg(
            "error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported",
        )),
    }
}

/// The issuing side: its subject (raw DER), key id and key; `None` for self-signed.
struct Issuer {
    subject: Vec<u8>,
    key_id: Option<Vec<u8>>,
    key: Key,
}

/// Sprig's `getCertAndKey`: `x509.CreateCertificate`, then both PEM-encoded.
fn create(t: &Template, is_ca: bool, key: Key, issuer: Option<Issuer>) -> R {
    let (spki, key_bytes) = public_key(&key)?;
    let signer = issuer.as_ref().map_or(&key, |i| &i.key);
    // The signer must be able to sign before anything else is computed (Go checks the
    // algorithm first too).
    if matches!(signer, Key::Dsa) {
        return Err(FuncError::msg(
            "error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported",
        ));
    }
    let subject = name(&t.cn);
    let issuer_name = issuer
        .as_ref()
        .map_or_else(|| subject.clone(), |i| i.subject.clone());

    let mut serial = [0u8; 16];
    OsRng.fill_bytes(&mut serial);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let not_after = now.saturating_add(t.days.saturating_mul(86_400));
    let validity = seq(&[&x509_time(now)?, &x509_time(not_after)?]);

    let ext = |oid: &[u8], critical: bool, value: &[u8]| {
        let octets = tlv(0x04, value);
        if critical {
            seq(&[oid, &[0x01, 0x01, 0xFF], &octets])
        } else {
            seq(&[oid, &octets])
        }
    };
    let mut exts: Vec<Vec<u8>> = Vec::new();
    // digitalSignature(0) | keyEncipherment(2) [| keyCertSign(5)], as a minimal BIT STRING.
    let usage: &[u8] = if is_ca {
        &[0x03, 0x02, 0x02, 0xA4]
    } else {
        &[0x03, 0x02, 0x05, 0xA0]
    };
    exts.push(ext(OID_KEY_USAGE, true, usage));
    exts.push(ext(
        OID_EXT_KEY_USAGE,
        false,
        &seq(&[OID_SERVER_AUTH, OID_CLIENT_AUTH]),
    ));
    exts.push(ext(
        OID_BASIC_CONSTRAINTS,
        true,
        &if is_ca {
            seq(&[&[0x01, 0x01, 0xFF]])
        } else {
            seq(&[])
        },
    ));
    if is_ca {
        let skid = sha1::Sha1::digest(&key_bytes);
        exts.push(ext(OID_SUBJECT_KEY_ID, false, &tlv(0x04, &skid)));
    }
    if let Some(Issuer {
        key_id: Some(id),
        subject: s,
        ..
    }) = &issuer
        && *s != subject
    {
        exts.push(ext(OID_AUTHORITY_KEY_ID, false, &seq(&[&tlv(0x80, id)])));
    }
    if !t.dns.is_empty() || !t.ips.is_empty() {
        let mut names = Vec::new();
        for d in &t.dns {
            names.extend(tlv(0x82, d.as_bytes()));
        }
        for ip in &t.ips {
            names.extend(tlv(0x87, ip));
        }
        // Go marks the SAN critical when the subject is empty.
        exts.push(ext(OID_SAN, t.cn.is_empty(), &tlv(0x30, &names)));
    }
    let alg = sig_alg(signer);
    let tbs = seq(&[
        &[0xA0, 0x03, 0x02, 0x01, 0x02],
        &uint(&serial),
        &alg,
        &issuer_name,
        &validity,
        &subject,
        &spki,
        &tlv(0xA3, &tlv(0x30, &exts.concat())),
    ]);
    let sig = sign(signer, &tbs)?;
    let mut bits = vec![0u8];
    bits.extend_from_slice(&sig);
    let der = seq(&[&tbs, &alg, &tlv(0x03, &bits)]);
    Ok(Value::object(Certificate {
        cert: pem_encode("CERTIFICATE", &der),
        key: key_pem(&key)?,
    }))
}

fn ca(cn: &str, days: i64, key: Key) -> R {
    create(
        &Template {
            cn: cn.to_string(),
            ips: Vec::new(),
            dns: Vec::new(),
            days,
        },
        true,
        key,
        None,
    )
}

fn self_signed(a: &[Value], key: Key) -> R {
    create(&template(a)?, false, key, None)
}

fn signed(a: &[Value], key: Key) -> R {
    let Some(Value::Object(o)) = a.get(4) else {
        return Err(FuncError::msg("unable to decode certificate"));
    };
    let Some(ca) = o.as_any().downcast_ref::<Certificate>() else {
        return Err(FuncError::msg("unable to decode certificate"));
    };
    let Some((_, der)) = pem_decode(ca.cert.as_bytes()) else {
        return Err(FuncError::msg("unable to decode certificate"));
    };
    let (subject, key_id) = parse_cert(&der).map_err(|e| {
        FuncError::msg(format!(
            "error parsing certificate: decodedSignerCert.Bytes: {e}"
        ))
    })?;
    let signer = parse_key(&ca.key)
        .map_err(|e| FuncError::msg(format!("error parsing private key: {e}")))?;
    let t = template(a)?;
    create(
        &t,
        false,
        key,
        Some(Issuer {
            subject,
            key_id,
            key: signer,
        }),
    )
}

/// `x509.ParseCertificate`, reduced to what signing needs: the raw subject and key id.
fn parse_cert(der: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
    use x509_cert::der::{Decode, Encode};
    let cert = x509_cert::Certificate::from_der(der)
        .map_err(|e| format!("x509: malformed certificate: {e}"))?;
    let tbs = &cert.tbs_certificate;
    let subject = tbs.subject.to_der().map_err(|e| e.to_string())?;
    let skid = tbs
        .extensions
        .iter()
        .flatten()
        .find(|e| e.extn_id.as_bytes() == &OID_SUBJECT_KEY_ID[2..])
        .and_then(|e| {
            // The extension value is an OCTET STRING holding the key id.
            let v = e.extn_value.as_bytes();
            (v.len() >= 2 && v[0] == 0x04).then(|| v[2..].to_vec())
        });
    Ok((subject, skid))
}

/// Sprig's `buildCustomCertificate`: both inputs are base64 of PEM; the certificate must parse
/// and the key must be a private key Sprig can read.
fn build_custom_cert(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let cert = b64_decode(str_arg(a, 0))
        .map_err(|_| FuncError::msg("unable to decode base64 certificate"))?;
    let key = b64_decode(str_arg(a, 1))
        .map_err(|_| FuncError::msg("unable to decode base64 private key"))?;
    let Some((_, der)) = pem_decode(&cert) else {
        return Err(FuncError::msg("unable to decode certificate"));
    };
    parse_cert(&der).map_err(|e| {
        FuncError::msg(format!("error parsing certificate: decodedCert.Bytes: {e}"))
    })?;
    let key = from_bytes(&key);
    parse_key(&key).map_err(|e| FuncError::msg(format!("error parsing private key: {e}")))?;
    Ok(Value::object(Certificate {
        cert: from_bytes(&cert),
        key,
    }))
}
