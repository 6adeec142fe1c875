"""Each C library has one Swift owner, and nothing else reaches it: in Package.swift, only the owner's targets (and
the owner's own test target) depend on a library's C target, and in Sources/, Benchmarks/, Fuzz/ and Tests/ only the
owner's files (and its tests') `import` it. OpenSSL belongs to Crypto (libcrypto) and TLS (libssl); nghttp2 and http_parser to HTTP;
SQLite and hiredis to Storage; curl to Apple; protobuf-c and the protoc-c output to AppCheckMessages. The shims of
what Swift cannot import follow the library they wrap: OpenSSL's to Crypto and TLS; Linux's (epoll, eventfd,
timerfd, accept4: the kernel's interface, no library) to HTTP's event loops and the load bench's."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# C target -> the Swift targets allowed to depend on it directly.
OWNERS: dict[str, set[str]] = {
    "COpenSSL": {"Crypto", "TLS", "CShimsOpenSSL"},
    "CShimsOpenSSL": {"Crypto", "TLS"},
    "CNghttp2": {"HTTP"},
    "CHTTPParser": {"HTTP"},
    "CSQLite": {"Storage"},
    "CHiredis": {"Storage"},
    "CCurl": {"Apple"},
    "CProtobufC": {"AppCheckMessages", "AppCheckProtos"},
    "AppCheckProtos": {"AppCheckMessages"},
    "CShimsLinux": {"HTTP", "attestd-bench"},
}

# Test targets allowed a C library they do not own, and why. AppAttestSimulatorTests checks what the simulator
# issues (through Crypto) with OpenSSL directly: an oracle independent of the code under test, reading what Crypto
# does not expose (signature algorithm names, a CMS signer's signed attributes).
ORACLES: dict[str, set[str]] = {"AppAttestSimulatorTests": {"COpenSSL"}}

# Source directories of the targets that may import a C module, by module name.
IMPORTERS: dict[str, set[str]] = {
    "COpenSSL": {"Sources/Crypto", "Sources/TLS"},
    "CShimsOpenSSL": {"Sources/Crypto", "Sources/TLS"},
    "CNghttp2": {"Sources/HTTP"},
    "CHTTPParser": {"Sources/HTTP"},
    "CSQLite": {"Sources/Storage"},
    "CHiredis": {"Sources/Storage"},
    "CCurl": {"Sources/Apple"},
    "CProtobufC": {"Sources/AppCheckMessages"},
    "AppCheckProtos": {"Sources/AppCheckMessages"},
    "CShimsLinux": {"Sources/HTTP", "Benchmarks/LoadBench"},
}


@pytest.fixture(scope="module")
def package() -> dict:
    dumped = subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(dumped.stdout)


def dependencies(target: dict) -> set[str]:
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def test_every_c_target_of_the_package_has_an_owner(package: dict) -> None:
    system = {t["name"] for t in package["targets"] if t["type"] == "system"}
    assert system <= set(OWNERS), f"C targets without an owner in this test: {system - set(OWNERS)}"


def test_only_the_owners_depend_on_a_c_library(package: dict) -> None:
    strays = []
    for target in package["targets"]:
        name = target["name"]
        for dependency in dependencies(target) & set(OWNERS):
            allowed = OWNERS[dependency]
            # A module's own test target may reach its module's C library (HTTPTests pipes nghttp2 sessions).
            owner_tests = {f"{owner}Tests" for owner in allowed}
            if name in allowed or dependency in ORACLES.get(name, set()):
                continue
            if not (target["type"] == "test" and name in owner_tests):
                strays.append(f"{name} -> {dependency}")
    assert not strays, strays


def allowed_directories(module: str) -> set[str]:
    """The owners' source directories, their test targets' (Sources/HTTP -> Tests/HTTPTests), and the oracles'."""
    owners = IMPORTERS[module]
    oracles = {f"Tests/{test}" for test, modules in ORACLES.items() if module in modules}
    return owners | oracles | {f"Tests/{Path(d).name}Tests" for d in owners if d.startswith("Sources/")}


def test_only_the_owners_import_a_c_module() -> None:
    pattern = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(\w+)", re.MULTILINE)
    strays = []
    for top in ("Sources", "Benchmarks", "Fuzz", "Tests"):
        for path in sorted((ROOT / top).rglob("*.swift")):
            relative = path.relative_to(ROOT).as_posix()
            for module in pattern.findall(path.read_text()):
                if module in IMPORTERS and not any(relative.startswith(d + "/") for d in allowed_directories(module)):
                    strays.append(f"{relative}: import {module}")
    assert not strays, strays


def test_the_rule_is_not_vacuous() -> None:
    """The import scan sees the owners' own imports, so an empty result above means something."""
    crypto = (ROOT / "Sources/Crypto/PrivateKey.swift").read_text()
    tls = (ROOT / "Sources/TLS/TLSClientConnection.swift").read_text()
    assert "import COpenSSL" in crypto and "import COpenSSL" in tls
