//! The DER and PEM encoding the certificate functions need: TLV writing, the OIDs Go's
//! `x509.CreateCertificate` emits for Sprig's template, `pkix.Name{CommonName}`, X.509 times,
//! and Go's `pem.Encode`/`pem.Decode`.

use crate::funcs::args::from_bytes;
use crate::funcs::encoding::{b64_decode, b64_encode};
use crate::value::FuncError;

pub(super) fn pem_encode(label: &str, der: &[u8]) -> String {
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
pub(super) fn pem_decode(text: &[u8]) -> Option<(String, Vec<u8>)> {
    let text = from_bytes(text);
    let mut rest = text.as_str();
    loop {
        let start = if rest.starts_with("-----BEGIN ") { 0 } else { rest.find("\n-----BEGIN ")? + 1 };
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

pub(super) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
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

pub(super) fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A non-negative DER INTEGER from big-endian bytes.
pub(super) fn uint(b: &[u8]) -> Vec<u8> {
    let skip = b.iter().take_while(|&&x| x == 0).count();
    let mut c = b[skip..].to_vec();
    if c.first().is_none_or(|&x| x & 0x80 != 0) {
        c.insert(0, 0);
    }
    tlv(0x02, &c)
}

pub(super) const OID_CN: &[u8] = &[0x06, 0x03, 0x55, 0x04, 0x03];
pub(super) const OID_SHA256_RSA: &[u8] = &[0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B];
pub(super) const OID_ECDSA_SHA256: &[u8] = &[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02];
pub(super) const OID_P256: &[u8] = &[0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07];
pub(super) const OID_ED25519: &[u8] = &[0x06, 0x03, 0x2B, 0x65, 0x70];
pub(super) const OID_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x0F];
pub(super) const OID_EXT_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x25];
pub(super) const OID_BASIC_CONSTRAINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x13];
pub(super) const OID_SUBJECT_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x0E];
pub(super) const OID_AUTHORITY_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x23];
pub(super) const OID_SAN: &[u8] = &[0x06, 0x03, 0x55, 0x1D, 0x11];
pub(super) const OID_SERVER_AUTH: &[u8] = &[0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
pub(super) const OID_CLIENT_AUTH: &[u8] = &[0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02];

/// `pkix.Name{CommonName: cn}` as an RDNSequence; Go writes a PrintableString when it can.
pub(super) fn name(cn: &str) -> Vec<u8> {
    if cn.is_empty() {
        return seq(&[]);
    }
    let printable = cn.bytes().all(|b| b.is_ascii_alphanumeric() || b" '()+,-./:=?*".contains(&b));
    let value = tlv(if printable { 0x13 } else { 0x0C }, cn.as_bytes());
    seq(&[&tlv(0x31, &seq(&[OID_CN, &value]))])
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar.
pub(super) fn civil(days: i64) -> (i64, u32, u32) {
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
pub(super) fn x509_time(unix: i64) -> Result<Vec<u8>, FuncError> {
    let (y, mo, d) = civil(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    let (h, mi, se) = (s / 3600, (s / 60) % 60, s % 60);
    if !(0..=9999).contains(&y) {
        return Err(FuncError::msg("error creating certificate: x509: validity period out of range"));
    }
    Ok(if (1950..2050).contains(&y) {
        tlv(0x17, format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{se:02}Z", y % 100).as_bytes())
    } else {
        tlv(0x18, format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{se:02}Z").as_bytes())
    })
}
