"""The built attestd binary uses the system's shared libcrypto and nothing of OpenSSL's inside itself: `ldd` resolves
libcrypto.so.3 from the system, the binary's own dynamic dependencies name it and not GMP, and `nm` finds no OpenSSL
code or private symbol defined in the binary (no `ecp_nistz256_*`, no `OPENSSL_ia32cap_P`, no `EVP_*`), no GMP
symbol at all, and the EVP calls that verify and sign left for the dynamic linker to resolve. So a Debian security
update of libssl3 reaches every signature attestd makes or checks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from attestd_server import attestd_binary


def run(*command: str) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=60).stdout


@pytest.fixture(scope="module")
def binary() -> Path:
    path = attestd_binary()
    assert path.is_file(), f"{path} is not built"
    return path


@pytest.fixture(scope="module")
def symbols(binary: Path) -> list[tuple[str, str]]:
    """(type, name) of every symbol in the binary's symbol table (`nm`; the debug build is not stripped)."""
    entries = []
    for line in run("nm", str(binary)).splitlines():
        parts = line.split()
        if len(parts) >= 2:
            entries.append((parts[-2], parts[-1]))
    assert len(entries) > 1000, "the binary has no symbol table to inspect"
    return entries


def needed(binary: Path) -> list[str]:
    """The binary's own DT_NEEDED entries (not those of the libraries it loads)."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", str(binary)))


def test_ldd_resolves_the_shared_libcrypto_from_the_system(binary: Path) -> None:
    libraries = dict(re.findall(r"^\s*(\S+) => (\S+)", run("ldd", str(binary)), re.MULTILINE))
    assert "libcrypto.so.3" in libraries and libraries["libcrypto.so.3"].startswith("/")
    assert "libssl.so.3" in libraries


def test_the_binary_itself_needs_libcrypto_and_not_gmp(binary: Path) -> None:
    # ldd also lists what the libraries load: libcurl's GnuTLS (through librtmp) brings libgmp.so.10 into the
    # process. What attestd itself links is its own NEEDED list.
    own = needed(binary)
    assert "libcrypto.so.3" in own, own
    assert not [name for name in own if "gmp" in name], own


def test_no_private_openssl_symbol_is_defined_in_the_binary(symbols: list[tuple[str, str]]) -> None:
    nistz256 = [name for _, name in symbols if "ecp_nistz256" in name]
    assert nistz256 == []
    ia32cap = [(kind, name) for kind, name in symbols if name == "OPENSSL_ia32cap_P" and kind not in ("U", "w")]
    assert ia32cap == []


def test_no_gmp_symbol_at_all(symbols: list[tuple[str, str]]) -> None:
    assert [name for _, name in symbols if re.match(r"_*gmp", name)] == []


def test_openssl_code_is_not_linked_in_and_evp_comes_from_the_shared_library(
    binary: Path, symbols: list[tuple[str, str]]
) -> None:
    defined = {name for kind, name in symbols if kind not in ("U", "w")}
    # OpenSSL's headers define ossl_check_* type checks for their STACK_OF macros (static inline, compiled into the
    # shims): header code, not library code.
    library = ("EVP_", "ECDSA_", "BN_", "EC_", "ossl_", "CRYPTO_", "OPENSSL_", "SHA256_", "RAND_", "X509_", "CMS_")
    assert [name for name in defined if name.startswith(library) and not name.startswith("ossl_check_")] == []
    # The dynamic imports carry libcrypto.so.3's symbol version: the dynamic linker binds them to that library.
    imports = set(run("nm", "-D", "--undefined-only", str(binary)).split())
    for call in ("EVP_PKEY_verify", "EVP_PKEY_sign", "EVP_DigestVerify", "X509_verify_cert", "CMS_verify"):
        assert f"{call}@OPENSSL_3.0.0" in imports, call
