//! Sprig's encodings and digests: `b64enc b64dec b32enc b32dec sha1sum sha256sum sha512sum
//! adler32sum`.
//!
//! The decoders are ports of Go's `encoding/base64` and `encoding/base32` `DecodeString`
//! (standard alphabets, padding required, `\r`/`\n` ignored) because Sprig returns the
//! decoder's error text as the *result*: `illegal base64 data at input byte 4` must name the
//! same byte Go names.

use sha1::Digest;

use super::args::{bytes_arg, str_arg};
use super::{Param, Registry};
use crate::value::Value;

const S: Param = Param::String;
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

pub(super) fn register(r: &mut Registry) {
    r.add("b64enc", &[S], None, |_, a| Ok(Value::str(b64_encode(bytes_arg(a, 0)))));
    r.add("b64dec", &[S], None, |_, a| {
        Ok(match b64_decode(str_arg(a, 0)) {
            Ok(b) => Value::go_bytes(&b),
            Err(at) => Value::str(format!("illegal base64 data at input byte {at}")),
        })
    });
    r.add("b32enc", &[S], None, |_, a| Ok(Value::str(b32_encode(bytes_arg(a, 0)))));
    r.add("b32dec", &[S], None, |_, a| {
        Ok(match b32_decode(str_arg(a, 0)) {
            Ok(b) => Value::go_bytes(&b),
            Err(at) => Value::str(format!("illegal base32 data at input byte {at}")),
        })
    });
    r.add("sha1sum", &[S], None, |_, a| Ok(Value::str(hex(&sha1::Sha1::digest(str_arg(a, 0).as_bytes())))));
    r.add("sha256sum", &[S], None, |_, a| Ok(Value::str(hex(&sha2::Sha256::digest(str_arg(a, 0).as_bytes())))));
    r.add("sha512sum", &[S], None, |_, a| Ok(Value::str(hex(&sha2::Sha512::digest(str_arg(a, 0).as_bytes())))));
    r.add("adler32sum", &[S], None, |_, a| Ok(Value::str(adler32(str_arg(a, 0).as_bytes()).to_string())));
}

pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `hash/adler32.Checksum`.
fn adler32(b: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut s1, mut s2) = (1u32, 0u32);
    // 5552 bytes keep the sums below 2^32 between reductions.
    for chunk in b.chunks(5552) {
        for &x in chunk {
            s1 += u32::from(x);
            s2 += s1;
        }
        s1 %= MOD;
        s2 %= MOD;
    }
    (s2 << 16) | s1
}

/// `base64.StdEncoding.EncodeToString`.
pub(super) fn b64_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[((v >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn b64_value(c: u8) -> Option<u8> {
    B64.iter().position(|&x| x == c).map(|p| p as u8)
}

/// `base64.StdEncoding.DecodeString`; the error is the offset Go's `CorruptInputError` names.
pub(super) fn b64_decode(s: &str) -> Result<Vec<u8>, usize> {
    let src = s.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0usize;
    loop {
        // One quantum of up to four symbols (Go's decodeQuantum).
        let mut dbuf = [0u8; 4];
        let mut dlen = 4;
        let mut j = 0;
        let mut trailing_err = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                // Padding is required: a short final quantum is an error.
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                dbuf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding: the quantum ends here.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing_err = Some(si);
            }
            dlen = j;
            break;
        }
        let v =
            (u32::from(dbuf[0]) << 18) | (u32::from(dbuf[1]) << 12) | (u32::from(dbuf[2]) << 6) | u32::from(dbuf[3]);
        let bytes = [(v >> 16) as u8, (v >> 8) as u8, v as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if let Some(at) = trailing_err {
            return Err(at);
        }
        if dlen < 4 {
            return Ok(out);
        }
    }
}

/// `base32.StdEncoding.EncodeToString`.
fn b32_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(5) * 8);
    for chunk in b.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let v = buf.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x));
        let symbols = match chunk.len() {
            1 => 2,
            2 => 4,
            3 => 5,
            4 => 7,
            _ => 8,
        };
        for k in 0..8 {
            if k < symbols {
                out.push(B32[((v >> (35 - 5 * k)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `base32.StdEncoding.DecodeString`: newlines are stripped first, then Go's `decode`.
fn b32_decode(s: &str) -> Result<Vec<u8>, usize> {
    let src: Vec<u8> = s.bytes().filter(|&c| c != b'\n' && c != b'\r').collect();
    let olen = src.len();
    let mut rest: &[u8] = &src;
    let mut out = Vec::with_capacity(olen / 8 * 5);
    let mut end = false;
    while !rest.is_empty() && !end {
        let mut dbuf = [0u8; 8];
        let mut dlen = 8;
        let mut j = 0;
        while j < 8 {
            let Some((&c, tail)) = rest.split_first() else {
                return Err(olen - rest.len() - j);
            };
            rest = tail;
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(olen);
                }
                for k in 0..7 - j {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(olen - rest.len() + k - 1);
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(olen - rest.len() - 1);
                }
                break;
            }
            match B32.iter().position(|&x| x == c) {
                Some(v) => dbuf[j] = v as u8,
                None => return Err(olen - rest.len() - 1),
            }
            j += 1;
        }
        let v = dbuf.iter().fold(0u64, |acc, &x| (acc << 5) | u64::from(x));
        let bytes = [(v >> 32) as u8, (v >> 24) as u8, (v >> 16) as u8, (v >> 8) as u8, v as u8];
        let n = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&bytes[..n]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_like_go() {
        assert_eq!(b64_encode(b"hello world"), "aGVsbG8gd29ybGQ=");
        assert_eq!(b64_encode("é✓".as_bytes()), "w6ninJM=");
        assert_eq!(b64_decode("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(b64_decode("not base64!"), Err(3));
        assert_eq!(b64_decode("aGVsbG8"), Err(4));
        assert_eq!(b64_decode("YQ==").unwrap(), b"a");
        assert_eq!(b64_decode("YQ=").unwrap_err(), 3);
        assert_eq!(b64_decode("YQ==YQ==").unwrap_err(), 4);
        assert_eq!(b64_decode("aGVs\nbG8=").unwrap(), b"hello");
    }

    #[test]
    fn base32_and_sums() {
        assert_eq!(b32_encode(b"hello"), "NBSWY3DP");
        assert_eq!(b32_encode(b"a"), "ME======");
        assert_eq!(b32_decode("NBSWY3DP").unwrap(), b"hello");
        assert_eq!(b32_decode("ME======").unwrap(), b"a");
        assert_eq!(b32_decode("!!!"), Err(0));
        assert_eq!(adler32(b"Wikipedia"), 300286872);
        assert_eq!(adler32(b""), 1);
    }
}
