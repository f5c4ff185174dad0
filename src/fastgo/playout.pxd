# cython: language_level=3
"""The playout kernel: random games to the end, in C, without the GIL.

Policy (the one ``fastgo.playouts`` documents): at each turn the mover picks uniformly at random
among the points it is allowed to play, and passes when there is none. A point is allowed when
- the rules allow the play (suicide option, the ko rule of the playout: simple ko, or positional or
  situational superko judged exactly by hash against the whole game, set-up included), and
- it is not a one-point eye of the mover: every on-board orthogonal neighbour is the mover's stone
  and the point is not a false eye (fewer than two diagonal points hold opponent stones, and none
  when the point is on the edge or in a corner), and
- it changes the colouring: a one-stone suicide never does. Positional superko forbids it; under
  situational superko or simple ko with suicide allowed it is legal, a pass in all but name, and
  a random player that could always make it would never have to pass: games would not end.
The game ends after two consecutive passes, or when the cap of turns is hit (counted apart).

Uniformity: draw a point uniformly from the candidates not yet tried, test it, and on refusal swap
it out of the candidate range; the first allowed draw is uniform over the allowed points whatever
the order of the list. Draws are exact (Lemire's multiply-shift with rejection) from PCG32.

Other Cython code can cimport this file: fill a ``PlayoutSpec`` (``spec_from_board`` reads one
from a ``Board``), make a ``PlayoutScratch`` per thread, and call ``playout_run`` without the GIL.
"""

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memset

from fastgo.core cimport *
from fastgo.board cimport Board


# ---------------------------------------------------------------------------------------------
# Random numbers: PCG32 (O'Neill's XSH-RR output of a 64-bit LCG), one 64-bit state per playout.

cdef inline uint32_t rng_next(uint64_t* state) noexcept nogil:
    cdef uint64_t old = state[0]
    cdef uint32_t x, rot
    state[0] = old * <uint64_t>6364136223846793005ULL + <uint64_t>1442695040888963407ULL
    x = <uint32_t>(((old >> 18) ^ old) >> 27)
    rot = <uint32_t>(old >> 59)
    return (x >> rot) | (x << ((32 - rot) & 31))

cdef inline uint32_t rng_below(uint64_t* state, uint32_t n) noexcept nogil:
    """Exactly uniform in [0, n) for 1 <= n < 2**32 (Lemire's multiply-shift, rejecting the
    2**32 mod n low products that would favour some results)."""
    cdef uint64_t m = <uint64_t>rng_next(state) * <uint64_t>n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if low < n:
        threshold = <uint32_t>((<uint64_t>1 << 32) % n)
        while low < threshold:
            m = <uint64_t>rng_next(state) * <uint64_t>n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)

cdef inline uint64_t playout_seed(uint64_t seed, int64_t index) noexcept nogil:
    """The RNG state of playout `index` of a run seeded with `seed`: results depend on the seed
    and the index alone, never on which thread runs the playout."""
    return mix64(mix64(seed) ^ mix64(<uint64_t>index + <uint64_t>0x6A09E667F3BCC909ULL))


# ---------------------------------------------------------------------------------------------
# What a playout continues from, and the per-thread memory it plays in.

cdef enum PlayoutPolicy:
    POLICY_UNIFORM = 0          # the uniform policy of the module docstring
    POLICY_HEAVY = 1            # captures and atari escapes next to the last play first (heavy_pick)

ctypedef struct PlayoutSpec:
    int to_move                 # BLACK or WHITE
    int passes                  # consecutive passes ending the game so far (2: it is over)
    int ko_rule                 # KO_POSITIONAL, KO_SITUATIONAL or KO_SIMPLE
    bint suicide                # multi-stone suicide allowed
    bint territory              # territory scoring (else area)
    bint has_ko_hash            # simple ko: a turn was played, so ko_hash means something
    uint64_t ko_hash            # simple ko: the colouring before the opponent's last turn
    const HashSet* seen         # superko: the keys of the game so far (NULL when none)
    double komi
    int max_moves               # the cap of turns in one playout
    int policy                  # POLICY_UNIFORM or POLICY_HEAVY
    int last_play               # padded point of the last turn's play; 0 after a pass or none
    int prisoners[3]            # prisoners[c]: stones colour c took before this part of the game
                                # (a game resumed after two passes); territory scoring counts them

