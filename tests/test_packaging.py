"""The package as built: the OpenMP switch of setup.py, the licence metadata (SPDX string and
LICENSE file, in the checkout and in the sdist, which both hold pyproject.toml), the files the
sdist ships, the type stubs of the compiled modules (shipped, true to the runtime modules, and
giving a typed user precise types)."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import fastgo
from fastgo import playout, records, sgf
from fastgo.batch import BoardBatch, StepResult
from fastgo.board import Board, Chain, Score
from fastgo.count import CountStats, LegalFractionEstimate
from fastgo.playout import Playouts
from fastgo.rules import Rules
from fastgo.search import SearchResult
from fastgo.simulation import Simulation, Tally
from require_extras import importorskip, installed

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


# -- type stubs ------------------------------------------------------------------------------------

#: the compiled modules: each has a stub (src/fastgo/<name>.pyi) beside py.typed
COMPILED = ("board", "count", "gametree", "batch", "playout", "search")


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists() or not (ROOT / "src" / "fastgo").is_dir(),
                    reason="not run from a source tree")
def test_the_sdist_and_the_wheels_ship_a_stub_of_every_compiled_module(tmp_path, monkeypatch):
    """Every .pyx has its .pyi, and with py.typed they are in the sdist (SOURCES.txt of
    setuptools' egg_info: the list `python -m build --sdist` packs) and in the wheels (build_py's
    package data, what a wheel's build copies)."""
    from setuptools.dist import Distribution
    assert sorted(p.stem for p in (ROOT / "src" / "fastgo").glob("*.pyx")) == sorted(COMPILED)
    wanted = {f"src/fastgo/{m}.pyi" for m in COMPILED} | {"src/fastgo/py.typed"}
    assert all((ROOT / f).is_file() for f in wanted)
    monkeypatch.chdir(ROOT)
    dist = Distribution()
    dist.script_name = "setup.py"
    dist.parse_config_files()                   # pyproject.toml's packages and package-data
    egg_info = dist.get_command_obj("egg_info")
    egg_info.egg_base = str(tmp_path)
    egg_info.ensure_finalized()
    egg_info.run()
    sdist = set((tmp_path / "fastgo.egg-info" / "SOURCES.txt").read_text().split())
    assert sorted(wanted - sdist) == []
    build_py = dist.get_command_obj("build_py")
    build_py.ensure_finalized()
    wheel = {f"{src}/{name}".replace(os.sep, "/") for _, src, _, names in build_py.data_files
             for name in names}
    assert sorted(wanted - wheel) == []


def _mypy_env():
    # the installed fastgo and its stubs, nothing from a MYPYPATH of the caller's
    return {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "MYPY_CACHE_DIR")}


def test_stubtest_finds_the_stubs_true_to_the_compiled_modules(tmp_path):
    """mypy's stubtest imports each compiled module and compares it with its stub: every public
    name, the signatures it can read (parameters, keyword-only markers, defaults), classes,
    properties, constants. Run outside the checkout, on the installed package. What it cannot
    see through is in tests/data/stubtest_allowlist.txt, each entry with why."""
    importorskip("mypy.stubtest", "test")
    allowlist = pathlib.Path(__file__).resolve().parent / "data" / "stubtest_allowlist.txt"
    # (--ignore-unused-allowlist: the disjoint-base entries are used by newer mypy versions only)
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--allowlist", str(allowlist),
                          "--ignore-unused-allowlist", *(f"fastgo.{m}" for m in COMPILED)],
                         cwd=tmp_path, env=_mypy_env(), capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]


def test_mypy_checks_the_installed_package_without_an_error(tmp_path):
    """``mypy -p fastgo`` (what a user's ``mypy`` does when it follows fastgo's py.typed): no
    error in fastgo's own files, so the stubs hold every name the package's modules import from
    the compiled ones (player.py's from playout, the envs' from batch: errors before), and the
    optional dependencies without type hints (pettingzoo, tqdm, cairosvg) are said so in place.
    Run outside the checkout, on the installed package."""
    importorskip("mypy", "test")
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"),
                          "-p", "fastgo"], cwd=tmp_path, env=_mypy_env(), capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0 and "Success" in run.stdout, run.stdout[-6000:] + run.stderr[-2000:]


