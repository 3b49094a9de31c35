//! Sprig's crypto and random functions (`crypto.go`, goutils' `CryptoRandom*`, `uuidv4`,
//! `randInt`, `shuffle`'s source): derivePassword, AES-CBC encrypt/decrypt, bcrypt/htpasswd,
//! random strings and bytes, UUIDs. Keys and certificates live in [`cert`].
//!
//! Randomness comes from the OS (`getrandom` through `rand_core::OsRng`), as Go's
//! `crypto/rand`; nothing here is seeded or reproducible, which is why the corpus only checks
//! shapes (lengths, prefixes) of these results.

mod cert;
mod der;

use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use hmac::Mac;
use rand_core::{OsRng, RngCore};

use super::args::{from_bytes, int_arg, str_arg};
use super::encoding::{b64_decode, b64_encode};
use super::{Ctx, Param, Registry};
use crate::value::{FuncError, IntKind, Value};

const S: Param = Param::String;
const I: Param = Param::Int(IntKind::Int);

type R = Result<Value, FuncError>;

pub(super) fn register(r: &mut Registry) {
    r.add("randAlpha", &[I], None, |c, a| rand_string(c, int_arg(a, 0), ALPHA));
    r.add("randAlphaNum", &[I], None, |c, a| rand_string(c, int_arg(a, 0), ALNUM));
    r.add("randNumeric", &[I], None, |c, a| rand_string(c, int_arg(a, 0), b"0123456789"));
    r.add("randAscii", &[I], None, |c, a| rand_string(c, int_arg(a, 0), ASCII));
    r.add("randBytes", &[I], None, rand_bytes);
    r.add("randInt", &[I, I], None, |_, a| {
        let (min, max) = (int_arg(a, 0), int_arg(a, 1));
        // rand.Intn(max-min)+min; Intn panics unless its argument is positive.
        match max.checked_sub(min) {
            Some(n) if n > 0 => Ok(Value::int(min.wrapping_add(rand_below(n as u64) as i64))),
            _ => Err(FuncError::msg("invalid argument to Intn")),
        }
    });
    r.add("uuidv4", &[], None, |_, _| Ok(Value::str(uuidv4())));
    r.add("bcrypt", &[S], None, |_, a| Ok(Value::str(bcrypt(str_arg(a, 0)))));
    r.add("htpasswd", &[S, S], None, |_, a| {
        let (user, pw) = (str_arg(a, 0), str_arg(a, 1));
        Ok(Value::str(if user.contains(':') {
            format!("invalid username: {user}")
        } else {
            format!("{user}:{}", bcrypt(pw))
        }))
    });
    r.add("derivePassword", &[Param::Int(IntKind::Uint32), S, S, S, S], None, derive_password);
    r.add("encryptAES", &[S, S], None, encrypt_aes);
    r.add("decryptAES", &[S, S], None, decrypt_aes);
    cert::register(r);
}

const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const ASCII: &[u8] =
    b" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

thread_local! {
    /// OS randomness read 4 KiB at a time: `randAlpha 1000000` would otherwise make a million
    /// `getrandom` calls.
    static POOL: std::cell::RefCell<(Box<[u8; 4096]>, usize)> = std::cell::RefCell::new((Box::new([0; 4096]), 4096));
}

fn next_u64() -> u64 {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let (buf, pos) = &mut *p;
        if *pos + 8 > buf.len() {
            OsRng.fill_bytes(&mut buf[..]);
            *pos = 0;
        }
        let mut w = [0u8; 8];
        w.copy_from_slice(&buf[*pos..*pos + 8]);
        *pos += 8;
        u64::from_le_bytes(w)
    })
}

/// A uniform random integer in `0..n` (`n > 0`), by rejection sampling.
pub(super) fn rand_below(n: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    let zone = u64::MAX - (u64::MAX % n) - 1;
    loop {
        let v = next_u64();
        if v <= zone {
            return v % n;
        }
    }
}

/// goutils' `CryptoRandom` restricted to a character set: characters are drawn uniformly from
/// the set (goutils draws from a code-point range and rejects the others, which is the same
/// distribution). A negative count is an error that Sprig discards: `""`.
fn rand_string(c: &Ctx<'_>, count: i64, set: &[u8]) -> R {
    if count <= 0 {
        return Ok(Value::str(""));
    }
    if count as u64 > c.limits.max_string_len as u64 {
        return Err(FuncError::Limit(format!(
            "string of {count} bytes exceeds the limit of {} bytes",
            c.limits.max_string_len
        )));
    }
    let s: String = (0..count).map(|_| set[rand_below(set.len() as u64) as usize] as char).collect();
    Ok(Value::str(s))
}

fn rand_bytes(c: &mut Ctx<'_>, a: &[Value]) -> R {
    let count = int_arg(a, 0);
    if count < 0 {
        return Err(FuncError::msg("runtime error: makeslice: len out of range"));
    }
    if count as u64 > c.limits.max_string_len as u64 {
        return Err(FuncError::Limit(format!(
            "{count} random bytes exceed the limit of {} bytes",
            c.limits.max_string_len
        )));
    }
    let mut buf = vec![0u8; count as usize];
    OsRng.fill_bytes(&mut buf);
    Ok(Value::str(b64_encode(&buf)))
}