ctypedef struct PlayoutScratch:
    BoardState* board           # room for a board of any size (board_bytes(MAX_SIDE, MAX_SIDE))
    int max_moves               # the longest playout this scratch can remember: a playout stops
                                # at the smaller of this and the spec's max_moves
    # the playout's own superko memory: open addressing; a slot is in use when its stamp is
    # `stamp`, so a new playout clears the table by bumping the stamp
    uint64_t* keys
    uint32_t* stamps
    int64_t mask
    uint32_t stamp

ctypedef struct PlayoutOutcome:
    double score                # black minus white, komi included
    int winner                  # BLACK, WHITE or EMPTY (a tie)
    int turns                   # turns played, passes included
    bint capped                 # stopped by max_moves rather than by two passes


cdef inline int64_t scratch_slots(int max_moves) noexcept nogil:
    """The slots of the superko table of a scratch for playouts of at most max_moves turns: a
    power of two, the load at most 1/4 (short probe runs)."""
    cdef int64_t cap = 64
    while cap < 4 * (<int64_t>max_moves + 2):
        cap *= 2
    return cap

cdef inline PlayoutScratch* scratch_new(int max_moves) noexcept nogil:
    """A scratch for playouts of at most max_moves turns, or NULL when out of memory."""
    cdef PlayoutScratch* s = <PlayoutScratch*>malloc(sizeof(PlayoutScratch))
    cdef int64_t cap = scratch_slots(max_moves)
    if s == NULL:
        return NULL
    s.board = <BoardState*>malloc(board_bytes(MAX_SIDE, MAX_SIDE))
    s.keys = <uint64_t*>malloc(<size_t>cap * sizeof(uint64_t))
    s.stamps = <uint32_t*>calloc(<size_t>cap, sizeof(uint32_t))
    s.mask = cap - 1
    s.stamp = 0
    s.max_moves = max_moves
    if s.keys == NULL or s.stamps == NULL or s.board == NULL:
        free(s.board)
        free(s.keys)
        free(s.stamps)
        free(s)
        return NULL
    return s

cdef inline void scratch_free(PlayoutScratch* s) noexcept nogil:
    if s != NULL:
        free(s.board)
        free(s.keys)
        free(s.stamps)
        free(s)

cdef inline void local_clear(PlayoutScratch* s) noexcept nogil:
    s.stamp += 1
    if s.stamp == 0:                # wrapped after 2**32 playouts: really clear once
        memset(s.stamps, 0, <size_t>(s.mask + 1) * sizeof(uint32_t))
        s.stamp = 1

cdef inline bint local_contains(const PlayoutScratch* s, uint64_t key) noexcept nogil:
    cdef int64_t i = <int64_t>(key & <uint64_t>s.mask)      # keys are Zobrist XORs: already mixed
    while s.stamps[i] == s.stamp:
        if s.keys[i] == key:
            return True
        i = (i + 1) & s.mask
    return False

cdef inline void local_add(PlayoutScratch* s, uint64_t key) noexcept nogil:
    cdef int64_t i = <int64_t>(key & <uint64_t>s.mask)
    while s.stamps[i] == s.stamp:
        if s.keys[i] == key:
            return
        i = (i + 1) & s.mask
    s.keys[i] = key
    s.stamps[i] = s.stamp


# ---------------------------------------------------------------------------------------------
# The policy.

