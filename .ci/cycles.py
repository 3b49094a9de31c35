#!/usr/bin/env python3
"""Import circles between the modules of a crate.

Usage: python3 .ci/cycles.py crates/yaml/src crates/gotmpl/src ...

For each source root (a crate's `src`), builds the file-level graph of what non-test code
imports (`use` trees, `crate::`/`self::`/`super::` paths, and paths through a module's own
children) and prints every strongly connected component of more than one file, one line each;
exits 1 if there is one.

A module using its ancestors' items (`super::X` where X is defined in the parent's file) is how
a Rust module tree is built, so such edges are left out; an item the ancestor only imports
(`use sibling::X` or `pub use sibling::X` in the parent) counts as the module it comes from.
A parent using its children is the natural direction and counts. Test code is left out:
`#[cfg(test)]` items, and files declared by a `#[cfg(test)] mod x;`.
"""
import os
import re
import sys

TEST_ATTR = re.compile(r"#\[cfg\(test\)\]")


def strip(text):
    """Blanks out comments, string and char literals (keeping lines), so braces and paths in
    them do not count."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:  # a lifetime or label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def item_end(body, start):
    """End of the item starting at `start`: its `;` or the brace closing its first `{`."""
    i, n = start, len(body)
    while i < n and body[i] not in ";{":
        i += 1
    if i >= n or body[i] == ";":
        return min(i + 1, n)
    depth = 0
    while i < n:
        if body[i] == "{":
            depth += 1
        elif body[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def without_tests(body):
    """The body without `#[cfg(test)]` items; also the names of `#[cfg(test)] mod x;` files."""
    test_mods = set()
    while True:
        m = TEST_ATTR.search(body)
        if not m:
            return body, test_mods
        k = m.end()
        while True:  # further attributes on the same item
            a = re.match(r"\s*#\[[^\]]*\]", body[k:])
            if not a:
                break
            k += a.end()
        d = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", body[k:])
        if d:
            test_mods.add(d.group(1))
        end = item_end(body, k)
        body = body[:m.start()] + re.sub(r"[^\n]", " ", body[m.start():end]) + body[end:]


def use_paths(tree, prefix=()):
    """Expands a `use` tree (`a::{b, c::{d as e}, self}`) into (path, local name) pairs."""
    tree = tree.strip()
    m = re.match(r"^((?:[\w]+\s*::\s*)*)\{(.*)\}$", tree, re.S)
    if m:
        head = tuple(x.strip() for x in m.group(1).split("::") if x.strip())
        parts, depth, cur = [], 0, ""
        for ch in m.group(2):
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        parts.append(cur)
        out = []
        for p in parts:
            if p.strip():
                out += use_paths(p, prefix + head)
        return out
    m = re.match(r"^([\w:\s*]+?)(?:\s+as\s+(\w+))?$", tree, re.S)
    if not m:
        return []
    path = prefix + tuple(x.strip() for x in m.group(1).split("::") if x.strip())
    if path and path[-1] == "self":
        path = path[:-1]
    if not path:
        return []
    return [(path, m.group(2) or path[-1])]


class Crate:
    def __init__(self, root):
        self.root = root
        self.files = {}  # module path (tuple) -> (file, body without comments, literals, tests)
        self.children = {}  # module path -> names of child modules (declared by `mod x;`)
        self.test_only = set()
        for d, _, fs in os.walk(root):
            for f in fs:
                if f.endswith(".rs"):
                    p = os.path.join(d, f)
                    rel = os.path.relpath(p, root)[:-3].split(os.sep)
                    if rel[-1] in ("mod", "lib", "main"):
                        rel = rel[:-1]
                    raw = open(p, encoding="utf-8").read()
                    body, tests = without_tests(strip(raw))
                    mod = tuple(rel)
                    self.files[mod] = (p, body)
                    for t in tests:
                        self.test_only.add(mod + (t,))
                    # `#[cfg(test)] #[path = "x_tests.rs"] mod tests;`: that file is test code.
                    # (a `#[path]` is relative to the declaring file's directory).
                    here = tuple(os.path.relpath(d, root).split(os.sep)) if d != root else ()
                    for t in re.finditer(r'#\[cfg\(test\)\]\s*#\[path\s*=\s*"([^"]+)\.rs"\]', raw):
                        self.test_only.add(here + tuple(t.group(1).split("/")))
        for mod in list(self.files):
            self.children[mod] = {m[-1] for m in self.files if len(m) == len(mod) + 1 and m[:-1] == mod}
        self.imports = {m: self.local_imports(m) for m in self.files}

    def is_test(self, mod):
        return any(mod[:k] in self.test_only for k in range(1, len(mod) + 1))

    def local_imports(self, mod):
        """Names a module's own `use` declarations bring in: name -> absolute path."""
        _, body = self.files[mod]
        names = {}
        for u in re.finditer(r"\buse\s+([^;]*);", body):
            for path, name in use_paths(u.group(1)):
                if name == "*":
                    continue
                absolute = self.absolute(mod, path)
                if absolute is not None:
                    names[name] = absolute
        return names

    def absolute(self, mod, path):
        """A path written in `mod`, made absolute from the crate root; None if it leaves the
        crate (another crate, std)."""
        path = list(path)
        if path[0] == "crate":
            return tuple(path[1:])
        if path[0] in ("self", "super"):
            base = list(mod)
            while path and path[0] in ("self", "super"):
                if path.pop(0) == "super":
                    if not base:
                        return None
                    base.pop()
            return tuple(base + path)
        if path[0] in self.children.get(mod, ()):
            return tuple(mod) + tuple(path)
        return None

    def resolve(self, path, depth=0):
        """The module an absolute item path belongs to: the longest module prefix, following
        an ancestor's imports to where an imported item comes from."""
        for k in range(len(path), -1, -1):
            if path[:k] in self.files:
                mod, rest = path[:k], path[k:]
                if rest and depth < 16:
                    target = self.imports.get(mod, {}).get(rest[0])
                    if target is not None and target != mod + (rest[0],):
                        return self.resolve(target + rest[1:], depth + 1)
                return mod
        return None

    def edges(self, mod):
        _, body = self.files[mod]
        out = set()
        paths = []
        for u in re.finditer(r"\buse\s+([^;]*);", body):
            paths += [p for p, _ in use_paths(u.group(1))]
        rest = re.sub(r"\buse\s+[^;]*;", "", body)
        for u in re.finditer(r"(?<![\w:])((?:crate|self|super)(?:\s*::\s*\w+)+)", rest):
            paths.append(tuple(x.strip() for x in u.group(1).split("::")))
        for u in re.finditer(r"(?<![\w:])(\w+)((?:\s*::\s*\w+)+)", rest):
            if u.group(1) in self.children.get(mod, ()):
                paths.append((u.group(1),) + tuple(x.strip() for x in u.group(2).split("::") if x.strip()))
        for path in paths:
            if path and path[-1] == "*":
                path = path[:-1]
            if not path:
                continue
            absolute = self.absolute(mod, path)
            if absolute is None:
                continue
            target = self.resolve(absolute)
            if target is None or target == mod or self.is_test(target):
                continue
            if target == mod[:len(target)]:
                continue  # an ancestor's own item
            out.add(target)
        return out

    def cycles(self):
        mods = [m for m in self.files if not self.is_test(m)]
        graph = {m: self.edges(m) for m in mods}
        index, low, stack, on, found = {}, {}, [], set(), []
        counter = [0]
        sys.setrecursionlimit(10000)

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(graph.get(v, ())):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted("::".join(c) for c in comp))

        for v in sorted(mods):
            if v not in index:
                visit(v)
        return graph, found


def main(argv):
    verbose = "-v" in argv
    status = 0
    for root in [a for a in argv if a != "-v"]:
        graph, found = Crate(root).cycles()
        if verbose:
            for m in sorted(graph):
                for t in sorted(graph[m]):
                    print(root, "::".join(m) or "<root>", "->", "::".join(t) or "<root>")
        for comp in sorted(found):
            print(root, comp)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
