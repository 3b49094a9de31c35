#!/usr/bin/env python3
"""Writes the YAML cases whose Kubernetes reading scripts/record-yaml-truth.sh records.

Each case is one file, DIR/NAME.yaml. Hand-written cases cover the shapes named in
docs/inputs.md ("YAML as Kubernetes reads it"); the generated ones put tricky plain scalars
(`:`, `#`, `-`, `?` inside or around them) into every context: block value, block key,
block sequence item, flow sequence item, flow mapping key and value.
"""
import os
import sys

CASES = {
    # The two istio shapes: a flow sequence closed at the parent key's indentation, and a
    # plain scalar with colons inside a flow sequence.
    "istio-args-bracket-at-parent": 'spec:\n  args: [\n    "-a", "b",\n  ]\n',
    "istio-externalips-ipv6": "spec:\n  externalIPs: [1.2.3.4, 001:db8::]\n",
    "istio-service": (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - port: 80\n"
        "  externalIPs: [1.2.3.4, 001:db8::]\n"
    ),
    "istio-pod": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
        '    image: i\n    args: [\n      "-a", "b",\n    ]\n'
    ),
    # Flow collections over several lines, brackets at odd indentation.
    "flow-seq-close-col0": 'args: [\n  "-a", "b",\n]\n',
    "flow-seq-close-col0-nested": 'spec:\n  args: [\n    "-a",\n]\n',
    "flow-seq-close-deeper": 'spec:\n  args: [\n    "-a", "b",\n      ]\n',
    "flow-seq-items-at-parent": 'spec:\n  args: [\n  "-a",\n  "b"]\n',
    "flow-seq-items-col0-nested": 'spec:\n  args: [\n"-a",\n"b"]\n',
    "flow-seq-items-col0-nested-plain": "spec:\n  args: [\na,\nb]\n",
    "flow-seq-close-then-key": 'spec:\n  args: [\n    "-a",\n  ]\n  other: 1\n',
    "flow-seq-close-then-outer-key": 'spec:\n  args: [\n    "-a",\n  ]\nother: 1\n',
    "flow-map-close-at-parent": "spec:\n  env: {\n    a: 1,\n    b: 2,\n  }\n",
    "flow-map-close-col0-nested": "spec:\n  env: {\n    a: 1,\n}\n",
    "flow-map-items-at-parent": "spec:\n  env: {\n  a: 1,\n  b: 2}\n",
    "flow-nested-multiline": "a:\n  b: [\n    [1, 2],\n    {c: [3,\n  4]},\n  ]\n",
    "flow-seq-in-block-seq": "- [\n  a, b,\n]\n- c\n",
    "flow-seq-in-block-seq-nested": "k:\n  - [\n    a,\n  ]\n  - b\n",
    "flow-seq-in-block-seq-close-under-dash": "k:\n  - [\n    a,\n    ]\n",
    "flow-seq-in-block-seq-close-col0": "k:\n  - [\n    a,\n]\n",
    "flow-seq-root-multiline": "[\na,\nb\n]\n",
    "flow-map-root-multiline": "{\na: 1,\nb: 2\n}\n",
    "flow-seq-trailing-comma": "a: [1, 2, ]\n",
    "flow-seq-empty-entry": "a: [1, , 2]\n",
    "flow-map-trailing-comma": "a: {b: 1, }\n",
    "flow-seq-comment-inside": "a: [ # c\n  1, # d\n  2\n]\n",
    "flow-seq-unclosed": "a: [1, 2\nb: 3\n",
    "flow-map-unclosed": "a: {b: 1\n",
    "flow-seq-pair": "a: [b: 1, c]\n",
    "flow-seq-explicit-key": "a: [? b : 1]\n",
    "flow-map-empty-value": "a: {b, c: }\n",
    "flow-map-json-like": 'a: {"b":1,"c":[2,3]}\n',
    "flow-seq-quoted-colon-adjacent": 'a: ["b":c]\n',
    "flow-seq-multiline-plain": "a: [b\n  c, d]\n",
    "flow-seq-key-multiline": "? [a,\n  b]\n: c\n",
    "flow-after-key-next-line": "a:\n  [1, 2]\n",
    "flow-after-key-next-line-col0": "a:\n[1, 2]\n",
    "flow-map-after-key-next-line": "a:\n  {b: 1}\n",
    "flow-seq-space-before-bracket": "a: [ 1 , 2 ]\n",
    "flow-seq-value-then-text": "a: [1] b\n",
    "flow-seq-as-key-block": "[a, b]: c\n",
    "flow-map-as-key-block": "{a: b}: c\n",
    "flow-multiline-close-with-comment": "a: [\n  1,\n] # done\nb: 2\n",
    # Indentation.
    "indent-seq-under-key-same-col": "a:\n- 1\n- 2\nb: 3\n",
    "indent-seq-deeper": "a:\n    - 1\n    - 2\n",
    "indent-mismatch-mapping": "a:\n  b: 1\n c: 2\n",
    "indent-mismatch-deeper": "a:\n  b: 1\n    c: 2\n",
    "indent-map-in-seq-odd": "-   a: 1\n    b: 2\n",
    "indent-map-in-seq-misaligned": "- a: 1\n   b: 2\n",
    "indent-nested-seq": "- - a\n  - b\n- c\n",
    "indent-compact-nested": "a:\n- b:\n  - c\n  d: e\n",
    "indent-multiline-plain": "a: b\n  c\n  d\n",
    "indent-multiline-plain-blank": "a: b\n\n  c\n",
    "indent-multiline-plain-key-level": "a: b\nc\n",
    "indent-plain-continued-in-seq": "- a\n  b\n- c\n",
    "indent-empty-value-then-deeper": "a:\nb:\n  c: 1\n",
    "indent-one-space": "a:\n b:\n  c: 1\n",
    "indent-root-scalar-multiline": "a\nb\n",
    "indent-key-after-seq-deeper": "a:\n  - 1\n  b: 2\n",
    # Block scalars.
    "block-literal": "a: |\n  x\n  y\n",
    "block-literal-strip": "a: |-\n  x\n\n",
    "block-literal-keep": "a: |+\n  x\n\n\nb: 1\n",
    "block-folded": "a: >\n  x\n  y\n\n  z\n",
    "block-folded-more-indented": "a: >\n  x\n    y\n  z\n",
    "block-indicator": "a: |2\n    x\n   y\n",
    "block-indicator-keep": "a: >+1\n  x\n",
    "block-indicator-order": "a: |-2\n   x\n",
    "block-leading-blank": "a: |\n\n  x\n",
    "block-more-indented-first": "a: |\n    x\n  y\n",
    "block-empty": "a: |\nb: 1\n",
    "block-empty-keep": "a: |+\n\nb: 1\n",
    "block-comment-header": "a: | # c\n  x\n",
    "block-in-seq": "- |\n  x\n- >-\n  y\n",
    "block-root": "|\n  x\n",
    "block-tab-content": "a: |\n  x\ty\n",
    "block-trailing-spaces": "a: |\n  x  \n  \n",
    "block-folded-trailing-lines": "a: >\n  x\n\n\n",
    "block-in-flow": "a: [|\n  x\n]\n",
    "block-less-indented-line": "a:\n  b: |\n    x\n   y\n",
    # Anchors, aliases, merge keys.
    "anchor-alias": "a: &x 1\nb: *x\n",
    "anchor-map": "a: &x {b: 1}\nc: *x\n",
    "merge": "base: &b\n  x: 1\n  y: 2\nd:\n  <<: *b\n  y: 3\n",
    "merge-before-explicit": "base: &b\n  x: 1\nd:\n  x: 0\n  <<: *b\n",
    "merge-list": "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n",
    "merge-list-order": "a: &a {x: 1}\nb: &b {x: 2}\nc:\n  <<: [*a, *b]\n",
    "merge-scalar": "a:\n  <<: 1\n",
    "merge-quoted-key": "a: &a {x: 1}\nb:\n  '<<': *a\n",
    "alias-unknown": "a: *x\n",
    "alias-redefined": "a: &x 1\nb: &x 2\nc: *x\n",
    "anchor-empty-value": "a: &x\nb: *x\n",
    "alias-as-key": "a: &k key\n*k : v\n",
    "anchor-in-flow": "a: [&x 1, *x]\n",
    "alias-across-documents": "a: &x 1\n---\nb: *x\n",
    # Tabs.
    "tab-indent": "a:\n\tb: 1\n",
    "tab-after-colon": "a:\t1\n",
    "tab-in-value": "a: b\tc\n",
    "tab-before-comment": "a: 1\t# c\n",
    "tab-in-flow": "a: [1,\t2]\n",
    "tab-after-dash": "-\ta\n",
    "tab-in-quoted": 'a: "b\tc"\n',
    "tab-line-blank": "a: 1\n\t\nb: 2\n",
    "tab-trailing": "a: 1\t\n",
    # Document markers.
    "doc-start": "---\na: 1\n",
    "doc-two": "a: 1\n---\nb: 2\n",
    "doc-empty-between": "a: 1\n---\n---\nb: 2\n",
    "doc-comment-only": "# c\n---\na: 1\n",
    "doc-end": "a: 1\n...\n",
    "doc-end-then-doc": "a: 1\n...\n---\nb: 2\n",
    "doc-end-then-content": "a: 1\n...\nb: 2\n",
    "doc-start-comment": "--- # c\na: 1\n",
    "doc-start-inline-content": "--- a\n",
    "doc-start-inline-flow": "--- {a: 1}\n",
    "doc-marker-indented": "a:\n  ---\n",
    "doc-marker-in-block-scalar": "a: |\n  ---\n  x\n",
    "doc-marker-col0-in-block-scalar": "a: |\n  x\n---\nb: 1\n",
    "doc-dashes-longer": "----\na: 1\n",
    "doc-directive": "%YAML 1.1\n---\na: 1\n",
    "doc-only-markers": "---\n---\n",
    "doc-scalar-root": "--- 1\n",
    "doc-null": "~\n",
    "doc-empty": "",
    # Quoted scalars.
    "dq-escapes": 'a: "\\t\\n\\\\\\"\\x41\\u00e9\\U0001F600\\0\\a\\b\\e\\f\\r\\v\\/\\ \\N\\_\\L\\P"\n',
    "dq-bad-escape": 'a: "\\q"\n',
    "dq-multiline": 'a: "b\n  c\n\n  d"\n',
    "dq-line-escape": 'a: "b\\\n  c"\n',
    "dq-continuation-col0": 'a:\n  b: "x\ny"\n',
    "sq-escapes": "a: 'it''s \\n'\n",
    "sq-multiline": "a: 'b\n  c'\n",
    "dq-key": '"a b": 1\n',
    "dq-unclosed": 'a: "b\n',
    "dq-then-text": 'a: "b" c\n',
    "dq-number-string": 'a: "1"\nb: \'true\'\n',
    "dq-empty": "a: \"\"\nb: ''\n",
    # YAML 1.1 scalars.
    "v11-bools": "a: [yes, no, on, off, y, n, Yes, NO, On, OFF, true, False, TRUE]\n",
    "v11-bool-keys": "yes: 1\non: 2\nn: 3\n",
    "v11-octal": "a: [0755, 0o755, 08, 0x1F, -0x1F, 0b101, -0b1]\n",
    "v11-underscore": "a: [1_000, 1_0.5, 0x_1F, _1, 1__0]\n",
    "v11-floats": "a: [.inf, -.Inf, .NAN, 1e3, 1E3, 1.5e-3, 3.0, .5, 5., +1, -0, 1e21, 1.e3]\n",
    "v11-inf": "a: .inf\n",
    "v11-nan": "a: .nan\n",
    "v11-nulls": "a: [~, null, Null, NULL, nUll]\nb:\nc: ~\n",
    "v11-base60": "a: [1:20, 1:20.5, 190:20:30]\n",
    "v11-timestamps": "a: [2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-12-14 21:59:43.10 -5]\n",
    "v11-large-ints": "a: [9223372036854775807, 9223372036854775808, 18446744073709551615, 18446744073709551616, -9223372036854775808, -9223372036854775809]\n",
    "v11-plus-minus": "a: [+12, -12, +0x1, +.inf, +.5]\n",
    "v11-tags": "a: !!str 1\nb: !!int '2'\nc: !!float 3\nd: !!bool yes\ne: !!null ''\n",
    "v11-tag-mismatch": "a: !!int x\n",
    "v11-binary": "a: !!binary aGVsbG8=\n",
    "v11-custom-tag": "a: !foo bar\n",
    "v11-int-keys": "1: a\n2.5: b\n0x10: c\ntrue: d\n",
    "v11-null-key": "~: a\n",
    "v11-float-key-whole": "1.0: a\n",
    "v11-seq-key": "? [a]\n: b\n",
    # Duplicate keys.
    "dup-keys": "a: 1\na: 2\n",
    "dup-keys-nested": "a:\n  b: 1\n  b: 2\n",
    "dup-keys-int-string": "1: a\n'1': b\n",
    "dup-keys-flow": "a: {b: 1, b: 2}\n",
    "dup-keys-merge": "x: &x {a: 1}\ny:\n  <<: *x\n  <<: *x\n",
    # Plain scalars with indicators, hand-picked.
    "plain-url": "a: http://example.com:8080/p?q=1#f\n",
    "plain-colon-end-flow": "a: [b:]\n",
    "plain-colon-space-flow": "a: [b: c]\n",
    "plain-hash-no-space": "a: b#c\n",
    "plain-hash-space": "a: b #c\n",
    "plain-dash-start": "a: -b\n",
    "plain-dash-space-value": "a: - b\n",
    "plain-question-start": "a: ?b\n",
    "plain-question-space": "a: ? b\n",
    "plain-colon-start": "a: :b\n",
    "plain-key-colon-inside": "a:b: c\n",
    "plain-key-colon-colon": "a:: b\n",
    "plain-key-url": "http://x: y\n",
    "plain-value-colon-space-inside": "a: b: c\n",
    "plain-flow-indicators-block": "a: b]c}d,e\n",
    "plain-at-start": "a: @b\n",
    "plain-backtick-start": "a: `b\n",
    "plain-percent": "a: %b\n",
    "plain-pipe-inside": "a: b|c\n",
    "plain-ampersand-inside": "a: b&c*d!e\n",
    "plain-ipv6-block": "a: 001:db8::\n",
    "plain-ipv6-seq": "- 001:db8::\n- ::1\n",
    "plain-windows-path": "a: C:\\x\n",
    "plain-trailing-space": "a: b   \n",
    "crlf": "a: 1\r\nb: 2\r\n",
    "bom": "\ufeffa: 1\n",
    "nel-in-plain": "a: b\u0085c\n",
    "unicode-plain": "a: é\nb: 日本\n",
    "long-key": ("k" * 1100) + ": v\n",
    "nel-in-quoted": 'a: "b\u0085c"\n',
    "nel-in-literal": "a: |\n  b\u0085  c\n",
    "ls-in-plain": "a: b\u2028c\n",
    "flow-seq-dash-space": "a: [- b]\n",
    "flow-seq-question-colon": "a: [?b: c]\n",
    "flow-seq-question-alone": "a: [?]\n",
    "flow-map-question-blank-key": "a: {? b}\n",
    "flow-seq-pipe-inside": "a: [b|c, d>e]\n",
    "flow-seq-ipv6-multiline": "a: [\n  1.2.3.4,\n  001:db8::,\n  ::1x\n]\n",
    "flow-seq-colon-then-bracket": "a: [b:[c]]\n",
    "flow-map-colon-end-key": "a: {b:}\n",
    "flow-map-colon-end-value": "a: {x: b:}\n",
    "flow-seq-colon-comma": "a: [b:, c]\n",
    "flow-seq-colon-multiline-scalar": "a: [b:c\n  d:, e]\n",
    "tab-after-colon-flow": "a: {b:\t1}\n",
    "tab-after-colon-nested": "a:\n  b:\t1\n  c:\t\"x\"\n",
    "tab-after-key-before-colon": "a\t: 1\n",
    "tab-after-question": "?\ta\n:\tb\n",
    "tab-before-value-on-next-line": "a:\n\t1\n",
    "v11-floats-near-int64": "a: [9223372036854775000.0, 9007199254740993.0, 1e18, 123456789012345678.0, -9223372036854775808.0, 9.2e18]\n",
}

