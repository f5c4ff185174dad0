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


def random_game(board, rng, max_turns=None):
    """Play a random game on `board` (changed in place): the playout kernel's policy (uniform
    over the allowed moves, own eyes kept) under the board's rules, replayed through
    ``Board.play``, until two passes or `max_turns` turns. Returns the turns played."""
    import fastgo
    game = fastgo.playouts(board, 1, seed=int(rng.integers(2**63)), threads=1, record=1,
                           max_moves=max_turns)
    moves = game.moves[0].tolist()
    for move in moves:
        board.play(move)
    return len(moves)