#: A typed user's script: what each expression is for mypy (assert_type: exactly that type) and
#: at runtime (a numpy scalar type: an array of that dtype; else an instance of that class).
TYPED_SETUP = """\
import tempfile
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

import fastgo

from fastgo.batch import BoardBatch, StepResult, random_actions
from fastgo.board import Board, Chain, Score
from fastgo.count import (CountStats, LegalFractionEstimate, count_legal_positions,
                          count_legal_positions_stats, estimate_legal_fraction,
                          legal_position_mask)
from fastgo.gametree import count_games, perft
from fastgo.playout import Playouts, playouts, simulate
from fastgo.search import Search, SearchResult
from fastgo import features, records, sgf, symmetry
from fastgo.rules import Rules
from fastgo.simulation import Simulation, Tally, play_chunk

if TYPE_CHECKING:
    from fastgo.board import Move       # (a type alias of the stub only)

board = Board(5, komi=0.5)
board.play("C3")
corner: "Move" = (0, 0)
board.play(corner)
batch = BoardBatch(4, 5, max_moves=50, autoreset="same-step")
batch.threads = None
step = batch.step(random_actions(batch.legal_mask(), seed=1))
buffer: npt.NDArray[np.uint8] = np.zeros((4, 18, 5, 5), dtype=np.uint8)
runs = playouts(board, 16, seed=2, threads=1, ownership=True, record=[0, 3])
search = Search(board, threads=1, seed=4, ownership=True)
found = search.search(visits=64)
stats = count_legal_positions_stats(2, 2)
estimate = estimate_legal_fraction(3, 3, 100, seed=5)
record = sgf.board_to_sgf(board, PB="a")
# numpy integers where numpy code makes them (moves, seeds, counts, sizes, threads, indices):
# the stubs take what has __index__, as the runtime does
np_board = Board(np.int64(5), komi=0.5)
np_mask = np_board.legal_mask()
np_board.play(np.argmax(np_mask))
np_board.play((np.int64(2), np.int32(2)))
np_board.undo(np.int64(1))
np_batch = BoardBatch(np.int64(4), np.int64(5), max_moves=np.int64(50), threads=np.int64(1))
np_step = np_batch.step(random_actions(np_batch.legal_mask(), seed=np.uint64(5),
                                       threads=np.int32(1)))
np_search = Search(np_board, seed=np.uint64(3), threads=np.int64(1), expand_after=np.int64(3))
np_found = np_search.search(visits=np.int64(32))
np_runs = playouts(np_board, np.int64(8), seed=np.uint64(2), threads=np.int64(1),
                   record=[np.int64(1)])
# the pure-Python modules: annotated (py.typed covers them too)
rules = Rules.preset("japanese").replace(komi=6.5)
planes = features.encode(np_board, "agz17")
spec = Simulation.new(np.int64(40), np.int64(5), seed=np.uint64(7), chunk=np.int64(20),
                      records=True)
tally, games, seconds = play_chunk(spec, 0, 20, threads=np.int64(1))
with tempfile.TemporaryDirectory() as run_dir:
    run = records.RunDirectory(run_dir, spec)
    spec, done = run.prepare(lambda: 20)
    for start, stop in spec.chunks():
        t, g, took = play_chunk(spec, start, stop, threads=1)
        run.record(records.write_shard(run_dir, spec, t, g))
    run.save(force=True, complete=True)
    run.release()
    recs = records.read(run_dir)
    last_game = recs[np.int64(-1)]
    some_games = recs[np.int64(0):np.int64(3)]
"""

#: With Gymnasium installed (the gym extra): the environments, with numpy integers.
TYPED_SETUP_GYM = """\
from fastgo.envs import GoEnv, GoVectorEnv, register_envs

register_envs()
venv = GoVectorEnv(np.int64(2), size=np.int64(5), max_moves=np.int64(30), threads=np.int64(1))
obs, info = venv.reset(seed=1)
v_step = venv.step(np.argmax(obs["action_mask"], axis=1))
env = GoEnv(np.int64(5), max_moves=np.int64(30))
first_obs, _ = env.reset(seed=2)
e_step = env.step(np.argmax(first_obs["action_mask"]))
"""

