"""Fixtures shared by the test modules."""

import pytest

import fastgo.playout


@pytest.fixture
def many_cores(monkeypatch):
    """As if the process had 1024 cores: jobs start the threads asked for rather than at most
    the cores (fastgo.playout.CORES), so that work split among more threads than this machine
    has (uneven blocks, threads that take each other's work) is tested on any machine."""
    monkeypatch.setattr(fastgo.playout, "CORES", 1024)
