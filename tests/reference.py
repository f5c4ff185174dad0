"""A slow, obviously-correct pure-Python reference for fastgo, written straight from the rule text.

The Tromp-Taylor logical rules (docs: /work/shared/seeds/tromp-taylor-logical-rules.txt):

3. A point P, not colored C, is said to *reach* C if there is a path of (vertically or
   horizontally) adjacent points of P's color from P to a point of color C.
4. *Clearing* a color is the process of emptying all points of that color that don't reach empty.
7. A move consists of coloring an empty point one's own color; then clearing the opponent color,
   and then clearing one's own color.
9. A player's score is the number of points of her color, plus the number of empty points that
   reach only her color.

Everything here is recomputed from scratch on plain lists: no chains, no liberty counts, no
incremental hashing. The one concession to speed is that a play is judged once per state and the
answer is remembered until the state changes (``_cache``); the answer itself is computed from
nothing but the current grid and the list of earlier colourings.

Ko options and the other rule options follow the "Rules" section of README.md:

- positional: a play may not produce a colouring that occurred before in the game (the setup and
  the current colouring included) -> "superko".
- situational: a play may not produce a (colouring, player to move) situation that occurred before;
  the setup and every turn (passes included) add one situation -> "superko".
- simple: a play may not recreate the colouring that preceded the opponent's last turn (the one
  after the mover's own previous turn, or the setup) -> "ko"; nothing is banned before any turn.
- suicide=False: a play that would clear any of the mover's own stones -> "suicide".
- after two consecutive passes the game is over and nothing is legal -> "game over".
- precedence: game over, occupied, suicide, ko/superko.

Points are ``row * width + col`` with row 0 at the bottom; pass is ``width * height``.
"""

import itertools

EMPTY, BLACK, WHITE = 0, 1, 2

# ---------------------------------------------------------------------------------------------
# Zobrist hash, exactly as README.md documents it ("Data model").

M = 2 ** 64
SEED = 0x66617374676F2121
GOLDEN = 0x9E3779B97F4A7C15


def mix(z):
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 % M
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB % M
    return z ^ (z >> 31)


def key_padded(colour, padded):
    """key(colour, padded index) = mix((SEED + (4 * padded + colour) * GOLDEN) mod 2**64)."""
    return mix((SEED + (4 * padded + colour) * GOLDEN) % M)


def zobrist_key(colour, point, width):
    """Key of a stone of `colour` on the public `point` of a board `width` columns wide."""
    row, col = divmod(point, width)
    return key_padded(colour, (row + 1) * (width + 1) + col)


#: XORed into the situational hash when White is to move: key(3, 0), padded index 0.
WHITE_TO_MOVE_KEY = key_padded(3, 0)


def grid_hash(grid, width):
    """XOR of the keys of all stones of a flat grid (empty grid -> 0)."""
    h = 0
    for p, c in enumerate(grid):
        if c != EMPTY:
            h ^= zobrist_key(c, p, width)
    return h


# ---------------------------------------------------------------------------------------------
# Rules 3 and 4: reach and clearing, on a flat grid (index row * width + col).

def neighbours(p, width, height):
    row, col = divmod(p, width)
    out = []
    if row > 0:
        out.append(p - width)
    if col > 0:
        out.append(p - 1)
    if col < width - 1:
        out.append(p + 1)
    if row < height - 1:
        out.append(p + width)
    return out


def region(grid, width, height, p):
    """The points reachable from p by a path of adjacent points of p's colour (p included)."""
    colour = grid[p]
    seen = {p}
    todo = [p]
    while todo:
        q = todo.pop()
        for r in neighbours(q, width, height):
            if r not in seen and grid[r] == colour:
                seen.add(r)
                todo.append(r)
    return seen


def reaches(grid, width, height, p, colour):
    """Rule 3: does point p (not of `colour`) reach `colour`?"""
    assert grid[p] != colour
    for q in region(grid, width, height, p):
        for r in neighbours(q, width, height):
            if grid[r] == colour:
                return True
    return False


def clear(grid, width, height, colour):
    """Rule 4: a new grid with every point of `colour` that does not reach empty emptied, and the
    number of points emptied. Which points go is decided on the grid before any is emptied."""
    doomed = [p for p in range(width * height)
              if grid[p] == colour and not reaches(grid, width, height, p, EMPTY)]
    new = list(grid)
    for p in doomed:
        new[p] = EMPTY
    return new, len(doomed)


