#!/usr/bin/env bash
# Lints the workflows with actionlint (and shellcheck for their `run:` scripts): this
# repository's own (.github/workflows), which use the Action from the checkout (`uses: ./`,
# so action.yml's inputs are checked too), and every workflow README.md shows (```yaml blocks
# whose first line is `# .github/workflows/NAME.yml`), with the Action's placeholder
# reference replaced by the checkout. `.ci/run` installs both tools.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/.github/workflows"
cp .github/workflows/*.yml "$tmp/.github/workflows/"
cp action.yml "$tmp/"
python3 - "$tmp/.github/workflows" <<'PY'
import re, sys, pathlib
out = pathlib.Path(sys.argv[1])
text = pathlib.Path("README.md").read_text()
n = 0
for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
    first = block.splitlines()[0] if block else ""
    m = re.match(r"# \.github/workflows/([\w.-]+\.ya?ml)", first)
    if not m:
        continue
    n += 1
    block = re.sub(r"uses: [\w.-]+/driftlint@\S+", "uses: ./", block)
    (out / f"readme-{n}-{m.group(1)}").write_text(block)
print(f"README workflows: {n}")
PY
cd "$tmp"
git init -q .
actionlint -shellcheck="$(command -v shellcheck || true)" -no-color -oneline
echo "actionlint: $(ls .github/workflows | wc -l) workflow(s) clean"