cdef inline bint is_own_eye(const BoardState* b, int p, int colour) noexcept nogil:
    """p (empty) is a one-point eye of `colour`: every on-board orthogonal neighbour is its stone,
    and fewer than two diagonal points hold opponent stones (none on the edge or in a corner)."""
    cdef int s = b.stride, opp = 3 - colour, bad, n = nbr_masks(b)[p]
    cdef const Cell* c = &b.cell[0]
    if n & (NBR_EMPTY | nbr_of(opp)):
        return False            # an empty or an opponent's neighbour
    # p - s - 1 is -1 for the point A1 (the padding shares one wall column between rows): read
    # the wall at 0 instead, without a branch
    bad = ((c[(p - s - 1) * (p - s - 1 > 0)].color == opp) + (c[p - s + 1].color == opp) +
           (c[p + s - 1].color == opp) + (c[p + s + 1].color == opp))
    # on the edge (a wall beside it) no opponent diagonal is allowed, elsewhere one; no branches
    # (some side holds no stone of the mover exactly on the edge)
    return bad < 2 - (((n >> (4 * colour)) & 0xF) != 0xF)

cdef inline bint simple_ko_allows(const BoardState* b, int p, int colour, bint suicide,
                                  bint has_ko, uint64_t ko_hash) noexcept nogil:
    """playout_allows under simple ko for a point p with no empty neighbour that is not the
    mover's eye: the rules' judgement (core.judge_quick), less the suicide of a lone stone (no
    own chain next to p), which would leave the colouring as it was. Next to an own stone the
    play is no retake (a retake refills a point walled in by the opponent: see
    core.plays_freely_by) and, with suicide allowed, is legal (a suicide there clears an own
    chain too: the colouring changes). Walled in by the opponent it is allowed exactly when it
    captures and is no retake."""
    cdef int taken = 0, captured
    if nbr_masks(b)[p] & nbr_of(colour):
        return suicide or judge_quick(b, p, colour, KO_SIMPLE, False, NULL, NULL, NULL, 0) == LEGAL
    if not is_sole_liberty(b, p):       # (beside only opponent stones and walls: no capture)
        return False
    captured = captured_by(b, p, colour, &taken)
    return not is_ko_retake(b, p, colour, captured, taken, &ko_hash if has_ko else NULL)

cdef inline bint playout_allows(PlayoutScratch* s, const PlayoutSpec* g, int p, int colour,
                                bint has_ko, uint64_t ko_hash) noexcept nogil:
    """The policy's test of the empty point p for `colour` (see the module docstring)."""
    cdef BoardState* b = s.board
    cdef uint64_t h, key
    cdef int captured, opp = 3 - colour
    cdef bint atari = False, lives
    if has_empty_neighbour(b, p):     # so not an eye, not suicide, not a simple-ko retake
        if g.ko_rule == KO_SIMPLE or not b.cell[p].ever:
            return True         # (never used: a colouring that cannot have occurred before)
        if nbr_masks(b)[p] & nbr_of(opp):         # a capture needs an opponent's neighbour
            judge_neighbours(b, p, colour, &atari, &lives)      # (without a branch)
        if not atari:           # no capture, no suicide: the hash needs no preview
            h = b.hash ^ zkey(colour, p)
        else:
            board_preview(b, p, colour, &h, &captured)
    else:
        if is_own_eye(b, p, colour):
            return False
        if g.ko_rule == KO_SIMPLE:
            return simple_ko_allows(b, p, colour, g.suicide, has_ko, ko_hash)
        # walled in: the stone stays by a capture or by an own chain keeping another liberty,
        # else it is a suicide (judged without a branch: random positions make every test here
        # unpredictable)
        judge_neighbours(b, p, colour, &atari, &lives)
        if atari or lives:
            if not b.cell[p].ever:
                return True     # (a colouring that cannot have occurred before)
            if atari:
                board_preview(b, p, colour, &h, &captured)
            else:
                h = b.hash ^ zkey(colour, p)
        elif g.suicide and (nbr_masks(b)[p] & nbr_of(colour)):
            board_preview(b, p, colour, &h, &captured)      # own stones cleared too
        else:
            return False        # suicide forbidden, or a lone stone's: the colouring unchanged
    key = superko_key(g.ko_rule, h, 3 - colour)
    if local_contains(s, key):
        return False
    return g.seen == NULL or not hashset_contains(g.seen, key)

