#ifndef SKRAFL_NATIVE_H
#define SKRAFL_NATIVE_H

/*
 * gamecore._native: the compiled core of skrafl's lexicon graph (KWG) builder and move generator, one
 * extension built from the files of gamecore/c/, one a concept (the design: docs/MOVEGEN.md):
 *   kwg_build.c   the KWG builder, its check and the words' encoding (build_kwg, check_kwg, encode_words)
 *   movegen.c     the GADDAG walk of each anchor (walk.h, compiled once per node layout), the plays
 *                 recorded and sorted, the search over the anchors (search) and its shared state
 *   crosscheck.c  cross-checks, cross-scores and the lanes' own letter sets; the lanes and anchors
 *   prune.c       the upper bound of each anchor's spans ("shadow"), the anchor heap
 *   wordmap.c     the bingo index and its word map (bingo_index), sub-racks, exact span scores
 *   moves.c       the plays as Python objects (RawMove, ScoredPlay tuples, MoveList)
 *   position.c    Position: a board kept between calls, updated per play
 *   equity.c      Position.equity: the best plays by static equity, and the exchanges
 *   leaves.c      Leaves: a KLV2 leave file and its look-up
 *   endgame.c     Endgame: the exact endgame search (gamecore/endgame.py's) over one Position per ply
 *   module.c      the Python module: generate(), last_stats(), the method table, PyInit__native
 * This header holds what they share: the KWG node fields, the types of the generator, and the
 * state and functions one file defines and another uses. Everything here is hidden from outside the
 * extension (only PyInit__native is exported).
 *
 * The state of a search (the graph searched, the plays' buffers, the pruning tables, the word map's
 * caches, the statistics) is one struct Search: the module's generate() has one (g_search), each
 * Position its own, and every function of a search reaches it through S (Gen.s), so searches on two
 * Positions share nothing. What stays global is read-only after start-up or used only with the GIL
 * held while plays become Python objects (small ints, the word-tuple caches, the MoveList free
 * list), and last_stats()'s pointer to the last search. So a Position's search (Position.generate,
 * top, moves, equity) releases the GIL around its walk (movegen.c, traverse), which touches no
 * Python object: threads each with its own Positions search at once. A Position's own methods
 * refuse to run while its search runs (Search.busy); the module's generate() keeps the GIL (its
 * Search is shared by every caller).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------------------------------------ */
/* KWG node fields                                                                             */

#define ARC_MASK 0x3FFFFFu
#define IS_END (1u << 22)
#define ACCEPTS (1u << 23)
#define MAX_TILE 63
#define MAX_WORD 255
#define NATIVE_ABI 7
/* The fields of a node of the graph being searched, in its layout (wide: Node24, see movegen.c), and
 * node i read bounds-checked (past the end: a childless last sibling). */
#define N_TILE(v) (S->wide ? ((v) & 63u) : ((v) >> 24))
#define N_ARC(v) (S->wide ? ((v) >> 8) : ((v) & ARC_MASK))
#define N_END(v) (S->wide ? ((v) & 0x40u) : ((v) & IS_END))
#define N_ACC(v) (S->wide ? ((v) & 0x80u) : ((v) & ACCEPTS))
#define KW(i) ((size_t)(i) < S->nnodes ? S->kwg[i] : (S->wide ? 0x40u : IS_END))
#define MAXD 64

/* Plays are recorded into a buffer of plain structs (kept between calls, grown when needed) and
 * turned into Python objects only at the end, and only for the plays asked for. */
typedef struct {
    uint64_t key;   /* sort key: see move_keys (0 when the slow comparison is needed) */
    int32_t score;
    uint32_t off;   /* the main word's letters: pool[off .. off + len) */
    uint8_t row, col, across, len, placed;
} Move;

