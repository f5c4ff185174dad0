"""The exceptions fastgo raises of its own."""


class IllegalMoveError(ValueError):
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


class RecordsError(ValueError):
    """An output directory that cannot take a simulation's shards: not writable, holding another
    run's shards, or a resume whose spec differs from the one the directory was started with."""


class ClusterError(ConnectionError):
    """A cluster address that cannot be reached or understood (``fastgo.cluster``)."""
