//! `pathToKey` parsing (§2.6): strip one leading `.`, then read one record with Go's
//! `encoding/csv` using `.` as the separator (no lazy quotes, no space trimming).
//!
//! This is a byte-for-byte port of the parts of `csv.Reader.readRecord` that can run here,
//! because its quirks are visible to users: empty lines before the record are skipped, a
//! quoted field may run over several lines, a bare `"` in an unquoted field or a stray one
//! after a closing quote is an error with a 1-based *byte* column, and an empty text is `EOF`.

/// Splits a `pathToKey` into its segments. The error is the text after kube-compare's
/// `failed to parse path: ` prefix (Go's `csv.ParseError` or `EOF`).
pub fn parse_path_to_key(path: &str) -> Result<Vec<String>, String> {
    let text = path.strip_prefix('.').unwrap_or(path);
    let mut lines = Lines { rest: text.as_bytes(), number: 0 };

    // Skip empty lines; an input with nothing else is EOF.
    let mut cur = loop {
        match lines.next() {
            None => return Err("EOF".to_owned()),
            Some(l) if l == b"\n" => continue,
            Some(l) => break l,
        }
    };
    // `cur[at..]` is Go's `line`; `col` is its 1-based byte column.
    let mut at = 0usize;
    let record_line = lines.number;
    let mut fields = Vec::new();
    let mut col = 1usize;
    let error = |start: usize, line: usize, col: usize, what: &str| {
        if start == line {
            format!("parse error on line {line}, column {col}: {what}")
        } else {
            format!("record on line {start}; parse error on line {line}, column {col}: {what}")
        }
    };
    const BARE: &str = "bare \" in non-quoted field";
    const QUOTE: &str = "extraneous or missing \" in quoted-field";

    loop {
        let line = &cur[at..];
        if line.first() != Some(&b'"') {
            // Unquoted field.
            let comma = line.iter().position(|&b| b == b'.');
            let field = match comma {
                Some(i) => &line[..i],
                None => &line[..line.len() - usize::from(line.last() == Some(&b'\n'))],
            };
            if let Some(j) = field.iter().position(|&b| b == b'"') {
                return Err(error(record_line, lines.number, col + j, BARE));
            }
            fields.push(String::from_utf8_lossy(field).into_owned());
            match comma {
                Some(i) => {
                    at += i + 1;
                    col += i + 1;
                    continue;
                }
                None => return Ok(fields),
            }
        }
        // Quoted field.
        let mut buf: Vec<u8> = Vec::new();
        at += 1;
        col += 1;
        loop {
            let line = &cur[at..];
            if let Some(i) = line.iter().position(|&b| b == b'"') {
                buf.extend_from_slice(&line[..i]);
                at += i + 1;
                col += i + 1;
                let line = &cur[at..];
                match line.first() {
                    Some(b'"') => {
                        buf.push(b'"');
                        at += 1;
                        col += 1;
                    }
                    Some(b'.') => {
                        at += 1;
                        col += 1;
                        fields.push(String::from_utf8_lossy(&buf).into_owned());
                        break;
                    }
                    None | Some(b'\n') if line.len() <= 1 => {
                        fields.push(String::from_utf8_lossy(&buf).into_owned());
                        return Ok(fields);
                    }
                    // Go reports the column of the stray closing quote.
                    _ => return Err(error(record_line, lines.number, col - 1, QUOTE)),
                }
            } else if !line.is_empty() {
                buf.extend_from_slice(line);
                col += line.len();
                match lines.next() {
                    Some(next) => {
                        cur = next;
                        col = 1;
                    }
                    None => cur = Vec::new(),
                }
                at = 0;
            } else {
                return Err(error(record_line, lines.number, col, QUOTE));
            }
        }
    }
}

/// Go's `csv.Reader.readLine`: lines keep their `\n`; `\r\n` becomes `\n`; a final `\r`
/// before EOF is dropped.
struct Lines<'a> {
    rest: &'a [u8],
    number: usize,
}

impl Lines<'_> {
    fn next(&mut self) -> Option<Vec<u8>> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self.rest.iter().position(|&b| b == b'\n').map_or(self.rest.len(), |i| i + 1);
        let mut line = self.rest[..end].to_vec();
        self.rest = &self.rest[end..];
        self.number += 1;
        if line.ends_with(b"\r\n") {
            line.truncate(line.len() - 2);
            line.push(b'\n');
        } else if line.last() == Some(&b'\r') {
            line.pop();
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::parse_path_to_key as p;

    fn ok(s: &str) -> Vec<String> {
        p(s).unwrap()
    }

    #[test]
    fn spec_examples() {
        assert_eq!(ok("spec.selector.matchLabels.k8s-app"), ["spec", "selector", "matchLabels", "k8s-app"]);
        assert_eq!(
            ok(r#"metadata.annotations."workload.openshift.io/allowed""#),
            ["metadata", "annotations", "workload.openshift.io/allowed"]
        );
        assert_eq!(ok(r#""a"."b""#), ["a", "b"]);
        assert_eq!(ok(r#""a""b""#), ["a\"b"]);
        assert_eq!(ok("a..b"), ["a", "", "b"]);
        assert_eq!(ok("..a"), ["", "a"]);
        assert_eq!(ok(".a"), ["a"]);
        assert_eq!(ok("a\nb"), ["a"]);
        assert_eq!(ok("\n\na.b"), ["a", "b"]);
    }

    #[test]
    fn errors() {
        assert_eq!(p("").unwrap_err(), "EOF");
        assert_eq!(p(".").unwrap_err(), "EOF");
        assert_eq!(
            p(r#"a."b"#).unwrap_err(),
            "parse error on line 1, column 5: extraneous or missing \" in quoted-field"
        );
        assert_eq!(p(r#"a.b"c"#).unwrap_err(), "parse error on line 1, column 4: bare \" in non-quoted field");
        assert_eq!(
            p(r#""a"b"#).unwrap_err(),
            "parse error on line 1, column 3: extraneous or missing \" in quoted-field"
        );
    }
}
