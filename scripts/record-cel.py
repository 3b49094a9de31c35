#!/usr/bin/env python3
"""Record what a second CEL implementation, cel-python (PyPI `cel-python`), gives for the
differential table of driftlint's CEL crate, crates/cel/tests/data/differential.json.

Each case is an expression and the name of an input bound to `self`. This script sets each
case's `expect` to cel-python's result, written as `value::show` in crates/cel/src/lib.rs
writes values (ints `1`, uints `1u`, doubles `1.0`, JSON strings, `[a, b]`, `{k: v}` with sorted
keys), or `error` when cel-python fails to evaluate it. Fields `kubernetes` and `why` (where
Kubernetes' cel-go differs from cel-python) are kept as they are: the Rust test
(crates/cel/tests/differential.rs) expects `kubernetes` where it is set, else `expect`.

Run (the versions recorded in the file's `recorded_with`):
    pip install --target /tmp/celpy cel-python==0.5.0
    PYTHONPATH=/tmp/celpy python3 scripts/record-cel.py
"""

import json
import math
import sys
from importlib import metadata
from pathlib import Path

import celpy
from celpy import celtypes

TABLE = Path(__file__).resolve().parent.parent / "crates/cel/tests/data/differential.json"


def show(v):
    if isinstance(v, celtypes.BoolType) or isinstance(v, bool):
        return "true" if v else "false"
    if v is None or isinstance(v, celtypes.NullType):
        return "null"
    if isinstance(v, celtypes.UintType):
        return f"{int(v)}u"
    if isinstance(v, celtypes.IntType) or (isinstance(v, int) and not isinstance(v, bool)):
        return str(int(v))
    if isinstance(v, celtypes.DoubleType) or isinstance(v, float):
        f = float(v)
        if math.isfinite(f) and f == int(f):
            return f"{f:.1f}"
        return repr(f)
    if isinstance(v, celtypes.StringType) or isinstance(v, str):
        return json.dumps(str(v), ensure_ascii=False)
    if isinstance(v, celtypes.ListType) or isinstance(v, list):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, celtypes.MapType) or isinstance(v, dict):
        return "{" + ", ".join(sorted(f"{show(k)}: {show(x)}" for k, x in v.items())) + "}"
    return f"<{type(v).__name__}>"


def evaluate(env, expr, value):
    try:
        program = env.program(env.compile(expr))
        result = program.evaluate({"self": celpy.json_to_cel(value)})
    except Exception:  # noqa: BLE001 - any failure is the recorded outcome "error"
        return "error"
    if isinstance(result, celpy.CELEvalError):
        return "error"
    return show(result)


def main():
    table = json.loads(TABLE.read_text())
    env = celpy.Environment()
    for case in table["cases"]:
        case["expect"] = evaluate(env, case["expr"], table["inputs"][case["input"]])
    table["recorded_with"] = f"cel-python {metadata.version('cel-python')} (python {sys.version.split()[0]})"
    TABLE.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(table['cases'])} cases recorded with {table['recorded_with']}")


if __name__ == "__main__":
    main()
