#!/usr/bin/env bash
# Offline checks of monitoring/: the alert rules load and pass their promtool unit tests, and the
# Grafana dashboard is well formed (unique panel ids, a query in every panel, no overlapping panels).
# That every metric they name is one altflow exports is tests/monitoring.rs's job.
#
#   scripts/check-monitoring.sh
#
# Installs promtool (Debian's prometheus package) when it is missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/monitoring"

if ! command -v promtool >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi

promtool check rules prometheus/alerts.yml
(cd prometheus && promtool test rules alerts_test.yml)

python3 - grafana/altflow.json <<'PY'
import json, sys
path = sys.argv[1]
dashboard = json.load(open(path))
problems, ids, cells = [], set(), {}
for panel in dashboard["panels"]:
    pid, title = panel.get("id"), panel.get("title", "?")
    if pid in ids:
        problems.append(f"panel id {pid} ({title}) used twice")
    ids.add(pid)
    if panel["type"] != "row":
        exprs = [t.get("expr", "").strip() for t in panel.get("targets", [])]
        if not exprs or not all(exprs):
            problems.append(f"panel {title!r} has a target without a query")
    g = panel["gridPos"]
    if g["x"] + g["w"] > 24:
        problems.append(f"panel {title!r} is wider than the dashboard")
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            if (x, y) in cells:
                problems.append(f"panels {cells[(x, y)]!r} and {title!r} overlap")
                break
            cells[(x, y)] = title
if problems:
    sys.exit(f"{path}: " + "; ".join(sorted(set(problems))))
print(f"{path}: {len(dashboard['panels'])} panels, ids unique, every panel queried, no overlap")
PY