/* One lane (row for plays across, column for plays down), computed once per call. */
typedef struct {
    uint64_t abits;        /* bit p: square p is an anchor (the anchor flags below, read at once) */
    uint8_t tiles[MAXD];   /* board tiles in the lane: 0 empty, else tile | 64 if blank */
    uint64_t mask[MAXD];   /* allowed tiles on empty squares (bit t); 0 = no tile can go here */
    int32_t xscore[MAXD];  /* sum of values of the perpendicular word's board tiles */
    uint8_t hasx[MAXD];    /* a perpendicular word is formed on this square */
    uint8_t anchor[MAXD];
    uint8_t lm[MAXD], wm[MAXD];
    int32_t cap[MAXD];     /* (pruning) the most a rack tile can score here: value, not multiplied */
} Lane;

typedef struct {
    uint8_t dir, lane, pos;
    uint8_t searched; /* (pruning) one of its parts has been searched (for the statistics) */
} Anchor;

typedef struct {
    int n; /* lane length */
    int across;
    int lane; /* index of the lane (row when across) */
    /* the current lane's data (pointers into a Lane) */
    const uint8_t *tiles;
    const uint64_t *mask;
    const int32_t *xscore;
    const uint8_t *hasx, *anchor, *lm, *wm;
    uint8_t placed[MAXD];  /* tiles placed in the current partial play */
    /* play state */
    int rack[MAX_TILE + 1];
    int blanks, ntiles;
    uint64_t rackmask; /* bit t: the rack holds a tile t */
    int values[MAX_TILE + 1];
    int bvalues[MAX_TILE + 1]; /* what a blank standing for the letter scores: 0, or the letter's value */
    int bingo, bingo_tiles;
    int anchor_pos;
    int rstart; /* the first square after the tiles just right of the anchor (see walk.h) */
    int dedupe_single; /* down pass: one-tile plays forming an across word were listed already */
    /* top-K: a min-heap of the best `limit` scores recorded so far (limit 0 = keep every play) */
    int limit, nheap;
    int *heap;
    /* pruning inside an anchor's search (the anchor's span bounds, see span_bounds) */
    int prune_in;
    /* which plays an anchor's search looks for (see search): 0 all, 1 those of fewer than
     * bingo_tiles tiles (no tile is placed beyond max_placed), 2 the bingos (min_placed) */
    int part, min_placed, max_placed;
    uint64_t blank_ok; /* the letters a blank may stand for (all but while searching bingos) */
    int thr; /* the K-th best score so far once K plays are kept (INT_MIN before) */
    int error;
    /* equity (Position.equity): each play is kept by its static equity in thousandths, score * 1000
     * + the term of the tiles it keeps (eq_term, indexed by the kept counts in mixed radix:
     * eq_full - the eq_stride of each tile placed, the blank's at 0) + on the empty board the
     * opening penalty of each vowel placed (eq_pen by direction and square); the K-th best equity
     * so far is turned into a score threshold for the pruning (eq_maxterm: the best term) */
    int eq_on, eq_opening, eq_full, eq_maxterm;
    int eq_adj[MAXD + 1]; /* a span of k new tiles: ceil((the best term keeping ntiles - k) - eq_maxterm) / 1000) */
    int eq_adjge[MAXD + 1]; /* the same for plays of k new tiles or more (a play under way: see right_ok) */
    int eq_adjnb[MAXD + 1]; /* the same for plays of k new tiles that take a blank (see exact_bound) */
    int eq_stride[MAX_TILE + 1];
    const int32_t *eq_term;
    uint64_t eq_vowels;
    int eq_pen[2][MAXD];
    struct Search *s; /* the search state (the module's or the Position's) */
} Gen;

#define NEG_BOUND (-0x3FFFFFFF)

typedef struct {
    uint8_t dir, lane, pos, part;
    int16_t s, e;
    int bound, best;
    long work;
} Step; /* part: see Gen */

/* (equity) A score bound b of plays of k new tiles, less what their leave lacks of the best term
 * (eq_adj): not below 0 when b is not (the search takes a bound below 0 for "no play here", and
 * the threshold is never below 0). */
static inline int eq_adjust(const Gen *g, int b, int k) {
    if (b < 0 || !g->eq_adj[k]) return b;
    b += g->eq_adj[k];
    return b > 0 ? b : 0;
}