/// A random (version 4, RFC 4122 variant) UUID, as `github.com/google/uuid.New().String()`.
fn uuidv4() -> String {
    let mut b = [0u8; 16];
    OsRng.fill_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = super::encoding::hex(&b);
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// `bcrypt.GenerateFromPassword(input, DefaultCost)`: Go writes the `$2a$` prefix and rejects
/// passwords over 72 bytes; Sprig turns the error into the result text.
fn bcrypt(input: &str) -> String {
    if input.len() > 72 {
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes".into();
    }
    match bcrypt::hash_with_result(input, 10) {
        Ok(parts) => parts.format_for_version(bcrypt::Version::TwoA),
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
}

/// The Master Password templates Sprig uses (Lyndir's algorithm).
fn password_templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static [u8] {
    match c {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// Sprig's `derivePassword` (Master Password): scrypt(password, seed‖len(user)‖user) keys an
/// HMAC-SHA256 of seed‖len(site)‖site‖counter, whose bytes pick a template and its characters.
fn derive_password(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let counter = int_arg(a, 0) as u32;
    let (kind, password, user, site) = (str_arg(a, 1), str_arg(a, 2), str_arg(a, 3), str_arg(a, 4));
    let Some(templates) = password_templates(kind) else {
        return Ok(Value::str(format!("cannot find password template {kind}")));
    };
    const SEED: &[u8] = b"com.lyndir.masterpassword";
    let mut salt = SEED.to_vec();
    salt.extend_from_slice(&(user.len() as u32).to_be_bytes());
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let params = scrypt::Params::new(15, 8, 2, 64).map_err(|e| FuncError::msg(e.to_string()))?;
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return Ok(Value::str(format!("failed to derive password: {e}")));
    }
    let mut msg = SEED.to_vec();
    msg.extend_from_slice(&(site.len() as u32).to_be_bytes());
    msg.extend_from_slice(site.as_bytes());
    msg.extend_from_slice(&counter.to_be_bytes());
    let mut mac = <hmac::Hmac<sha2::Sha256> as Mac>::new_from_slice(&key).map_err(|e| FuncError::msg(e.to_string()))?;
    mac.update(&msg);
    let seed = mac.finalize().into_bytes();
    let template = templates[usize::from(seed[0]) % templates.len()].as_bytes();
    let out: String = template
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let chars = template_chars(t);
            chars[usize::from(seed[i + 1]) % chars.len()] as char
        })
        .collect();
    Ok(Value::str(out))
}

/// The AES-256 key Sprig derives from a password: its bytes, zero-padded or cut to 32.
fn aes_key(password: &str) -> aes::Aes256 {
    let mut key = [0u8; 32];
    let p = password.as_bytes();
    let n = p.len().min(32);
    key[..n].copy_from_slice(&p[..n]);
    aes::Aes256::new(&key.into())
}

/// `encryptAES`: PKCS#7 padding, random IV, AES-256-CBC, base64(IV‖ciphertext).
fn encrypt_aes(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let (password, plain) = (str_arg(a, 0), str_arg(a, 1));
    if plain.is_empty() {
        return Ok(Value::str(""));
    }
    let cipher = aes_key(password);
    let mut content = plain.as_bytes().to_vec();
    let pad = 16 - content.len() % 16;
    content.extend(std::iter::repeat_n(pad as u8, pad));
    let mut out = vec![0u8; 16];
    OsRng.fill_bytes(&mut out);
    let mut prev: [u8; 16] = out[..16].try_into().unwrap_or([0; 16]);
    for block in content.chunks(16) {
        let mut b = [0u8; 16];
        for (k, x) in b.iter_mut().enumerate() {
            *x = block[k] ^ prev[k];
        }
        let mut ga = b.into();
        cipher.encrypt_block(&mut ga);
        prev = ga.into();
        out.extend_from_slice(&prev);
    }
    Ok(Value::str(b64_encode(&out)))
}

/// `decryptAES`, with the panics of Sprig's unchecked slicing reported as Go reports them.
fn decrypt_aes(_: &mut Ctx<'_>, a: &[Value]) -> R {
    let (password, crypt64) = (str_arg(a, 0), str_arg(a, 1));
    if crypt64.is_empty() {
        return Ok(Value::str(""));
    }
    let crypt = b64_decode(crypt64).map_err(|at| FuncError::msg(format!("illegal base64 data at input byte {at}")))?;
    let cipher = aes_key(password);
    if crypt.len() < 16 {
        return Err(FuncError::msg(format!(
            "runtime error: slice bounds out of range [:16] with capacity {}",
            crypt.len()
        )));
    }
    let (iv, body) = crypt.split_at(16);
    if body.len() % 16 != 0 {
        return Err(FuncError::msg("crypto/cipher: input not full blocks"));
    }
    let mut prev: [u8; 16] = iv.try_into().unwrap_or([0; 16]);
    let mut plain = Vec::with_capacity(body.len());
    for block in body.chunks(16) {
        let mut ga = aes::Block::clone_from_slice(block);
        cipher.decrypt_block(&mut ga);
        for (k, x) in ga.iter().enumerate() {
            plain.push(x ^ prev[k]);
        }
        prev.copy_from_slice(block);
    }
    let Some(&last) = plain.last() else {
        return Err(FuncError::msg("runtime error: index out of range [-1]"));
    };
    let pad = usize::from(last);
    if pad > plain.len() {
        return Err(FuncError::msg(format!(
            "runtime error: slice bounds out of range [:{}]",
            plain.len() as i64 - pad as i64
        )));
    }
    Ok(Value::str(from_bytes(&plain[..plain.len() - pad])))
}
