"""Rule options and the named presets built from them.

The default is the Tromp-Taylor logical rules: positional superko, suicide allowed, area scoring.
"""

import math
from dataclasses import dataclass, replace
from typing import Any, Dict, Optional

import numpy as np

KO_RULES = ("positional", "situational", "simple")
SCORINGS = ("area", "territory")


def _choice(value: Any, choices: tuple[str, ...], what: str) -> str:
    """The one of `choices` that `value` is, as that exact str: a str subclass's own __eq__
    (one that said True to everything passed `in`, and the board then failed on a KeyError)
    and __str__ are not asked."""
    if isinstance(value, str):
        text = str.__str__(value)
        for c in choices:
            if c == text:
                return c
    raise ValueError(f"unknown {what} {value!r}; expected one of {choices}")


@dataclass(frozen=True)
class Rules:
    """A combination of rule options.

    ko
        ``"positional"``: a play may not recreate any colouring of the board that occurred before
        in the game (the start and the current one included). ``"situational"``: a play may not
        recreate a (colouring, player to move) pair that occurred before; every turn, passes
        included, and the start add one. ``"simple"``: a play may not recreate the colouring that
        preceded the opponent's last turn (the one that followed the mover's own previous turn,
        or the start when that turn was the first); after a pass that is the current colouring.
    suicide
        ``True``: a play that leaves its own chain without liberties clears it (rule 7).
        ``False``: such a play is illegal; a play that captures is never suicide.
    scoring
        ``"area"``: stones plus empty points that reach only your colour. ``"territory"``: empty
        points that reach only your colour, plus prisoners, plus dead stones the caller marks.
    komi
        Added to White's score.
    """

    ko: str = "positional"
    suicide: bool = True
    scoring: str = "area"
    komi: float = 7.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "ko", _choice(self.ko, KO_RULES, "ko rule"))
        if isinstance(self.suicide, np.bool_):
            object.__setattr__(self, "suicide", bool(self.suicide))
        if not isinstance(self.suicide, bool):
            raise TypeError(f"suicide must be a bool, not {type(self.suicide).__module__}."
                            f"{type(self.suicide).__qualname__}")
        object.__setattr__(self, "scoring", _choice(self.scoring, SCORINGS, "scoring"))
        if isinstance(self.komi, (bool, np.bool_)):
            raise TypeError("komi must be a number, not bool")
        if not isinstance(self.komi, (int, float)):
            try:
                komi = float(self.komi.__float__())  # numpy floats and the like
            except AttributeError:
                raise TypeError(f"komi must be a number, not {type(self.komi).__name__}") from None
        else:
            try:
                komi = float(self.komi)
            except OverflowError:
                raise ValueError(f"komi {self.komi} is too large") from None
        if not math.isfinite(komi):
            raise ValueError(f"komi must be finite, not {komi}")
        object.__setattr__(self, "komi", komi)

    # (no `from __future__ import annotations` here: the dataclass's fields keep their types as
    # classes, not strings)
    def replace(self, *, ko: Optional[str] = None, suicide: Optional[bool] = None,
                scoring: Optional[str] = None, komi: Optional[float] = None) -> "Rules":
        """A copy with some options changed; ``None`` values are ignored (no change: this
        Rules itself, which is immutable)."""
        if (ko is None and suicide is None and scoring is None and komi is None
                and self._valid()):
            return self     # (dataclasses.replace took 3.4 of a new Board's 5.4 µs)
        if type(self) is Rules:     # the constructor validates; dataclasses.replace is 2.5x slower
            return Rules(ko=self.ko if ko is None else ko,
                         suicide=self.suicide if suicide is None else suicide,
                         scoring=self.scoring if scoring is None else scoring,
                         komi=self.komi if komi is None else komi)
        changes: Dict[str, Any] = {"ko": ko, "suicide": suicide, "scoring": scoring, "komi": komi}
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def _valid(self) -> bool:
        """What __post_init__ made of the fields still holds (a frozen dataclass can be
        altered through object.__setattr__, or unpickled without __post_init__)."""
        return (type(self.ko) is str and self.ko in KO_RULES and type(self.suicide) is bool
                and type(self.scoring) is str and self.scoring in SCORINGS
                and type(self.komi) is float and math.isfinite(self.komi))

    @property
    def preset_name(self) -> "str | None":
        """The preset these rules are: the one with the same ko, suicide and scoring options and
        komi, else the first with the same options (komi aside: ``ing`` and ``new-zealand``
        differ only there), else None."""
        same = [k for k, v in PRESETS.items()
                if (v.ko, v.suicide, v.scoring) == (self.ko, self.suicide, self.scoring)]
        return next((k for k in same if PRESETS[k].komi == self.komi), same[0] if same else None)

    @staticmethod
    def preset(name: str) -> "Rules":
        """The named preset (case and spaces/underscores ignored); see ``PRESETS``."""
        key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
        key = _ALIASES.get(key, key)
        try:
            return PRESETS[key]
        except KeyError:
            raise ValueError(f"unknown rules preset {name!r}; expected one of {sorted(PRESETS)}") from None


#: The rule sets of the seeds, as far as these options express them. What each does not model
#: is listed in the README's preset table.
PRESETS = {
    "tromp-taylor": Rules("positional", True, "area", 7.5),
    "chinese": Rules("positional", False, "area", 7.5),
    "japanese": Rules("simple", False, "territory", 6.5),
    "aga": Rules("situational", False, "area", 7.5),
    "new-zealand": Rules("situational", True, "area", 7.0),
    "ing": Rules("situational", True, "area", 8.0),
}

_ALIASES = {"tt": "tromp-taylor", "nz": "new-zealand",
            "newzealand": "new-zealand", "korean": "japanese"}
