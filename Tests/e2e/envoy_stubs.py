"""Python stubs for Envoy's ext_authz service, generated (once per run, with grpcio-tools) from Envoy's own
definitions in envoy_protos/, not from attestd's Protos/ subset: the gateway tests speak Envoy's protocol as Envoy
does. google/rpc/status.proto comes from googleapis-common-protos, as in Envoy's build."""

from __future__ import annotations

import atexit
import importlib
import shutil
import sys
import tempfile
from pathlib import Path

import google.rpc.status_pb2  # noqa: F401 (registers google/rpc/status.proto before the generated modules need it)
from grpc_tools import protoc

SOURCES = Path(__file__).resolve().parent / "envoy_protos"
_modules: dict[str, object] = {}


def _generate() -> None:
    if _modules:
        return
    output = Path(tempfile.mkdtemp(prefix="envoy-stubs-"))
    atexit.register(shutil.rmtree, output, ignore_errors=True)
    protos = sorted(str(path.relative_to(SOURCES)) for path in SOURCES.rglob("*.proto"))
    include_well_known = Path(protoc.__file__).resolve().parent / "_proto"
    include_googleapis = Path(google.rpc.status_pb2.__file__).resolve().parents[2]
    code = protoc.main(["protoc", f"-I{SOURCES}", f"-I{include_well_known}", f"-I{include_googleapis}",
                        f"--python_out={output}", f"--grpc_python_out={output}", *protos])
    assert code == 0, f"protoc failed on {SOURCES}"
    # `envoy` is a fresh top-level package in the temporary directory.
    for package in output.rglob("*"):
        if package.is_dir():
            (package / "__init__.py").touch()
    sys.path.insert(0, str(output))
    for name in ("external_auth_pb2", "external_auth_pb2_grpc", "attribute_context_pb2"):
        _modules[name] = importlib.import_module(f"envoy.service.auth.v3.{name}")
    _modules["base_pb2"] = importlib.import_module("envoy.config.core.v3.base_pb2")
    _modules["http_status_pb2"] = importlib.import_module("envoy.type.v3.http_status_pb2")


def module(name: str):
    """A generated module by its short name: external_auth_pb2, external_auth_pb2_grpc, attribute_context_pb2,
    base_pb2, http_status_pb2."""
    _generate()
    return _modules[name]
