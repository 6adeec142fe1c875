"""Counters whose label values the configuration and the code's closed lists make known are on /metrics at zero
before anything happens, so alert rules and dashboards find every series on a fresh node (and `rate()` sees the
first refusal). Label sets nobody could foresee (`malformed(authData)`) appear when first seen."""

from __future__ import annotations

import hashlib
import http.client
import json
import re
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

import yaml

from attestd_server import APP_ID, AttestdServer, base_config, free_ports
from checks import scrape
from test_devicecheck import make_developer_key

OTHER_APP = "1:123456789012:ios:00000000000000ff"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, tls_files: tuple[Path, Path]) -> Iterator[AttestdServer]:
    directory = tmp_path_factory.mktemp("declared-metrics")
    developer_key, _ = make_developer_key(directory, "AuthKey_declared")
    service_account = directory / "service-account.pem"
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                    str(directory / "sa.key")], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(directory / "sa.key"), "-pubout", "-out", str(service_account)],
                   check=True, capture_output=True)
    config = base_config(*free_ports(2))
    config["store"] = {"kind": "sqlite", "path": str(directory / "state.db")}
    project = config["projects"][0]
    app = project["apps"][0]
    app["debugTokenHashes"] = [hashlib.sha256(b"declared-debug-token").hexdigest()]
    app["deviceCheck"] = {"keyId": "ABCDEFGHIJ", "privateKey": str(developer_key)}
    project["apps"].append({"appId": OTHER_APP, "teamId": "DEVTEAM123", "bundleIds": ["dev.attestd.other"],
                            "environment": "development"})
    project["serviceAccounts"] = [{"email": "sa@attestd-dev.iam.gserviceaccount.com", "publicKey": str(service_account)}]
    # Apple is never called: the store holds no key whose receipt could be refreshed.
    (closed,) = free_ports(1)
    config["apple"] = {"riskMetricURL": f"https://127.0.0.1:{closed}", "deviceCheckURL": f"https://127.0.0.1:{closed}"}
    config["receipts"] = {"enabled": True}
    config["admission"] = {"perAddress": {"requestsPerSecond": 100, "burst": 100},
                           "perApp": {"requestsPerSecond": 100, "burst": 100}}
    config["gateway"] = {"routes": [
        {"name": "redeem", "pathPrefix": "/api/redeem", "limitedUse": True, "apps": [OTHER_APP]},
        {"name": "beta", "pathPrefix": "/api/beta", "mode": "monitor"},
    ], "defaultRoute": {"mode": "deny"}}
    server = AttestdServer(directory, config, tls_files)
    server.start()
    yield server
    assert server.stop() == 0


def labels(**pairs: str) -> str:
    return "{" + ",".join(f'{name}="{value}"' for name, value in pairs.items()) + "}"


def test_refusal_reasons_are_zero_for_each_app_and_the_providers_it_can_use(fresh: AttestdServer) -> None:
    samples = scrape(fresh.h2c_port)
    failures = {name: value for name, value in samples.items() if name.startswith("attestd_verification_failures_total{")}
    assert failures and set(failures.values()) == {0.0}
    name = "attestd_verification_failures_total"
    for reason in ("challengeExpired", "challengeReplayed", "badSignature", "counterNotIncreasing", "artifactTampered",
                   "keyRevoked", "wrongEnvironment"):
        for app in (APP_ID, OTHER_APP):
            assert name + labels(app=app, provider="app_attest", reason=reason) in samples, reason
    # DeviceCheck only where the app configures it; custom tokens for the apps of a project with service accounts.
    # Debug tokens for every app: one sent to an app that accepts none is worth an alert.
    assert name + labels(app=APP_ID, provider="debug", reason="unknownDebugToken") in samples
    assert name + labels(app=OTHER_APP, provider="debug", reason="unknownDebugToken") in samples
    assert name + labels(app=APP_ID, provider="device_check", reason="deviceTokenRejected") in samples
    assert name + labels(app=OTHER_APP, provider="device_check", reason="deviceTokenRejected") not in samples
    assert name + labels(app=OTHER_APP, provider="custom", reason="customTokenExpired") in samples
    # Token checks refuse before an app is known.
    assert name + labels(app="", provider="app_check_token", reason="tokenBadSignature") in samples


