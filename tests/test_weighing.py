"""Play to win's budget (anotador/advisor/weighing.py): a share of a core per worker and per address, one weighing at a
time, refused at once past them (429 with Retry-After), and the page's points never refused."""

from __future__ import annotations

import threading

import pytest

from anotador import create_app
from anotador.advisor.weighing import Budget, TooMuchWeighing

from .test_towin import FULL, POSITIONS


class Clock:
    def __init__(self) -> None:
        self.now, self.cpu = 1000.0, 0.0

    def spend(self, seconds: float) -> None:
        """A weighing that takes ``seconds`` of CPU and of the wall clock."""
        self.now += seconds
        self.cpu += seconds


def budget(clock: Clock, share=0.25, client_share=0.05, burst=2.0, at_once=1) -> Budget:
    return Budget(share, client_share, burst, at_once, clock=lambda: clock.now, cpu=lambda: clock.cpu)


def test_an_address_spends_its_burst_then_waits_for_its_share():
    clock, spent = Clock(), 0.0
    b = budget(clock)
    while True:  # 0.4 s weighings back to back: the burst of 2 s, and what refilled meanwhile
        try:
            with b.weigh("a"):
                clock.spend(0.4)
                spent += 0.4
        except TooMuchWeighing as exc:
            refused = exc
            break
    assert 2.0 <= spent <= 2.0 + 0.4 + 0.05 * spent + 1e-9
    # the address's bucket is below zero: it waits for its own share to refill it, said in whole seconds
    assert refused.retry_after >= 1 and "address" in refused.message
    with b.weigh("b"):  # another address still has its own
        clock.spend(0.1)
    clock.now += refused.retry_after
    with b.weigh("a"):
        clock.spend(0.01)


def test_the_worker_share_holds_whatever_the_number_of_addresses():
    clock = Clock()
    b = budget(clock, share=0.25, client_share=10, burst=2.0)
    start, spent = clock.now, 0.0
    for n in range(1000):  # a new address each time, a weighing of 0.3 s each, a second apart
        try:
            with b.weigh(f"10.0.{n // 250}.{n % 250}"):
                clock.spend(0.3)
                spent += 0.3
        except TooMuchWeighing as exc:
            assert "server" in exc.message and exc.retry_after >= 1
        clock.now += 1.0
    # over the run, no more than the burst and a quarter of a core (and one weighing over the line)
    assert spent <= 2.0 + 0.25 * (clock.now - start) + 0.3


def test_one_weighing_at_a_time_per_worker_the_next_refused_at_once():
    clock = Clock()
    b = budget(clock)
    inside, release, refused = threading.Event(), threading.Event(), []

    def first():
        with b.weigh("a"):
            inside.set()
            release.wait(30)

    t = threading.Thread(target=first)
    t.start()
    assert inside.wait(30)
    with pytest.raises(TooMuchWeighing) as exc:
        with b.weigh("b"):
            refused.append("ran")
    assert exc.value.retry_after == 1 and refused == []
    release.set()
    t.join(30)
    with b.weigh("b"):  # the place is free again
        pass
    # a failing weighing frees its place too, and is charged for what it spent
    with pytest.raises(ValueError):
        with b.weigh("c"):
            clock.spend(0.5)
            raise ValueError("the solver said no")
    assert b.busy == 0 and b.clients.get("c").level == pytest.approx(1.5)


def test_past_the_budget_play_to_win_is_a_429_and_the_points_are_still_answered(tmp_path, advice_tables):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'w.sqlite'}",
                      "TO_WIN_BURST": 0.001, "TO_WIN_CLIENT_SHARE": 0.001})
    client = app.test_client()
    sheet = POSITIONS[0][2]
    body = {"variant": "generala", "sheet": sheet, "dice": [5, 5, 5, 2, 1], "roll": 2, "opponents": [{"sheet": FULL}]}
    first = client.post("/api/v1/advice", json=body)
    assert first.status_code == 200 and "to_win" in first.get_json()
    r = client.post("/api/v1/advice", json=body)
    assert r.status_code == 429 and r.content_type == "application/problem+json"
    problem = r.get_json()
    assert problem["type"].endswith(":play-to-win-limit") and int(r.headers["Retry-After"]) >= 1
    plain = client.post("/api/v1/advice", json={k: v for k, v in body.items() if k != "opponents"})
    assert plain.status_code == 200 and plain.get_json()["best"] == first.get_json()["best"]