static inline uint64_t zobrist(uint32_t t) {
    uint64_t z = (uint64_t)t * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define SUBK 8
#define SCACHE 256 /* (a power of two) */

/* (pruning) the parts of the anchors searched apart (see search): anchor i's entries 2i and 2i + 1 */
typedef struct {
    int32_t bound;
    uint8_t checked; /* the bound has the bingo spans checked against the lexicon */
    int16_t bs, be;  /* the span [bs, be] that gives the bound (-1: none) */
} APart;

typedef struct {
    PyObject_HEAD
    Py_buffer kb;
    int has_kb;
    int wide, R, C, srow, scol, bingo, bingo_tiles, tiles_on_board, negative;
    int fits; /* the bounds stay inside an int whatever the board (bounds_fit_in) */
    int values[MAX_TILE + 1], bvalues[MAX_TILE + 1];
    uint8_t grid[MAXD][MAXD], bkg[MAXD][MAXD];
    Lane lanes[2][MAXD];
    struct Search *s; /* its own search state (made by __init__) */
} PositionObject;

typedef struct {
    PyObject_HEAD
    uint32_t *nodes, *counts;
    int32_t *milli;
    uint32_t nnodes, nvalues, root;
} LeavesObject;

#define BCACHE 64

/* (pruning) Sub-rack words. A span with k new squares and board tiles T can hold a play only with
 * k tiles S of the rack such that S and T are an anagram of a word (the word's multiset hash is
 * h(S) + h(T)). The rack's distinct sub-multisets (no blank) are listed once per search (sub*,
 * by size k), the answers per (k, T) kept (g_scache, keyed by a hash as the bingo cache). */
#define SUBMAX 64

/* (pruning) The spans of each anchor as its first bounding found them (the bound, the span, its
 * new squares, whether it is a bingo span and its board tiles' hash): the anchor's bounding when
 * it comes on top reads them instead of walking its spans again (aspan: anchor i's first entry
 * in spool and how many; -1: not kept, the pool was full). */
#define SPOOL (1 << 16)

typedef struct {
    int sum, raw;
    int16_t s, e, k, bingo;
    uint64_t base;
} SpanCand; /* raw: before eq_adjust */

/* The state of a search, kept between calls (buffers, tables, caches; docs/MOVEGEN.md): one for the
 * module's generate() and one per Position, reached by every function of a search through S (Gen.s). */
typedef struct Search {
    /* Node fields for both layouts: Node22 (docs/MOVEGEN.md §1 standard) and Node24 (tile bits 0-5, is_end bit 6,
     * accepts bit 7, arc bits 8-31; written only when a lexicon has more than 2^22 nodes). */
    int wide;
    /* Node i, bounds-checked: past the end reads as a childless last sibling, so a damaged file can
     * give wrong words but never a read outside the buffer (Kwg.load does not scan the whole file). */
    size_t nnodes;
    const uint32_t *kwg;
    /* for the anchor being searched: rmax[s][e] = the best bound of a span [s, e'] with e' >= e,
     * leftmax[s] = the best bound of a span starting at s or left of it, leftopen[s] the same over
     * the spans that go on past the tiles right of the anchor (that have a right part, see walk.h) */
    int rmax[MAXD][MAXD + 1];
    int leftmax[MAXD], leftopen[MAXD];
    /* and for a left part that has placed squares pos..a and goes on left (left_tables): a bound on
     * its plays without a right part that follows the tiles still on the rack, see left_ok */
    int lW[MAXD + 1], lF[MAXD + 1], lB[MAXD + 1][MAXD + 1], lHi[MAXD + 1], lLo[MAXD + 1];
    int lready; /* the tables are made for the anchor being searched (made when first needed) */
    /* the rack at the anchor's start: its letters by value, best first (0: a blank, at the most it can
     * score), the values of its tiles, best first, and the letters it can put down */
    int ordt[MAX_TILE + 2], ordv[MAX_TILE + 2], nord, lx[MAXD], nlx;
    uint64_t lusable;
    /* and for the right part of a play (squares p.. after its left part is placed), over every end:
     * the largest word multiplier still to come, the largest (main-word points to come) x (its word
     * multiplier), the largest cross-word points to come, and which numbers of new tiles can end it.
     * dW[p] < 0: no play can go on to square p. */
    int dW[MAXD + 1], dMW[MAXD + 1], dX[MAXD + 1];
    uint64_t dK[MAXD + 1];
    int busy; /* generate() is running (the buffers below are in use) */
    int no_lane_mask; /* square_data leaves the lane's own letter sets out (the endgame's boards, see endgame.c) */
    Move *moves, *tmp;
    size_t nmoves, capmoves, captmp;
    uint8_t *pool;
    size_t npool, cappool;
    Lane lanes[2][MAXD];
    Lane (*L)[MAXD]; /* the lanes searched: lanes, or a Position's */
    Anchor anchors[2 * MAXD * MAXD];
    uint8_t grid[MAXD][MAXD];
    uint8_t (*G)[MAXD]; /* the grid searched: grid, or a Position's */
    /* statistics of the last call (for the bench): anchors, anchors searched, plays recorded */
    long st_anchors, st_searched, st_recorded, st_calls;
    long calls; /* search calls (work done) of the step at hand */
    Step steps[2 * MAXD * MAXD];
    long nsteps;
    int cur_best;
    /* (pruning, the first move) A word of length L whose letter values sorted best first are x_i
     * scores at most sum_i x_i M_L[i] (+ the bingo), M_L[i] = the best over the starts covering the
     * start square of W_s * (the i-th largest letter premium of the start's squares) (rearrangement
     * inequality). With x_i <= T_i (the rack's i-th best value, a blank counted at its best) that is
     * at most fMmin[L] * (the word's value sum) + fE[L], fMmin[L] = M_L[L-1] and
     * fE[L] = sum_i (M_L[i] - fMmin[L]) * T_i (NEG_BOUND when no start fits L letters). */
    int fMmin[MAXD + 1], fE[MAXD + 1];
    /* The multipliers M_L of the lane set (the anchor at g->anchor_pos) for L <= fmL, kept between
     * calls: they depend only on the lane's premiums and blocked squares and the anchor, which the
     * key below holds (a first move is asked for on the same lane again and again). */
    int fM[MAXD + 1][MAXD], fmL, fmn, fma;
    uint8_t fok[MAXD + 1]; /* some start fits L letters */
    uint8_t fmkey[3][MAXD];
    /* The best bound over the anchor's spans of `part` (see Gen.part: 0 all, 1 fewer than bingo_tiles
     * new squares, 2 at least that many); with `fill`, also rmax and leftmax for them; *bbest (when
     * given) = the best bound over the spans of part 2. With `check`, *blank_ok (when given) gathers
     * the letters a blank can stand for in the bingos of the spans that can still make the cut
     * (bingo_letters; all when one of them is not checked). With `check` and the word map (sub_on),
     * a span that can make the cut and is no longer than its words gets its plays' best score
     * (span_exact) instead of its bound: when bounding (no `fill`), those spans are scored best bound
     * first while they can raise the best; when filling, all of them once K plays are kept; each
     * answer is kept for the anchor (exkey). */
    uint64_t search_serial;
    SpanCand spool[SPOOL];
    int nspool, spool_rec; /* spool_rec: span_bounds records its spans */
    int aspan[2 * MAXD * MAXD][2];
    APart parts[4 * MAXD * MAXD];
    /* A max-heap of part indices by bound (ties: the lower index first). */
    int aheap[4 * MAXD * MAXD], naheap;
    /* (pruning) Bingo spans. A span with bingo_tiles new squares, when the rack holds exactly that many
     * tiles, takes the whole rack: it can hold a play only if some word of the lexicon is an anagram
     * of the rack plus the span's board tiles (a blank: any letter). A bingo index (bingo_index()) holds
     * a multiset hash of every word of at least bingo_tiles letters: h(word) = sum of Z[tile] mod 2^64,
     * so equal multisets have equal hashes (a collision can only say "maybe": answers stay exact).
     * Layout: uint64 words; [0] = largest tile seen (bits 0-7; bit 20: a word map follows, see
     * wtab), [1] = table size (a power of two), then the open-addressing table (0 = free). Without an
     * index every bingo span counts. */
    const uint64_t *bidx;
    uint64_t bidx_mask, bidx_maxt;
    /* (pruning) The index's word map (bit 20 of [0] set; after the table: [0] its table size wcap (a
     * power of two), [1] its pool's bytes, [2] the longest word held, [3] and [4] the graph's node
     * count and root nodes (an index is used only with its own graph), then wcap multiset hashes (0 =
     * free, open addressing as above), wcap uint32 offsets into the pool, the pool): every word of 2
     * to min_len + 1 letters, in groups of one hash: a uint32 count, then per word its length and
     * tiles. With it (and no blank on the rack) the sub-racks of the rack that make a word with a
     * span's board tiles are known (subrack_words), a span's plays can be scored word by word
     * (span_exact) and the first move's words are read from it (first_words_map). */
    const uint64_t *wtab;
    const uint32_t *woff;
    const uint8_t *wpool;
    uint64_t wmask, wmaxlen, wpoolsize, wnodes, wroots;
    uint64_t bcache_key[BCACHE];
    uint64_t bcache_ok[BCACHE];
    int nbcache;
    int sub_on, sub_blank; /* sub_blank: see exact_bound */
    int nsub[SUBK + 1];
    uint64_t subh[SUBK + 1][SUBMAX];
    int subP[SUBK + 1][SUBMAX]; /* value sums */
    uint64_t subt[SUBK + 1][SUBMAX]; /* their tiles, one a byte */
    uint64_t scache_key[SCACHE], scache_ok[SCACHE], scache_st[SCACHE], scache_serial;
    int nscache;
    /* span_exact's answers for the anchor being bounded (exkey: the anchor's key, see span_bounds) */
    int exv[MAXD][MAXD];
    uint64_t exst[MAXD][MAXD], exkey;
    /* The squares already recomputed in this place() or sync() (stamped with touch_serial): the new
     * tiles of a play share the empty squares at the ends of its line, each recomputed once (on the
     * final grid, as every time). */
    uint32_t touched[MAXD][MAXD], touch_serial;
    /* scratch: the candidate spans of span_bounds and of pool_bounds, the radix sort's digit counts */
    SpanCand span_cand[MAXD * MAXD], pool_cand[MAXD * MAXD];
    size_t radix_counts[8][256];
} Search;

/* kwg_build.c */
PyObject *py_build_kwg(PyObject *Py_UNUSED(self), PyObject *args);
PyObject *py_check_kwg(PyObject *Py_UNUSED(self), PyObject *args);
PyObject *py_encode_words(PyObject *Py_UNUSED(self), PyObject *args);

/* movegen.c */
extern Search g_search, *g_last_search;
void search_init(Search *S);
Search *search_new(void);
void search_delete(Search *S);
int grow(void **p, size_t *cap, size_t need, size_t size);
void first_place(Gen *g, const uint8_t *w, int len);
/* How search() looks for plays and what it returns. */
typedef struct {
    int limit;                /* the best `limit` plays (sorted, best first); -1: every play */
    int sorted;               /* every play sorted best first (else in generator order) */
    int prune;                /* prune the search for the best `limit` (when the bounds allow it) */
    int negative;             /* some tile value is below 0 (no pruning then) */
    PyObject **table;         /* with play_type: the tiles' objects, by letter byte */
    PyTypeObject *play_type;  /* ScoredPlay-shaped tuples of this type (else RawMoves) */
    int lazy;                 /* a MoveList (the plays kept as structs) instead of a list of RawMoves */
    int fits;                 /* the lanes are known to fit the bounds' arithmetic (bounds_fit) */
    int empty_board;          /* the first move: no tile on the board */
    int release;              /* release the GIL around the walk (a Position's search: its Search is its own) */
} SearchArgs;
/* The walk's shape, set by search(); nout: the plays to return. */
typedef struct {
    int R, C, nanchors, sorted, mirror, mirror_lane;
    size_t nout;
} Traversal;
PyObject *search(Gen *g, int R, int C, int nanchors, const SearchArgs *args);
int search_moves(Gen *g, int R, int C, int nanchors, const SearchArgs *args, size_t *nout);

/* crosscheck.c */
void square_data(Search *S, Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*bkg)[MAXD], int R, int C, int first,
                 int srow, int scol, const int *values, const int *bvalues, int r, int c);
