"""The package as built: the OpenMP switch of setup.py, the licence metadata (SPDX string and
LICENSE file, in the checkout and in the sdist, which both hold pyproject.toml), the files the
sdist ships."""

import os
import pathlib
import shutil
import subprocess
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


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="not run from a git checkout")
def test_the_sdist_ships_every_file_of_the_test_suite(monkeypatch):
    """MANIFEST.in, read by setuptools' own FileList (what `python -m build` uses for the
    sdist), takes every file git tracks under tests/: the suite, its data of every kind, the
    reference and the referee, so the suite runs (and skips nothing) from the unpacked sdist."""
    from setuptools.command.egg_info import FileList
    tracked = subprocess.run(["git", "ls-files", "tests"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    monkeypatch.chdir(ROOT)
    files = FileList()
    files.findall()
    for line in (ROOT / "MANIFEST.in").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            files.process_template_line(line)
    shipped = {f.replace(os.sep, "/") for f in files.files}
    assert "tests/data/legal_counts_5bit.json" in tracked
    assert sorted(set(tracked) - shipped) == []
