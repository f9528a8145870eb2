/* Endgame: the exact endgame search of gamecore/endgame.py in C, the same algorithm step for step
 * (its design is that module's docstring): negamax with alpha-beta over one
 * Position per ply (the parent's board copied into the child's, the play placed, only when the
 * child's search needs it), the moves of the side on turn from the generator (search_moves, no
 * Python object made), the pass; the move ordering (the table's move, plays that go out, the rest by
 * score); the bounds near the horizon; a transposition table keyed by a Zobrist hash of the board,
 * both racks, the side on turn, the scoreless turns (and the own passes, and the scores when the
 * value depends on them). The Python search stays, as the reference these results are tested
 * against (tests/test_endgame.py).
 *
 * The table here is a fixed array of two-entry buckets (the first kept by depth, the second always
 * replaced) where the Python one is a dictionary cleared when full: the values are the same, the
 * number of nodes differs. A play in the table and in a line is known by a hash of its place and
 * letters (move_key); the line is turned into plays at the end by generating the moves again. */

#include "native.h"

#define EG_EXACT 0
#define EG_LOWER 1
#define EG_UPPER 2
#define EG_PROVED (1 << 20)
#define EG_INF (1 << 29)
#define EG_MAXPLY 160

enum { MV_NONE = 0, MV_PLAY = 1, MV_PASS = 2 };

/* The move whose board is still to be made at a ply: a play (its place, letters as RawMove.letters)
 * or a pass. */
typedef struct {
    uint8_t kind, row, col, across, len;
    uint8_t letters[MAXD];
} EgMove;

/* A move of a line: its kind and, for a play, its key. */
typedef struct {
    uint8_t kind;
    uint64_t key;
} EgRef;

typedef struct {
    uint64_t key, mkey;
    int32_t value, depth; /* depth 0: a free entry */
    uint8_t flag, mkind;
} TTEntry;

typedef struct {
    PyObject_HEAD
    PyObject *positions; /* a list of Positions, one per ply (the root's first) */
    PyObject *more;      /* more(d): make the list hold ply d */
    PyObject *check;     /* check(): called every 256 nodes; raises to stop the search */
    int R, C;
    uint8_t g[MAXD * MAXD];
    int rk[2][MAX_TILE + 1], n[2], rv[2], sc[2], vals[MAX_TILE + 1];
    int end_n, own_passes, has_target, target, floor_zero, additive, exact_passes, others_racks;
    uint64_t *zb, zr[2][MAX_TILE + 1][16], zside, zk[64], zp[2][64];
    uint64_t h;
    TTEntry *tt;
    uint64_t tt_mask, tt_max_mask, tt_stores; /* buckets - 1 (two entries a bucket), at most; stores since it grew */
    long long nodes, horizon;
    int failed; /* an exception is set: the search unwinds */
    EgMove *pend; /* per ply: the move whose board is still to be made there (kind MV_NONE: none) */
    EgRef *pv;    /* per ply d: the line found there, EG_MAXPLY entries from d * EG_MAXPLY */
    int pvlen[EG_MAXPLY + 1];
    EgRef root_pv[EG_MAXPLY];
    int root_pvlen;
} EndgameObject;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t move_key(const Move *m, const uint8_t *letters) {
    uint64_t h = (uint64_t)m->row | (uint64_t)m->col << 8 | (uint64_t)m->across << 16 | (uint64_t)m->len << 24;
    for (int i = 0; i < m->len; i++) h = (h ^ letters[i]) * 0x100000001B3ull;
    return zobrist((uint32_t)h ^ (uint32_t)(h >> 32)) ^ h;
}

/* ------------------------------------------------------------------------------------------ */
/* boards and moves                                                                            */

