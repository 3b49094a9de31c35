#!/usr/bin/env python3
"""Conformance ratchet: run a scorer, then fail if a case listed as passing has stopped passing.

    ratchet.py gotemplate   BIN PASSING_FILE   # shared/conformance/gotemplate/score
    ratchet.py kube-compare BIN PASSING_FILE   # shared/conformance/kube-compare/score
    ratchet.py crossplane   BIN PASSING_FILE   # shared/conformance/crossplane/score
    ratchet.py fybrik       BIN PASSING_FILE   # shared/conformance/fybrik/score

Prints the scorer's summary, the cases that regressed, and the cases that now pass but are not
yet listed (add them to PASSING_FILE: the ratchet only moves forward). Set SHARED to the
shared/ folder (default: ../shared beside the repository).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("SHARED", ROOT.parent / "shared"))


def run_gotemplate(binary):
    corpus = SHARED / "conformance" / "gotemplate"
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        proc = subprocess.run(
            [str(corpus / "score"), "--corpus", str(corpus), "--jobs", "2", "--show-failures", "0",
             "--report", str(report), "--", binary, "template", "eval-case"],
            capture_output=True, text=True)
        summary = proc.stdout.strip().splitlines()[-1:] or [proc.stderr.strip()]
        if not report.exists():
            sys.exit(f"ratchet: the gotemplate scorer wrote no report: {proc.stderr.strip()}")
        cases = json.loads(report.read_text())
    return {c["name"] for c in cases if c["passed"]}, {c["name"] for c in cases}, summary[0]


def run_kube_compare(binary):
    cmd = (f"{binary} compare -r {{reference}} {{inputsFlags}} {{recursive}} {{allResources}} "
           f"{{diffConfig}} {{overrides}} -o json")
    return run_pass_fail("kube-compare", cmd)


def run_crossplane(binary):
    return run_pass_fail("crossplane", f"{binary} check --format json {{schemas}} {{mode}} {{inputs}}")


def run_fybrik(binary):
    return run_pass_fail("fybrik", f"{binary} policy decide")


def run_pass_fail(name, cmd):
    """A scorer that takes --cmd and prints one `PASS case` / `FAIL case: …` line per case."""
    corpus = SHARED / "conformance" / name
    proc = subprocess.run([str(corpus / "score"), "--corpus", str(corpus), "--jobs", "2", "--cmd", cmd],
                          capture_output=True, text=True)
    passed, seen = set(), set()
    for line in proc.stdout.splitlines():
        m = re.match(r"(PASS|FAIL) ([^:\s]+)", line)
        if m:
            seen.add(m.group(2))
            if m.group(1) == "PASS":
                passed.add(m.group(2))
    summary = proc.stdout.strip().splitlines()[-1:] or [proc.stderr.strip()]
    if not seen:
        sys.exit(f"ratchet: the {name} scorer ran no case: {proc.stderr.strip()}")
    return passed, seen, summary[0]


def main():
    runners = {
        "gotemplate": run_gotemplate,
        "kube-compare": run_kube_compare,
        "crossplane": run_crossplane,
        "fybrik": run_fybrik,
    }
    if len(sys.argv) != 4 or sys.argv[1] not in runners:
        sys.exit(__doc__)
    corpus, binary, listed_file = sys.argv[1], os.path.abspath(sys.argv[2]), Path(sys.argv[3])
    passed, seen, summary = runners[corpus](binary)
    listed = {l.strip() for l in listed_file.read_text().splitlines() if l.strip() and not l.startswith("#")}
    unknown = sorted(listed - seen)
    regressed = sorted(listed & seen - passed)
    new = sorted(passed - listed)
    print(f"{corpus}: {summary}")
    if new:
        print(f"{corpus}: {len(new)} passing case(s) not yet in {listed_file.name} (add them):")
        for n in new:
            print(f"  {n}")
    if unknown:
        print(f"{corpus}: {len(unknown)} listed case(s) not in the corpus:")
        for n in unknown:
            print(f"  {n}")
    if regressed:
        print(f"{corpus}: {len(regressed)} listed case(s) no longer pass:")
        for n in regressed:
            print(f"  {n}")
    if regressed or unknown:
        sys.exit(1)
    print(f"{corpus}: ratchet holds ({len(listed)} listed, {len(passed)} passing)")


if __name__ == "__main__":
    main()
