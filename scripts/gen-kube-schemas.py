#!/usr/bin/env python3
"""Writes the bundled Kubernetes schemas of crates/kube-schemas/data/ from the JSON schemas
that the PyPI package kubernetes-validate ships (one directory per Kubernetes version, normal
and strict variants; we read the strict ones: unknown fields are errors, as `kubectl apply`'s
strict field validation has it since Kubernetes 1.25).

    python3 scripts/gen-kube-schemas.py                       # pip download of the pinned wheel
    python3 scripts/gen-kube-schemas.py --wheel path/to.whl   # offline, from a wheel at hand

Output (deterministic for one input):
  data/schemas.zlib   zlib (deflate) of a text whose first line is the JSON index and every
                      other line one definition (JSON), deduplicated across versions
  data/manifest.json  the source package, its sha256, and the Kubernetes versions bundled

What is kept of a definition: what validation reads (type, properties, additionalProperties,
items, required, enum, format, oneOf, $ref, x-kubernetes-list-type/-list-map-keys).
Descriptions and patch hints are dropped. A `$ref` becomes the bare definition name.
Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
import zlib

PACKAGE = "kubernetes-validate"
PINNED = "1.37.0"
# The last eight minor releases.
VERSIONS = ["1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37"]
KEPT = {
    "type",
    "properties",
    "additionalProperties",
    "items",
    "required",
    "enum",
    "format",
    "oneOf",
    "$ref",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
}
REF = re.compile(r"^(?:/api/_definitions\.json)?#/\$defs/(.+)$")
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "kube-schemas", "data")


def strip(node):
    """The definition without what validation does not read; `$ref`s as bare names."""
    if isinstance(node, list):
        return [strip(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key not in KEPT:
            continue
        if key == "$ref":
            m = REF.match(value)
            if not m:
                sys.exit(f"unexpected $ref {value!r}")
            out[key] = m.group(1)
        elif key == "properties":
            out[key] = {name: strip(v) for name, v in value.items()}
        elif key in ("enum", "required", "x-kubernetes-list-map-keys", "type"):
            out[key] = value
        else:
            out[key] = strip(value)
    return out


def download(version):
    tmp = tempfile.mkdtemp(prefix="gen-kube-schemas-")
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"{PACKAGE}=={version}", "--no-deps", "-d", tmp],
        check=True,
    )
    wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
    if len(wheels) != 1:
        sys.exit(f"expected one wheel in {tmp}, found {wheels}")
    return os.path.join(tmp, wheels[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="a kubernetes-validate wheel (default: pip download of the pinned one)")
    parser.add_argument("--package-version", default=PINNED, help=f"the {PACKAGE} version (default {PINNED})")
    parser.add_argument("--out", default=OUT, help="the output directory")
    args = parser.parse_args()
    wheel = args.wheel or download(args.package_version)
    with open(wheel, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    zf = zipfile.ZipFile(wheel)
    names = set(zf.namelist())
    bodies = []  # the distinct definitions, as canonical JSON lines
    body_index = {}
    versions = []
    for version in VERSIONS:
        base = f"kubernetes_validate/kubernetes-json-schema/v{version}.0-local-strict/"
        if base + "_definitions.json" not in names:
            sys.exit(f"{wheel} has no schemas for Kubernetes {version}")
        defs = json.loads(zf.read(base + "_definitions.json"))["$defs"]
        table = {}
        kinds = []
        for name in sorted(defs):
            body = json.dumps(strip(defs[name]), sort_keys=True, separators=(",", ":"))
            if body not in body_index:
                body_index[body] = len(bodies)
                bodies.append(body)
            table[name] = body_index[body]
            for gvk in defs[name].get("x-kubernetes-group-version-kind", []):
                group, ver, kind = gvk["group"], gvk["version"], gvk["kind"]
                # Only kinds with a schema file of their own (as kubeconform and
                # kubernetes-validate look them up): not WatchEvent's or DeleteOptions' dozens.
                suffix = f"-{group.split('.')[0].lower()}-{ver}" if group else f"-{ver}"
                if base + kind.lower() + suffix + ".json" in names:
                    kinds.append([group, ver, kind, name])
        kinds.sort()
        versions.append({"name": version, "kinds": kinds, "definitions": table})
    index = {"versions": versions}
    text = json.dumps(index, sort_keys=True, separators=(",", ":")) + "\n" + "\n".join(bodies) + "\n"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "schemas.zlib"), "wb") as f:
        f.write(zlib.compress(text.encode(), 9))
    manifest = {
        "generator": "scripts/gen-kube-schemas.py",
        "source": {"package": PACKAGE, "version": args.package_version, "wheel": os.path.basename(wheel), "sha256": digest},
        "variant": "local-strict",
        "kubernetes": VERSIONS,
        "definitions": len(bodies),
        "uncompressed_bytes": len(text.encode()),
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{len(bodies)} distinct definitions, {len(text.encode())} bytes, {os.path.getsize(os.path.join(args.out, 'schemas.zlib'))} compressed")


if __name__ == "__main__":
    main()