static PositionObject *eg_pos(EndgameObject *E, int d) {
    if (d >= PyList_GET_SIZE(E->positions)) {
        PyObject *r = PyObject_CallFunction(E->more, "i", d);
        if (!r) return NULL;
        Py_DECREF(r);
        if (d >= PyList_GET_SIZE(E->positions)) {
            PyErr_SetString(PyExc_RuntimeError, "endgame: no board for a ply");
            return NULL;
        }
    }
    PyObject *o = PyList_GET_ITEM(E->positions, d);
    if (!PyObject_TypeCheck(o, &PositionType) || !((PositionObject *)o)->s) {
        PyErr_SetString(PyExc_TypeError, "endgame: the boards must be Positions");
        return NULL;
    }
    /* (the lane masks only narrow the walk; left out, a play's placing costs less and the plays
     * found are the same) */
    ((PositionObject *)o)->s->no_lane_mask = 1;
    return (PositionObject *)o;
}

/* The board of ply d, made now when its move is still pending (the parent's, and that move). */
static PositionObject *eg_board(EndgameObject *E, int d) {
    PositionObject *P = eg_pos(E, d);
    if (!P) return NULL;
    EgMove *m = &E->pend[d];
    if (d > 0 && m->kind != MV_NONE) {
        PositionObject *parent = eg_pos(E, d - 1);
        if (!parent) return NULL;
        if (parent->R != P->R || parent->C != P->C || parent->kb.buf != P->kb.buf) {
            PyErr_SetString(PyExc_ValueError, "endgame: the boards differ in size or lexicon");
            return NULL;
        }
        position_copy(P, parent);
        if (m->kind == MV_PLAY) position_place(P, m->row, m->col, m->across, m->letters, m->len);
        m->kind = MV_NONE;
    }
    return P;
}

/* The plays of rack `rack` on P (limit/sorted/prune as SearchArgs) into P's search buffers; their
 * number, -1 with an exception. */
static long eg_generate(PositionObject *P, const int *rack, int limit, int sorted, int prune) {
    Search *S = P->s;
    if (S->busy) {
        PyErr_SetString(PyExc_RuntimeError, "endgame: a board's generator is busy");
        return -1;
    }
    Gen gen;
    Gen *g = &gen;
    memset(g, 0, sizeof *g);
    g->s = S;
    memcpy(g->values, P->values, sizeof g->values);
    memcpy(g->bvalues, P->bvalues, sizeof g->bvalues);
    for (int t = 1; t <= MAX_TILE; t++) {
        g->rack[t] = rack[t];
        if (rack[t] > 0) g->rackmask |= 1ull << t;
    }
    g->blanks = rack[0];
    g->bingo = P->bingo;
    g->bingo_tiles = P->bingo_tiles;
    S->busy = 1;
    pos_use_kwg(S, P);
    S->L = P->lanes;
    S->G = P->grid;
    S->bidx = NULL;
    int nanchors = list_anchors(S, P->lanes, P->R, P->C);
    SearchArgs sa = {.limit = limit,
                     .sorted = sorted,
                     .prune = prune,
                     .negative = P->negative,
                     .fits = P->fits,
                     .empty_board = P->tiles_on_board == 0};
    size_t nout = 0;
    int rc = search_moves(g, P->R, P->C, nanchors, &sa, &nout);
    S->L = S->lanes;
    S->G = S->grid;
    S->busy = 0;
    if (rc < 0 || g->error) {
        PyErr_NoMemory();
        return -1;
    }
    return (long)nout;
}

/* ------------------------------------------------------------------------------------------ */
/* make / unmake (the grid, racks and hash kept here; the boards per ply are made when needed)  */

typedef struct {
    uint16_t sq[MAXD];
    int n;
} Undo;

static void eg_make(EndgameObject *E, int d, int p, const Move *m, const uint8_t *letters, Undo *u) {
    EgMove *pm = &E->pend[d + 1];
    pm->kind = MV_PLAY;
    pm->row = m->row, pm->col = m->col, pm->across = m->across, pm->len = m->len;
    memcpy(pm->letters, letters, m->len);
    int step = m->across ? 1 : E->C, sq = m->row * E->C + m->col, rv = 0;
    int *rack = E->rk[p];
    uint64_t h = E->h;
    u->n = 0;
    for (int i = 0; i < m->len; i++, sq += step) {
        uint8_t b = letters[i];
        if (E->g[sq]) continue;
        E->g[sq] = b;
        h ^= E->zb[sq * 128 + b];
        int t = b & 64 ? 0 : b;
        int c = rack[t];
        h ^= E->zr[p][t][c & 15] ^ E->zr[p][t][(c - 1) & 15];
        rack[t] = c - 1;
        rv += t ? E->vals[t] : 0;
        u->sq[u->n++] = (uint16_t)sq;
    }
    E->h = h;
    E->n[p] -= m->placed;
    E->rv[p] -= rv;
    E->sc[p] += m->score;
}