def is_legal_position(grid, width, height):
    """Every stone reaches empty (comment 4: strings without liberties cannot exist)."""
    grid = list(grid)
    assert len(grid) == width * height
    return all(grid[p] == EMPTY or reaches(grid, width, height, p, EMPTY)
               for p in range(width * height))


def count_legal_positions(width, height):
    """Brute force over all 3**(width*height) colourings (1x1 -> 1, 2x2 -> 57, 3x3 -> 12675)."""
    return sum(1 for grid in itertools.product((EMPTY, BLACK, WHITE), repeat=width * height)
               if is_legal_position(grid, width, height))


def make_legal(grid, width, height):
    """Empty every stone that does not reach empty (both colours at once): a legal position."""
    grid = list(grid)
    doomed = [p for p in range(width * height)
              if grid[p] != EMPTY and not reaches(grid, width, height, p, EMPTY)]
    for p in doomed:
        grid[p] = EMPTY
    assert is_legal_position(grid, width, height)
    return grid


def apply_play(grid, width, height, p, colour):
    """Rule 7 on an empty point: (new grid, opponent stones cleared, own stones cleared)."""
    assert grid[p] == EMPTY
    new = list(grid)
    new[p] = colour
    new, captured = clear(new, width, height, 3 - colour)
    new, own = clear(new, width, height, colour)
    return new, captured, own


def ownership(grid, width, height):
    """Rule 9 per point: a stone's colour, or the only colour an empty point reaches, else 0."""
    out = []
    for p, c in enumerate(grid):
        if c != EMPTY:
            out.append(c)
            continue
        b = reaches(grid, width, height, p, BLACK)
        w = reaches(grid, width, height, p, WHITE)
        out.append(BLACK if b and not w else WHITE if w and not b else EMPTY)
    return out


# ---------------------------------------------------------------------------------------------
# A game: the list of colourings / situations since the setup.

