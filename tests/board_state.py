"""What a test compares to say "this board did not change": everything observable."""

import numpy as np


def snapshot(b):
    """A hashable summary of all observable state of a fastgo.Board."""
    return (
        b.width,
        b.height,
        np.asarray(b.stones()).tobytes(),
        b.hash,
        tuple(b.history),
        b.to_move,
        tuple(b.captures),
        b.is_over,
        np.asarray(b.legal_mask()).tobytes(),
        str(b),
    )
