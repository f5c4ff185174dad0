"""The package as built: the OpenMP switch of setup.py, the licence metadata (SPDX string and
LICENSE file, in the checkout and in the sdist, which both hold pyproject.toml)."""

import os
import pathlib
import sys

import pytest

import fastgo
from fastgo import playout

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_openmp_build_flag_matches_how_it_was_built():
    """setup.py builds with OpenMP unless FASTGO_OPENMP=0 (run the tests with the same
    setting); a single-threaded build runs every threads= on one core with the same results."""
    assert playout.OPENMP == (os.environ.get("FASTGO_OPENMP", "1") not in ("", "0"))
    if not playout.OPENMP:
        assert playout.default_threads() == 1
    one = fastgo.simulate(64, 7, seed=5, threads=1)
    two = fastgo.simulate(64, 7, seed=5, threads=2)
    assert (one.scores == two.scores).all() and (one.lengths == two.lengths).all()


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="not run from a source tree")
def test_licence_is_an_spdx_string_with_its_file():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib")
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")