def test_apple_calls_receipts_rate_limits_and_gateway_decisions_are_zero(fresh: AttestdServer) -> None:
    samples = scrape(fresh.h2c_port)
    expected = [
        "attestd_apple_requests_total" + labels(app=APP_ID, endpoint="validate_device_token", outcome="ok"),
        "attestd_apple_requests_total" + labels(app=APP_ID, endpoint="update_two_bits", outcome="unavailable"),
        "attestd_receipt_refreshes_total" + labels(app=APP_ID, outcome="refreshed"),
        "attestd_receipt_refreshes_total" + labels(app=APP_ID, outcome="failed"),
        "attestd_risk_metric_count" + labels(app=APP_ID),
        "attestd_risk_metric_bucket" + labels(app=APP_ID, le="1"),
        "attestd_store_errors_total" + labels(component="exchange"),
        "attestd_store_errors_total" + labels(component="gateway"),
        "attestd_store_errors_total" + labels(component="receipts"),
        "attestd_requests_total" + labels(method="ExchangeAppAttestAssertion", code="OK"),
        "attestd_request_duration_seconds_count" + labels(method="ExchangeAppAttestAssertion"),
        "attestd_rate_limited_total" + labels(scope="address", method="ExchangeAppAttestAssertion"),
        "attestd_rate_limited_total" + labels(scope="address", method="VerifyAppCheckToken"),
        "attestd_rate_limited_total" + labels(scope="app", method="ExchangeAppAttestAttestation"),
        "attestd_gateway_decisions_total" + labels(route="redeem", app=OTHER_APP, decision="allowed", reason=""),
        "attestd_gateway_decisions_total" + labels(route="redeem", app="", decision="denied", reason="missingToken"),
        "attestd_gateway_decisions_total" + labels(route="beta", app=APP_ID, decision="allowed", reason=""),
        "attestd_gateway_decisions_total" + labels(route="beta", app="", decision="would_deny", reason="tokenExpired"),
        "attestd_gateway_decisions_total" + labels(route="default", app="", decision="denied", reason="routeDenied"),
    ]
    for series in expected:
        assert samples.get(series) == 0.0, series
    # Only the apps a route admits; no app scope for methods that name no app; health is never limited.
    assert "attestd_gateway_decisions_total" + labels(route="redeem", app=APP_ID, decision="allowed", reason="") not in samples
    assert "attestd_rate_limited_total" + labels(scope="app", method="VerifyAppCheckToken") not in samples
    assert "attestd_rate_limited_total" + labels(scope="address", method="Check") not in samples


OBSERVABILITY = Path(__file__).resolve().parents[2] / "deploy" / "observability"


def kit_metric_names() -> dict[str, set[str]]:
    """The attestd metrics each expression of the alerting rules and the dashboard names, by where it is named."""
    expressions: dict[str, str] = {}
    for group in yaml.safe_load((OBSERVABILITY / "attestd-alerts.yml").read_text())["groups"]:
        for rule in group["rules"]:
            expressions[f"alert {rule['alert']}"] = rule["expr"]
    for panel in json.loads((OBSERVABILITY / "attestd-dashboard.json").read_text())["panels"]:
        for target in panel.get("targets", []):
            expressions[f"panel {panel['title']!r} {target['refId']}"] = target["expr"]
    return {place: set(re.findall(r"\battestd_[a-z0-9_]+", expr)) for place, expr in expressions.items()}


def test_every_metric_the_alerts_and_the_dashboard_name_is_in_a_real_scrape(fresh: AttestdServer) -> None:
    # One answered request, so that the latency histograms have a series (they appear with their first request).
    connection = http.client.HTTPConnection("127.0.0.1", fresh.h2c_port, timeout=10)
    connection.request("GET", "/v1/jwks")
    assert connection.getresponse().status == 200
    connection.close()
    exported = {name.split("{")[0] for name in scrape(fresh.h2c_port)}
    named = kit_metric_names()
    assert len(named) >= 25 and all(named.values()), named
    missing = {place: names - exported for place, names in named.items() if names - exported}
    assert not missing, f"named by the kit but not exported by attestd: {missing}"