static void eg_unmake(EndgameObject *E, int p, int placed, int score, const Undo *u) {
    int *rack = E->rk[p], rv = 0;
    uint64_t h = E->h;
    for (int i = 0; i < u->n; i++) {
        int sq = u->sq[i];
        uint8_t b = E->g[sq];
        E->g[sq] = 0;
        h ^= E->zb[sq * 128 + b];
        int t = b & 64 ? 0 : b;
        int c = rack[t];
        h ^= E->zr[p][t][c & 15] ^ E->zr[p][t][(c + 1) & 15];
        rack[t] = c + 1;
        rv += t ? E->vals[t] : 0;
    }
    E->h = h;
    E->n[p] += placed;
    E->rv[p] += rv;
    E->sc[p] -= score;
}

/* ------------------------------------------------------------------------------------------ */
/* values and the table                                                                        */

static int eg_final(const EndgameObject *E, int mine, int theirs) {
    if (E->floor_zero) {
        if (mine < 0) mine = 0;
        if (theirs < 0) theirs = 0;
    }
    return mine - theirs;
}

/* The value for p when the game ends by scoreless turns now: each loses their own rack. */
static int eg_terminal_zeros(const EndgameObject *E, int p) {
    int q = 1 - p;
    if (E->additive) return -E->rv[p] + E->rv[q];
    return eg_final(E, E->sc[p] - E->rv[p], E->sc[q] - E->rv[q]);
}

static uint64_t eg_key(const EndgameObject *E, int p, int k, int pa0, int pa1) {
    uint64_t h = E->h ^ (p ? E->zside : 0) ^ E->zk[k & 63];
    if (E->exact_passes) h ^= E->zp[0][pa0 & 63] ^ E->zp[1][pa1 & 63];
    if (!E->additive) {
        uint64_t s = (uint64_t)(uint32_t)E->sc[0] << 32 | (uint32_t)E->sc[1];
        h ^= splitmix(&s);
    }
    return h;
}

static TTEntry *tt_find(EndgameObject *E, uint64_t key) {
    TTEntry *b = &E->tt[2 * (key & E->tt_mask)];
    if (b[0].key == key && b[0].depth) return &b[0];
    if (b[1].key == key && b[1].depth) return &b[1];
    return NULL;
}

static int tt_grow(EndgameObject *E);

static void tt_store(EndgameObject *E, uint64_t key, int depth, int flag, int value, const EgRef *mv) {
    if (++E->tt_stores > 2 * (E->tt_mask + 1) && E->tt_mask < E->tt_max_mask && tt_grow(E) == 0) E->tt_stores = 0;
    TTEntry *b = &E->tt[2 * (key & E->tt_mask)];
    TTEntry *e = (b[0].key == key || !b[0].depth || depth >= b[0].depth) ? &b[0] : &b[1];
    if (e == &b[0] && b[0].key != key && b[0].depth) b[1] = b[0]; /* the one it replaces: kept a while */
    e->key = key;
    e->depth = depth;
    e->flag = (uint8_t)flag;
    e->value = value;
    e->mkind = mv->kind;
    e->mkey = mv->key;
}

/* ------------------------------------------------------------------------------------------ */
/* negamax                                                                                     */

static void pv_set(EndgameObject *E, int d, EgRef first, int with_child) {
    EgRef *row = &E->pv[(size_t)d * EG_MAXPLY];
    row[0] = first;
    int n = 1;
    if (with_child && d + 1 <= EG_MAXPLY - 1) {
        const EgRef *child = &E->pv[(size_t)(d + 1) * EG_MAXPLY];
        for (int i = 0; i < E->pvlen[d + 1] && n < EG_MAXPLY; i++) row[n++] = child[i];
    }
    E->pvlen[d] = n;
}