TYPED_EXPRESSIONS = [
    # Board
    ("board.score()", "Score", Score),
    ("board.score().margin", "float", float),
    ("board.score().ownership", "npt.NDArray[np.int8]", np.int8),
    ("board.stones()", "npt.NDArray[np.int8]", np.int8),
    ("board.legal_mask()", "npt.NDArray[np.bool_]", np.bool_),
    ("board.chain('C3')", "Chain", Chain),
    ("board.start_position()", "npt.NDArray[np.int8]", np.int8),
    ("board.first_player", "int", int),
    ("board.copy()", "Board", Board),
    # BoardBatch
    ("step", "StepResult", StepResult),
    ("step.terminated", "npt.NDArray[np.bool_]", np.bool_),
    ("step.truncated", "npt.NDArray[np.bool_]", np.bool_),
    ("step.winners", "npt.NDArray[np.int8]", np.int8),
    ("step.reset", "npt.NDArray[np.bool_]", np.bool_),
    ("batch.legal_mask()", "npt.NDArray[np.bool_]", np.bool_),
    ("batch.encode('agz17')", "npt.NDArray[np.float32]", np.float32),
    ("batch.encode('lz18', out=buffer)", "npt.NDArray[np.uint8]", np.uint8),
    ("batch.scores()", "npt.NDArray[np.float64]", np.float64),
    ("batch.winners()", "npt.NDArray[np.int8]", np.int8),
    ("batch.to_move", "npt.NDArray[np.int8]", np.int8),
    ("batch.move_numbers", "npt.NDArray[np.int64]", np.int64),
    ("batch.hashes", "npt.NDArray[np.uint64]", np.uint64),
    ("batch.stones()", "npt.NDArray[np.int8]", np.int8),
    ("batch.threads", "int", int),
    ("batch.max_moves", "Optional[int]", int),
    ("batch.board(1)", "Board", Board),
    ("batch.copy()", "BoardBatch", BoardBatch),
    # playouts
    ("runs", "Playouts", Playouts),
    ("runs.scores", "npt.NDArray[np.float64]", np.float64),
    ("runs.winners", "npt.NDArray[np.int8]", np.int8),
    ("runs.lengths", "npt.NDArray[np.int32]", np.int32),
    ("runs.capped", "npt.NDArray[np.bool_]", np.bool_),
    ("runs.ownership", "Optional[npt.NDArray[np.float64]]", np.float64),
    ("runs.moves[1]", "npt.NDArray[np.int32]", np.int32),
    ("runs.recorded", "List[int]", list),
    ("runs.black_wins", "float", float),
    ("simulate(8, 5, seed=3, threads=1)", "Playouts", Playouts),
    # Search
    ("found", "SearchResult", SearchResult),
    ("found.best_move", "Optional[int]", int),
    ("found.moves", "npt.NDArray[np.int32]", np.int32),
    ("found.visits", "npt.NDArray[np.int64]", np.int64),
    ("found.values", "npt.NDArray[np.float64]", np.float64),
    ("found.priors", "npt.NDArray[np.float32]", np.float32),
    ("found.pv", "List[int]", list),
    ("found.winrate", "float", float),
    ("found.ownership", "Optional[npt.NDArray[np.float64]]", np.float64),
    ("found.policy(0.5)", "npt.NDArray[np.float64]", np.float64),
    ("found.playouts", "int", int),
    ("search.variation('C3')", "List[int]", list),
    ("search.board", "Board", Board),
    # counting
    ("count_legal_positions(2, 2)", "int", int),
    ("stats", "CountStats", CountStats),
    ("stats.count", "int", int),
    ("legal_position_mask(np.zeros((3, 2, 2), dtype=np.int8))", "npt.NDArray[np.bool_]", np.bool_),
    ("estimate", "LegalFractionEstimate", LegalFractionEstimate),
    ("estimate.fraction", "float", float),
    ("perft(board, 1)", "int", int),
    ("count_games(1)", "int", int),
    # records (pure Python: annotated, since py.typed covers them too)
    ("record", "str", str),
    ("sgf.read_game(record)", "sgf.Game", sgf.Game),
    ("sgf.read_games(record + record)", "list[sgf.Game]", list),
    ("sgf.read_game(record).board()", "Board", Board),
    ("sgf.score(board)", "Score", Score),
    ("sgf.to_sgf(sgf.read_game(record))", "str", str),
    ("sgf.games_to_sgf([[0, 1]], 5)", "str", str),
    # numpy integers
    ("np_board.history", "List[int]", list),
    ("np_board.is_legal(np.argmax(np_mask))", "bool", bool),
    ("np_step", "StepResult", StepResult),
    ("np_found", "SearchResult", SearchResult),
    ("np_runs", "Playouts", Playouts),
    ("np_batch.board(np.int64(1))", "Board", Board),
    ("count_legal_positions(np.int64(2), np.int64(2), threads=np.int64(1))", "int", int),
    ("estimate_legal_fraction(3, 3, np.int64(50), seed=np.uint64(9))", "LegalFractionEstimate",
     LegalFractionEstimate),
    ("perft(np_board, np.int64(1))", "int", int),
    # coordinates
    ("fastgo.point_to_vertex(np.argmax(np_mask), np.int64(5))", "str", str),
    ("fastgo.vertex_to_point('C3', np.int64(5))", "int", int),
    ("fastgo.point_to_rowcol(np.int64(7), 5)", "Tuple[int, int]", tuple),
    ("fastgo.rowcol_to_point(np.int64(1), np.int64(2), 5)", "int", int),
    ("fastgo.star_points(np.int64(9), 9, np.int64(4))", "List[int]", list),
    # rules
    ("rules", "Rules", Rules),
    ("rules.komi", "float", float),
    ("rules.preset_name", "Optional[str]", str),
    # features, symmetry
    ("planes", "npt.NDArray[np.float32]", np.float32),
    ("features.encode(np_batch, 'lz18', out=buffer)", "npt.NDArray[np.uint8]", np.uint8),
    ("symmetry.transform_move(np.argmax(np_mask), np.int64(5), 5, 5)", "int", int),
    ("symmetry.inverse(np.int64(5))", "int", int),
    ("symmetry.transform_planes(planes, 3)", "npt.NDArray[np.float32]", np.float32),
    ("symmetry.transform_policy(np_mask, np.int64(6), 5, 5)", "npt.NDArray[np.bool_]", np.bool_),
    ("symmetry.transform_board(np_board, np.int64(1))", "Board", Board),
    # (np.expand_dims: numpy 2.0's stubs, the last for Python 3.9, type planes[None] as Any)
    ("symmetry.random_transform(np.expand_dims(planes, 0), rng=np.int64(7))[0]",
     "npt.NDArray[np.int64]", np.int64),
    # simulation, records
    ("spec", "Simulation", Simulation),
    ("spec.replace(seed=np.uint64(8))", "Simulation", Simulation),
    ("spec.played_board()", "Board", Board),
    ("spec.chunks()", "List[Tuple[int, int]]", list),
    ("spec.games", "int", int),
    ("tally", "Tally", Tally),
    ("tally.wins", "npt.NDArray[np.int64]", np.int64),
    ("tally.summary()", "Dict[str, Any]", dict),
    ("recs", "records.Records", records.Records),
    ("len(recs)", "int", int),
    ("last_game", "records.Game", records.Game),
    ("last_game.board()", "Board", Board),
    ("some_games", "List[records.Game]", list),
]