# Every escape of a double-quoted scalar, one case each.
for i, esc in enumerate(["t", "n", "\\", '"', "x41", "u00e9", "U0001F600", "0", "a", "b", "e", "f", "r", "v",
                         "/", " ", "N", "_", "L", "P", "'", "\t"]):
    CASES[f"dq-escape-{i:02}"] = 'a: "\\' + esc + '"\n'


TOKENS = {
    "colon-inside": "a:b",
    "colon-twice-end": "a::",
    "ipv6": "001:db8::",
    "ipv6-loopback": "::1",
    "colon-end": "a:",
    "colon-start": ":a",
    "colon-three": "a:b:c",
    "url": "http://h:80/p",
    "hash-inside": "a#b",
    "hash-after-space": "a #b",
    "dash-start": "-a",
    "dash-end": "a-",
    "dash-dash": "--a",
    "question-start": "?a",
    "question-inside": "a?b",
    "question-end": "a?",
    "colon-question": "a:?",
    "mixed": "-?:#a",
}

CONTEXTS = {
    "block-value": "k: {t}\n",
    "block-key": "{t}: v\n",
    "block-item": "- {t}\n",
    "flow-item": "k: [{t}]\n",
    "flow-item-mid": "k: [x, {t}, y]\n",
    "flow-map-value": "k: {{a: {t}}}\n",
    "flow-map-key": "k: {{{t}: v}}\n",
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = dict(CASES)
    for tname, tok in TOKENS.items():
        for cname, shape in CONTEXTS.items():
            cases[f"gen-{cname}-{tname}"] = shape.format(t=tok)
    for name, text in sorted(cases.items()):
        with open(os.path.join(out, name + ".yaml"), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    print(f"{len(cases)} cases in {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
