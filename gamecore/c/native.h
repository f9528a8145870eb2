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
 *   module.c      the Python module: generate(), last_stats(), the method table, PyInit__native
 * This header holds what they share: the KWG node fields, the types of the generator, and the
 * state and functions one file defines and another uses. Everything here is hidden from outside the
 * extension (only PyInit__native is exported).
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
#define NATIVE_ABI 6
/* The fields of a node of the graph being searched, in its layout (g_wide: Node24, see movegen.c), and
 * node i read bounds-checked (past the end: a childless last sibling). */
#define N_TILE(v) (g_wide ? ((v) & 63u) : ((v) >> 24))
#define N_ARC(v) (g_wide ? ((v) >> 8) : ((v) & ARC_MASK))
#define N_END(v) (g_wide ? ((v) & 0x40u) : ((v) & IS_END))
#define N_ACC(v) (g_wide ? ((v) & 0x80u) : ((v) & ACCEPTS))
#define KW(i) ((size_t)(i) < g_nnodes ? g_kwg[i] : (g_wide ? 0x40u : IS_END))
#define MAXD 64

/* Plays are recorded into a buffer of plain structs (kept between calls, grown when needed) and
 * turned into Python objects only at the end, and only for the plays asked for. */
typedef struct {
    uint64_t key;   /* sort key: see move_keys (0 when the slow comparison is needed) */
    int32_t score;
    uint32_t off;   /* the main word's letters: g_pool[off .. off + len) */
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
} PositionObject;

typedef struct {
    PyObject_HEAD
    uint32_t *nodes, *counts;
    int32_t *milli;
    uint32_t nnodes, nvalues, root;
} LeavesObject;

/* kwg_build.c */
PyObject *py_build_kwg(PyObject *Py_UNUSED(self), PyObject *args);
PyObject *py_check_kwg(PyObject *Py_UNUSED(self), PyObject *args);
PyObject *py_encode_words(PyObject *Py_UNUSED(self), PyObject *args);

/* movegen.c */
extern int g_wide;
extern size_t g_nnodes;
extern const uint32_t *g_kwg;
extern int g_rmax[MAXD][MAXD + 1];
extern int g_leftmax[MAXD], g_leftopen[MAXD];
extern int g_dW[MAXD + 1], g_dMW[MAXD + 1], g_dX[MAXD + 1];
extern uint64_t g_dK[MAXD + 1];
extern int g_busy;
extern Move *g_moves, *g_tmp;
extern size_t g_nmoves, g_capmoves, g_captmp;
extern uint8_t *g_pool;
extern size_t g_npool, g_cappool;
extern Lane g_lanes[2][MAXD];
extern Lane (*g_L)[MAXD];
extern Anchor g_anchors[2 * MAXD * MAXD];
extern uint8_t g_grid[MAXD][MAXD];
extern uint8_t (*g_G)[MAXD];
extern long g_st_anchors, g_st_searched, g_st_recorded, g_st_calls;
extern Step g_steps[2 * MAXD * MAXD];
extern long g_nsteps;
int grow(void **p, size_t *cap, size_t need, size_t size);
void first_place(Gen *g, const uint8_t *w, int len);
extern int g_fMmin[MAXD + 1], g_fE[MAXD + 1];
extern Gen g_gen;
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
} SearchArgs;
PyObject *search(Gen *g, int R, int C, int nanchors, const SearchArgs *args);

/* crosscheck.c */
void square_data(Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*bkg)[MAXD], int R, int C, int first, int srow,
                 int scol, const int *values, const int *bvalues, int r, int c);
int list_anchors(Lane (*lanes)[MAXD], int R, int C);
void compute_lanes(Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*lmg)[MAXD], uint8_t (*wmg)[MAXD],
                   uint8_t (*bkg)[MAXD], int R, int C, int first, int srow, int scol, const int *values,
                   const int *bvalues);
int lanes_mirror(const Lane *a, const Lane *b, int n);

/* prune.c */
int rack_values(const Gen *g, int *rv);
extern uint64_t g_search_serial;
extern int g_nspool, g_spool_rec;
extern int g_aspan[2 * MAXD * MAXD][2];
int span_bounds(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv, int fill, int check, int part,
                int16_t *bs, int16_t *be, int *bbest, uint64_t *blank_ok);
int pool_bounds(const Gen *g, const Lane *L, int i, int part, int16_t *bs, int16_t *be);
void right_tables(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv);
void lane_caps(const Gen *g, int R, int C);
extern APart g_parts[4 * MAXD * MAXD];
extern int g_aheap[4 * MAXD * MAXD], g_naheap;
void aheap_push(int x);
int aheap_pop(void);
int bounds_fit_in(const Lane (*lanes)[MAXD], const int *values, const int *bvalues, int bingo, int R, int C,
                  int any_board);
int bounds_fit(const Gen *g, int R, int C);

/* wordmap.c */
extern const uint64_t *g_bidx;
extern const uint64_t *g_wtab;
extern uint64_t g_wmask, g_wmaxlen, g_wpoolsize, g_wnodes, g_wroots;
extern int g_nbcache;
uint64_t bingo_letters(const Gen *g, uint64_t key);
extern int g_sub_on, g_sub_blank;
extern uint64_t g_scache_key[SCACHE], g_scache_ok[SCACHE], g_scache_st[SCACHE], g_scache_serial;
extern int g_nscache;
int list_subracks(const Gen *g);
uint64_t subrack_words(int k, uint64_t base);
int span_exact(const Gen *g, const Lane *L, int s, int e, int k, uint64_t base, uint64_t ok);
extern int g_exv[MAXD][MAXD];
extern uint64_t g_exst[MAXD][MAXD], g_exkey;
void first_words_map(Gen *g, int ntiles);
PyObject *py_bingo_index(PyObject *Py_UNUSED(self), PyObject *args);
int bingo_arg(PyObject *bidx_o, Py_buffer *bb);

/* moves.c */
extern PyTypeObject *RawMoveType;
extern PyStructSequence_Desc rawmove_desc;
extern PyObject *g_ints[256], *g_empty;
PyObject *raw_move(const Move *m);
void newcache_clear(void);
PyObject *scored_play(const Move *m, PyTypeObject *type, PyObject **table);
void take_spare_buffers(void);
extern PyTypeObject MoveListType;
PyObject *move_list_take(size_t n);

/* position.c */
void pos_use_kwg(PositionObject *P);
extern PyTypeObject PositionType;

/* equity.c */
PyObject *pos_equity(PositionObject *P, PyObject *args, PyObject *kw);

/* leaves.c */
int leave_values(const LeavesObject *L, const uint8_t *kt, const int *cnt, const int *stride, int nk, int i,
                 uint32_t node, int64_t idx, int sub, int *used, int32_t *vals, int64_t *bad);
extern PyTypeObject LeavesType;

/* module.c */
int read_grid(PyObject *obj, int *rows, int *cols, uint8_t out[MAXD][MAXD], int maxv, const char *what);
int read_ints(PyObject *obj, int *out, int maxn, const char *what);
int play_args(PyObject *table_o, PyObject *type_o, PyObject **table_seq, PyObject ***table, PyTypeObject **play_type);
int rack_arg(Gen *g, PyObject *rack_o, int blanks);

#pragma GCC visibility pop

#endif
