#!/usr/bin/env python3
"""Draws docs/module-graph.md from Package.swift: which module depends on which (Mermaid), test and fuzz targets
left out. `--check` exits 1 when the checked-in file differs (run by `make test`)."""
import json
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
out = root / "docs" / "module-graph.md"

package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                    capture_output=True, text=True).stdout)
targets = [t for t in package["targets"] if t["type"] not in ("test",) and not t["name"].startswith(("fuzz-", "Fuzz"))]
names = {t["name"] for t in targets}


def dependencies(target):
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                name = dependency[kind][0]
                if name in names:
                    yield name


def node(name):
    return name.replace("-", "_")


lines = ["# Module graph", "",
         "Made by `scripts/module-graph.py` from `Package.swift` (test and fuzz targets left out); `make test` fails",
         "when it is stale. An arrow points from a module to one it depends on; C targets are drawn as rounded boxes.",
         "", "```mermaid", "flowchart TD"]
for target in sorted(targets, key=lambda t: t["name"]):
    name = target["name"]
    shape = f"{node(name)}([{name}])" if target["type"] == "system-target" or name.startswith("C") and name[1:2].isupper() \
        or name == "AppCheckProtos" else f"{node(name)}[{name}]"
    lines.append(f"    {shape}")
for target in sorted(targets, key=lambda t: t["name"]):
    for dependency in sorted(set(dependencies(target))):
        lines.append(f"    {node(target['name'])} --> {node(dependency)}")
lines += ["```", ""]
text = "\n".join(lines)

if "--check" in sys.argv[1:]:
    if not out.exists() or out.read_text() != text:
        print(f"module-graph: {out.relative_to(root)} is stale; run scripts/module-graph.py and commit it", file=sys.stderr)
        sys.exit(1)
    print(f"module-graph: {out.relative_to(root)} is up to date.")
else:
    out.write_text(text)
    print(f"module-graph: wrote {out.relative_to(root)}")
