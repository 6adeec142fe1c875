"""deploy/: Docker and Kubernetes cannot run here, so the files are checked for what matters. Every YAML and JSON file
parses; the Kubernetes objects agree with each other, with the Dockerfile and with the config they mount, which
`attestd check-config` accepts once its caller placeholders are replaced; every shipped config has a public and an
internal listener and an operator and a backend caller, and, started, serves each side what its role says; the
device-facing balancers point at the public listener, the gateways and Prometheus at the internal one; `haproxy -c`
accepts the HAProxy config, which then, live, balances gRPC and REST over HTTP/2 across three real attestd nodes'
public listeners and routes around one that stops."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import grpc
import jwt
import pytest
import yaml

import nginx_server
import protos
from attestd_server import REPO, AttestdServer, attestd_binary, base_config, free_ports, make_tls_files
from processes import terminate
from wire import APP_ID, PROJECT_ID

DEPLOY = REPO / "deploy"
KUBERNETES = DEPLOY / "kubernetes"
NAMESPACE = "attestd"


# ---- reading the files -------------------------------------------------------------------------------------------


def deploy_files(*suffixes: str) -> list[Path]:
    return sorted(path for path in DEPLOY.rglob("*") if path.is_file() and path.suffix in suffixes)


def yaml_documents(path: Path) -> list[object]:
    """Every document of a (multi-document) YAML file, empty ones (a trailing ---) left out."""
    with path.open() as stream:
        return [document for document in yaml.safe_load_all(stream) if document is not None]


def kubernetes_objects() -> dict[tuple[str, str], dict]:
    """The objects of deploy/kubernetes/*.yaml by (kind, name); the kustomization is not an object."""
    objects: dict[tuple[str, str], dict] = {}
    for path in sorted(KUBERNETES.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml_documents(path):
            assert isinstance(document, dict), f"{path.name}: a document is not a mapping"
            key = (document["kind"], document["metadata"]["name"])
            assert key not in objects, f"{path.name}: {key} is defined twice"
            objects[key] = document
    return objects


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


@dataclass
class Dockerfile:
    """The instructions of deploy/Dockerfile, continuation lines joined, grouped by stage."""

    stages: list[tuple[str, str, list[tuple[str, str]]]]  # (image, stage name, [(instruction, arguments)])

    @classmethod
    def read(cls) -> Dockerfile:
        text = (DEPLOY / "Dockerfile").read_text()
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        joined = re.sub(r"\\\n", " ", "\n".join(lines))
        stages: list[tuple[str, str, list[tuple[str, str]]]] = []
        for line in joined.splitlines():
            if not line.strip():
                continue
            instruction, _, arguments = line.strip().partition(" ")
            instruction = instruction.upper()
            if instruction == "FROM":
                words = arguments.split()
                name = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
                stages.append((words[0], name, []))
            else:
                assert stages, f"{instruction} before the first FROM"
                stages[-1][2].append((instruction, " ".join(arguments.split())))
        return cls(stages)

    def instructions(self, stage: int, name: str) -> list[str]:
        return [arguments for instruction, arguments in self.stages[stage][2] if instruction == name]

    def apt_packages(self, stage: int) -> set[str]:
        """Packages named by the `apt-get install` commands of a stage's RUN instructions."""
        packages: set[str] = set()
        for command in self.instructions(stage, "RUN"):
            for part in re.split(r"&&|;", command):
                words = shlex.split(part)
                if "apt-get" in words and "install" in words:
                    packages |= {word for word in words[words.index("install") + 1 :] if not word.startswith("-")}
        return packages


# ---- the deployment, and the config it mounts --------------------------------------------------------------------


@pytest.fixture(scope="module")
def objects() -> dict[tuple[str, str], dict]:
    return kubernetes_objects()


@pytest.fixture(scope="module")
def deployment(objects: dict[tuple[str, str], dict]) -> dict:
    return objects[("Deployment", "attestd")]


@pytest.fixture(scope="module")
def container(deployment: dict) -> dict:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    return next(c for c in containers if c["name"] == "attestd")


def config_path_of(container: dict) -> str:
    """Where the container's command line says the config is (`attestd serve --config PATH`)."""
    words = container.get("command", []) + container.get("args", [])
    assert words[:2] == ["attestd", "serve"], words
    return words[words.index("--config") + 1]


def projected_files(deployment: dict, container: dict, directory: str) -> dict[str, tuple[str, str, str]]:
    """The files the pod sees under `directory`: relative path -> (ConfigMap or Secret, object name, key)."""
    volumes = {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]}
    mount = next(m for m in container["volumeMounts"] if m["mountPath"].rstrip("/") == directory)
    volume = volumes[mount["name"]]
    sources = volume["projected"]["sources"] if "projected" in volume else [volume]
    files: dict[str, tuple[str, str, str]] = {}
    for source in sources:
        for kind, field in (("ConfigMap", "configMap"), ("Secret", "secret")):
            if field in source:
                reference = source[field]
                name = reference.get("name") or reference.get("secretName")
                for item in reference["items"]:
                    assert item["path"] not in files, f"{item['path']} is projected twice"
                    files[item["path"]] = (kind, name, item["key"])
    return files


def object_data(objects: dict[tuple[str, str], dict], kind: str, name: str, key: str) -> str:
    document = objects[(kind, name)]
    data = {**document.get("data", {}), **document.get("stringData", {})}
    assert key in data, f"{kind} {name} has no key {key}"
    return data[key]


@pytest.fixture(scope="module")
def mounted_config(objects: dict[tuple[str, str], dict], deployment: dict, container: dict) -> dict:
    """The config JSON the Deployment's pods read, found by following its args to the mounted ConfigMap key."""
    path = config_path_of(container)
    directory, name = path.rsplit("/", 1)
    kind, object_name, key = projected_files(deployment, container, directory)[name]
    assert kind == "ConfigMap", f"{path} comes from a {kind}"
    return json.loads(object_data(objects, kind, object_name, key))


def referenced_files(config: dict) -> list[str]:
    """Every file path a config names (keys, TLS, the Redis password): what must exist where attestd runs."""
    paths = [config["keys"]["challengeKey"], config["keys"]["artifactKey"], *config["keys"]["tokenSigning"]]
    for listener in config["listeners"]:
        if "tls" in listener:
            paths += [listener["tls"]["certificate"], listener["tls"]["privateKey"]]
            if "clientCAFile" in listener["tls"]:
                paths.append(listener["tls"]["clientCAFile"])
    redis = config.get("store", {}).get("redis", {})
    if "passwordFile" in redis:
        paths.append(redis["passwordFile"])
    return paths


def cleartext_ports(config: dict) -> set[int]:
    return {listener["port"] for listener in config["listeners"] if "tls" not in listener}


# What a listener serves, by role (README.md, Security, "Listener roles and callers").
PUBLIC_SERVICES = {"exchange", "jwks", "health"}
INTERNAL_SERVICES = {"verify", "deviceState", "keys", "gateway", "metrics", "health"}
ROLES = {"public": PUBLIC_SERVICES, "internal": INTERNAL_SERVICES}


def listener_services(listener: dict) -> set[str]:
    if "role" in listener:
        return ROLES[listener["role"]]
    if "services" in listener:
        return set(listener["services"])
    return PUBLIC_SERVICES | INTERNAL_SERVICES


def role_ports(config: dict, role: str) -> set[int]:
    """The cleartext ports of the config's listeners with `role`."""
    return {listener["port"] for listener in config["listeners"]
            if listener.get("role") == role and "tls" not in listener}


def ports_serving(config: dict, service: str) -> set[int]:
    return {listener["port"] for listener in config["listeners"]
            if "tls" not in listener and service in listener_services(listener)}


def shipped_configs() -> dict[str, dict]:
    """Every attestd config deploy/ ships: the two Docker ones and the ConfigMap's."""
    configmap = next(document for document in yaml_documents(KUBERNETES / "configmap.yaml")
                     if document["metadata"]["name"] == "attestd-config")
    return {
        "docker/config.json": json.loads((DEPLOY / "docker" / "config.json").read_text()),
        "docker/cluster.json": json.loads((DEPLOY / "docker" / "cluster.json").read_text()),
        "kubernetes/configmap.yaml": json.loads(configmap["data"]["config.json"]),
    }


SHIPPED = sorted(shipped_configs())


def with_caller_tokens(config: dict) -> tuple[dict, dict[str, str]]:
    """The config with each caller's placeholder token hash replaced by the hash of a fresh token, made the way the
    docs say (32 random bytes in base64); answers the tokens by caller name."""
    config = json.loads(json.dumps(config))
    tokens: dict[str, str] = {}
    for caller in config["callers"]:
        token = base64.b64encode(os.urandom(32)).decode()
        tokens[caller["name"]] = token
        caller["tokenHashes"] = [hashlib.sha256(token.encode()).hexdigest() if digest.startswith("REPLACE") else digest
                                 for digest in caller["tokenHashes"]]
    return config, tokens


def check_config(path: Path) -> subprocess.CompletedProcess[str]:
    binary = attestd_binary()
    assert binary.exists(), f"{binary} does not exist: build attestd first (or set ATTESTD_BIN)"
    return subprocess.run([str(binary), "check-config", str(path)], capture_output=True, text=True, timeout=30)


# ---- every file parses -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", deploy_files(".yaml", ".yml"), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_yaml_file_under_deploy_parses(path: Path) -> None:
    documents = yaml_documents(path)
    assert documents, f"{path} holds no document"
    assert all(isinstance(document, dict) for document in documents), path


@pytest.mark.parametrize("path", deploy_files(".json"), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_json_file_under_deploy_parses(path: Path) -> None:
    assert isinstance(json.loads(path.read_text()), dict), path


def test_deploy_holds_each_deliverable() -> None:
    for name in ["Dockerfile", "Dockerfile.dockerignore", "README.md", "haproxy/haproxy.cfg", "envoy/envoy.yaml",
                 "envoy/ext-authz.yaml", "nginx/nginx.conf"]:
        assert (DEPLOY / name).is_file(), f"deploy/{name} is missing"
    kinds = {kind for kind, _ in kubernetes_objects()}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Secret", "ConfigMap",
            "StatefulSet"} <= kinds, kinds


# ---- Kubernetes --------------------------------------------------------------------------------------------------


def test_every_kubernetes_object_is_named_and_namespaced(objects: dict[tuple[str, str], dict]) -> None:
    for (kind, name), document in objects.items():
        assert document["apiVersion"], (kind, name)
        assert name, kind
        if kind != "Namespace":
            assert document["metadata"].get("namespace") == NAMESPACE, (kind, name)
    assert ("Namespace", NAMESPACE) in objects


def test_the_kustomization_applies_every_manifest_but_the_secret_placeholders() -> None:
    kustomization = yaml_documents(KUBERNETES / "kustomization.yaml")[0]
    listed = set(kustomization["resources"])
    manifests = {path.name for path in KUBERNETES.glob("*.yaml")} - {"kustomization.yaml"}
    # Applying the placeholders would overwrite the Secrets an operator created from real keys.
    assert listed == manifests - {"secret.yaml"}, (listed, manifests)


def test_the_deployment_runs_three_non_root_replicas_with_bounded_resources(deployment: dict, container: dict) -> None:
    assert deployment["spec"]["replicas"] == 3
    pod = deployment["spec"]["template"]["spec"]
    security = pod["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["runAsUser"] != 0
    assert pod.get("automountServiceAccountToken") is False
    container_security = container["securityContext"]
    assert container_security["allowPrivilegeEscalation"] is False
    assert container_security["readOnlyRootFilesystem"] is True
    assert container_security["capabilities"]["drop"] == ["ALL"]
    for bound in ("requests", "limits"):
        assert {"cpu", "memory"} <= container["resources"][bound].keys(), bound


def cpu_count(quantity: str) -> float:
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def test_threads_match_the_cpu_limit_rather_than_the_nodes_cores(container: dict, mounted_config: dict) -> None:
    # "0 = one per core" counts the node's cores, not the container's share of them.
    limit = cpu_count(str(container["resources"]["limits"]["cpu"]))
    for threads in (mounted_config["eventLoops"], mounted_config["verifier"]["threads"]):
        assert 1 <= threads <= max(1, limit), (threads, limit)


def test_the_config_configmap_key_is_mounted_where_the_args_say(
    deployment: dict, container: dict, mounted_config: dict
) -> None:
    path = config_path_of(container)
    assert path.startswith("/") and path.endswith(".json"), path
    mount = next(m for m in container["volumeMounts"] if path.startswith(m["mountPath"].rstrip("/") + "/"))
    assert mount.get("readOnly") is True
    assert mounted_config["listeners"], "the mounted config has no listener"


def test_every_file_the_config_names_is_projected_beside_it(
    objects: dict[tuple[str, str], dict], deployment: dict, container: dict, mounted_config: dict
) -> None:
    directory = config_path_of(container).rsplit("/", 1)[0]
    files = projected_files(deployment, container, directory)
    for path in referenced_files(mounted_config):
        # Relative paths resolve against the config's directory, where the Secrets are projected.
        assert not path.startswith("/"), f"{path}: use a path relative to {directory}"
        assert path in files, f"{path} is named by the config but projected by no volume source"
        kind, name, key = files[path]
        assert kind == "Secret", f"{path} comes from a {kind}, not a Secret"
        object_data(objects, kind, name, key)
    projected = deployment["spec"]["template"]["spec"]["volumes"]
    modes = [volume["projected"].get("defaultMode") for volume in projected if "projected" in volume]
    assert modes and all(mode is not None and mode & 0o007 == 0 for mode in modes), "keys readable by others"


def test_probes_call_the_health_service_on_the_public_listener(container: dict, mounted_config: dict) -> None:
    container_ports = {port["containerPort"]: port.get("name") for port in container["ports"]}
    assert cleartext_ports(mounted_config) <= container_ports.keys(), (mounted_config["listeners"], container_ports)
    # Health is served on both listeners; the probes ask the public one, which the balancers check too.
    ports = ports_serving(mounted_config, "health") & role_ports(mounted_config, "public")
    assert ports, mounted_config["listeners"]
    for kind in ("readinessProbe", "livenessProbe"):
        probe = container[kind]
        if "grpc" in probe:
            # Kubernetes' gRPC probe calls grpc.health.v1.Health/Check in cleartext HTTP/2.
            assert probe["grpc"]["port"] in ports, (kind, probe)
            assert probe["grpc"].get("service", "") == ""
        else:
            http = probe["httpGet"]
            assert http["path"] == "/healthz", (kind, probe)
            port = http["port"]
            assert port in ports or port in {name for p, name in container_ports.items() if p in ports}, (kind, probe)
    readiness, liveness = container["readinessProbe"], container["livenessProbe"]
    # A draining pod leaves the endpoints fast; liveness gives it far longer before a restart.
    patience = lambda probe: probe.get("periodSeconds", 10) * probe.get("failureThreshold", 3)  # noqa: E731
    assert patience(liveness) > patience(readiness)
    assert patience(liveness) > mounted_config["limits"]["shutdownGraceSeconds"]


def test_termination_grace_covers_the_pre_stop_pause_and_the_shutdown_grace(
    deployment: dict, container: dict, mounted_config: dict
) -> None:
    pause = 0
    pre_stop = container.get("lifecycle", {}).get("preStop", {})
    if "exec" in pre_stop:
        command = pre_stop["exec"]["command"]
        assert command[0] == "sleep", command
        pause = int(command[1])
    elif "sleep" in pre_stop:
        pause = int(pre_stop["sleep"]["seconds"])
    grace = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace >= pause + mounted_config["limits"]["shutdownGraceSeconds"], (grace, pause)


def test_the_service_hpa_and_pdb_select_the_deployment(objects: dict[tuple[str, str], dict], deployment: dict,
                                                       container: dict, mounted_config: dict) -> None:
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert matches(deployment["spec"]["selector"]["matchLabels"], labels)
    named_ports = {port.get("name"): port["containerPort"] for port in container["ports"]}
    services = [document for (kind, _), document in objects.items()
                if kind == "Service" and matches(document["spec"].get("selector", {}), labels)]
    assert services, "no Service selects the attestd pods"
    for service in services:
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            target = named_ports.get(target, target)
            assert target in cleartext_ports(mounted_config), (service["metadata"]["name"], port)
            assert port.get("appProtocol") == "kubernetes.io/h2c", "balancers must speak HTTP/2 to attestd"

    hpa = objects[("HorizontalPodAutoscaler", "attestd")]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "attestd"}
    assert 2 <= hpa["minReplicas"] <= deployment["spec"]["replicas"] <= hpa["maxReplicas"]
    assert any(metric["type"] == "Resource" and metric["resource"]["name"] == "cpu" for metric in hpa["metrics"])

    pdb = objects[("PodDisruptionBudget", "attestd")]["spec"]
    assert matches(pdb["selector"]["matchLabels"], labels)
    if "maxUnavailable" in pdb:
        assert 1 <= pdb["maxUnavailable"] < hpa["minReplicas"]
    else:
        assert 1 <= pdb["minAvailable"] < hpa["minReplicas"]


def service_target_ports(service: dict, container: dict) -> set[int]:
    named_ports = {port.get("name"): port["containerPort"] for port in container["ports"]}
    targets = {port.get("targetPort", port["port"]) for port in service["spec"]["ports"]}
    return {named_ports.get(target, target) for target in targets}


def test_devices_reach_the_public_listener_and_backends_the_internal_one_through_their_own_services(
    objects: dict[tuple[str, str], dict], container: dict, mounted_config: dict
) -> None:
    public, internal = role_ports(mounted_config, "public"), role_ports(mounted_config, "internal")
    assert public and internal and not public & internal, mounted_config["listeners"]
    # The Service the ingress and the device-facing balancers use exposes the public listener and nothing else.
    assert service_target_ports(objects[("Service", "attestd")], container) == public
    # Backends, gateways and Prometheus have a Service of their own, inside the cluster only.
    service = objects[("Service", "attestd-internal")]
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert service_target_ports(service, container) == internal
    # No Service reachable from outside the cluster leads to the internal listener.
    for (kind, name), document in objects.items():
        if kind == "Service" and document["spec"].get("type") in ("NodePort", "LoadBalancer"):
            assert not service_target_ports(document, container) & internal, name
        assert kind != "Ingress", "an Ingress in the manifests: check that it targets the attestd Service only"


def test_prometheus_scrapes_the_internal_listener(deployment: dict, container: dict, mounted_config: dict) -> None:
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    port = int(annotations["prometheus.io/port"])
    assert port in ports_serving(mounted_config, "metrics") & role_ports(mounted_config, "internal"), port
    assert port in {p["containerPort"] for p in container["ports"]}


def test_the_config_keeps_state_in_the_durable_redis_of_the_manifests(
    objects: dict[tuple[str, str], dict], mounted_config: dict
) -> None:
    store = mounted_config["store"]
    assert store["kind"] == "redis", "replicas must share their state"
    host, port = store["redis"]["host"], store["redis"].get("port", 6379)
    service_name, _, rest = host.partition(".")
    assert rest in ("", NAMESPACE, f"{NAMESPACE}.svc", f"{NAMESPACE}.svc.cluster.local"), host
    service = objects[("Service", service_name)]["spec"]
    assert port in {p["port"] for p in service["ports"]}, (host, port)
    statefulset = next(document for (kind, _), document in objects.items() if kind == "StatefulSet"
                       and matches(service["selector"], document["spec"]["template"]["metadata"]["labels"]))
    assert statefulset["spec"]["volumeClaimTemplates"], "Redis data must outlive the pod"
    redis_container = statefulset["spec"]["template"]["spec"]["containers"][0]
    assert redis_container["image"].startswith("redis:")
    assert {"readinessProbe", "livenessProbe"} <= redis_container.keys()
    data_mount = next(m for m in redis_container["volumeMounts"] if m["name"] == "data")
    redis_conf = object_data(objects, "ConfigMap", "attestd-redis", "redis.conf")
    directives = dict(line.split(None, 1) for line in redis_conf.splitlines()
                      if line.strip() and not line.lstrip().startswith("#"))
    assert directives["appendonly"] == "yes"
    # An evicted "consumed" record would be an accepted replay.
    assert directives["maxmemory-policy"] == "noeviction"
    assert directives["dir"] == data_mount["mountPath"]
    # The Redis password attestd reads is the one Redis requires.
    password_secrets = {env["valueFrom"]["secretKeyRef"]["name"] for env in redis_container["env"]
                        if env.get("valueFrom", {}).get("secretKeyRef")}
    assert "attestd-redis" in password_secrets


def placeholder_files(directory: Path, config: dict, contents: dict[str, str]) -> None:
    """Writes every file the config names: the key files as `attestd keygen` makes them (check-config parses
    them), the others with `contents` or a placeholder."""
    generated = directory / ".generated-keys"
    subprocess.run([str(attestd_binary()), "keygen", "--out", str(generated)], check=True, capture_output=True, timeout=30)
    keys = config["keys"]
    real = {keys["challengeKey"]: generated / "challenge.json", keys["artifactKey"]: generated / "artifact.json"}
    real.update({path: generated / "token-signing.pem" for path in keys["tokenSigning"]})
    for relative in referenced_files(config):
        target = directory / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative in real:
            target.write_bytes(real[relative].read_bytes())
        else:
            target.write_text(contents.get(relative, "placeholder\n"))


def test_check_config_accepts_the_config_the_configmap_mounts(
    tmp_path: Path, objects: dict[tuple[str, str], dict], deployment: dict, container: dict, mounted_config: dict
) -> None:
    # The files the Secrets project, with their placeholder contents: check-config reads the Redis password file.
    directory = config_path_of(container).rsplit("/", 1)[0]
    files = projected_files(deployment, container, directory)
    contents = {path: object_data(objects, *files[path]) for path in referenced_files(mounted_config)}
    placeholder_files(tmp_path, mounted_config, contents)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(with_caller_tokens(mounted_config)[0]))
    result = check_config(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"ok ({len(mounted_config['listeners'])} listeners" in result.stdout


@pytest.mark.parametrize("name", ["config.json", "cluster.json"])
def test_check_config_accepts_the_docker_configs(tmp_path: Path, name: str) -> None:
    config = json.loads((DEPLOY / "docker" / name).read_text())
    placeholder_files(tmp_path, config, {})
    path = tmp_path / name
    path.write_text(json.dumps(with_caller_tokens(config)[0]))
    result = check_config(path)
    assert result.returncode == 0, result.stdout + result.stderr


# ---- listeners and callers of every shipped config ---------------------------------------------------------------


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_listener_has_a_role_and_there_is_one_of_each(name: str) -> None:
    listeners = shipped_configs()[name]["listeners"]
    # A listener without a role serves devices and backends on one port (attestd warns when it is not loopback).
    assert all(listener.get("role") in ROLES and "services" not in listener for listener in listeners), listeners
    assert sorted(listener["role"] for listener in listeners) == ["internal", "public"], listeners


def test_the_shipped_configs_agree_on_their_ports() -> None:
    # The balancer and gateway configs serve the Docker cluster and Kubernetes alike.
    layouts = {name: (role_ports(config, "public"), role_ports(config, "internal"))
               for name, config in shipped_configs().items()}
    assert len({repr(layout) for layout in layouts.values()}) == 1, layouts


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_config_names_an_operator_and_a_backend_of_its_project(name: str) -> None:
    config = shipped_configs()[name]
    # admin.tokenHashes is the older spelling of operators.
    assert "admin" not in config
    callers = {caller["role"]: caller for caller in config["callers"]}
    assert sorted(callers) == ["backend", "operator"] and len(config["callers"]) == 2, config["callers"]
    projects = {key for project in config["projects"] for key in (project["number"], project["id"])}
    assert callers["backend"]["projects"] and set(callers["backend"]["projects"]) <= projects
    assert "projects" not in callers["operator"]
    for caller in config["callers"]:
        # Placeholders attestd refuses to load: no node serves until the operator has put real token hashes in.
        assert caller["tokenHashes"] and all(digest.startswith("REPLACE") for digest in caller["tokenHashes"]), caller


@pytest.mark.parametrize("name", SHIPPED)
def test_check_config_refuses_a_shipped_config_whose_caller_placeholders_were_not_replaced(
    tmp_path: Path, name: str
) -> None:
    config = shipped_configs()[name]
    placeholder_files(tmp_path, config, {})
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = check_config(path)
    assert result.returncode != 0, result.stdout
    assert "callers[0].tokenHashes[0]" in result.stderr and "callers[1].tokenHashes[0]" in result.stderr, result.stderr


def test_the_docs_say_how_to_make_caller_tokens() -> None:
    recipe = 'printf %s "$(cat '
    assert recipe in (KUBERNETES / "configmap.yaml").read_text()
    readme = (DEPLOY / "README.md").read_text()
    # deploy/docker/*.json cannot hold comments: the README explains their placeholders.
    for needed in (recipe, "head -c 32 /dev/urandom | base64", "sha256sum",
                   "REPLACE-with-the-SHA-256-of-the-operator-token", "REPLACE-with-the-SHA-256-of-the-backend-token",
                   "authorization: Bearer", "clientCAFile", "certificateNames"):
        assert needed in readme, needed


def runnable(config: dict, directory: Path) -> tuple[dict, dict[str, str]]:
    """A shipped config as a test can start it: loopback addresses, free ports, SQLite state in `directory`, real
    caller tokens. Everything else (roles, callers, gateway, projects) as shipped."""
    config, tokens = with_caller_tokens(config)
    for listener, port in zip(config["listeners"], free_ports(len(config["listeners"]))):
        listener["address"], listener["port"] = "127.0.0.1", port
    config["store"] = {"kind": "sqlite", "path": str(directory / "state.sqlite")}
    return config, tokens


def request(port: int, path: str, body: dict | None = None, token: str | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """One REST call: (HTTP status, JSON body or {})."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"content-type": "application/json", **(headers or {})}
    if token is not None:
        all_headers["authorization"] = f"Bearer {token}"
    call = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=all_headers,
                                  method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(call, timeout=10) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, text = error.code, error.read()
    try:
        return status, json.loads(text) if text else {}
    except json.JSONDecodeError:
        return status, {}


def app_check_token(directory: Path, config: dict, jwks: dict) -> str:
    """An App Check token as attestd mints them, signed with the node's own key (its kid from the JWKS)."""
    (key,) = jwks["keys"]
    project = config["projects"][0]
    now = int(time.time())
    claims = {"iss": f"https://firebaseappcheck.googleapis.com/{project['number']}", "sub": project["apps"][0]["appId"],
              "aud": [f"projects/{project['number']}", f"projects/{project['id']}"], "iat": now, "exp": now + 600,
              "jti": str(uuid.uuid4())}
    pem = (directory / config["keys"]["tokenSigning"][-1]).read_bytes()
    return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": key["kid"], "typ": "JWT"})


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_config_serves_devices_on_the_public_listener_and_backends_on_the_internal_one(
    tmp_path: Path, name: str
) -> None:
    config, tokens = runnable(shipped_configs()[name], tmp_path)
    placeholder_files(tmp_path, config, {})
    node = AttestdServer(tmp_path, config)
    node.start()
    try:
        records = node.log_records()
        warnings = [record["msg"] for record in records if record.get("level") == "warning"]
        assert not [msg for msg in warnings if "callers" in msg or "one port" in msg], warnings
        listening = {int(record["port"]): set(record["services"].split(",")) for record in records
                     if record.get("msg") == "listening"}
        assert listening == {listener["port"]: ROLES[listener["role"]] for listener in config["listeners"]}, listening
        (public,), (internal,) = role_ports(config, "public"), role_ports(config, "internal")
        project, app_id = config["projects"][0]["id"], config["projects"][0]["apps"][0]["appId"]
        challenge = f"/v1/projects/{project}/apps/{app_id}:generateAppAttestChallenge"
        verify = f"/v1beta/projects/{project}:verifyAppCheckToken"
        key = f"/v1/projects/{project}/apps/{app_id}:getAttestedKey"
        backend = next(caller["name"] for caller in config["callers"] if caller["role"] == "backend")
        operator = next(caller["name"] for caller in config["callers"] if caller["role"] == "operator")

        # Devices: the challenge, the JWKS and health; the rest is unknown there, credential or not.
        assert request(public, "/healthz")[0] == 200
        status, jwks = request(public, "/v1/jwks")
        assert status == 200 and jwks["keys"], jwks
        assert request(public, challenge, {})[0] == 200
        for path, body in (("/metrics", None), ("/v1/authz", None), (verify, {"app_check_token": "x"}),
                           (key, {"key_id": "x"})):
            assert request(public, path, body, token=tokens[backend])[0] == 404, path

        # Backends, gateways, Prometheus: health and metrics, the caller RPCs with their tokens, the gateway.
        assert request(internal, "/healthz")[0] == 200
        assert request(internal, "/metrics")[0] == 200
        assert request(internal, challenge, {})[0] == 404
        assert request(internal, "/v1/jwks")[0] == 404
        token = app_check_token(tmp_path, config, jwks)
        assert request(internal, verify, {"app_check_token": token})[0] == 401
        assert request(internal, verify, {"app_check_token": token}, token="not-a-caller-token")[0] == 401
        assert request(internal, verify, {"app_check_token": token}, token=tokens[operator])[0] == 403
        status, answer = request(internal, verify, {"app_check_token": token}, token=tokens[backend])
        assert status == 200 and answer.get("alreadyConsumed", False) is False, answer
        status, answer = request(internal, verify, {"app_check_token": token}, token=tokens[backend])
        assert status == 200 and answer.get("alreadyConsumed") is True, answer
        assert request(internal, key, {"key_id": "AAAA"}, token=tokens[backend])[0] == 403
        # The operator gets past the caller check: an unknown key, not a refusal nor an unknown route.
        status, answer = request(internal, key, {"key_id": "AAAA"}, token=tokens[operator])
        assert status not in (401, 403) and not answer["error"]["message"].startswith("No route"), (status, answer)
        authz = {"X-Original-Method": "GET", "X-Original-URI": "/v1/profile"}
        assert request(internal, "/v1/authz", headers=authz)[0] == 401
        fresh = app_check_token(tmp_path, config, jwks)
        assert request(internal, "/v1/authz", headers={**authz, "X-Firebase-AppCheck": fresh})[0] == 200

        # Over gRPC alike: Envoy's Check and the caller RPCs are unknown on the public listener.
        for method in ("/envoy.service.auth.v3.Authorization/Check",
                       "/google.firebase.appcheck.v1.TokenExchangeService/VerifyAppCheckToken",
                       "/attestd.v1.DeviceStateService/QueryTwoBits", "/attestd.v1.KeyService/GetAttestedKey"):
            assert grpc_code(public, method) == grpc.StatusCode.UNIMPLEMENTED, method
            assert grpc_code(internal, method) != grpc.StatusCode.UNIMPLEMENTED, method
        assert grpc_code(internal, "/google.firebase.appcheck.v1.TokenExchangeService/GenerateAppAttestChallenge") \
            == grpc.StatusCode.UNIMPLEMENTED
    finally:
        node.kill()


def grpc_code(port: int, method: str) -> grpc.StatusCode:
    """The status of one gRPC call with an empty request message and no credential."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.unary_unary(method, request_serializer=lambda message: message,
                                   response_deserializer=lambda message: message)
        try:
            call(b"", timeout=10)
            return grpc.StatusCode.OK
        except grpc.RpcError as error:
            return error.code()


def test_the_secret_placeholders_say_how_to_replace_them(objects: dict[tuple[str, str], dict]) -> None:
    keys = objects[("Secret", "attestd-keys")]
    assert set(keys["stringData"]) == {"challenge.json", "artifact.json", "token-signing.pem"}
    assert all("attestd keygen" in value for value in keys["stringData"].values())
    assert "kubectl -n attestd create secret generic attestd-keys" in (KUBERNETES / "secret.yaml").read_text()


# ---- the Dockerfile ----------------------------------------------------------------------------------------------

RUNTIME_LIBRARIES = {"libssl3", "libnghttp2-14", "libprotobuf-c1", "libhttp-parser2.9", "libsqlite3-0", "libhiredis0.14"}


def test_the_dockerfile_builds_with_the_swift_image_and_runs_on_slim_debian() -> None:
    dockerfile = Dockerfile.read()
    assert len(dockerfile.stages) == 2, [stage[:2] for stage in dockerfile.stages]
    (build_image, build_name, _), (runtime_image, _, _) = dockerfile.stages
    assert build_image == "swift:6.3-bookworm"
    assert runtime_image == "debian:bookworm-slim"
    build_commands = " ".join(dockerfile.instructions(0, "RUN"))
    assert "swift build -c release" in build_commands
    # The Swift runtime is linked in: the runtime stage has no toolchain.
    assert "--static-swift-stdlib" in build_commands
    assert any(f"--from={build_name}" in copy for copy in dockerfile.instructions(1, "COPY"))

    # The build stage installs every -dev package Package.swift's system libraries name.
    providers = set(re.findall(r'\.apt\(\["([^"]+)"\]\)', (REPO / "Package.swift").read_text()))
    assert providers and providers <= dockerfile.apt_packages(0), providers - dockerfile.apt_packages(0)

    runtime = dockerfile.apt_packages(1)
    assert RUNTIME_LIBRARIES <= runtime, RUNTIME_LIBRARIES - runtime
    assert not {package for package in runtime if package.endswith("-dev")}, runtime


def test_the_image_runs_non_root_with_the_entrypoint_and_ports_the_manifests_use(
    deployment: dict, container: dict, mounted_config: dict
) -> None:
    dockerfile = Dockerfile.read()
    (user,) = dockerfile.instructions(1, "USER")
    uid = user.split(":")[0]
    # Numeric, so that Kubernetes' runAsNonRoot can check it.
    assert uid.isdigit() and int(uid) != 0, user
    assert int(uid) == deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
    (entrypoint,) = dockerfile.instructions(1, "ENTRYPOINT")
    assert json.loads(entrypoint) == ["attestd", "serve", "--config", config_path_of(container)]
    exposed = {int(port.split("/")[0]) for line in dockerfile.instructions(1, "EXPOSE") for port in line.split()}
    for config in shipped_configs().values():
        assert cleartext_ports(config) <= exposed, (config["listeners"], exposed)
    (healthcheck,) = dockerfile.instructions(1, "HEALTHCHECK")
    # The public listener's health, as the balancers and the Kubernetes probes ask it.
    (port,) = ports_serving(mounted_config, "health") & role_ports(mounted_config, "public")
    assert f"http://127.0.0.1:{port}/healthz" in healthcheck
    assert "curl" in dockerfile.apt_packages(1)


def test_the_build_context_holds_what_the_dockerfile_copies_and_no_keys_or_state() -> None:
    patterns = [line.strip() for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    # Everything is left out first, then the package is let back in: keys and state can never slip through.
    assert patterns[0] == "**", patterns
    included = {pattern[1:] for pattern in patterns if pattern.startswith("!")}
    dockerfile = Dockerfile.read()
    sources = {copy.split()[0] for copy in dockerfile.instructions(0, "COPY") if not copy.startswith("--from")}
    assert sources == included, (sources, included)
    for private in (".keys", ".state", ".build", ".venv"):
        assert private not in included and not any(pattern.startswith(f"!{private}") for pattern in patterns)


def test_the_runtime_image_installs_every_library_attestd_links() -> None:
    ldd, dpkg = shutil.which("ldd"), shutil.which("dpkg")
    if not (ldd and dpkg):
        pytest.skip("ldd and dpkg are needed to map attestd's libraries to Debian packages")
    binary = attestd_binary()
    assert binary.exists(), f"{binary} does not exist: build attestd first (or set ATTESTD_BIN)"
    output = subprocess.run([ldd, str(binary)], capture_output=True, text=True, check=True).stdout
    libraries = [match for match in re.findall(r"=> (/\S+)", output) if "swift" not in match]
    assert libraries, output
    needed: set[str] = set()
    for library in libraries:
        # Debian 12 merged /lib into /usr/lib, but dpkg records whichever path the package shipped.
        resolved = os.path.realpath(library)
        candidates = {library, resolved, resolved.removeprefix("/usr"), library.removeprefix("/usr")}
        owners = [subprocess.run([dpkg, "-S", path], capture_output=True, text=True) for path in sorted(candidates)]
        owner = next((result.stdout for result in owners if result.returncode == 0), None)
        assert owner, f"no Debian package owns {library}"
        needed.add(owner.split(":")[0])
    # Every Debian image has the C library and its unwinder: the rest must be installed by the runtime stage.
    missing = needed - {"libc6", "libgcc-s1"} - Dockerfile.read().apt_packages(1)
    assert not missing, f"the runtime stage lacks {missing}"
    # And the list the Dockerfile is checked against above is the one attestd really links.
    assert RUNTIME_LIBRARIES <= needed, RUNTIME_LIBRARIES - needed


# ---- HAProxy and Envoy -------------------------------------------------------------------------------------------


def haproxy_sections() -> dict[str, list[list[str]]]:
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for raw in (DEPLOY / "haproxy" / "haproxy.cfg").read_text().splitlines():
        line = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        words = shlex.split(line, posix=False)
        if not raw.startswith((" ", "\t")):
            current = sections.setdefault(" ".join(words), [])
        else:
            current.append(words)
    return sections


def test_haproxy_sends_grpc_over_h2_to_three_health_checked_backends() -> None:
    backend = haproxy_sections()["backend attestd"]
    servers = [words for words in backend if words[0] == "server"]
    assert len(servers) == 3, servers
    (default_server,) = [words for words in backend if words[0] == "default-server"]
    options = " ".join(default_server)
    for needed in ("proto h2", "check-proto h2", " check "):
        assert needed in f"{options} ", f"default-server lacks {needed.strip()}"
    assert ["option", "httpchk"] in backend
    send = next(words for words in backend if words[:2] == ["http-check", "send"])
    assert "/healthz" in send
    assert ["http-check", "expect", "status", "200"] in backend
    frontend = haproxy_sections()["frontend attestd"]
    assert any("alpn" in words and "h2,http/1.1" in words for words in frontend if words[0] == "bind")
    # Devices' traffic goes to the nodes' public listeners (the default of each ATTESTD_N, "${ATTESTD_1-host:port}").
    ports = {int(re.fullmatch(r'"\$\{ATTESTD_\d-[\w.-]+:(\d+)\}"', words[2]).group(1)) for words in servers}
    for config in shipped_configs().values():
        assert ports <= role_ports(config, "public") & ports_serving(config, "exchange"), (ports, config["listeners"])


def tls_pem(directory: Path) -> Path:
    cert, key = make_tls_files(directory)
    pem = directory / "haproxy.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    return pem


def haproxy_or_skip() -> str:
    binary = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if binary is None:
        pytest.skip("haproxy is not installed (scripts/install-deps.sh installs it)")
    return binary


def test_haproxy_accepts_its_config(tmp_path: Path) -> None:
    binary = haproxy_or_skip()
    environment = {**os.environ, "ATTESTD_TLS_PEM": str(tls_pem(tmp_path))}
    result = subprocess.run([binary, "-c", "-f", str(DEPLOY / "haproxy" / "haproxy.cfg")],
                            capture_output=True, text=True, env=environment, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Configuration file is valid" in result.stdout + result.stderr


def test_envoy_sends_grpc_over_h2_to_three_backends_with_grpc_health_checks(mounted_config: dict) -> None:
    envoy = yaml_documents(DEPLOY / "envoy" / "envoy.yaml")[0]
    (cluster,) = envoy["static_resources"]["clusters"]
    options = cluster["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
    assert "http2_protocol_options" in options["explicit_http_config"]
    (health,) = cluster["health_checks"]
    assert health["grpc_health_check"].get("service_name", "") == ""
    assert {"timeout", "interval", "unhealthy_threshold", "healthy_threshold"} <= health.keys()
    endpoints = [endpoint["endpoint"]["address"]["socket_address"]
                 for group in cluster["load_assignment"]["endpoints"] for endpoint in group["lb_endpoints"]]
    assert len(endpoints) == 3
    # Devices' traffic goes to the public listeners, which serve the exchanges and health.
    for config in shipped_configs().values():
        public = role_ports(config, "public") & ports_serving(config, "exchange") & ports_serving(config, "health")
        assert {endpoint["port_value"] for endpoint in endpoints} <= public, (endpoints, config["listeners"])
    (listener,) = envoy["static_resources"]["listeners"]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    assert manager["codec_type"] == "AUTO"
    routes = [route for host in manager["route_config"]["virtual_hosts"] for route in host["routes"]]
    assert {route["route"]["cluster"] for route in routes} == {cluster["name"]}


def test_envoy_ext_authz_checks_every_route_with_attestd_and_fails_closed() -> None:
    envoy = yaml_documents(DEPLOY / "envoy" / "ext-authz.yaml")[0]
    clusters = {cluster["name"]: cluster for cluster in envoy["static_resources"]["clusters"]}
    (listener,) = envoy["static_resources"]["listeners"]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    filters = manager["http_filters"]
    # ext_authz runs before the router, so nothing reaches the API unchecked.
    assert [f["name"] for f in filters] == ["envoy.filters.http.ext_authz", "envoy.filters.http.router"]
    ext_authz = filters[0]["typed_config"]
    assert ext_authz["transport_api_version"] == "V3"
    assert ext_authz["failure_mode_allow"] is False
    attestd = clusters[ext_authz["grpc_service"]["envoy_grpc"]["cluster_name"]]
    options = attestd["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
    assert "http2_protocol_options" in options["explicit_http_config"]
    assert attestd["health_checks"][0]["grpc_health_check"].get("service_name", "") == ""
    # Check is served on the internal listeners only (it needs no credential: devices must not reach it).
    ports = {endpoint["endpoint"]["address"]["socket_address"]["port_value"]
             for group in attestd["load_assignment"]["endpoints"] for endpoint in group["lb_endpoints"]}
    for config in shipped_configs().values():
        assert ports <= role_ports(config, "internal") & ports_serving(config, "gateway"), (ports, config["listeners"])
    # Every route name Envoy sends is a route policy of the deployed attestd config; the rest are checked by path.
    gateway = json.loads((DEPLOY / "docker" / "config.json").read_text())["gateway"]
    policies = {route["name"]: route for route in gateway["routes"]}
    routes = [route for host in manager["route_config"]["virtual_hosts"] for route in host["routes"]]
    named = [route["typed_per_filter_config"]["envoy.filters.http.ext_authz"]["check_settings"]["context_extensions"]
             ["attestd_route"] for route in routes
             if "check_settings" in route.get("typed_per_filter_config", {}).get("envoy.filters.http.ext_authz", {})]
    assert named and set(named) <= policies.keys()
    assert policies["redeem"]["limitedUse"] is True
    assert {route["route"]["cluster"] for route in routes} == {"api"}


def test_nginx_accepts_its_auth_request_config(tmp_path: Path) -> None:
    if nginx_server.nginx_binary() is None:
        pytest.skip("nginx is not installed (scripts/install-deps.sh installs it)")
    text = (DEPLOY / "nginx" / "nginx.conf").read_text()
    assert "auth_request /_attestd/authz;" in text
    assert "proxy_pass http://attestd/v1/authz;" in text
    gateway = json.loads((DEPLOY / "docker" / "config.json").read_text())["gateway"]
    assert gateway["authRequestPath"] == "/v1/authz"
    # The auth_request subrequests go to the internal listeners, which serve the gateway path.
    upstream = re.search(r"upstream attestd \{(.*?)\}", text, re.DOTALL)
    assert upstream, "nginx.conf has no attestd upstream"
    ports = {int(port) for port in re.findall(r"^\s*server \S+:(\d+);", upstream.group(1), re.MULTILINE)}
    assert len(ports) == 1, upstream.group(1)
    for config in shipped_configs().values():
        assert ports <= role_ports(config, "internal") & ports_serving(config, "gateway"), (ports, config["listeners"])
    # The deployed file with loopback hosts and paths in the test's directory (the e2e gateway tests run it).
    result = nginx_server.Nginx(tmp_path, 8081, [8080], 9000).check()
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_the_compose_cluster_matches_the_balancer_backends_and_the_image() -> None:
    compose = yaml_documents(DEPLOY / "docker" / "compose.yaml")[0]
    nodes = sorted(name for name in compose["services"] if name.startswith("attestd-"))
    haproxy_servers = sorted(words[1] for words in haproxy_sections()["backend attestd"] if words[0] == "server")
    envoy = yaml_documents(DEPLOY / "envoy" / "envoy.yaml")[0]
    envoy_hosts = sorted(endpoint["endpoint"]["address"]["socket_address"]["address"]
                         for group in envoy["static_resources"]["clusters"][0]["load_assignment"]["endpoints"]
                         for endpoint in group["lb_endpoints"])
    assert nodes == haproxy_servers == envoy_hosts == ["attestd-1", "attestd-2", "attestd-3"]
    (entrypoint,) = Dockerfile.read().instructions(1, "ENTRYPOINT")
    config_path = json.loads(entrypoint)[-1]
    cluster = json.loads((DEPLOY / "docker" / "cluster.json").read_text())
    for node in nodes:
        mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in compose["services"][node]["volumes"]}
        assert mounts[config_path] == "./cluster.json"
        assert cluster["store"]["redis"]["host"] in compose["services"]
        # The nodes publish nothing on the host: devices come through HAProxy, the rest over the project's network.
        assert "ports" not in compose["services"][node], node
    published = {int(str(mapping).split(":")[-1]) for mapping in compose["services"]["haproxy"]["ports"]}
    frontend = haproxy_sections()["frontend attestd"]
    binds = {int(re.search(r":(\d+)\}?\"?$", words[1]).group(1)) for words in frontend if words[0] == "bind"}
    assert binds <= published, (binds, published)


# ---- HAProxy, live, in front of three real attestd nodes ---------------------------------------------------------


class HAProxy:
    """deploy/haproxy/haproxy.cfg as shipped, its addresses given through the environment it documents."""

    def __init__(self, directory: Path, backends: list[int]):
        self.port, self.tls_port, self.stats_port = free_ports(3)
        self.environment = {
            **os.environ,
            "ATTESTD_BIND": f"127.0.0.1:{self.port}",
            "ATTESTD_TLS_BIND": f"127.0.0.1:{self.tls_port}",
            "ATTESTD_TLS_PEM": str(tls_pem(directory)),
            "HAPROXY_STATS_BIND": f"127.0.0.1:{self.stats_port}",
            **{f"ATTESTD_{index}": f"127.0.0.1:{port}" for index, port in enumerate(backends, 1)},
        }
        self.log = directory / "haproxy.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("wb") as log:
            self.process = subprocess.Popen([haproxy_or_skip(), "-f", str(DEPLOY / "haproxy" / "haproxy.cfg")],
                                            env=self.environment, stdout=log, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        terminate(self.process)

    def servers(self) -> dict[str, dict[str, str]]:
        """The backend's servers as the stats page reports them (status, check_status, stot...)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.stats_port}/stats;csv", timeout=5) as response:
            text = response.read().decode().lstrip("# ")
        return {row["svname"]: row for row in csv.DictReader(io.StringIO(text))
                if row["pxname"] == "attestd" and row["svname"] not in ("FRONTEND", "BACKEND")}

    def wait_for(self, wanted: dict[str, str], timeout: float = 15.0) -> dict[str, dict[str, str]]:
        deadline = time.monotonic() + timeout
        while True:
            try:
                servers = self.servers()
                if {name: row["status"] for name, row in servers.items() if name in wanted} == wanted:
                    return servers
            except OSError:
                servers = {}
            if self.process is not None and self.process.poll() is not None:
                raise AssertionError(f"haproxy exited with {self.process.returncode}:\n{self.log.read_text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"servers never reached {wanted}: {servers}\n{self.log.read_text()[-2000:]}")
            time.sleep(0.2)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[list[AttestdServer], HAProxy]]:
    haproxy_or_skip()
    shipped = json.loads((DEPLOY / "docker" / "cluster.json").read_text())["listeners"]
    nodes = []
    for index in range(1, 4):
        config = base_config(0)
        # cluster.json's listeners (a public and an internal one), on loopback ports.
        config["listeners"] = [{**listener, "address": "127.0.0.1", "port": port}
                               for listener, port in zip(shipped, free_ports(len(shipped)))]
        nodes.append(AttestdServer(tmp_path / f"node-{index}", config))
    balancer = HAProxy(tmp_path, [next(iter(role_ports(node.config, "public"))) for node in nodes])
    try:
        for node in nodes:
            node.start()
        balancer.start()
        yield nodes, balancer
    finally:
        balancer.stop()
        for node in nodes:
            node.kill()


def health(channel: grpc.Channel) -> int:
    request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
    return protos.stub("grpc.health.v1.Health", channel).Check(request, timeout=10).status


def challenge_over_rest(port: int) -> dict:
    url = f"http://127.0.0.1:{port}/v1/projects/{PROJECT_ID}/apps/{APP_ID}:generateAppAttestChallenge"
    with urllib.request.urlopen(urllib.request.Request(url, data=b"", method="POST"), timeout=10) as response:
        assert response.status == 200
        return json.loads(response.read())


def test_haproxy_balances_grpc_over_three_nodes_and_routes_around_a_stopped_one(
    cluster: tuple[list[AttestdServer], HAProxy]
) -> None:
    nodes, balancer = cluster
    names = ["attestd-1", "attestd-2", "attestd-3"]
    balancer.wait_for({name: "UP" for name in names})
    serving = protos.enum_value("grpc.health.v1.HealthCheckResponse.ServingStatus", "SERVING")

    # One gRPC channel, one connection to HAProxy: its calls still spread over every node.
    channel = grpc.insecure_channel(f"127.0.0.1:{balancer.port}")
    try:
        assert [health(channel) for _ in range(12)] == [serving] * 12
        for _ in range(6):
            assert challenge_over_rest(balancer.port)["ttl"] == "300s"
        # Behind the device-facing balancer, nothing of the internal listener is reachable.
        for path in ("/metrics", "/v1/authz"):
            assert request(balancer.port, path)[0] == 404, path
        counts = {name: int(row["stot"]) for name, row in balancer.servers().items()}
        assert all(counts[name] >= 3 for name in names), counts

        # SIGTERM: the node answers NOT_SERVING and closes its listeners; HAProxy takes it out of the pool.
        code = nodes[0].stop()
        assert code == 0, nodes[0].log_tail()
        balancer.wait_for({"attestd-1": "DOWN", "attestd-2": "UP", "attestd-3": "UP"})
        before = {name: int(row["stot"]) for name, row in balancer.servers().items()}
        assert [health(channel) for _ in range(9)] == [serving] * 9
        after = {name: int(row["stot"]) for name, row in balancer.servers().items()}
        assert after["attestd-1"] == before["attestd-1"], (before, after)
        assert after["attestd-2"] > before["attestd-2"] and after["attestd-3"] > before["attestd-3"], (before, after)
    finally:
        channel.close()