int list_anchors(Search *S, Lane (*lanes)[MAXD], int R, int C);
void compute_lanes(Search *S, Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*lmg)[MAXD], uint8_t (*wmg)[MAXD],
                   uint8_t (*bkg)[MAXD], int R, int C, int first, int srow, int scol, const int *values,
                   const int *bvalues);
int lanes_mirror(const Lane *a, const Lane *b, int n);

/* prune.c */
int rack_values(const Gen *g, int *rv);
int span_bounds(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv, int fill, int check, int part,
                int16_t *bs, int16_t *be, int *bbest, uint64_t *blank_ok);
int pool_bounds(const Gen *g, const Lane *L, int i, int part, int16_t *bs, int16_t *be);
void right_tables(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv);
void lane_caps(const Gen *g, int R, int C);
void aheap_push(Search *S, int x);
int aheap_pop(Search *S);
int bounds_fit_in(const Lane (*lanes)[MAXD], const int *values, const int *bvalues, int bingo, int R, int C,
                  int any_board);
int bounds_fit(const Gen *g, int R, int C);

/* wordmap.c */
uint64_t bingo_letters(const Gen *g, uint64_t key);
int list_subracks(const Gen *g);
uint64_t subrack_words(Search *S, int k, uint64_t base);
int span_exact(const Gen *g, const Lane *L, int s, int e, int k, uint64_t base, uint64_t ok);
void first_words_map(Gen *g, int ntiles);
PyObject *py_bingo_index(PyObject *Py_UNUSED(self), PyObject *args);
int bingo_arg(Search *S, PyObject *bidx_o, Py_buffer *bb);

