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


def _compiler_without_openmp(tmp_path):
    """A C compiler that refuses every OpenMP flag (as clang without libomp does) and passes
    everything else to the compiler Python was built with: a POSIX shell script, or None."""
    import sysconfig
    cc = (sysconfig.get_config_var("CC") or "").split()
    if os.name != "posix" or sys.platform == "darwin" or not cc or shutil.which(cc[0]) is None:
        return None
    script = tmp_path / "cc-without-openmp"
    script.write_text('#!/bin/sh\nfor a in "$@"; do case "$a" in *openmp*|-lomp|-lgomp)\n'
                      '  echo "cc-without-openmp: unsupported option $a" >&2; exit 1;; esac; done\n'
                      f'exec {" ".join(cc)} "$@"\n')
    script.chmod(0o755)
    return script


@pytest.mark.skipif(not (ROOT / "setup.py").exists() or not (ROOT / "src" / "fastgo").is_dir(),
                    reason="not run from a source tree")
def test_a_compiler_without_openmp_stops_the_build_with_a_clear_error(tmp_path):
    """README: "without OpenMP: a clear build error, or a single-threaded build with
    FASTGO_OPENMP=0". One module (gametree, whose kernels use OpenMP) built from a copy of the
    sources with a compiler that refuses OpenMP: the build stops before compiling anything, with
    setup.py's message; with FASTGO_OPENMP=0 the same compiler builds it, with no OpenMP
    runtime among the libraries it needs."""
    cc = _compiler_without_openmp(tmp_path)
    if cc is None:
        pytest.skip("needs a POSIX C compiler named by sysconfig's CC (not macOS)")
    src = tmp_path / "fastgo"
    skip = shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__")
    shutil.copytree(ROOT / "src", src / "src", ignore=skip)
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FASTGO_", "CFLAGS", "LDFLAGS"))}
    env.update(CC=str(cc), FASTGO_ONLY="gametree")

    def build(**extra):
        return subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", "out"],
                              cwd=src, env={**env, **extra}, capture_output=True, text=True,
                              timeout=600)

    refused = build()
    assert refused.returncode != 0
    message = refused.stdout + refused.stderr
    assert "fastgo needs a C compiler with OpenMP" in message and "FASTGO_OPENMP=0" in message
    assert "unsupported option" in message          # the probe really ran the compiler
    assert not list((src / "out").rglob("gametree*"))

    serial = build(FASTGO_OPENMP="0")
    assert serial.returncode == 0, serial.stdout[-2000:] + serial.stderr[-2000:]
    [module] = (src / "out").rglob("gametree*")
    assert b"gomp" not in module.read_bytes() and b"omp_get" not in module.read_bytes()
