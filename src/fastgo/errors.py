"""The exceptions fastgo raises of its own, the one line a command prints for an OSError, what
a missing optional dependency's ImportError says, and how both those exceptions and the
package's value classes with ``__slots__`` are pickled."""

import importlib

import numpy as np


def _rebuild(cls, args, state):
    e = cls.__new__(cls, *args)     # BaseException.__new__ keeps args; __init__ is not run
    e.__dict__.update(state)
    return e


class Rebuilt:
    """Pickled and copied as raised: its args (the message) and attributes, whatever its
    __init__ takes (pickle rebuilds an exception by calling the class with its args, the
    message alone, which such an __init__ refuses; a worker process's exception reaches its
    parent by pickle)."""

    def __reduce__(self):
        return _rebuild, (type(self), self.args, self.__dict__)


class Slotted:
    """Pickled and copied by the values of its slots (every class's in its MRO, and a
    subclass's ``__dict__``), as Python's default does, under every pickle protocol: 0 and 1
    refuse a class with slots that does not define ``__getstate__`` itself."""

    __slots__ = ()

    def __getstate__(self):
        slots = {}
        for cls in type(self).__mro__:
            names = cls.__dict__.get("__slots__", ())
            for name in (names,) if isinstance(names, str) else names:
                if name.startswith("__") and not name.endswith("__"):
                    name = f"_{cls.__name__.lstrip('_')}{name}"     # (a private name, mangled)
                if name not in ("__dict__", "__weakref__") and hasattr(self, name):
                    slots[name] = getattr(self, name)
        return getattr(self, "__dict__", None) or None, slots


class IllegalMoveError(Rebuilt, ValueError):
    """A well-formed move that the rules refuse.

    ``reason`` is one of ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``, ``"game over"``;
    ``move`` is the refused point (``width * height`` for a pass). The board is left unchanged.
    """

    def __init__(self, move, vertex, reason):
        self.move = move
        self.vertex = vertex
        self.reason = reason
        super().__init__(f"illegal move {vertex} (point {move}): {reason}")


class ConsistencyError(RuntimeError):
    """The incremental board state disagrees with a recomputation from scratch (a fastgo bug)."""


class IllegalActionError(Rebuilt, ValueError):
    """Actions of a ``BoardBatch.step`` that the rules refuse; no game was changed.

    ``games``, ``actions`` and ``reasons`` are parallel lists: the refused games' indices, their
    actions (points; ``width * height`` for a pass) and why (the reasons of ``IllegalMoveError``,
    ``"move cap"`` for a game truncated by the batch's cap of turns, or ``"out of range 0..N"`` for
    an action that is no point and no pass, N = ``width * height``).
    """

    def __init__(self, games, actions, reasons, one=False):
        self.games = list(games)
        self.actions = list(actions)
        self.reasons = list(reasons)
        if one:             # a single-game environment's: its one game has no index to name
            super().__init__(f"illegal action {self.actions[0]}: {self.reasons[0]}")
            return
        shown = "; ".join(f"game {g}: action {a} {r}"
                          for g, a, r in zip(self.games[:5], self.actions, self.reasons))
        more = f" (and {len(self.games) - 5} more)" if len(self.games) > 5 else ""
        super().__init__(f"illegal actions in {len(self.games)} game(s): {shown}{more}")


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type where these calls refused with ValueError before (an
    array of the wrong dtype, a symmetry that is no int): a TypeError, as every entry point
    says for a wrong type, and still the ValueError callers may catch."""


def unmasked(value, name, use="used as they are"):
    """``np.asarray(value)``, refusing a numpy masked array (ArgumentTypeError): asarray drops
    the mask, so its masked entries would be `use`d."""
    if isinstance(value, np.ma.MaskedArray):
        raise ArgumentTypeError(f"{name} must not be a masked array: np.asarray drops the mask, "
                                f"so its masked entries would be {use} (fill them first: "
                                f".filled(value))")
    return np.asarray(value)


class RecordsError(ValueError):
    """An output directory that cannot take a simulation's shards: not writable, holding another
    run's shards, or a resume whose spec differs from the one the directory was started with."""


#: the packages of each optional extra (pyproject.toml's optional-dependencies), for messages
EXTRAS = {"gym": "gymnasium", "pettingzoo": "pettingzoo", "dask": '"dask[distributed]"',
          "ray": '"ray[client]"', "plot": "matplotlib", "draw": "cairosvg", "progress": "tqdm"}


def install_hint(extra):
    """How to install an extra's packages: by name (which works whether fastgo came from an
    index or from its source tree), or as fastgo's extra."""
    return (f'pip install {EXTRAS[extra]} (fastgo\'s "{extra}" extra: pip install '
            f'"fastgo[{extra}]", or ".[{extra}]" in fastgo\'s source tree)')


def require(module, extra):
    """Import an optional dependency, or raise an ImportError that says what installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{module} is needed here: {install_hint(extra)}") from exc


def os_error_text(e):
    """An OSError as one line for a command's message: its reason and the file it concerns."""
    return f"{e.strerror or e}{f' ({e.filename})' if getattr(e, 'filename', None) else ''}"


class ClusterError(ConnectionError):
    """A cluster address that cannot be reached or understood (``fastgo.cluster``)."""
