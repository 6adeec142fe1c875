#!/usr/bin/env bash
# Checks deploy/observability with Debian's promtool: the alerting rules are valid and pass their unit tests, and
# every dashboard query is valid PromQL (each is checked as a recording rule, Grafana's variables replaced).
# Whether every metric they name exists is checked against a running attestd by Tests/e2e/test_ops_kit.py.
set -euo pipefail
cd "$(dirname "$0")/../deploy/observability"
promtool check rules attestd-alerts.yml
promtool test rules attestd-alerts.test.yml
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 - attestd-dashboard.json >"$scratch/dashboard-queries.yml" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1]))
print("groups:\n  - name: dashboard\n    rules:")
for panel in dashboard["panels"]:
    for number, target in enumerate(panel.get("targets", [])):
        expr = target["expr"].replace("$__rate_interval", "5m").replace("$app", ".*")
        print(f"      - record: dashboard:panel{panel['id']}:{number}\n        expr: {json.dumps(expr)}")
PY
promtool check rules "$scratch/dashboard-queries.yml" | sed 's|'"$scratch"'/||'