static int eg_negamax(EndgameObject *E, int d, int p, int k, int pa0, int pa1, int depth, int alpha, int beta);

/* The value for p of passing (alpha, beta: the opponent's window); the line after it at ply d + 1. */
static int eg_pass_value(EndgameObject *E, int d, int p, int k, int pa0, int pa1, int depth, int alpha, int beta) {
    int q = 1 - p, k1 = k + 1, mine = (p ? pa1 : pa0) + 1;
    int ends = k1 >= (E->exact_passes ? E->end_n : 2) || (E->own_passes && mine >= E->own_passes);
    if (d + 1 >= EG_MAXPLY) ends = 1; /* (never reached: a game ends sooner) */
    if (ends) {
        E->pvlen[d + 1] = 0;
        return eg_terminal_zeros(E, p);
    }
    if (depth <= 1) {
        E->pvlen[d + 1] = 0;
        E->horizon++;
        return E->additive ? 0 : E->sc[p] - E->sc[q];
    }
    if (!eg_pos(E, d + 1)) {
        E->failed = 1;
        return 0;
    }
    E->pend[d + 1].kind = MV_PASS;
    int n0 = p == 0 ? mine : pa0, n1 = p == 0 ? pa1 : mine;
    return -eg_negamax(E, d + 1, q, k1, n0, n1, depth - 1, alpha, beta);
}

