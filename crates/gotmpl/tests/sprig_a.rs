//! Unit tests for the sprig-a function library (strings, regex, encoding, crypto, paths),
//! calling each implementation directly with arguments already shaped as the executor passes
//! them. Expected values come from the Go corpus (`shared/conformance/gotemplate`).

use driftlint_gotmpl::fmt::sprint_value;
use driftlint_gotmpl::funcs::{Ctx, Limits, lookup};
use driftlint_gotmpl::{FuncError, Value};

fn call(name: &str, args: &[Value]) -> Result<Value, FuncError> {
    let limits = Limits::default();
    let mut ctx = Ctx { limits: &limits, crs: &[] };
    let f = lookup(name).unwrap_or_else(|| panic!("{name} is not registered"));
    (f.imp)(&mut ctx, args)
}

/// The `%v` rendering of a successful call.
fn out(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => sprint_value(&v),
        Err(e) => panic!("{name}: unexpected error {e}"),
    }
}

fn err(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => panic!("{name}: expected an error, got {}", sprint_value(&v)),
        Err(e) => e.to_string(),
    }
}

fn s(x: &str) -> Value {
    Value::str(x)
}

fn i(x: i64) -> Value {
    Value::int(x)
}

fn strs(xs: &[&str]) -> Value {
    Value::list(xs.iter().map(|x| s(x)).collect())
}

mod strings {
    use super::*;

    #[test]
    fn case_conversion() {
        assert_eq!(out("hello", &[]), "Hello!");
        assert_eq!(out("upper", &[s("Hello World é")]), "HELLO WORLD É");
        assert_eq!(out("lower", &[s("HeLLo ÉCOLE")]), "hello école");
        assert_eq!(out("title", &[s("o'neil mc-donald x_y")]), "O'Neil Mc-Donald X_y");
        assert_eq!(out("untitle", &[s("Hello World")]), "hello world");
        assert_eq!(out("swapcase", &[s("Hello World 123")]), "hELLO wORLD 123");
        assert_eq!(out("initials", &[s("Ada King Lovelace")]), "AKL");
        assert_eq!(out("nospace", &[s(" a b\tc\nd ")]), "abcd");
        assert_eq!(out("snakecase", &[s("HelloWorldHTTPServer")]), "hello_world_http_server");
        assert_eq!(out("camelcase", &[s("http_server_id")]), "HttpServerId");
        assert_eq!(out("kebabcase", &[s("ABCDef")]), "abc-def");
        assert_eq!(out("kebabcase", &[s("ptp4lConf")]), "ptp-4l-conf");
    }

    #[test]
    fn trimming() {
        assert_eq!(out("trim", &[s("  \t padded \n ")]), "padded");
        assert_eq!(out("trimAll", &[s("ab"), s("abcba")]), "c");
        assert_eq!(out("trimPrefix", &[s("pre-"), s("pre-fix-pre-")]), "fix-pre-");
        assert_eq!(out("trimSuffix", &[s(".yaml"), s("file.yaml.yaml")]), "file.yaml");
    }

    #[test]
    fn repeat_substr_trunc() {
        assert_eq!(out("repeat", &[i(3), s("ab")]), "ababab");
        assert_eq!(err("repeat", &[i(-1), s("x")]), "strings: negative Repeat count");
        assert_eq!(out("substr", &[i(-1), i(2), s("abcdef")]), "ab");
        assert_eq!(out("substr", &[i(2), i(-1), s("abcdef")]), "cdef");
        assert_eq!(err("substr", &[i(10), i(12), s("abc")]), "runtime error: slice bounds out of range [10:3]");
        assert_eq!(err("substr", &[i(3), i(1), s("abcdef")]), "runtime error: slice bounds out of range [3:1]");
        assert_eq!(out("trunc", &[i(-5), s("hello world")]), "world");
        assert_eq!(out("trunc", &[i(-50), s("short")]), "short");
    }