TYPED_EXPRESSIONS_GYM = [
    ("obs", "Dict[str, npt.NDArray[Any]]", dict),
    ("v_step[1]", "npt.NDArray[np.float64]", np.float64),
    ("v_step[2]", "npt.NDArray[np.bool_]", np.bool_),
    ("e_step[1]", "float", float),
    ("e_step[2]", "bool", bool),
    ("env.render()", "Union[str, npt.NDArray[np.uint8], None]", type(None)),
]


def _typed_script():
    """(setup, expressions): the environments' part too where Gymnasium is installed."""
    if installed("gymnasium", "gym"):
        return TYPED_SETUP + TYPED_SETUP_GYM, TYPED_EXPRESSIONS + TYPED_EXPRESSIONS_GYM
    return TYPED_SETUP, TYPED_EXPRESSIONS


def test_a_typed_users_script_passes_mypy_strict_with_precise_types(tmp_path):
    """``mypy --strict`` on a script that uses Board, BoardBatch.step's StepResult, playouts'
    Playouts, Search.search's SearchResult and the counts: no error (so every assert_type holds:
    the arrays' dtypes, Optional where None comes back), and no revealed type is Any. Run
    outside the checkout, on the installed package (a developer's editable install must be one
    mypy can follow: a path in a .pth file, as pip's editable install of this src layout is)."""
    importorskip("mypy", "test")
    setup, expressions = _typed_script()
    lines = setup.splitlines()
    lines += ["", "if TYPE_CHECKING:", "    from typing_extensions import assert_type, reveal_type", ""]
    revealed_at = {}
    for expr, annotation, _ in expressions:
        lines.append(f"    reveal_type({expr})")
        revealed_at[len(lines)] = expr
        lines.append(f"    assert_type({expr}, {annotation})")
    script = tmp_path / "typed_user.py"
    script.write_text("\n".join(lines) + "\n")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                          "--cache-dir", str(tmp_path / "mypy_cache"), script.name],
                         cwd=tmp_path, env=_mypy_env(), capture_output=True, text=True,
                         timeout=600)
    out = run.stdout + run.stderr
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert errors == [] and run.returncode == 0, out[-6000:]
    revealed = {}
    for line in out.splitlines():
        m = re.match(r'.*typed_user\.py:(\d+): note: Revealed type is "(.*)"$', line)
        if m:
            revealed[revealed_at[int(m.group(1))]] = m.group(2)
    assert sorted(revealed) == sorted(revealed_at.values()), out[-6000:]
    anys = {expr: t for expr, t in revealed.items() if t == "Any" or t.startswith("Any")}
    assert anys == {}


def test_the_typed_users_script_gets_at_runtime_what_the_stubs_say():
    """The same expressions evaluated: the dtypes and classes the stubs promise (stubtest
    checks names and signatures, not what a call returns)."""
    setup, expressions = _typed_script()
    namespace = {}
    exec(setup, namespace)
    wrong = {}
    for expr, annotation, expected in expressions:
        value = eval(expr, namespace)
        if isinstance(expected, type) and issubclass(expected, np.generic):
            ok = isinstance(value, np.ndarray) and value.dtype == expected
        else:
            ok = isinstance(value, expected)
        if not ok:
            wrong[expr] = (annotation, type(value).__name__, getattr(value, "dtype", None))
    assert wrong == {}
