"""The optional extras the tests use (Gymnasium, PettingZoo, pygame for go_v5, Dask, Ray,
matplotlib): a test that needs one is skipped when it is missing, unless
FASTGO_REQUIRE_EXTRAS=1 (CI sets it: it installs every extra) makes that a failure, as
FASTGO_REQUIRE_GNUGO does for GNU Go and FASTGO_REQUIRE_DRAW for cairo."""

import os

import pytest

REQUIRE = os.environ.get("FASTGO_REQUIRE_EXTRAS") == "1"


def importorskip(module, extra):
    """``pytest.importorskip(module)``; with FASTGO_REQUIRE_EXTRAS=1 a missing `module` fails
    the test (or the module's collection, when called at module level) instead. `extra` is the
    fastgo extra that installs it, for the message."""
    reason = f'{module} is not installed (pip install "fastgo[{extra}]")'
    try:
        return pytest.importorskip(module, reason=reason)
    except pytest.skip.Exception as e:
        if REQUIRE:
            pytest.fail(f"FASTGO_REQUIRE_EXTRAS=1 but {module} cannot be imported: {e} "
                        f'(pip install "fastgo[{extra}]")', pytrace=False)
        raise


def installed(module, extra):
    """Whether `module` can be imported, for tests that check both cases (with the extra, and
    the message without it); with FASTGO_REQUIRE_EXTRAS=1 a missing one fails the test."""
    try:
        __import__(module)
    except ImportError as e:
        if REQUIRE:
            pytest.fail(f"FASTGO_REQUIRE_EXTRAS=1 but {module} cannot be imported: {e} "
                        f'(pip install "fastgo[{extra}]")', pytrace=False)
        return False
    return True
