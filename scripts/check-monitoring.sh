#!/usr/bin/env bash
# Offline checks of monitoring/, no Prometheus or Grafana needed:
#   1. the alert rules load (promtool check rules) and pass their unit tests (promtool test rules);
#   2. the Grafana dashboard is well formed: valid JSON, unique panel ids, a query in every panel,
#      panels that neither overlap nor stick out of the 24-column grid;
# That every metric they name is one altflow exports is tests/monitoring.rs's job.
#
#   scripts/check-monitoring.sh
#
# Installs promtool from Debian's prometheus package when it is missing. Exits non-zero on the first
# failing check.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

rules=monitoring/prometheus/alerts.yml
rule_tests=monitoring/prometheus/alerts_test.yml
dashboard=monitoring/grafana/altflow.json

if ! command -v promtool >/dev/null 2>&1; then
  echo "promtool not found: installing Debian's prometheus package (it ships /usr/bin/promtool)" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  # A fresh container has no package lists; `env` so the variable survives sudo.
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

promtool check rules "$rules"
# rule_files in the test file are resolved relative to the test file itself.
promtool test rules "$rule_tests"

python3 - "$dashboard" <<'PY'
import json
import sys

path = sys.argv[1]
with open(path) as f:
    dashboard = json.load(f)  # a syntax error fails here, with its line and column

problems = []


def panels_of(panels):
    """Every panel, those inside collapsed rows included (they carry their own ids)."""
    for panel in panels:
        yield panel
        yield from panels_of(panel.get("panels", []))


ids = {}
for panel in panels_of(dashboard.get("panels", [])):
    title = panel.get("title", "?")
    pid = panel.get("id")
    if pid is None:
        problems.append(f"panel {title!r} has no id")
    elif pid in ids:
        problems.append(f"panel id {pid} used by {ids[pid]!r} and {title!r}")
    else:
        ids[pid] = title
    if panel.get("type") == "row":
        continue
    targets = panel.get("targets") or []
    if not targets:
        problems.append(f"panel {title!r} has no targets")
    ref_ids = [t.get("refId") for t in targets]
    if len(set(ref_ids)) != len(ref_ids):
        problems.append(f"panel {title!r} repeats a refId: {ref_ids}")
    for t in targets:
        if not str(t.get("expr", "")).strip():
            problems.append(f"panel {title!r}, target {t.get('refId')}: empty expr")

# Grafana lays top-level panels (rows included) out on a 24-column grid. Panels in collapsed rows
# are positioned once the row opens, so only the top level can collide.
cells = {}
for panel in dashboard.get("panels", []):
    title = panel.get("title", "?")
    g = panel.get("gridPos") or {}
    try:
        x, y, w, h = (int(g[k]) for k in ("x", "y", "w", "h"))
    except (KeyError, TypeError, ValueError):
        problems.append(f"panel {title!r} has no complete gridPos: {g}")
        continue
    if x < 0 or y < 0 or w < 1 or h < 1 or x + w > 24:
        problems.append(f"panel {title!r} is outside the 24-column grid: {g}")
    clash = None
    for cx in range(x, x + w):
        for cy in range(y, y + h):
            clash = clash or cells.get((cx, cy))
            cells[(cx, cy)] = title
    if clash:
        problems.append(f"panels {clash!r} and {title!r} overlap")

variables = {v.get("name"): v for v in dashboard.get("templating", {}).get("list", [])}
ds = variables.get("datasource", {})
if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
    problems.append("no `datasource` variable of Prometheus data sources")
if not variables.get("stage", {}).get("multi"):
    problems.append("no multi-value `stage` variable")

if problems:
    print(f"{path}:", file=sys.stderr)
    for p in problems:
        print(f"  {p}", file=sys.stderr)
    sys.exit(1)
print(f"{path}: valid; {len(ids)} panels, ids unique, every panel queried, no overlap")
PY