static int eg_negamax(EndgameObject *E, int d, int p, int k, int pa0, int pa1, int depth, int alpha, int beta) {
    E->nodes++;
    if ((E->nodes & 255) == 0 && E->check != Py_None) {
        PyObject *r = PyObject_CallNoArgs(E->check);
        if (!r) {
            E->failed = 1;
            return 0;
        }
        Py_DECREF(r);
    }
    int q = 1 - p;
    uint64_t key = eg_key(E, p, k, pa0, pa1);
    EgRef tt_move = {MV_NONE, 0};
    TTEntry *e = tt_find(E, key);
    if (e) {
        tt_move.kind = e->mkind;
        tt_move.key = e->mkey;
        if (e->depth >= depth && (e->flag == EG_EXACT || (e->flag == EG_LOWER && e->value >= beta) ||
                                  (e->flag == EG_UPPER && e->value <= alpha))) {
            if (tt_move.kind != MV_NONE) pv_set(E, d, tt_move, 0);
            else E->pvlen[d] = 0;
            E->horizon += e->depth < EG_PROVED;
            return e->value;
        }
    }
    int alpha0 = alpha;
    long long horizon0 = E->horizon;
    int *rack = E->rk[p];
    PositionObject *P = eg_board(E, d);
    if (!P) {
        E->failed = 1;
        return 0;
    }
    int n_me = E->n[p], additive = E->additive, out_bonus = 2 * E->rv[q];
    int cut2 = additive && !E->exact_passes;
    int best = -EG_INF;
    EgRef best_move = {MV_NONE, 0};
    int pass_first = tt_move.kind == MV_PASS;
    E->pvlen[d] = 0;
    if (pass_first) {
        int v = eg_pass_value(E, d, p, k, pa0, pa1, depth, -beta, -alpha);
        if (E->failed) return 0;
        best = v;
        best_move = (EgRef){MV_PASS, 0};
        pv_set(E, d, best_move, 1);
        if (v > alpha) alpha = v;
    }
    int settled = 0;
    long nplays = -1; /* the plays to search (-1: settled without them, or none listed) */
    int tt_index = -1;
    if (depth <= 2 && (depth == 2 ? cut2 : additive) && !pass_first) {
        /* at the horizon a play is worth its score, one that goes out its score + the bonus; a ply
         * before it at most its score: the pruned search for the top play settles most such nodes */
        long n = eg_generate(P, rack, 1, 1, 1);
        if (n < 0) {
            E->failed = 1;
            return 0;
        }
        if (n == 0) {
            nplays = 0;
        } else {
            const Move *m = &P->s->moves[0];
            int s1 = m->score;
            settled = 1;
            if (m->placed == n_me) {
                best = s1 + out_bonus;
                if (n_me > 1) E->horizon++;
            } else if (depth == 1 && s1 >= beta) {
                E->horizon++;
                best = s1;
            } else if (s1 + out_bonus <= alpha) {
                E->horizon++;
                best = s1 + out_bonus;
            } else {
                settled = 0;
            }
            if (settled) {
                best_move = (EgRef){MV_PLAY, move_key(m, P->s->pool + m->off)};
                pv_set(E, d, best_move, 0);
                if (best > alpha) alpha = best;
            }
        }
    }
    int *order = NULL;
    if (!settled && nplays < 0) {
        nplays = eg_generate(P, rack, -1, 1, 0);
        if (nplays < 0) {
            E->failed = 1;
            return 0;
        }
        if (tt_move.kind == MV_PLAY && !pass_first) {
            for (long i = 0; i < nplays; i++) {
                const Move *m = &P->s->moves[i];
                if (move_key(m, P->s->pool + m->off) == tt_move.key) {
                    tt_index = (int)i;
                    break;
                }
            }
        }
    }
    if (nplays > 0 && alpha < beta) {
        Search *S = P->s;
        /* the order: the table's move; then at depth 2 or more the plays that go out (best score
         * first), the rest by score; at the horizon by score as generated */
        order = malloc(sizeof(int) * (size_t)nplays);
        if (!order) {
            PyErr_NoMemory();
            E->failed = 1;
            return 0;
        }
        long no = 0;
        if (tt_index >= 0) order[no++] = tt_index;
        if (depth >= 2) {
            for (long i = 0; i < nplays; i++)
                if (i != tt_index && S->moves[i].placed == n_me) order[no++] = (int)i;
            for (long i = 0; i < nplays; i++)
                if (i != tt_index && S->moves[i].placed != n_me) order[no++] = (int)i;
        } else {
            for (long i = 0; i < nplays; i++)
                if (i != tt_index) order[no++] = (int)i;
        }
        int out_mine = 0, out_theirs = 0;
        if (!additive) {
            int mine = E->sc[p], theirs = E->sc[q];
            if (E->others_racks) out_mine = mine + E->rv[q], out_theirs = theirs - E->rv[q];
            else out_mine = mine + out_bonus, out_theirs = theirs;
        }
        int cp0 = p == 0 ? 0 : pa0, cp1 = p == 0 ? pa1 : 0;
        int first = 1, has_tt = tt_move.kind != MV_NONE;
        for (long j = 0; j < no; j++) {
            const Move *m = &S->moves[order[j]];
            int score = m->score;
            if (depth <= 1 && additive && score + out_bonus <= best) {
                /* sorted by score: no later play does better at the horizon */
                if (n_me > 1) E->horizon++;
                break;
            }
            if (depth == 2 && cut2 && score <= alpha && m->placed != n_me) {
                /* the reply at the horizon is worth at least a pass to the opponent: this play is
                 * worth at most its score, and so is every later one (the table's move excepted) */
                E->horizon++;
                if (score > best) best = score;
                if (first && has_tt) {
                    first = 0;
                    continue;
                }
                break;
            }
            first = 0;
            int v, child = 0;
            if (m->placed == n_me) {
                v = additive ? score + out_bonus : eg_final(E, out_mine + score, out_theirs);
            } else if (E->has_target && E->sc[p] + score >= E->target) {
                v = eg_final(E, E->sc[p] + score, E->sc[q]);
            } else if (depth <= 1) {
                v = additive ? score : E->sc[p] + score - E->sc[q];
                E->horizon++;
            } else {
                Undo u;
                const uint8_t *letters = S->pool + m->off;
                if (!eg_pos(E, d + 1)) {
                    E->failed = 1;
                    break;
                }
                eg_make(E, d, p, m, letters, &u);
                if (additive) v = score - eg_negamax(E, d + 1, q, 0, cp0, cp1, depth - 1, score - beta, score - alpha);
                else v = -eg_negamax(E, d + 1, q, 0, cp0, cp1, depth - 1, -beta, -alpha);
                eg_unmake(E, p, m->placed, score, &u);
                if (E->failed) break;
                child = 1;
            }
            if (v > best) {
                best = v;
                best_move = (EgRef){MV_PLAY, move_key(m, S->pool + m->off)};
                pv_set(E, d, best_move, child);
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        }
        free(order);
        if (E->failed) return 0;
    }
    if (!pass_first && alpha < beta) {
        int v = eg_pass_value(E, d, p, k, pa0, pa1, depth, -beta, -alpha);
        if (E->failed) return 0;
        if (v > best) {
            best = v;
            best_move = (EgRef){MV_PASS, 0};
            pv_set(E, d, best_move, 1);
        }
    }
    int flag = EG_EXACT;
    if (best <= alpha0) flag = EG_UPPER;
    else if (best >= beta) flag = EG_LOWER;
    int stored = E->horizon == horizon0 ? EG_PROVED : depth;
    tt_store(E, key, stored, flag, best, &best_move);
    return best;
}

/* The table twice as large, its entries put in again (it starts small: most endgames of a game's
 * self-play are a few hundred nodes). 0, or -1 when out of memory (the table stays as it was). */
static int tt_grow(EndgameObject *E) {
    uint64_t nb = 2 * (E->tt_mask + 1);
    TTEntry *t = calloc(2 * nb, sizeof(TTEntry));
    if (!t) return -1;
    for (uint64_t i = 0; i < 2 * (E->tt_mask + 1); i++) {
        const TTEntry *o = &E->tt[i];
        if (!o->depth) continue;
        TTEntry *b = &t[2 * (o->key & (nb - 1))];
        int second = b[0].depth && (!b[1].depth || o->depth < b[0].depth);
        b[second] = *o;
    }
    free(E->tt);
    E->tt = t;
    E->tt_mask = nb - 1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* the Python type                                                                             */

static void eg_dealloc(EndgameObject *E) {
    Py_XDECREF(E->positions);
    Py_XDECREF(E->more);
    Py_XDECREF(E->check);
    free(E->zb);
    free(E->tt);
    free(E->pend);
    free(E->pv);
    Py_TYPE(E)->tp_free((PyObject *)E);
}

/* Endgame(positions, more, check, grid, racks, values, scores, end_n, own_passes, target, floor_zero,
 * others_racks, exact_passes, tt_entries): see gamecore/endgame.py (_NativeSearch). */
static int eg_init(EndgameObject *E, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"positions",  "more",         "check",        "grid",       "racks",
                             "values",     "scores",       "end_n",        "own_passes", "target",
                             "floor_zero", "others_racks", "exact_passes", "tt_entries", NULL};
    PyObject *positions, *more, *check, *r0, *r1, *vals_o;
    Py_buffer gb;
    int s0, s1, end_n, own_passes, target, floor_zero, others_racks, exact_passes;
    long long tt_entries;
    if (E->pend) {
        PyErr_SetString(PyExc_RuntimeError, "Endgame() made twice");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OOy*(OO)O(ii)iiipppL", kwlist, &PyList_Type, &positions, &more,
                                     &check, &gb, &r0, &r1, &vals_o, &s0, &s1, &end_n, &own_passes, &target,
                                     &floor_zero, &others_racks, &exact_passes, &tt_entries))
        return -1;
    E->positions = Py_NewRef(positions);
    E->more = Py_NewRef(more);
    E->check = Py_NewRef(check);
    PositionObject *root = eg_pos(E, 0);
    if (!root) {
        PyBuffer_Release(&gb);
        return -1;
    }
    E->R = root->R;
    E->C = root->C;
    if (gb.len != (Py_ssize_t)E->R * E->C) {
        PyBuffer_Release(&gb);
        PyErr_Format(PyExc_ValueError, "grid: %d bytes expected", E->R * E->C);
        return -1;
    }
    memcpy(E->g, gb.buf, (size_t)gb.len);
    PyBuffer_Release(&gb);
    if (read_ints(r0, E->rk[0], MAX_TILE + 1, "racks") < 0 || read_ints(r1, E->rk[1], MAX_TILE + 1, "racks") < 0 ||
        read_ints(vals_o, E->vals, MAX_TILE + 1, "values") < 0)
        return -1;
    for (int side = 0; side < 2; side++) {
        E->n[side] = E->rv[side] = 0;
        for (int t = 0; t <= MAX_TILE; t++) {
            if (E->rk[side][t] < 0 || E->rk[side][t] > 15) {
                PyErr_SetString(PyExc_ValueError, "racks: a count outside 0..15");
                return -1;
            }
            E->n[side] += E->rk[side][t];
            E->rv[side] += t ? E->rk[side][t] * E->vals[t] : 0;
        }
    }
    E->sc[0] = s0, E->sc[1] = s1;
    E->end_n = end_n, E->own_passes = own_passes, E->has_target = target >= 0, E->target = target;
    E->floor_zero = floor_zero, E->others_racks = others_racks;
    E->additive = !floor_zero && target < 0;
    E->exact_passes = own_passes > 0 || exact_passes;
    uint64_t buckets = 1;
    while (buckets * 4 <= (uint64_t)(tt_entries > 2 ? tt_entries : 2)) buckets *= 2;
    E->tt_max_mask = buckets - 1;
    E->tt_mask = (buckets < 1024 ? buckets : 1024) - 1;
    E->tt = calloc(2 * (E->tt_mask + 1), sizeof(TTEntry));
    E->zb = malloc(sizeof(uint64_t) * 128 * (size_t)E->R * (size_t)E->C);
    E->pend = calloc(EG_MAXPLY + 1, sizeof(EgMove));
    E->pv = calloc((size_t)(EG_MAXPLY + 1) * EG_MAXPLY, sizeof(EgRef));
    if (!E->tt || !E->zb || !E->pend || !E->pv) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t seed = 0x5EEDE4D6ull;
    for (size_t i = 0; i < 128 * (size_t)E->R * (size_t)E->C; i++) E->zb[i] = splitmix(&seed);
    for (int side = 0; side < 2; side++)
        for (int t = 0; t <= MAX_TILE; t++) {
            E->zr[side][t][0] = 0;
            for (int c = 1; c < 16; c++) E->zr[side][t][c] = splitmix(&seed);
        }
    E->zside = splitmix(&seed);
    for (int i = 0; i < 64; i++) E->zk[i] = splitmix(&seed);
    for (int side = 0; side < 2; side++)
        for (int i = 0; i < 64; i++) E->zp[side][i] = splitmix(&seed);
    uint64_t h = 0;
    for (int sq = 0; sq < E->R * E->C; sq++)
        if (E->g[sq]) h ^= E->zb[sq * 128 + E->g[sq]];
    for (int side = 0; side < 2; side++)
        for (int t = 0; t <= MAX_TILE; t++) h ^= E->zr[side][t][E->rk[side][t] & 15];
    E->h = h;
    return 0;
}

