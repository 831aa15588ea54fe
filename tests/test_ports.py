"""tests/ports.py: each pytest-xdist worker draws test-server ports from a slice of its own, below the ephemeral range."""

from __future__ import annotations

import socket

import pytest
from ports import FIRST, LAST, free_port, worker_slice


@pytest.mark.parametrize("count", [1, 2, 3, 4, 8])
def test_the_workers_slices_are_disjoint_and_below_the_ephemeral_range(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    slices = []
    for index in range(count):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{index}")
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", str(count))
        slices.append(set(worker_slice()))
    assert all(len(ports) >= (LAST - FIRST + 1) // count >= 1000 for ports in slices)
    assert len(set().union(*slices)) == sum(len(ports) for ports in slices)
    assert min(map(min, slices)) >= FIRST and max(map(max, slices)) <= LAST < 32768


def test_outside_xdist_the_whole_range_is_one_slice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    assert worker_slice() == range(FIRST, LAST + 1)


def test_successive_ports_differ_stay_in_the_slice_and_skip_a_held_one() -> None:
    first = free_port()
    with socket.socket() as held:
        held.bind(("127.0.0.1", first + 1 if first + 1 in worker_slice() else first - 1))
        ports = [free_port() for _ in range(50)]
        assert held.getsockname()[1] not in ports
    assert len({first, *ports}) == 51 and all(port in worker_slice() for port in ports)
