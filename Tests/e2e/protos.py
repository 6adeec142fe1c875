"""Loads the Python stubs that scripts/e2e.sh generates from Protos/ into Tests/e2e/generated/.

Messages and stubs are looked up by their protobuf full names, so the tests do not depend on how the
.proto files under Protos/ are split or named.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import grpc
from google.protobuf import descriptor_pool, message_factory

GENERATED = Path(__file__).resolve().parent / "generated"
_loaded = False


def _load() -> None:
    global _loaded
    if _loaded:
        return
    if not GENERATED.is_dir():
        raise AssertionError(f"{GENERATED} is missing: run the suite through scripts/e2e.sh")
    sys.path.insert(0, str(GENERATED))
    # Protos/grpc/health/v1 generates the module grpc.health.v1.health_pb2, but `grpc` is grpcio's
    # regular package: extend its search path so the generated subpackage is found beside it.
    if (GENERATED / "grpc").is_dir():
        grpc.__path__.append(str(GENERATED / "grpc"))
    for path in sorted(GENERATED.rglob("*_pb2.py")) + sorted(GENERATED.rglob("*_pb2_grpc.py")):
        module = ".".join(path.relative_to(GENERATED).with_suffix("").parts)
        importlib.import_module(module)
    _loaded = True


def message(full_name: str):
    """The generated class of a message, e.g. `grpc.health.v1.HealthCheckRequest`."""
    _load()
    return message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(full_name))


def stub(service_full_name: str, channel: grpc.Channel):
    """A generated client stub for a service, e.g. `grpc.health.v1.Health`."""
    _load()
    service = descriptor_pool.Default().FindServiceByName(service_full_name)
    module_name = service.file.name.removesuffix(".proto").replace("/", ".") + "_pb2_grpc"
    module = importlib.import_module(module_name)
    return getattr(module, f"{service.name}Stub")(channel)


def enum_value(enum_full_name: str, name: str) -> int:
    _load()
    return descriptor_pool.Default().FindEnumTypeByName(enum_full_name).values_by_name[name].number