/* search(depth, k, passes0, passes1) -> the value for the side on turn at the root (relative to the
 * spread now when additive), to `depth` plies; the line kept for line(). Raises what check() raised. */
static PyObject *eg_search(EndgameObject *E, PyObject *args) {
    int depth, k, pa0, pa1;
    if (!PyArg_ParseTuple(args, "iiii", &depth, &k, &pa0, &pa1)) return NULL;
    if (!E->pend) {
        PyErr_SetString(PyExc_RuntimeError, "Endgame not initialised");
        return NULL;
    }
    if (depth < 1 || depth >= EG_MAXPLY) {
        PyErr_SetString(PyExc_ValueError, "depth outside 1..159");
        return NULL;
    }
    E->failed = 0;
    int v = eg_negamax(E, 0, 0, k, pa0, pa1, depth, -EG_INF, EG_INF);
    if (E->failed) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "endgame search failed");
        return NULL;
    }
    E->root_pvlen = E->pvlen[0];
    memcpy(E->root_pv, E->pv, sizeof(EgRef) * (size_t)E->root_pvlen);
    return PyLong_FromLong(v);
}

/* line(k, passes0, passes1) -> [(player, "pass" | (row, col, across, letters, score, placed))]: the
 * line of the last search() that finished, then the table's moves while the game goes on. */
