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

use super::der::*;
use crate::funcs::args::{from_bytes, go_quote, int_arg, str_arg, strval};
use crate::funcs::encoding::b64_decode;
use crate::funcs::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Object, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);
const L: Param = Param::List;
const CERT: Param = Param::Named("sprig.certificate");

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("genPrivateKey", &[S], None, |_, a| Ok(Value::str(gen_private_key(str_arg(a, 0)))));
    r.add("buildCustomCert", &[S, S], None, build_custom_cert);
    r.add("genCA", &[S, I], None, |_, a| {
        let key = new_rsa(2048)?;
        ca(str_arg(a, 0), int_arg(a, 1), key)
    });
    r.add("genCAWithKey", &[S, I, S], None, |_, a| ca(str_arg(a, 0), int_arg(a, 1), key_arg(a, 2)?));
    r.add("genSelfSignedCert", &[S, L, L, I], None, |_, a| {
        let key = new_rsa(2048)?;
        self_signed(a, key)
    });
    r.add("genSelfSignedCertWithKey", &[S, L, L, I, S], None, |_, a| self_signed(a, key_arg(a, 4)?));
    r.add("genSignedCert", &[S, L, L, I, CERT], None, |_, a| {
        let key = new_rsa(2048)?;
        signed(a, key)
    });
    r.add("genSignedCertWithKey", &[S, L, L, I, CERT, S], None, |_, a| signed(a, key_arg(a, 5)?));
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
        format!("sprig.certificate{{Cert:{}, Key:{}}}", go_quote(&self.cert), go_quote(&self.key))
    }
    fn deep_equal(&self, other: &dyn Object) -> bool {
        other.as_any().downcast_ref::<Certificate>().is_some_and(|o| o.cert == self.cert && o.key == self.key)
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

fn key_pem(key: &Key) -> Result<String, FuncError> {
    use rsa::pkcs1::EncodeRsaPrivateKey;
    match key {
        Key::Rsa(k) => {
            let der = k.to_pkcs1_der().map_err(|e| FuncError::msg(format!("error pem-encoding key: {e}")))?;
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
            let der = seq(&[&[0x02, 0x01, 0x00], &seq(&[OID_ED25519]), &tlv(0x04, &inner)]);
            Ok(pem_encode("PRIVATE KEY", &der))
        }
        Key::Dsa => Err(FuncError::msg("error pem-encoding key: DSA keys are not supported")),
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
            .map_err(|e| format!("parsing RSA private key from PEM: x509: failed to parse private key: {e}")),
        "EC" => p256::SecretKey::from_sec1_der(&der)
            .map(Key::Ec)
            .map_err(|e| format!("parsing EC private key from PEM: x509: failed to parse EC private key: {e}")),
        "DSA" => Ok(Key::Dsa),
        _ => Err(format!("invalid private key type {label}")),
    }
}

fn key_arg(a: &[Value], i: usize) -> Result<Key, FuncError> {
    parse_key(str_arg(a, i)).map_err(|e| FuncError::msg(format!("parsing private key: {e}")))
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
            return Err(FuncError::msg(format!("error parsing ip: {} is not a string", strval(&ip))));
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
            return Err(FuncError::msg(format!("error processing alternate dns name: {} is not a string", strval(&d))));
        };
        dns.push(s.to_string());
    }
    Ok(Template { cn: str_arg(a, 0).to_string(), ips, dns, days: int_arg(a, 3) })
}