    #[test]
    fn abbrev_and_wrap() {
        assert_eq!(out("abbrev", &[i(5), s("hello world")]), "he...");
        assert_eq!(out("abbrevboth", &[i(5), i(10), s("1234 5678 9123")]), "...5678...");
        assert_eq!(out("abbrevboth", &[i(0), i(6), s("abcdefghij")]), "abc...");
        assert_eq!(
            out("wrap", &[i(10), s("the quick brown fox jumps over the lazy dog")]),
            "the quick\nbrown fox\njumps over\nthe lazy\ndog"
        );
        assert_eq!(out("wrap", &[i(4), s("abcdefgh ij")]), "abcdefgh\nij");
        assert_eq!(out("wrapWith", &[i(3), s("<br>"), s("abcdefg")]), "abc<br>def<br>g");
    }

    #[test]
    fn quoting_and_cat() {
        assert_eq!(out("quote", &[i(1), Value::Float(2.5), Value::Bool(true)]), r#""1" "2.5" "true""#);
        assert_eq!(out("quote", &[s("a"), Value::Nil, s("b")]), r#""a" "b""#);
        assert_eq!(out("quote", &[s("tab\tnl\n")]), r#""tab\tnl\n""#);
        assert_eq!(out("squote", &[strs(&["x"])]), "'[x]'");
        assert_eq!(out("cat", &[s("x"), Value::Nil, s("y")]), "x y");
    }

    #[test]
    fn indent_replace_plural() {
        assert_eq!(out("indent", &[i(4), s("a\nb\n\nc")]), "    a\n    b\n    \n    c");
        assert_eq!(out("nindent", &[i(4), s("")]), "\n    ");
        assert_eq!(err("indent", &[i(-2), s("a")]), "strings: negative Repeat count");
        assert_eq!(out("replace", &[s(""), s("-"), s("abc")]), "-a-b-c-");
        assert_eq!(out("replace", &[s(".*"), s("X"), s("a.*b.*")]), "aXbX");
        assert_eq!(out("plural", &[s("one"), s("many"), i(-1)]), "many");
    }

    #[test]
    fn split_join_sort() {
        assert_eq!(out("split", &[s("$"), s("foo$bar$baz")]), "map[_0:foo _1:bar _2:baz]");
        assert_eq!(call("split", &[s("$"), s("a")]).unwrap().type_name(), "map[string]string");
        assert_eq!(out("splitn", &[s("$"), i(2), s("foo$bar$baz")]), "map[_0:foo _1:bar$baz]");
        assert_eq!(out("splitList", &[s(","), s("a,b,,c")]), "[a b  c]");
        assert_eq!(out("splitList", &[s(""), s("abc")]), "[a b c]");
        assert_eq!(call("splitList", &[s(","), s("")]).unwrap().type_name(), "[]string");
        let mixed = Value::list(vec![i(1), Value::Float(2.5), Value::Bool(true), s("x"), Value::Nil]);
        assert_eq!(out("join", &[s("-"), mixed.clone()]), "1-2.5-true-x");
        assert_eq!(out("join", &[s(","), s("single")]), "single");
        assert_eq!(out("join", &[s(","), Value::Nil]), "");
        assert_eq!(out("sortAlpha", &[Value::list(vec![i(10), i(9), s("b"), s("A")])]), "[10 9 A b]");
        assert_eq!(out("sortAlpha", &[s("scalar")]), "[scalar]");
        assert_eq!(out("toStrings", &[mixed]), "[1 2.5 true x]");
        assert_eq!(out("toStrings", &[Value::Nil]), "[]");
        assert_eq!(out("toString", &[Value::int64(7)]), "7");
    }

    #[test]
    fn atoi_returns_int() {
        let v = call("atoi", &[s("42")]).unwrap();
        assert_eq!(v.type_name(), "int");
        assert_eq!(sprint_value(&v), "42");
        for bad in ["x", "3.5", " 1"] {
            assert_eq!(out("atoi", &[s(bad)]), "0");
        }
    }
}

mod regex {
    use super::*;

    #[test]
    fn duplicate_group_names_and_posix_class_names_are_gos() {
        // Go (RE2) accepts a group name twice; `${a}` is the first group so named that matched.
        assert_eq!(out("regexReplaceAll", &[s("(?P<a>x)|(?P<a>y)"), s("xyz"), s("[${a}]")]), "[x][y]z");
        assert_eq!(out("regexFind", &[s("(?<n>a)(?<n>b)"), s("zab")]), "ab");
        // An unknown POSIX class is Go's error, not Rust's.
        assert_eq!(
            err("mustRegexMatch", &[s("[[:_nope_:]]"), s("a")]),
            "error parsing regexp: invalid character class range: `[:_nope_:]`"
        );
    }

    #[test]
    fn matching() {
        assert_eq!(out("regexMatch", &[s("^[a-z]+$"), s("abc1")]), "false");
        assert_eq!(out("regexMatch", &[s("["), s("abc")]), "false");
        assert_eq!(out("regexMatch", &[s("^[[:alpha:]]+$"), s("eth0")]), "false");
        assert_eq!(out("regexMatch", &[s("^\\p{L}+$"), s("héllo")]), "true");
        assert_eq!(out("regexMatch", &[s("(?m)^b$"), s("a\nb\nc")]), "true");
        // Go's \w and \d are ASCII-only.
        assert_eq!(out("regexMatch", &[s("^\\w+$"), s("héllo")]), "false");
        assert_eq!(err("mustRegexMatch", &[s("["), s("abc")]), "error parsing regexp: missing closing ]: `[`");
        assert_eq!(
            err("mustRegexMatch", &[s("(a)\\1"), s("aa")]),
            "error parsing regexp: invalid escape sequence: `\\1`"
        );
    }

    #[test]
    fn go_dialect() {
        // ASCII-only classes and word boundaries.
        assert_eq!(out("regexFindAll", &[s("\\bfoo\\b"), s("éfooé foo"), i(-1)]), "[foo foo]");
        assert_eq!(out("regexFindAll", &[s("\\w+"), s("héllo"), i(-1)]), "[h llo]");
        // Literal braces, brackets and set-operation look-alikes.
        assert_eq!(out("regexFind", &[s("x{,2}"), s("x{,2}")]), "x{,2}");
        assert_eq!(out("regexFind", &[s("[[]+"), s("a[[b")]), "[[");
        assert_eq!(out("regexFind", &[s("[a&&b]+"), s("x&&ab")]), "&&ab");
        assert_eq!(out("regexFind", &[s("\\<a\\>"), s("<a>")]), "<a>");
        // \Q…\E, octal and escaped space.
        assert_eq!(out("regexFind", &[s("\\Q*.\\E+"), s("*..")]), "*..");
        assert_eq!(out("regexFind", &[s("\\101\\ b"), s("zA b")]), "A b");
        // What Go rejects although Rust would accept it.
        for bad in ["a{1001}", "(?x) a", "\\e", "a**"] {
            assert_eq!(out("regexMatch", &[s(bad), s("a")]), "false", "{bad}");
        }
    }

    #[test]
    fn finding() {
        assert_eq!(out("regexFind", &[s("a|ab"), s("ab")]), "a");
        assert_eq!(
            err("regexFind", &[s("("), s("abc")]),
            "regexp: Compile(`(`): error parsing regexp: missing closing ): `(`"
        );
        assert_eq!(out("regexFindAll", &[s("[0-9]+"), s("a1b22c333"), i(2)]), "[1 22]");
        assert_eq!(out("regexFindAll", &[s("[0-9]"), s("123"), i(0)]), "[]");
        assert_eq!(call("regexFindAll", &[s("x"), s("abc"), i(-1)]).unwrap().type_name(), "[]string");
        // Go skips the empty match that abuts "aaa".
        assert_eq!(out("regexFindAll", &[s("a*"), s("baaab"), i(-1)]), "[ aaa ]");
    }

    #[test]
    fn replacing() {
        assert_eq!(out("regexReplaceAll", &[s("a(x*)b"), s("-ab-axxb-"), s("${1}W")]), "-W-xxW-");
        assert_eq!(out("regexReplaceAll", &[s("a(x*)b"), s("-ab-axxb-"), s("$1W")]), "---");
        assert_eq!(
            out("regexReplaceAll", &[s("(?P<first>\\w+) (?P<last>\\w+)"), s("John Smith"), s("$last, $first")]),
            "Smith, John"
        );
        assert_eq!(out("regexReplaceAll", &[s("(?<d>[0-9]+)"), s("x12y"), s("[${d}]")]), "x[12]y");
        assert_eq!(out("regexReplaceAllLiteral", &[s("a(x*)b"), s("-ab-axxb-"), s("${1}")]), "-${1}-${1}-");
        assert_eq!(out("regexReplaceAll", &[s("x*"), s("abc"), s("-")]), "-a-b-c-");
    }

    #[test]
    fn splitting_and_quoting() {
        assert_eq!(out("regexSplit", &[s("z+"), s("pizza"), i(-1)]), "[pi a]");
        assert_eq!(out("regexSplit", &[s("z+"), s("pizza"), i(1)]), "[pizza]");
        assert_eq!(out("regexSplit", &[s(","), s("a,b,c"), i(2)]), "[a b,c]");
        assert_eq!(out("regexSplit", &[s(""), s("abc"), i(-1)]), "[a b c]");
        assert_eq!(
            out("regexQuoteMeta", &[s("1.5+2*3?(x)[y]{z}^$|\\")]),
            "1\\.5\\+2\\*3\\?\\(x\\)\\[y\\]\\{z\\}\\^\\$\\|\\\\"
        );
    }
}

mod encoding {
    use super::*;

    #[test]
    fn base64_base32() {
        assert_eq!(out("b64enc", &[s("é✓")]), "w6ninJM=");
        assert_eq!(out("b64dec", &[s("not base64!")]), "illegal base64 data at input byte 3");
        assert_eq!(out("b64dec", &[s("aGVsbG8")]), "illegal base64 data at input byte 4");
        assert_eq!(out("b32enc", &[s("hello")]), "NBSWY3DP");
        assert_eq!(out("b32dec", &[s("!!!")]), "illegal base32 data at input byte 0");
    }

    #[test]
    fn digests() {
        assert_eq!(out("sha1sum", &[s("hello")]), "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d");
        assert_eq!(out("sha256sum", &[s("")]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert!(out("sha512sum", &[s("hello")]).starts_with("9b71d224bd62f3785d96d46ad3ea3d73"));
        assert_eq!(out("adler32sum", &[s("hello")]), "103547413");
    }

    #[test]
    fn derive_password() {
        let u32v = |n| Value::Int(n, driftlint_gotmpl::IntKind::Uint32);
        assert_eq!(
            out("derivePassword", &[u32v(1), s("long"), s("password"), s("user"), s("example.com")]),
            "ZedaFaxcZaso9*"
        );
        // scrypt (N=32768) is slow in unoptimised builds: the other corpus values
        // ("2461", "Gtc9iwP8", …) are checked by the conformance scorer in release builds.
        assert_eq!(
            out("derivePassword", &[u32v(1), s("nosuch"), s("p"), s("u"), s("s")]),
            "cannot find password template nosuch"
        );
    }

    #[test]
    fn aes() {
        assert_eq!(
            out("decryptAES", &[s("secretkey"), s("aIREDgLsS4wK0jaJ4ka2S1IqTlf7RKpZl1ETOkOO4+w=")]),
            "plaintext value"
        );
        assert_eq!(out("decryptAES", &[s("k"), s("")]), "");
        assert_eq!(err("decryptAES", &[s("k"), s("###")]), "illegal base64 data at input byte 0");
        let enc = out("encryptAES", &[s("key"), s("round trip text")]);
        assert_eq!(out("decryptAES", &[s("key"), s(&enc)]), "round trip text");
        // IV + two blocks (the full padding block included). Measured before b64dec, whose
        // result is not valid UTF-8 and so cannot be a Rust string.
        let enc = out("encryptAES", &[s("key"), s("0123456789abcdef")]);
        assert_eq!(enc.len(), 64);
    }
}

mod random {
    use super::*;

    #[test]
    fn shapes() {
        let r = out("randAlpha", &[i(12)]);
        assert!(r.len() == 12 && r.chars().all(|c| c.is_ascii_alphabetic()));
        let r = out("randNumeric", &[i(8)]);
        assert!(r.len() == 8 && r.chars().all(|c| c.is_ascii_digit()));
        assert_eq!(out("randAscii", &[i(16)]).len(), 16);
        assert_eq!(out("randAlpha", &[i(0)]), "");
        assert_eq!(out("randBytes", &[i(3)]).len(), 4);
        let n = call("randInt", &[i(5), i(6)]).unwrap();
        assert_eq!((sprint_value(&n).as_str(), n.type_name().as_str()), ("5", "int"));
        assert_eq!(err("randInt", &[i(5), i(5)]), "invalid argument to Intn");
        let u = out("uuidv4", &[]);
        assert_eq!((u.len(), &u[14..15]), (36, "4"));
        let mut sh: Vec<char> = out("shuffle", &[s("abcd")]).chars().collect();
        sh.sort_unstable();
        assert_eq!(sh, ['a', 'b', 'c', 'd']);
    }

    #[test]
    fn bcrypt_and_htpasswd() {
        let h = out("bcrypt", &[s("pw")]);
        assert!(h.len() == 60 && h.starts_with("$2a$10$"));
        let h = out("htpasswd", &[s("admin"), s("pw")]);
        assert!(h.starts_with("admin:$2a$10$") && h.len() == 66);
        assert_eq!(out("htpasswd", &[s("a:b"), s("pw")]), "invalid username: a:b");
    }
}

mod certs {
    use super::*;

    fn field(v: &Value, name: &str) -> String {
        let Value::Object(o) = v else { panic!("not an object") };
        sprint_value(&o.field(name).expect("field"))
    }

    #[test]
    fn keys() {
        let k = out("genPrivateKey", &[s("ecdsa")]);
        assert!(k.starts_with("-----BEGIN EC PRIVATE KEY-----\n") && k.ends_with("-----END EC PRIVATE KEY-----\n"));
        assert!(out("genPrivateKey", &[s("ed25519")]).starts_with("-----BEGIN PRIVATE KEY-----"));
        assert_eq!(out("genPrivateKey", &[s("nosuch")]), "Unknown type nosuch");
    }

    #[test]
    fn certificates() {
        let ca = call("genCA", &[s("my-ca"), i(365)]).unwrap();
        assert_eq!(ca.type_name(), "sprig.certificate");
        assert!(field(&ca, "Cert").starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(field(&ca, "Key").starts_with("-----BEGIN RSA PRIVATE KEY-----"));
        let ec = out("genPrivateKey", &[s("ecdsa")]);
        let c = call(
            "genSignedCertWithKey",
            &[
                s("svc"),
                Value::nil_list(driftlint_gotmpl::Type::Interface),
                strs(&["svc.local"]),
                i(30),
                ca.clone(),
                s(&ec),
            ],
        )
        .unwrap();
        assert!(field(&c, "Cert").starts_with("-----BEGIN CERTIFICATE-----"));
        assert_ne!(field(&c, "Cert"), field(&ca, "Cert"));
        let ed = out("genPrivateKey", &[s("ed25519")]);
        let ss =
            call("genSelfSignedCertWithKey", &[s("cn"), strs(&["10.0.0.1"]), strs(&["example.com"]), i(30), s(&ed)])
                .unwrap();
        // buildCustomCert accepts what the generators produce.
        let b64 = |x: &str| out("b64enc", &[s(x)]);
        let rebuilt = call("buildCustomCert", &[s(&b64(&field(&ss, "Cert"))), s(&b64(&field(&ss, "Key")))]).unwrap();
        assert_eq!(field(&rebuilt, "Cert"), field(&ss, "Cert"));
    }

    #[test]
    fn errors() {
        let nil = Value::nil_list(driftlint_gotmpl::Type::Interface);
        assert_eq!(
            err("genSelfSignedCert", &[s("example.com"), strs(&["not-an-ip"]), nil.clone(), i(30)]),
            "error parsing ip: not-an-ip"
        );
        assert_eq!(
            err("genCAWithKey", &[s("ca"), i(30), s("not a pem key")]),
            "parsing private key: no PEM data in input"
        );
        assert_eq!(err("buildCustomCert", &[s("bm90IGEgY2VydA=="), s("bm90IGEga2V5")]), "unable to decode certificate");
        assert_eq!(err("buildCustomCert", &[s("%%%"), s("%%%")]), "unable to decode base64 certificate");
    }
}

mod paths {
    use super::*;

    #[test]
    fn path_functions() {
        assert_eq!(out("base", &[s("/a/b/")]), "b");
        assert_eq!(out("dir", &[s("file")]), ".");
        assert_eq!(out("clean", &[s("a/../..")]), "..");
        assert_eq!(out("ext", &[s(".bashrc")]), ".bashrc");
        assert_eq!(out("isAbs", &[s("")]), "false");
        assert_eq!(out("osClean", &[s("a//b/./c/..")]), "a/b");
    }

    #[test]
    fn urls() {
        assert_eq!(
            out("urlParse", &[s("http://example.com/x")]),
            "map[fragment: host:example.com hostname:example.com opaque: path:/x query: scheme:http userinfo:]"
        );
        assert_eq!(
            err("urlParse", &[s("http://[::1")]),
            "unable to parse url: parse \"http://[::1\": missing ']' in host"
        );
        let parsed = call("urlParse", &[s("https://u@h.example/p?q=1#f")]).unwrap();
        assert_eq!(out("urlJoin", &[parsed]), "https://u@h.example/p?q=1#f");
        let dict = |kv: &[(&str, Value)]| Value::map(kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect());
        assert_eq!(
            out("urlJoin", &[dict(&[("scheme", s("http")), ("host", s("h")), ("path", s("/a b/ü"))])]),
            "http://h/a%20b/%C3%BC"
        );
        assert_eq!(
            out("urlJoin", &[dict(&[("scheme", s("https")), ("host", s("h")), ("userinfo", s("u:p"))])]),
            "https://u:p@h"
        );
        assert_eq!(
            err("urlJoin", &[dict(&[("host", i(5))])]),
            "unable to parse host key, must be of type string, but int found"
        );
    }
}

mod limits {
    use super::*;

    fn limited(name: &str, args: &[Value]) -> Result<Value, FuncError> {
        let limits = Limits { max_string_len: 64, max_list_len: 8, ..Limits::default() };
        let mut ctx = Ctx { limits: &limits, crs: &[] };
        (lookup(name).expect("registered").imp)(&mut ctx, args)
    }

    #[test]
    fn growth_is_bounded() {
        let long = "y".repeat(40);
        for (name, args) in [
            ("repeat", vec![i(100), s("ab")]),
            ("indent", vec![i(100), s("a")]),
            ("randAlpha", vec![i(65)]),
            ("randBytes", vec![i(65)]),
            ("replace", vec![s("a"), s(&long), s("aaa")]),
            ("wrapWith", vec![i(1), s(&long), s("abcdef")]),
            ("join", vec![s(&long), strs(&["a", "b", "c"])]),
            ("regexReplaceAll", vec![s("a"), s("aaa"), s(&long)]),
        ] {
            assert!(matches!(limited(name, &args), Err(FuncError::Limit(_))), "{name}");
        }
        assert!(matches!(limited("splitList", &[s(","), s("a,b,c,d,e,f,g,h,i")]), Err(FuncError::Limit(_))));
        assert!(matches!(limited("regexFindAll", &[s("."), s("abcdefghi"), i(-1)]), Err(FuncError::Limit(_))));
        assert!(limited("repeat", &[i(3), s("ab")]).is_ok());
    }
}

mod robustness {
    use super::*;
    use driftlint_gotmpl::{IntKind, Param, Type};

    const NAMES: &[&str] = &[
        "abbrev",
        "abbrevboth",
        "camelcase",
        "cat",
        "contains",
        "hasPrefix",
        "hasSuffix",
        "indent",
        "initials",
        "kebabcase",
        "lower",
        "nindent",
        "nospace",
        "plural",
        "quote",
        "repeat",
        "replace",
        "shuffle",
        "snakecase",
        "split",
        "splitList",
        "splitn",
        "squote",
        "substr",
        "swapcase",
        "title",
        "toString",
        "toStrings",
        "trim",
        "trimAll",
        "trimPrefix",
        "trimSuffix",
        "trimall",
        "trunc",
        "untitle",
        "upper",
        "wrap",
        "wrapWith",
        "join",
        "sortAlpha",
        "atoi",
        "regexMatch",
        "mustRegexMatch",
        "regexFind",
        "mustRegexFind",
        "regexFindAll",
        "mustRegexFindAll",
        "regexReplaceAll",
        "mustRegexReplaceAll",
        "regexReplaceAllLiteral",
        "mustRegexReplaceAllLiteral",
        "regexSplit",
        "mustRegexSplit",
        "regexQuoteMeta",
        "b64enc",
        "b64dec",
        "b32enc",
        "b32dec",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "adler32sum",
        "decryptAES",
        "encryptAES",
        "randAlpha",
        "randAlphaNum",
        "randAscii",
        "randNumeric",
        "randBytes",
        "randInt",
        "uuidv4",
        "buildCustomCert",
        "genCAWithKey",
        "genSelfSignedCertWithKey",
        "base",
        "dir",
        "clean",
        "ext",
        "isAbs",
        "osBase",
        "osClean",
        "osDir",
        "osExt",
        "osIsAbs",
        "urlParse",
        "urlJoin",
    ];

    fn candidates(p: Param) -> Vec<Value> {
        let strings = [
            "",
            " ",
            "a",
            "é✓\u{0}",
            "\\",
            "[",
            "(?",
            "$1${x}$$",
            "a{2,1}",
            "\\Q",
            "-----BEGIN X-----\nAA==\n-----END X-----\n",
            "http://[::1]:80/%zz",
            "//a@b@c:x/",
            "aGVsbG8=",
            "=",
            "::",
            "ǆ_ẞ-ＡＢ１",
            "A\u{300}BC1dE",
        ];
        match p {
            Param::String | Param::Any => strings.iter().map(|x| s(x)).collect(),
            Param::Int(k) => {
                [-1i64, 0, 1, 3, 7, 1 << 40, i64::MIN, i64::MAX].iter().map(|&n| Value::Int(n, k)).collect()
            }
            Param::List => vec![
                Value::nil_list(Type::Interface),
                strs(&["", "1.2.3.4", "::1"]),
                Value::list(vec![i(1), Value::Nil]),
            ],
            Param::Map => vec![
                Value::nil_map(),
                Value::map(
                    [("host".to_string(), s("h:1")), ("userinfo".to_string(), s("a b:c@"))].into_iter().collect(),
                ),
                Value::map([("path".to_string(), Value::Nil)].into_iter().collect()),
            ],
            _ => vec![Value::Nil],
        }
    }

    #[test]
    fn no_panics_on_odd_arguments() {
        let limits = Limits { max_string_len: 1 << 16, max_list_len: 1 << 12, ..Limits::default() };
        for name in NAMES {
            let f = lookup(name).expect("registered");
            let mut params: Vec<Param> = f.params.to_vec();
            if let Some(v) = f.variadic {
                params.extend([v, v]);
            }
            let sets: Vec<Vec<Value>> = params.iter().map(|&p| candidates(p)).collect();
            // Vary one argument at a time around a fixed base (all first candidates), plus
            // the diagonal, to keep the sweep small.
            let base: Vec<Value> = sets.iter().map(|c| c[0].clone()).collect();
            let mut calls = vec![base.clone()];
            for (k, set) in sets.iter().enumerate() {
                for v in set {
                    let mut args = base.clone();
                    args[k] = v.clone();
                    calls.push(args);
                }
            }
            let width = sets.iter().map(Vec::len).max().unwrap_or(0);
            for j in 0..width {
                calls.push(sets.iter().map(|c| c[j % c.len()].clone()).collect());
            }
            for args in calls {
                let mut ctx = Ctx { limits: &limits, crs: &[] };
                let _ = (f.imp)(&mut ctx, &args);
            }
        }
        // Keep the `IntKind` import honest: unsigned counters go through the same path.
        assert!(lookup("derivePassword").is_some_and(|f| f.params[0] == Param::Int(IntKind::Uint32)));
    }
}