cdef inline int playout_pick(PlayoutScratch* s, const PlayoutSpec* g, uint64_t* rng, int colour,
                             bint has_ko, uint64_t ko_hash) noexcept nogil:
    """A uniformly drawn allowed point (padded index), or 0 to pass. Reorders the empty list."""
    cdef BoardState* b = s.board
    cdef int16_t* empty = empty_list(b)
    cdef int k = b.num_empty, i, p, q
    if k == 0:
        return 0
    i = <int>rng_below(rng, <uint32_t>k)
    p = empty[i]
    # the common case, a point that plays freely (core.plays_freely_by: the policy allows it
    # too), taken before the loop: what the loop's other cases need is then prepared only when
    # it runs (GCC hoisted it to the loop's entry, then in every turn: benchmarks/RESULTS.md,
    # fifteenth session)
    if plays_freely_by(nbr_masks(b)[p], b.cell[p].ever, g.ko_rule):
        return p
    while True:
        if playout_allows(s, g, p, colour, has_ko, ko_hash):
            return p
        k -= 1                  # p is refused this turn: swap it past the candidates
        q = empty[k]
        empty[i] = <int16_t>q
        b.cell[q].next = <int16_t>i
        empty[k] = <int16_t>p
        b.cell[p].next = <int16_t>k
        if k == 0:
            return 0
        i = <int>rng_below(rng, <uint32_t>k)
        p = empty[i]


cdef inline int empty_neighbours(const BoardState* b, int p) noexcept nogil:
    """How many of p's orthogonal neighbours are empty."""
    return pop4(nbr_masks(b)[p] & NBR_EMPTY)

cdef inline int add_atari_rescue(const BoardState* b, int h, int* cand, int n) noexcept nogil:
    """Append to cand the moves that save the mover's chain headed by h, in atari: its liberty
    when that point has at least two empty neighbours, and the last liberty of every opponent
    chain in atari touching it. Returns the new length (cand holds room for 64)."""
    cdef int st = h, s = b.stride, k, q, lib
    cdef int nb[4]
    lib = chain_sole_liberty(b, h)
    if lib and n < 64 and empty_neighbours(b, lib) >= 2:
        cand[n] = lib
        n += 1
    while True:
        neighbours(nb, st, s)
        for k in range(4):
            q = b.cell[nb[k]].head
            if q and b.cell[q].color == 3 - b.cell[h].color and n < 64:
                lib = chain_sole_liberty(b, q)          # (core: 0 unless in atari)
                cand[n] = lib
                n += lib != 0
        st = b.cell[st].next
        if st == h:
            break
    return n

cdef inline bint self_atari(const BoardState* b, int p, int colour) noexcept nogil:
    """A play of `colour` at the empty point p joins one of its chains and leaves the joined
    chain with exactly one liberty, capturing nothing (a throw-in of a single stone is not
    counted: it can be a good move)."""
    cdef int s = b.stride, k, j, q, h, st, e, libs = 0, lib0 = 0, joined = 0
    cdef int nb[4]
    cdef int ne[4]
    neighbours(nb, p, s)
    for k in range(4):
        q = nb[k]
        if b.cell[q].color == EMPTY:
            if libs == 0 or q != lib0:
                libs += 1
                lib0 = q
                if libs >= 2:
                    return False
        elif b.cell[q].color == 3 - colour:
            if chain_sole_liberty(b, b.cell[q].head):
                return False            # captures
        elif b.cell[q].color == colour:
            joined += 1
    if joined == 0:
        return False
    for k in range(4):                  # the liberties of the chains it joins, p excluded
        h = b.cell[nb[k]].head
        if b.cell[nb[k]].color != colour:
            continue
        st = h
        while True:
            ne[0] = st - s
            ne[1] = st - 1
            ne[2] = st + 1
            ne[3] = st + s
            for j in range(4):
                e = ne[j]
                if b.cell[e].color == EMPTY and e != p and (libs == 0 or e != lib0):
                    libs += 1
                    lib0 = e
                    if libs >= 2:
                        return False
            st = b.cell[st].next
            if st == h:
                break
    return libs == 1

