"""`attestd_verification_failures_total{app,provider,reason}` from `/metrics`, and the assertions a refusal needs."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from checks import scrape
from exchange import FAILED_MESSAGE, Refused

FAILURES = "attestd_verification_failures_total"
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def failure_counts(port: int) -> dict[tuple[str, str, str], float]:
    """{(app, provider, reason): count} for every sample of the failure counter."""
    counts: dict[tuple[str, str, str], float] = {}
    for name, value in scrape(port).items():
        if name.startswith(FAILURES + "{"):
            labels = dict(_LABEL.findall(name[len(FAILURES) :]))
            counts[(labels.get("app", ""), labels.get("provider", ""), labels.get("reason", ""))] = value
    return counts


@contextmanager
def counts_failure(port: int, app: str, provider: str, reason: str, times: int = 1) -> Iterator[None]:
    """Asserts the block made the failure counter for (app, provider, reason) grow by exactly `times`."""
    key = (app, provider, reason)
    before = failure_counts(port).get(key, 0.0)
    yield
    after = failure_counts(port)
    assert after.get(key, 0.0) - before == times, (
        f"{FAILURES}{key} went from {before} to {after.get(key, 0.0)}, expected +{times}; samples now: {after}"
    )


@contextmanager
def counts_one_failure_of(port: int, app: str, provider: str, reasons: tuple[str, ...]) -> Iterator[None]:
    """Asserts the block made exactly one of the failure counters for `reasons` grow, by exactly one: for a refusal
    that more than one check may catch first, depending on the order the server checks in."""
    before = failure_counts(port)
    yield
    after = failure_counts(port)
    grown = {r: after.get((app, provider, r), 0.0) - before.get((app, provider, r), 0.0) for r in reasons}
    assert sorted(grown.values()) == [0.0] * (len(reasons) - 1) + [1.0], f"{FAILURES} growth by reason: {grown}"


def assert_denied(refused: Refused) -> None:
    """The contract's refusal (§5): PERMISSION_DENIED, 403 over REST, and only "App attestation failed."."""
    assert refused.status == "PERMISSION_DENIED", refused
    assert refused.message == FAILED_MESSAGE, refused
    if refused.http is not None:
        assert refused.http == 403, refused
