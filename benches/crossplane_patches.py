#!/usr/bin/env python3
"""How the Crossplane pass' cost grows with a Composition's patches.

Generates, for N and 10*N patches, a Composition whose one resource writes N distinct map
keys (the rendered-base walk over many fields at one level), and one whose PatchSet of N
patches is used by 20 resources (PatchSet expansion), with the XRD of fixtures/crossplane and
a CRD with a string map; times `driftlint check` on each (best of 3) and prints the ratios.
Linear growth gives about 10x per 10x patches; the quadratic walk and per-use expansion gave
about 100x and 20x the work.

    python3 benches/crossplane_patches.py target/release/driftlint [N]
"""

import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.org}
spec:
  group: example.org
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                tags: {type: object, additionalProperties: {type: string}}
"""

HEAD = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: bench}
spec:
  compositeTypeRef: {apiVersion: database.example.org/v1alpha1, kind: XPostgreSQLInstance}
"""


def patch(i, indent):
    return f"{indent}- {{fromFieldPath: metadata.name, toFieldPath: spec.tags.k{i}}}\n"


def wide(n):
    text = HEAD + "  resources:\n    - name: r\n      base: {apiVersion: example.org/v1, kind: Thing}\n      patches:\n"
    return text + "".join(patch(i, "        ") for i in range(n))


def shared(n, users=20):
    text = HEAD + "  patchSets:\n    - name: common\n      patches:\n"
    text += "".join(patch(i, "        ") for i in range(n))
    text += "  resources:\n"
    for r in range(users):
        text += f"    - name: r{r}\n      base: {{apiVersion: example.org/v1, kind: Thing}}\n"
        text += "      patches:\n        - {type: PatchSet, patchSetName: common}\n"
    return text


def timed(binary, work, name, text):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write(text)
    args = [binary, "check", "--isolated", "--format", "concise", "--schemas", os.path.join(work, "schemas"), path]
    best = None
    for _ in range(3):
        start = time.perf_counter()
        run = subprocess.run(args, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if run.returncode not in (0, 1):
            sys.exit(f"{name}: exit {run.returncode}\n{run.stderr}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target/release/driftlint"))
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    with tempfile.TemporaryDirectory() as work:
        schemas = os.path.join(work, "schemas")
        os.mkdir(schemas)
        with open(os.path.join(schemas, "thing.yaml"), "w") as f:
            f.write(CRD)
        xrd = os.path.join(ROOT, "fixtures/crossplane/schemas/xpostgresqlinstance.xrd.yaml")
        with open(xrd) as src, open(os.path.join(schemas, "xrd.yaml"), "w") as f:
            f.write(src.read())
        for label, make in (("one resource, N map keys", wide), ("PatchSet of N used by 20 resources", shared)):
            small = timed(binary, work, "small.yaml", make(n))
            large = timed(binary, work, "large.yaml", make(10 * n))
            print(f"{label}: N={n}: {small:.3f}s, N={10 * n}: {large:.3f}s, ratio {large / small:.1f}x")


if __name__ == "__main__":
    main()