class RefGame:
    """A game under the given options, kept as the full list of colourings.

    ``grids[i]`` is the colouring after i turns (``grids[0]`` is the setup), ``movers[i]`` the
    player to move then; ``history`` the turns played (pass = width * height).
    """

    def __init__(self, width, height, ko="positional", suicide=True, komi=7.5, setup=None,
                 to_move=BLACK):
        assert ko in ("positional", "situational", "simple")
        assert to_move in (BLACK, WHITE)
        self.width = width
        self.height = height
        self.num_points = width * height
        self.pass_move = width * height
        self.ko = ko
        self.suicide = suicide
        self.komi = komi
        grid = [EMPTY] * self.num_points if setup is None else list(setup)
        assert len(grid) == self.num_points and all(c in (EMPTY, BLACK, WHITE) for c in grid)
        if not is_legal_position(grid, width, height):
            raise ValueError("setup has a chain without liberties")
        self.grids = [tuple(grid)]
        self.movers = [to_move]
        self.history = []
        self.capture_log = [(0, 0)]     # captures after each turn
        self._cache = {}

    # -- state ---------------------------------------------------------------------------------
    @property
    def grid(self):
        return list(self.grids[-1])

    @property
    def to_move(self):
        return self.movers[-1]

    @property
    def captures(self):
        """(stones captured by Black, stones captured by White); own suicides count for the other."""
        return self.capture_log[-1]

    @property
    def is_over(self):
        h = self.history
        return len(h) >= 2 and h[-1] == self.pass_move and h[-2] == self.pass_move

    def hash(self):
        return grid_hash(self.grids[-1], self.width)

    def situation_hash(self):
        return self.hash() ^ (WHITE_TO_MOVE_KEY if self.to_move == WHITE else 0)

    def copy(self):
        other = RefGame.__new__(RefGame)
        other.__dict__.update(self.__dict__)
        other.grids = list(self.grids)
        other.movers = list(self.movers)
        other.history = list(self.history)
        other.capture_log = list(self.capture_log)
        other._cache = {}
        return other

    # -- legality ------------------------------------------------------------------------------
    def _judge(self, move):
        """(reason or None, resulting grid or None, (captured, own cleared))."""
        assert 0 <= move <= self.pass_move
        if self.is_over:
            return "game over", None, None
        if move == self.pass_move:
            return None, self.grids[-1], (0, 0)
        grid = self.grids[-1]
        if grid[move] != EMPTY:
            return "occupied", None, None
        me = self.to_move
        new, captured, own = apply_play(grid, self.width, self.height, move, me)
        new = tuple(new)
        if own and not self.suicide:
            return "suicide", None, None
        if self.ko == "positional":
            if new in self.grids:
                return "superko", None, None
        elif self.ko == "situational":
            if (new, 3 - me) in zip(self.grids, self.movers):
                return "superko", None, None
        else:
            # the colouring before the opponent's last turn: grids[n - 1] (the setup when n = 1)
            n = len(self.history)
            if n >= 1 and new == self.grids[n - 1]:
                return "ko", None, None
        return None, new, (captured, own)

    def judge(self, move):
        if move not in self._cache:
            self._cache[move] = self._judge(move)
        return self._cache[move]

    def why_illegal(self, move):
        return self.judge(move)[0]

    def is_legal(self, move):
        return self.why_illegal(move) is None

    def legal_moves(self):
        """Legal points in increasing order, then pass while the game is not over."""
        return [m for m in range(self.pass_move + 1) if self.is_legal(m)]

    def legal_mask(self):
        return [self.is_legal(m) for m in range(self.pass_move + 1)]

    # -- playing -------------------------------------------------------------------------------
    def play(self, move):
        reason, new, counts = self.judge(move)
        if reason is not None:
            raise ValueError(f"illegal move {move}: {reason}")
        captured, own = counts
        me = self.to_move
        by_black, by_white = self.captures
        if me == BLACK:
            by_black, by_white = by_black + captured, by_white + own
        else:
            by_black, by_white = by_black + own, by_white + captured
        self.grids.append(tuple(new))
        self.movers.append(3 - me)
        self.history.append(move)
        self.capture_log.append((by_black, by_white))
        self._cache = {}

    def undo(self, n=1):
        if n < 0 or n > len(self.history):
            raise ValueError("cannot undo that many turns")
        # rebuild from the setup by replaying: the simplest thing that is right
        moves = self.history[:len(self.history) - n]
        fresh = RefGame(self.width, self.height, self.ko, self.suicide, self.komi,
                        setup=self.grids[0], to_move=self.movers[0])
        for m in moves:
            fresh.play(m)
        self.__dict__.update(fresh.__dict__)

    # -- reading -------------------------------------------------------------------------------
    def chain(self, point):
        """(colour, sorted stones, sorted liberties) of the chain at a stone."""
        grid = self.grids[-1]
        if grid[point] == EMPTY:
            raise ValueError("empty point")
        stones = region(grid, self.width, self.height, point)
        libs = {r for q in stones for r in neighbours(q, self.width, self.height) if grid[r] == EMPTY}
        return grid[point], tuple(sorted(stones)), tuple(sorted(libs))

    def _after_dead(self, dead):
        """The grid with the chains at `dead` emptied, and the dead stones of each colour."""
        grid = list(self.grids[-1])
        doomed = set()
        for p in dead:
            if grid[p] != EMPTY:
                doomed |= region(grid, self.width, self.height, p)
        dead_count = {BLACK: 0, WHITE: 0}
        for p in doomed:
            dead_count[grid[p]] += 1
            grid[p] = EMPTY
        return grid, dead_count

    def area_score(self, dead=()):
        """(black, white without komi, ownership): stones + empty points reaching only one colour."""
        grid, _ = self._after_dead(dead)
        own = ownership(grid, self.width, self.height)
        return own.count(BLACK), own.count(WHITE), own

    def territory_score(self, dead=()):
        """(black, white without komi, ownership): empty points reaching only one colour, plus
        captures, plus dead opponent stones. The ownership is rule 9's, as for area scoring (the
        draft gives Score one ownership map whatever the scoring): stones included."""
        grid, dead_count = self._after_dead(dead)
        own = ownership(grid, self.width, self.height)
        territory = [o if c == EMPTY else EMPTY for o, c in zip(own, grid)]
        by_black, by_white = self.captures
        black = territory.count(BLACK) + by_black + dead_count[WHITE]
        white = territory.count(WHITE) + by_white + dead_count[BLACK]
        return black, white, own