static PyObject *eg_line(EndgameObject *E, PyObject *args) {
    int k, pa[2];
    if (!PyArg_ParseTuple(args, "iii", &k, &pa[0], &pa[1])) return NULL;
    if (!E->pend) {
        PyErr_SetString(PyExc_RuntimeError, "Endgame not initialised");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    Undo undo[EG_MAXPLY];
    int who[EG_MAXPLY], placed[EG_MAXPLY], scores[EG_MAXPLY], made = 0;
    int end = E->exact_passes ? E->end_n : 2, d = 0, p = 0, guard = 4 * (E->n[0] + E->n[1] + end + 2);
    int ok = 1;
    E->pend[0].kind = MV_NONE;
    while (d < EG_MAXPLY - 1) {
        EgRef ref;
        if (d < E->root_pvlen) {
            ref = E->root_pv[d];
        } else {
            const TTEntry *e = tt_find(E, eg_key(E, p, k, pa[0], pa[1]));
            if (!e || e->mkind == MV_NONE) break;
            ref = (EgRef){e->mkind, e->mkey};
        }
        PositionObject *P = eg_board(E, d);
        if (!P || !eg_pos(E, d + 1)) {
            ok = 0;
            break;
        }
        PyObject *item;
        if (ref.kind == MV_PASS) {
            item = Py_BuildValue("(is)", p, "pass");
            if (!item || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                ok = 0;
                break;
            }
            Py_DECREF(item);
            k++;
            int mine = ++pa[p];
            if (k >= end || (E->own_passes && mine >= E->own_passes)) break;
            E->pend[d + 1].kind = MV_PASS;
        } else {
            long n = eg_generate(P, E->rk[p], -1, 1, 0);
            if (n < 0) {
                ok = 0;
                break;
            }
            const Move *m = NULL;
            for (long i = 0; i < n; i++)
                if (move_key(&P->s->moves[i], P->s->pool + P->s->moves[i].off) == ref.key) {
                    m = &P->s->moves[i];
                    break;
                }
            if (!m) break;
            const uint8_t *letters = P->s->pool + m->off;
            item = Py_BuildValue("(i(iiiy#ii))", p, m->row, m->col, m->across, (const char *)letters,
                                 (Py_ssize_t)m->len, m->score, m->placed);
            if (!item || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                ok = 0;
                break;
            }
            Py_DECREF(item);
            eg_make(E, d, p, m, letters, &undo[made]);
            who[made] = p, placed[made] = m->placed, scores[made] = m->score;
            made++;
            k = 0;
            pa[p] = 0;
            if (E->n[p] == 0 || (E->has_target && E->sc[p] >= E->target)) break;
        }
        d++;
        p = 1 - p;
        if (d > guard) break; /* (a cycle of passes cannot happen; a guard all the same) */
    }
    while (made > 0) {
        made--;
        eg_unmake(E, who[made], placed[made], scores[made], &undo[made]);
    }
    if (!ok) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *eg_get_nodes(EndgameObject *E, void *Py_UNUSED(c)) { return PyLong_FromLongLong(E->nodes); }

static PyObject *eg_get_horizon(EndgameObject *E, void *Py_UNUSED(c)) { return PyLong_FromLongLong(E->horizon); }

static PyGetSetDef eg_getset[] = {
    {"nodes", (getter)eg_get_nodes, NULL, "positions visited so far", NULL},
    {"horizon", (getter)eg_get_horizon, NULL, "values taken at the depth limit so far (none new: proved)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef eg_methods[] = {
    {"search", (PyCFunction)eg_search, METH_VARARGS,
     "search(depth, scoreless, passes0, passes1) -> int: the root's value searched to depth plies"},
    {"line", (PyCFunction)eg_line, METH_VARARGS,
     "line(scoreless, passes0, passes1) -> the last finished search's line, continued from the table"},
    {NULL, NULL, 0, NULL}};

PyTypeObject EndgameType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._native.Endgame",
    .tp_basicsize = sizeof(EndgameObject),
    .tp_dealloc = (destructor)eg_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Endgame(positions, more, check, grid, racks, values, scores, end_n, own_passes, target, floor_zero, "
              "others_racks, exact_passes, tt_entries): the endgame search of gamecore.endgame in C.",
    .tp_methods = eg_methods,
    .tp_getset = eg_getset,
    .tp_init = (initproc)eg_init,
    .tp_new = PyType_GenericNew,
};