/* moves.c */
extern PyTypeObject *RawMoveType;
extern PyStructSequence_Desc rawmove_desc;
extern PyObject *g_ints[256], *g_empty;
PyObject *raw_move(Search *S, const Move *m);
void newcache_clear(void);
PyObject *scored_play(Search *S, const Move *m, PyTypeObject *type, PyObject **table);
void take_spare_buffers(Search *S);
extern PyTypeObject MoveListType;
PyObject *move_list_take(Search *S, size_t n);

/* position.c */
Search *pos_search(PositionObject *P);
void pos_use_kwg(Search *S, PositionObject *P);
extern PyTypeObject PositionType;
int position_place(PositionObject *P, int row, int col, int across, const uint8_t *t, int n);
void position_copy(PositionObject *P, const PositionObject *O);

/* equity.c */
PyObject *pos_equity(PositionObject *P, PyObject *args, PyObject *kw);

/* leaves.c */
int leave_values(const LeavesObject *L, const uint8_t *kt, const int *cnt, const int *stride, int nk, int i,
                 uint32_t node, int64_t idx, int sub, int *used, int32_t *vals, int64_t *bad);
extern PyTypeObject LeavesType;

/* endgame.c */
extern PyTypeObject EndgameType;

/* module.c */
int read_grid(PyObject *obj, int *rows, int *cols, uint8_t out[MAXD][MAXD], int maxv, const char *what);
int read_ints(PyObject *obj, int *out, int maxn, const char *what);
int play_args(PyObject *table_o, PyObject *type_o, PyObject **table_seq, PyObject ***table, PyTypeObject **play_type);
int rack_arg(Gen *g, PyObject *rack_o, int blanks);

#pragma GCC visibility pop

#endif
