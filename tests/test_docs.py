"""The README's examples run and print what it says they print."""

import doctest
import pathlib

import fastgo

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_readme_examples():
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


def test_module_docstrings():
    import fastgo.board
    import fastgo.coords
    for mod in (fastgo, fastgo.board, fastgo.coords):
        result = doctest.testmod(mod)
        assert result.failed == 0