/// The signee's public key: SubjectPublicKeyInfo DER and the key bytes the key id hashes.
fn public_key(key: &Key) -> Result<(Vec<u8>, Vec<u8>), FuncError> {
    use rsa::pkcs1::EncodeRsaPublicKey;
    use rsa::pkcs8::EncodePublicKey;
    let fail = |e: &dyn std::fmt::Display| FuncError::msg(format!("error retrieving public key from signee key: {e}"));
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
            Ok((p.to_public_key_der().map_err(|e| fail(&e))?.into_vec(), point.as_bytes().to_vec()))
        }
        Key::Ed(k) => {
            let p = k.verifying_key();
            Ok((p.to_public_key_der().map_err(|e| fail(&e))?.into_vec(), p.as_bytes().to_vec()))
        }
        Key::Dsa => Err(FuncError::msg("error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported")),
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
            let sig = sk.try_sign(tbs).map_err(|e| FuncError::msg(format!("error creating certificate: {e}")))?;
            Ok(sig.to_vec())
        }
        Key::Ec(k) => {
            let sk = p256::ecdsa::SigningKey::from(k);
            let sig: p256::ecdsa::Signature = sk.sign(tbs);
            Ok(sig.to_der().as_bytes().to_vec())
        }
        Key::Ed(k) => Ok(k.sign(tbs).to_bytes().to_vec()),
        Key::Dsa => Err(FuncError::msg("error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported")),
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
        return Err(FuncError::msg("error creating certificate: x509: only RSA, ECDSA and Ed25519 keys supported"));
    }
    let subject = name(&t.cn);
    let issuer_name = issuer.as_ref().map_or_else(|| subject.clone(), |i| i.subject.clone());

    let mut serial = [0u8; 16];
    OsRng.fill_bytes(&mut serial);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let not_after = now.saturating_add(t.days.saturating_mul(86_400));
    let validity = seq(&[&x509_time(now)?, &x509_time(not_after)?]);

    let ext = |oid: &[u8], critical: bool, value: &[u8]| {
        let octets = tlv(0x04, value);
        if critical { seq(&[oid, &[0x01, 0x01, 0xFF], &octets]) } else { seq(&[oid, &octets]) }
    };
    let mut exts: Vec<Vec<u8>> = Vec::new();
    // digitalSignature(0) | keyEncipherment(2) [| keyCertSign(5)], as a minimal BIT STRING.
    let usage: &[u8] = if is_ca { &[0x03, 0x02, 0x02, 0xA4] } else { &[0x03, 0x02, 0x05, 0xA0] };
    exts.push(ext(OID_KEY_USAGE, true, usage));
    exts.push(ext(OID_EXT_KEY_USAGE, false, &seq(&[OID_SERVER_AUTH, OID_CLIENT_AUTH])));
    exts.push(ext(OID_BASIC_CONSTRAINTS, true, &if is_ca { seq(&[&[0x01, 0x01, 0xFF]]) } else { seq(&[]) }));
    if is_ca {
        let skid = sha1::Sha1::digest(&key_bytes);
        exts.push(ext(OID_SUBJECT_KEY_ID, false, &tlv(0x04, &skid)));
    }
    if let Some(Issuer { key_id: Some(id), subject: s, .. }) = &issuer
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
    Ok(Value::object(Certificate { cert: pem_encode("CERTIFICATE", &der), key: key_pem(&key)? }))
}

fn ca(cn: &str, days: i64, key: Key) -> R {
    create(&Template { cn: cn.to_string(), ips: Vec::new(), dns: Vec::new(), days }, true, key, None)
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
    let (subject, key_id) = parse_cert(&der)
        .map_err(|e| FuncError::msg(format!("error parsing certificate: decodedSignerCert.Bytes: {e}")))?;
    let signer = parse_key(&ca.key).map_err(|e| FuncError::msg(format!("error parsing private key: {e}")))?;
    let t = template(a)?;
    create(&t, false, key, Some(Issuer { subject, key_id, key: signer }))
}

/// `x509.ParseCertificate`, reduced to what signing needs: the raw subject and key id.
fn parse_cert(der: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
    use x509_cert::der::{Decode, Encode};
    let cert = x509_cert::Certificate::from_der(der).map_err(|e| format!("x509: malformed certificate: {e}"))?;
    let tbs = &cert.tbs_certificate;
    let subject = tbs.subject.to_der().map_err(|e| e.to_string())?;
    let skid =
        tbs.extensions.iter().flatten().find(|e| e.extn_id.as_bytes() == &OID_SUBJECT_KEY_ID[2..]).and_then(|e| {
            // The extension value is an OCTET STRING holding the key id.
            let v = e.extn_value.as_bytes();
            (v.len() >= 2 && v[0] == 0x04).then(|| v[2..].to_vec())
        });
    Ok((subject, skid))
}

/// Sprig's `buildCustomCertificate`: both inputs are base64 of PEM; the certificate must parse
/// and the key must be a private key Sprig can read.
fn build_custom_cert(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let cert = b64_decode(str_arg(a, 0)).map_err(|_| FuncError::msg("unable to decode base64 certificate"))?;
    let key = b64_decode(str_arg(a, 1)).map_err(|_| FuncError::msg("unable to decode base64 private key"))?;
    let Some((_, der)) = pem_decode(&cert) else {
        return Err(FuncError::msg("unable to decode certificate"));
    };
    parse_cert(&der).map_err(|e| FuncError::msg(format!("error parsing certificate: decodedCert.Bytes: {e}")))?;
    let key = from_bytes(&key);
    parse_key(&key).map_err(|e| FuncError::msg(format!("error parsing private key: {e}")))?;
    Ok(Value::object(Certificate { cert: from_bytes(&cert), key }))
}
