"""The README's examples run and print what it says they print."""

import doctest
import os
import pathlib
import subprocess
import sys

import fastgo
from require_extras import REQUIRE as REQUIRE_EXTRAS

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


def test_module_docstrings():
    """Every module's docstring examples, found by walking the package (fastgo.batch's were not
    run: a list named the modules)."""
    import importlib
    import pkgutil
    names = [m.name for m in pkgutil.walk_packages(fastgo.__path__, "fastgo.")
             if m.name != "fastgo.__main__"]            # (importing it runs the CLI)
    assert {"fastgo.batch", "fastgo.sgf", "fastgo.envs.gym_envs"} <= set(names)
    attempted = 0
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:             # an extra's module (Gymnasium's, PettingZoo's) without it
            if REQUIRE_EXTRAS or not name.startswith("fastgo.envs."):
                raise
            continue
        result = doctest.testmod(module)
        assert result.failed == 0, name
        attempted += result.attempted
    result = doctest.testmod(fastgo)
    assert result.failed == 0 and attempted + result.attempted >= 27


#: The README's fastgo.X references to pure-Python submodules, as a user types them.
README_REFERENCES = """
import sys, fastgo
OPTIONAL = ("dask", "distributed", "ray", "gymnasium", "pettingzoo", "matplotlib", "cairosvg",
            "tqdm")
SUBMODULES = ("cluster", "draw", "envs", "features", "gtp", "player", "plot", "records", "sgf")
print(sorted(m for m in SUBMODULES if "fastgo." + m in sys.modules))  # import fastgo: none
assert set(SUBMODULES) <= set(dir(fastgo))
b = fastgo.Board(5)
b.play("C3")
assert fastgo.draw.svg(b, marks=["C3"]).startswith("<svg")
assert fastgo.sgf.read_game(fastgo.sgf.board_to_sgf(b)).board() == b
assert fastgo.features.encode(b, "agz17").shape == (17, 5, 5)
for f in (fastgo.sgf.iter_games, fastgo.records.read, fastgo.draw.png, fastgo.gtp.Engine,
          fastgo.cluster.run, fastgo.plot.save, fastgo.player.Player):
    assert callable(f)
print(sorted(m for m in OPTIONAL if m in sys.modules))      # nor their optional dependencies
try:
    fastgo.no_such_module
except AttributeError as e:
    print(e)
"""


def test_readme_references_to_submodules_work_after_import_fastgo_alone():
    """The README names fastgo.draw.svg, fastgo.sgf.iter_games, fastgo.records.read,
    fastgo.features.encode...: they work after `import fastgo`, which loads those submodules
    only when used, and no optional dependency (Gymnasium, dask, ray, matplotlib...)."""
    src = str(pathlib.Path(fastgo.__file__).resolve().parent.parent)
    out = subprocess.run([sys.executable, "-c", README_REFERENCES], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": src})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n") == [
        "[]", "[]", "module 'fastgo' has no attribute 'no_such_module'", ""]
    # fastgo.envs too, which imports Gymnasium (when installed) to register its ids
    code = "import fastgo; print(fastgo.envs.GoEnv.__name__, fastgo.envs.GoAECEnv.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": src})
    if REQUIRE_EXTRAS or "needed here: pip install" not in out.stderr:   # Gymnasium missing
        assert (out.returncode, out.stdout) == (0, "GoEnv GoAECEnv\n"), out.stderr


def test_every_public_class_and_function_has_a_signature_inspect_reads():
    """``inspect.signature`` (and so ``help``, IDEs, Jupyter) reads every public callable's
    parameters: the C classes carry theirs in their docstrings' first lines (CPython's format),
    which ``inspect`` could not read before (it raised "no signature found for builtin type").
    The parameters are the stubs' (stubtest compares the defaults); here, that they are there and
    that a call by them works."""
    import inspect
    missing = []
    for name in fastgo.__all__:
        obj = getattr(fastgo, name)
        if not callable(obj) or (isinstance(obj, type) and issubclass(obj, Exception)
                                 and "__init__" not in vars(obj)):
            continue                    # (an exception class with the built-in constructor)
        try:
            inspect.signature(obj)
        except ValueError as e:
            missing.append(f"{name}: {e}")
    assert missing == []
    sig = inspect.signature(fastgo.Board)
    assert list(sig.parameters)[:2] == ["width", "height"]
    b = fastgo.Board(**{k: p.default for k, p in sig.parameters.items()})
    assert (b.width, b.height) == (9, 9)
    sig = inspect.signature(fastgo.Search)
    assert sig.parameters["board"].default is inspect.Parameter.empty
    assert sig.parameters["memory"].default == 256 * 2**20
    assert inspect.signature(fastgo.BoardBatch).parameters["autoreset"].default == "next-step"
    assert fastgo.Board.__doc__.lstrip().startswith("A game of Go")   # (the signature taken out)
