# cython: language_level=3
"""The C-level view of ``fastgo.search``: the node pool and the search object.

A tree is an array of ``Node``s allocated once (sized by a memory budget); the children of a node
are contiguous (``first`` .. ``first + nchildren - 1``). Positions are not stored: every descent
replays the moves from the root's position into the thread's own scratch board.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from fastgo.core cimport BoardState, HashSet
from fastgo.playout cimport PlayoutSpec, PlayoutScratch
from fastgo.planes cimport HISTORY, LAST_MOVES


cdef enum:
    NOT_EXPANDED = -1       # Node.first of a leaf
    EXPANDING = -2          # Node.first while one thread builds the children
    MAX_DEPTH = 512         # a descent stops here (a leaf, never expanded)
    HOLD_LEVELS = 1         # shared tree: the AMAF samples of the children of the path's nodes
    HOLD_SIMS = 16          # at depths below HOLD_LEVELS (the root: every thread's descents
                            # share it) a worker adds up over at most this many simulations
                            # before adding them to the tree (holding depth 1 too measured no
                            # faster)


# With more than one UCT worker the nodes are shared without a lock (see fastgo.search): `first`
# is published with a release store after the children are filled, visits, pending and value
# change by atomic adds, the AMAF fields and `mix` by plain stores.
ctypedef struct Node:
    int32_t first           # pool index of the first child; NOT_EXPANDED or EXPANDING
    int16_t nchildren       # number of children (moves allowed at this node, pass included)
    int16_t move            # public point played to reach this node (pass = points); -1 at the root
    int32_t visits          # finished visits (playouts, or leaf evaluations, through this node)
    int32_t pending         # visits in flight through this node (virtual loss)
    double value            # sum of the outcomes for the player who played `move`: UCT 1 win,
                            # 1/2 tie, 0 loss; PUCT the evaluator's value in [-1, 1]
    int32_t amaf_visits     # RAVE: playouts below the parent in which the mover played `move` first
    float amaf_value        # RAVE: sum of their outcomes for the mover
    float prior             # PUCT: the evaluator's prior; UCT: the prior win rate (1/2; a
                            # pass 0.1 unless the opponent just passed)
    float mix               # UCT: the node's value term of the selection formula without
                            # in-flight visits (recomputed whenever its statistics change)


ctypedef struct Pool:
    Node* nodes
    int16_t* moves          # moves[i] == nodes[i].move: never written after the node is made,
                            # so the AMAF backup scans a node's children's moves here, off the
                            # cache lines other threads write
    int64_t cap             # nodes allocated
    int64_t used            # nodes handed out (node 0 is the root)


ctypedef struct Params:
    bint puct               # PUCT on the evaluator, else UCT on playouts
    bint rave               # UCT: mix all-moves-as-first values in
    double exploration      # UCT: c of c * sqrt(ln(N + 1) / (n + 1)); PUCT: c_puct
    double rave_equiv       # UCT: the visits at which RAVE and the mean weigh the same
    double inv_rave_equiv   # 1 / rave_equiv
    double prior_visits     # UCT: even-game visits (at 1/2) every child starts with
    int expand_after        # UCT: visits a leaf takes before it is expanded
    int tactics             # UCT: virtual AMAF samples of captures and atari escapes
    double fpu              # PUCT: the value of an unvisited child
    int virtual_loss        # visits an in-flight descent counts as a loss, per node
    bint ownership          # UCT: playouts record who owns each point at the end
    int max_moves           # the cap of turns of a playout


ctypedef struct Worker:
    PlayoutScratch* scratch # the thread's board and superko memory, replayed from the root
    int32_t path[MAX_DEPTH + 1]     # node indices root .. leaf of the descent
    int depth               # path[depth] is the leaf
    int leaf_colour         # colour to move at the leaf
    int leaf_passes         # consecutive passes at the leaf (2: the game is over there)
    bint leaf_has_ko        # simple-ko memory at the leaf (as PlayoutSpec)
    uint64_t leaf_ko_hash
    int leaf_last           # padded point of the last play at the leaf, 0 for none or a pass
    int16_t* moves          # the playout's turns (public points)
    int8_t* owner           # points: the playout's final owners
    int64_t* owner_sum      # points: sum over playouts of +1 Black / -1 White owner
    int64_t owned           # playouts summed into owner_sum
    uint8_t* first_colour   # points + 1: RAVE, the colour that played each point first
    int16_t* cand           # points + 1: moves allowed at the leaf (public points)
    HashSet seen            # superko: the root game's keys and the replayed path's (judge_play)
    uint64_t path_keys[MAX_DEPTH]   # the keys the replay added to `seen`, removed after it
    int nkeys
    int32_t* held_na[HOLD_LEVELS]   # points + 1 each: shared tree, AMAF samples held back of
    float* held_aa[HOLD_LEVELS]     # the children of node held_node[d] (their summed outcomes),
    int32_t held_node[HOLD_LEVELS]  # -1: none held,
    int held_sims[HOLD_LEVELS]      # over this many simulations
    uint8_t* ring           # PUCT with history planes (agz17, lz18): HISTORY colourings by
                            # public point, slot d % HISTORY the one at depth d of the replayed
                            # path (written for the path's last HISTORY positions); else NULL


cdef class Search:
    cdef Pool pool
    cdef Params prm
    cdef bint entered               # __init__ began: it runs once (see its first lines)
    cdef BoardState* root_state     # the root position (copied from `board`)
    cdef PlayoutSpec spec           # the game at the root (rules, ko memory, to move)
    cdef HashSet seen               # the superko keys of the game up to the root
    cdef object root_board          # the root as a fastgo.Board (a private copy)
    cdef int width, height, npoints, root_colour
    cdef Worker** workers
    cdef int nthreads
    cdef bint shared                # UCT on more than one worker: the tree is shared lock-free
    cdef uint64_t seed
    cdef int64_t simulations        # simulations started over the search object's life
    cdef int64_t started            # simulations started in the current search() call
    cdef int64_t budget             # UCT: simulations this call may start (-1: no count limit)
    cdef int64_t lim_playouts       # this call's limits: simulations (-1: none), root visits
    cdef int64_t lim_visits         # (-1: none), the clock (0: none) and the end of the slice
    cdef int64_t max_visits         # the most visits the root takes (search.MAX_VISITS)
    cdef double deadline            # the workers run before Python looks for Ctrl-C
    cdef double slice_end
    cdef bint pool_full             # no room for another expansion: leaves stay leaves
    cdef int32_t* bpaths            # PUCT: per leaf of the batch its path (MAX_DEPTH + 1),
    cdef int32_t* bdepth            # its depth,
    cdef int16_t* bcand             # the moves allowed there (points + 1)
    cdef int32_t* bncand            # and their number,
    cdef int8_t* bcolour            # and the colour to move there;
    cdef double* bterminal          # a finished game's exact value (its bncand is -1: no planes)
    cdef int nevals                 # the batch's leaves that wait for the evaluator
    cdef volatile int stop_flag     # set by stop(): workers finish their simulation and return
    cdef bint root_noised
    cdef int16_t* avoid_until       # avoid=: [(colour - 1) * (points + 1) + move] the depth from
                                    # which the tree explores `move` of `colour` (0: always);
                                    # NULL: nothing avoided
    cdef readonly object evaluator
    cdef readonly str encoding
    cdef readonly str policy
    cdef readonly tuple prisoners   # (black, white): a resumed game's earlier prisoners
    cdef readonly int batch
    cdef object dirichlet           # (alpha, weight) or None
    cdef object rng                 # numpy Generator for Dirichlet noise
    cdef object guard               # a threading.Lock: one search() or advance() at a time
    cdef int readers                # calls that read the tree and run Python code midway
                                    # (result, variation): advance and close refuse meanwhile
    cdef bint closed                # close() freed the tree: every call but close is refused
    cdef float* planes              # PUCT: batch x nplanes x points input buffer
    cdef object planes_array        # the numpy view of `planes` handed to the evaluator
    cdef int enc                    # the encoding: planes.ENC_*
    cdef int nplanes                # its planes
    # the root's past for the history planes (agz17, lz18): HISTORY colourings by public point,
    # slot t % HISTORY the one after the root game's turn t (t = root_turns: the root's own),
    # for root_known turns back (from the set-up at most); NULL for other encodings
    cdef uint8_t* root_ring
    cdef int root_known
    cdef int64_t root_turns         # turns of the root game since its set-up
    cdef int16_t root_moves[LAST_MOVES]     # katago: the root game's last turns, oldest first
    cdef int root_nmoves

    cdef _set_root(self, int policy_id, bint advanced=*)
    cdef _root_history(self, bint advanced)
    cdef void _clear_tree(self) noexcept
    cdef void _clear_counts(self) noexcept nogil
    cdef int _descend(self, Worker* w) noexcept nogil
    cdef void _replay(self, Worker* w) noexcept nogil
    cdef void _unreplay(self, Worker* w) noexcept nogil
    cdef int _moves(self, Worker* w) noexcept nogil
    cdef int32_t _alloc(self, int n) noexcept nogil
    cdef bint _may_start(self) noexcept nogil
    cdef bint _claim(self) noexcept nogil
    cdef bint _uct_simulation(self, Worker* w) noexcept nogil
    cdef void _init_children(self, int32_t first, int n, Worker* w) noexcept nogil
    cdef void _backup_uct(self, Worker* w, double black) noexcept nogil
    cdef void _work(self, int t) noexcept nogil
    cdef void _release(self, Worker* w, int d) noexcept nogil
    cdef double _terminal_value(self, Worker* w) noexcept nogil
    cdef void _backup_puct(self, const int32_t* path, int depth, double v, int colour) noexcept nogil
    cdef void _encode(self, Worker* w, float* out) noexcept nogil
    cdef int _collect(self) noexcept nogil
    cdef void _apply(self, int k, const double* priors, const double* values) noexcept nogil
    cdef void _abandon(self, int k) noexcept nogil
    cdef _evaluate(self, int k)
    cdef list _pv(self, int32_t ni)
    cdef void _null(self) noexcept
    cdef void _free(self) noexcept
    cdef _noise(self)
    cdef object _read_result(self, double seconds)
