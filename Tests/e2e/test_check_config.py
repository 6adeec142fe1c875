"""`attestd check-config FILE`: 0 for a valid file, 1 with errors naming the field otherwise."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from attestd_server import REPO, attestd_binary, base_config, make_tls_files


def check_config(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(attestd_binary()), "check-config", str(path)], capture_output=True, text=True, timeout=30)


def write(directory: Path, config: dict) -> Path:
    path = directory / "config.json"
    path.write_text(json.dumps(config, indent=2))
    return path


@pytest.fixture
def valid(tmp_path: Path) -> dict:
    make_tls_files(tmp_path)
    return base_config(8080, 8443)


def test_a_valid_file_passes(tmp_path: Path, valid: dict) -> None:
    result = check_config(write(tmp_path, valid))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_repository_dev_config_passes() -> None:
    result = check_config(REPO / "config" / "dev.json")
    assert result.returncode == 0, result.stdout + result.stderr


def without(config: dict, *path: str | int) -> dict:
    changed = copy.deepcopy(config)
    target = changed
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return changed


def replaced(config: dict, value: object, *path: str | int) -> dict:
    changed = copy.deepcopy(config)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda c: without(c, "projects", 0, "apps", 0, "teamId"), "projects[0].apps[0].teamId"),
        (lambda c: replaced(c, 70000, "listeners", 0, "port"), "listeners[0].port"),
    ],
    ids=["missing-team-id", "port-out-of-range"],
)
def test_an_invalid_file_fails_naming_the_field(tmp_path: Path, valid: dict, mutate, field: str) -> None:
    result = check_config(write(tmp_path, mutate(valid)))
    assert result.returncode == 1, result.stdout + result.stderr
    assert field in result.stdout + result.stderr


def test_a_file_that_is_not_json_fails(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text("{ listeners: ")
    result = check_config(path)
    assert result.returncode == 1, result.stdout + result.stderr
