"""anotador/store/guard.py on its own: what it cuts, when the circuit opens and closes (no database needed)."""

from __future__ import annotations

import socket
import time

import pytest

from anotador.store.guard import DatabaseDown, Guard


class Probe:
    """A database that answers, or does not, or takes its time."""

    def __init__(self) -> None:
        self.answers, self.delay, self.calls, self.cut = True, 0.0, 0, 0

    def __call__(self) -> None:
        self.calls += 1
        time.sleep(self.delay)
        if self.cut:
            self.cut -= 1
            raise OSError("server closed the connection unexpectedly")
        if not self.answers:
            raise OSError("no route to the database")


@pytest.fixture
def pair():
    ours, theirs = socket.socketpair()
    yield ours, theirs
    ours.close()
    theirs.close()


def cut_off(sock: socket.socket) -> bool:
    """Whether the peer of ``sock`` was shut down (reads the end of the stream at once)."""
    sock.settimeout(0.5)
    try:
        return sock.recv(10) == b""
    except socket.timeout:
        return False


def test_a_database_that_answers_slowly_is_left_to_its_own_timeouts_until_the_budget(pair):
    ours, theirs = pair
    probe = Probe()
    # The probe answers at once; a loaded machine may take a while to run its thread. The rounds are this
    # test's own (the watchdog's first round an hour away): its look() and the watchdog's cannot race.
    guard = Guard(probe, budget=0.6, suspect=0.1, probe_timeout=3, every=3600)
    guard.take(1, ours.fileno())
    time.sleep(0.2)
    guard.look()  # held past "suspect": the database is asked, and answers
    assert probe.calls == 1 and not guard.down and not cut_off(theirs)
    time.sleep(0.5)
    guard.look()  # past the budget: cut, whatever the database says
    assert cut_off(theirs) and not guard.down
    guard.give_back(1)


@pytest.mark.parametrize("failure", ["refuses", "never answers"])
def test_an_unreachable_database_opens_the_circuit_and_a_probe_that_answers_closes_it(pair, failure):
    ours, theirs = pair
    probe = Probe()
    guard = Guard(probe, budget=60, suspect=0.1, probe_timeout=0.3, every=3600)  # rounds by hand, as above
    guard.take(1, ours.fileno())
    time.sleep(0.15)
    if failure == "refuses":
        probe.answers = False
    else:
        probe.delay = 60.0  # far longer than probe_timeout: as good as no answer
    t = time.monotonic()
    guard.look()
    # it gave up at its timeout, not when the probe would have answered (the bound a net for a loaded machine)
    assert time.monotonic() - t < 30 and guard.down and cut_off(theirs)  # every connection in use is cut
    with pytest.raises(DatabaseDown):
        guard.take(2, ours.fileno())  # no request takes a connection meanwhile
    guard.give_back(1)
    probe.answers, probe.delay = True, 0.0
    guard.look()  # under a second since the last probe: not asked again yet
    assert guard.down
    guard.last_probe -= 1
    guard.look()
    assert not guard.down
    guard.take(2, ours.fileno())
    guard.give_back(2)


def test_nothing_held_nothing_asked(pair):
    probe = Probe()
    guard = Guard(probe, budget=1, suspect=0.1)
    guard.take(1, pair[0].fileno())
    guard.give_back(1)
    time.sleep(0.2)
    guard.look()
    assert probe.calls == 0 and not guard.down


def test_a_slow_request_costs_one_probe_a_second(pair):
    """A connection held for seconds on a database that answers: asked once a second, not every round."""
    probe = Probe()
    guard = Guard(probe, budget=60, suspect=0.05, every=0.01)
    guard.take(1, pair[0].fileno())
    time.sleep(0.1)
    started = time.monotonic()
    for _ in range(20):
        guard.look()
        time.sleep(0.02)
    # ~0.5 s of rounds (every 0.01 s and 20 by hand): one probe, or one more a second a loaded machine took
    assert 1 <= probe.calls <= 1 + int(time.monotonic() - started)
    assert not guard.down and not cut_off(pair[1])
    guard.give_back(1)


def test_a_probe_cut_by_a_restart_does_not_open_the_circuit(pair):
    """A database restart kills every connection, the probe's own among them if it was being made: the
    probe tries once more, finds the database back, and no request gets a 503 for the restart."""
    probe = Probe()
    guard = Guard(probe, budget=60, suspect=0.1, probe_timeout=3, every=3600)
    guard.take(1, pair[0].fileno())
    time.sleep(0.15)
    probe.cut = 1
    guard.look()
    assert probe.calls == 2 and not guard.down and not cut_off(pair[1])
    probe.cut, guard.last_probe = 2, guard.last_probe - 1  # cut twice: as good as gone
    guard.look()
    assert probe.calls == 4 and guard.down
    guard.give_back(1)
