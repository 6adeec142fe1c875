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


def test_the_repository_dev_config_passes_once_its_keys_exist(tmp_path: Path) -> None:
    # dev.json names ../.keys, which `make run` fills with `attestd keygen`: the same layout, in a copy.
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "dev.json").write_text((REPO / "config" / "dev.json").read_text())
    missing = check_config(tmp_path / "config" / "dev.json")
    assert missing.returncode == 1 and "keys.challengeKey:" in missing.stderr, missing.stdout + missing.stderr
    subprocess.run([str(attestd_binary()), "keygen", "--out", str(tmp_path / ".keys")], check=True, capture_output=True, timeout=30)
    result = check_config(tmp_path / "config" / "dev.json")
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
        (lambda c: replaced(c, "openssl", "listeners", 1, "tls", "recordLayer"),
         "listeners[1].tls.recordLayer: is no longer an option"),
    ],
    ids=["missing-team-id", "port-out-of-range", "record-layer-gone"],
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


def with_keys(directory: Path, config: dict) -> dict:
    """`config` with keys.generateMissing off and real key files made by `attestd keygen` in directory/keys."""
    subprocess.run([str(attestd_binary()), "keygen", "--out", str(directory / "keys")], check=True, capture_output=True, timeout=30)
    return replaced(config, False, "keys", "generateMissing")


def test_a_file_whose_key_files_exist_and_parse_passes(tmp_path: Path, valid: dict) -> None:
    result = check_config(write(tmp_path, with_keys(tmp_path, valid)))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("key", "field"),
    [("challenge.json", "keys.challengeKey"), ("artifact.json", "keys.artifactKey"), ("token-signing.pem", "keys.tokenSigning[0]"),
     ("session-tickets.json", "keys.sessionTicketKey")],
)
def test_a_missing_key_file_fails_naming_the_field_and_the_path(tmp_path: Path, valid: dict, key: str, field: str) -> None:
    config = with_keys(tmp_path, valid)
    (tmp_path / "keys" / key).unlink()
    result = check_config(write(tmp_path, config))
    assert result.returncode == 1
    assert f"{field}: {tmp_path / 'keys' / key} does not exist" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("key", "field"),
    [("challenge.json", "keys.challengeKey"), ("artifact.json", "keys.artifactKey"), ("token-signing.pem", "keys.tokenSigning[0]"),
     ("session-tickets.json", "keys.sessionTicketKey")],
)
def test_an_unparseable_key_file_fails_naming_the_field_and_the_path(tmp_path: Path, valid: dict, key: str, field: str) -> None:
    config = with_keys(tmp_path, valid)
    (tmp_path / "keys" / key).write_text("not a key\n")
    result = check_config(write(tmp_path, config))
    assert result.returncode == 1
    assert f"{field}: {tmp_path / 'keys' / key} is not a valid key file" in result.stderr, result.stderr


def test_an_unreadable_key_file_fails_naming_the_field_and_the_path(tmp_path: Path, valid: dict) -> None:
    config = with_keys(tmp_path, valid)
    path = tmp_path / "keys" / "artifact.json"
    path.unlink()
    # A directory in its place cannot be read by anyone, root included (a mode of 000 would not stop root).
    path.mkdir()
    result = check_config(write(tmp_path, config))
    assert result.returncode == 1
    assert f"keys.artifactKey: {path} is a directory, not a key file" in result.stderr, result.stderr


def test_missing_key_files_pass_when_they_will_be_generated_and_say_so(tmp_path: Path, valid: dict) -> None:
    result = check_config(write(tmp_path, valid))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "keys.challengeKey: " in result.stdout and "will be generated at start" in result.stdout, result.stdout
    assert not (tmp_path / "keys").exists(), "check-config must not create the keys itself"


def test_es256_tokens_with_only_an_rsa_key_fail_naming_the_algorithm(tmp_path: Path, valid: dict) -> None:
    """`attestd keygen` makes an RS256 key; `tokens.algorithm: ES256` then has no key to sign with, and a P-256 key is
    never chosen, or refused, by which key happens to be listed: the configuration decides."""
    config = with_keys(tmp_path, valid)
    config["tokens"] = {"algorithm": "ES256"}
    result = check_config(write(tmp_path, config))
    assert result.returncode == 1
    assert "keys.tokenSigning: no key signs ES256, the algorithm of tokens.algorithm" in result.stderr, result.stderr


def test_a_p256_key_with_default_tokens_fails_and_with_es256_passes(tmp_path: Path, valid: dict) -> None:
    config = with_keys(tmp_path, valid)
    key = tmp_path / "keys" / "token-signing.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(key)],
                   check=True, capture_output=True, timeout=30)
    refused = check_config(write(tmp_path, config))
    assert refused.returncode == 1
    assert "no key signs RS256" in refused.stderr, refused.stderr
    config["tokens"] = {"algorithm": "ES256"}
    accepted = check_config(write(tmp_path, config))
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