cdef inline int heavy_pick(PlayoutScratch* s, const PlayoutSpec* g, uint64_t* rng, int colour,
                           bint has_ko, uint64_t ko_hash, int last) noexcept nogil:
    """POLICY_HEAVY: look first at the opponent's last play `last` (padded point; 0 after a
    pass or at the start). The urgent moves are the last liberty of its chain when that chain is
    in atari (capture it), and for each of the mover's chains next to it that is in atari, the
    rescues of add_atari_rescue. When some urgent move is allowed (playout_allows: the same
    rules and eye test as the uniform policy), play one drawn uniformly among the allowed ones
    (a move listed twice counts twice); otherwise draw as the uniform policy, and draw once
    more when that draw is a self_atari."""
    cdef BoardState* b = s.board
    cdef int cand[64]
    cdef int n = 0, k, h, i, p
    cdef int heads[4]
    if last:
        h = b.cell[last].head
        if h:
            cand[0] = chain_sole_liberty(b, h)     # its capture, when it is in atari
            n = cand[0] != 0
        k = distinct_neighbour_chains(b, last, heads)
        for i in range(k):
            if b.cell[heads[i]].color == colour and chain_sole_liberty(b, heads[i]):
                n = add_atari_rescue(b, heads[i], cand, n)
        while n > 0:
            i = <int>rng_below(rng, <uint32_t>n)
            p = cand[i]
            if p and playout_allows(s, g, p, colour, has_ko, ko_hash):
                return p
            n -= 1
            cand[i] = cand[n]
    p = playout_pick(s, g, rng, colour, has_ko, ko_hash)
    if p and self_atari(b, p, colour):
        p = playout_pick(s, g, rng, colour, has_ko, ko_hash)     # redrawn once
    return p


# ---------------------------------------------------------------------------------------------
# A playout.

cdef inline void playout_continue(PlayoutScratch* s, const PlayoutSpec* g, uint64_t rng,
                                  PlayoutOutcome* out, int16_t* moves, int8_t* owner, int colour,
                                  int passes, bint has_ko, uint64_t ko_hash, int last) noexcept nogil:
    """playout_run from the position already in s.board, with s's own superko memory as it
    stands (a tree search fills both while it replays its moves): `colour` to move, `passes`
    consecutive passes so far, the simple-ko hash (has_ko, ko_hash) and the last play (padded
    point, 0 for none or a pass) as the game so far leaves them; the rest from g."""
    cdef BoardState* b = s.board
    cdef int turns = 0, p
    cdef int cap = g.max_moves if g.max_moves < s.max_moves else s.max_moves
    cdef int npoints = b.width * b.height
    cdef bint superko = g.ko_rule != KO_SIMPLE, heavy = g.policy == POLICY_HEAVY
    cdef uint64_t before
    cdef uint32_t s_inv = stride_inverse(b.stride)
    cdef int owned[3]
    cdef int territory[3]
    cdef double black, white
    while passes < 2 and turns < cap:
        before = b.hash
        if heavy:
            p = heavy_pick(s, g, &rng, colour, has_ko, ko_hash, last)
        else:
            p = playout_pick(s, g, &rng, colour, has_ko, ko_hash)
        if p:
            board_play(b, NULL, p, colour)
            passes = 0
        else:
            passes += 1
        last = p
        if moves != NULL:
            moves[turns] = <int16_t>(public_of(p, b.stride, s_inv) if p else npoints)
        # a pass repeats the colouring: only a situational key can be new
        if superko and (p or g.ko_rule == KO_SITUATIONAL):
            local_add(s, superko_key(g.ko_rule, b.hash, 3 - colour))
        has_ko = True
        ko_hash = before
        colour = 3 - colour
        turns += 1
    out.turns = turns
    out.capped = passes < 2
    if owner == NULL:                   # the copy is not used again
        board_area_counts(b, owned, territory)
    else:
        board_ownership(&b.cell[0].color, sizeof(Cell), b, owner, owned, territory)
    out.score = score_points(b, owned, territory, g.territory, g.komi, g.prisoners[WHITE],
                             g.prisoners[BLACK], &black, &white)
    out.winner = winner_of(out.score)


cdef inline void playout_run(PlayoutScratch* s, const BoardState* start, const PlayoutSpec* g,
                             uint64_t rng, PlayoutOutcome* out, int16_t* moves,
                             int8_t* owner) noexcept nogil:
    """Play the policy from `start` (copied into s) until two passes or the cap (the smaller of
    g.max_moves and s.max_moves) turns, then score the final position under g's scoring with komi.

    moves (or NULL): room for that cap of public points (pass = width * height), the turns played.
    owner (or NULL): width * height entries, the final owner of each point (0, BLACK, WHITE).
    `start` and g.seen are only read; nothing may change them while playouts run."""
    board_copy(s.board, start)
    local_clear(s)
    playout_continue(s, g, rng, out, moves, owner, g.to_move, g.passes, g.has_ko_hash, g.ko_hash,
                     g.last_play)


# ---------------------------------------------------------------------------------------------
# Reading a spec from a Board (needs the GIL).

cdef inline int spec_from_board(PlayoutSpec* g, Board board, int ko_rule, int max_moves,
                                HashSet* own) except -1:
    """Fill g to continue `board`'s game under `ko_rule` (the board's own rule or another one).

    Under a superko rule the keys of the game's colourings are gathered into `own`, which the
    caller frees with hashset_free after the playouts; otherwise own is left empty (`own` NULL:
    none are gathered and g.seen is NULL, for a caller that keeps the keys itself). Passes
    ending the game so far count towards the two that end a playout. g keeps no pointer into
    `board`: the board may change while playouts run on g."""
    cdef int64_t i
    cdef int to_move
    if own != NULL:
        own.keys = NULL
        own.counts = NULL
        own.cap = 0
        own.used = 0
    g.to_move = board._colour_to_move()
    g.passes = <int>board._trailing_passes(2)
    g.ko_rule = ko_rule
    g.suicide = board.suicide
    g.territory = board.territory
    g.has_ko_hash = board.nturns >= 1
    g.ko_hash = board.turns[board.nturns - 1].hash if board.nturns >= 1 else 0
    g.komi = board.komi
    g.max_moves = max_moves
    g.policy = POLICY_UNIFORM
    g.last_play = 0
    if board.nturns >= 1 and board.turns[board.nturns].move != board.npoints:
        g.last_play = to_pad(board.st, board.turns[board.nturns].move)
    g.prisoners[EMPTY] = 0
    g.prisoners[BLACK] = 0
    g.prisoners[WHITE] = 0
    g.seen = NULL
    if ko_rule == KO_SIMPLE or own == NULL:
        return 0
    if hashset_init(own, 16) or hashset_reserve(own, board.nturns + 1):
        hashset_free(own)
        raise MemoryError()
    for i in range(board.nturns + 1):
        to_move = board.first if i % 2 == 0 else 3 - board.first
        hashset_add(own, superko_key(ko_rule, board.turns[i].hash, to_move))
    g.seen = own
    return 0
