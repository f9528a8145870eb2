/* The Python module gamecore._native: generate(), last_stats(), the method table and PyInit__native. */

#include "native.h"

int read_grid(PyObject *obj, int *rows, int *cols, uint8_t out[MAXD][MAXD], int maxv, const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(seq);
    if (nr < 1 || nr > MAXD) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: 1 to %d rows expected", what, MAXD);
        return -1;
    }
    for (Py_ssize_t r = 0; r < nr; r++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, r), what);
        if (!row) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t nc = PySequence_Fast_GET_SIZE(row);
        if ((*cols >= 0 && nc != *cols) || nc < 1 || nc > MAXD) {
            Py_DECREF(row);
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s: row %zd has %zd squares", what, r + 1, nc);
            return -1;
        }
        *cols = (int)nc;
        for (Py_ssize_t c = 0; c < nc; c++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, c));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(row);
                Py_DECREF(seq);
                return -1;
            }
            if (v < 0 || v > maxv) {
                Py_DECREF(row);
                Py_DECREF(seq);
                PyErr_Format(PyExc_ValueError, "%s: bad value %ld at row %zd column %zd", what, v, r + 1, c + 1);
                return -1;
            }
            out[r][c] = (uint8_t)v;
        }
        Py_DECREF(row);
    }
    if (*rows >= 0 && nr != *rows) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: %zd rows, expected %d", what, nr, *rows);
        return -1;
    }
    *rows = (int)nr;
    Py_DECREF(seq);
    return 0;
}

int read_ints(PyObject *obj, int *out, int maxn, const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > maxn) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: at most %d entries", what, maxn);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The tile table and play type arguments: NULL table when none was given; -1 on a bad one. */
int play_args(PyObject *table_o, PyObject *type_o, PyObject **table_seq, PyObject ***table, PyTypeObject **play_type) {
    *table_seq = NULL;
    *table = NULL;
    *play_type = NULL;
    if (table_o == Py_None) return 0;
    *table_seq = PySequence_Fast(table_o, "tiles must be a sequence");
    if (!*table_seq) return -1;
    if (PySequence_Fast_GET_SIZE(*table_seq) != 128) {
        PyErr_SetString(PyExc_ValueError, "tiles: 128 entries expected (letter byte -> tile)");
        return -1;
    }
    if (!PyType_Check(type_o) || !PyType_IsSubtype((PyTypeObject *)type_o, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "play_type must be a tuple subclass");
        return -1;
    }
    *table = PySequence_Fast_ITEMS(*table_seq);
    *play_type = (PyTypeObject *)type_o;
    return 0;
}

/* The rack into g (counts, blanks, mask); the values must be set. */
int rack_arg(Gen *g, PyObject *rack_o, int blanks) {
    if (read_ints(rack_o, g->rack, MAX_TILE + 1, "rack_counts") < 0) return -1;
    g->rack[0] = 0;
    g->blanks = blanks < 0 ? 0 : blanks;
    g->rackmask = 0;
    for (int t = 1; t <= MAX_TILE; t++)
        if (g->rack[t] > 0) g->rackmask |= 1ull << t;
    return 0;
}

/* generate()'s arguments, named as in its signature: each is given by position or by name. */
typedef struct {
    Py_buffer kwg;
    PyObject *grid, *rack_counts, *letter_mult, *word_mult, *tile_values;
    int blanks, start_row, start_col, bingo_bonus, first_move, bingo_tiles;
    PyObject *blocked;      /* None: no blocked squares */
    int node24;             /* -1: Node24 when the graph has more than 2^22 nodes */
    int blank_letter_value; /* a blank scores its letter's value */
    int limit, sorted, prune;
    PyObject *tiles, *play_type, *bingo_index; /* None when not given */
} GenerateArgs;

static int generate_args(PyObject *args, PyObject *kw, GenerateArgs *a) {
    static char *kwlist[] = {"kwg",         "grid",        "rack_counts", "blanks",      "letter_mult",
                             "word_mult",   "start_row",   "start_col",   "tile_values", "bingo_bonus",
                             "first_move",  "bingo_tiles", "blocked",     "node24",      "blank_letter_value",
                             "limit",       "sorted",      "prune",       "tiles",       "play_type",
                             "bingo_index", NULL};
    *a = (GenerateArgs){
        .blocked = Py_None, .node24 = -1, .limit = -1, .tiles = Py_None, .play_type = Py_None, .bingo_index = Py_None};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*OOiOOiiOipi|OipippOOO", kwlist, &a->kwg, &a->grid, &a->rack_counts,
                                     &a->blanks, &a->letter_mult, &a->word_mult, &a->start_row, &a->start_col,
                                     &a->tile_values, &a->bingo_bonus, &a->first_move, &a->bingo_tiles, &a->blocked,
                                     &a->node24, &a->blank_letter_value, &a->limit, &a->sorted, &a->prune, &a->tiles,
                                     &a->play_type, &a->bingo_index))
        return -1;
    return 0;
}

static PyObject *py_generate(PyObject *Py_UNUSED(self), PyObject *args, PyObject *kw) {
    Search *S = &g_search;
    GenerateArgs a;
    if (generate_args(args, kw, &a) < 0) return NULL;
    Py_buffer *kb = &a.kwg, bb = {0};
    PyObject *grid_o = a.grid, *rack_o = a.rack_counts, *lm_o = a.letter_mult, *wm_o = a.word_mult;
    PyObject *val_o = a.tile_values, *blocked_o = a.blocked, *table_o = a.tiles, *type_o = a.play_type;
    PyObject *bidx_o = a.bingo_index;
    int blanks = a.blanks, srow = a.start_row, scol = a.start_col, bingo = a.bingo_bonus, first = a.first_move;
    int bingo_tiles = a.bingo_tiles, wide = a.node24, blank_letter_value = a.blank_letter_value;
    int limit = a.limit, sorted_out = a.sorted, prune = a.prune;
    static uint8_t lmg[MAXD][MAXD], wmg[MAXD][MAXD], bkg[MAXD][MAXD];
    Gen gen;
    Gen *g = &gen;
    PyObject *out = NULL, *table_seq = NULL;
    PyObject **table = NULL;
    PyTypeObject *play_type = NULL;
    if (S->busy) {
        PyBuffer_Release(kb);
        PyErr_SetString(PyExc_RuntimeError, "generate() called again while it runs");
        return NULL;
    }
    S->busy = 1;
    memset(g, 0, sizeof *g);
    g->s = S;
    S->L = S->lanes;
    S->G = S->grid;
    if (bingo_arg(S, bidx_o, &bb) < 0) goto fail;
    size_t nnodes = (size_t)kb->len / 4;
    /* our writer's rule unless told: Node24 only beyond 2^22 nodes */
    S->wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    S->nnodes = nnodes;
    S->kwg = (const uint32_t *)kb->buf;
    if (nnodes < 2) {
        PyErr_SetString(PyExc_ValueError, "KWG too small");
        goto fail;
    }
    int R = -1, C = -1;
    if (read_grid(grid_o, &R, &C, S->grid, 127, "grid") < 0) goto fail;
    if (read_grid(lm_o, &R, &C, lmg, 255, "letter multipliers") < 0) goto fail;
    if (read_grid(wm_o, &R, &C, wmg, 255, "word multipliers") < 0) goto fail;
    memset(bkg, 0, sizeof bkg);
    if (blocked_o != Py_None && read_grid(blocked_o, &R, &C, bkg, 1, "blocked") < 0) goto fail;
    if (N_ARC(S->kwg[0]) >= nnodes || N_ARC(S->kwg[1]) >= nnodes) {
        PyErr_SetString(PyExc_ValueError, "not a KWG");
        goto fail;
    }
    int tiles = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            if (S->grid[r][c]) {
                if ((S->grid[r][c] & 63) == 0) {
                    PyErr_Format(PyExc_ValueError, "grid: bad value %d", S->grid[r][c]);
                    goto fail;
                }
                tiles++;
            }
    if (read_ints(val_o, g->values, MAX_TILE + 1, "tile_values") < 0) goto fail;
    if (rack_arg(g, rack_o, blanks) < 0) goto fail;
    if (play_args(table_o, type_o, &table_seq, &table, &play_type) < 0) goto fail;
    if (table) sorted_out = 1;
    int negative = 0;
    for (int t = 0; t <= MAX_TILE; t++) {
        g->bvalues[t] = blank_letter_value ? g->values[t] : 0;
        if (g->values[t] < 0) negative = 1;
    }
    g->bingo = bingo;
    g->bingo_tiles = bingo_tiles;
    if (first && (srow < 0 || srow >= R || scol < 0 || scol >= C)) {
        PyErr_SetString(PyExc_ValueError, "start square outside the board");
        goto fail;
    }
    compute_lanes(S, S->lanes, S->grid, lmg, wmg, bkg, R, C, first, srow, scol, g->values, g->bvalues);
    int nanchors = list_anchors(S, S->lanes, R, C);
    SearchArgs sa = {.limit = limit,
                     .sorted = sorted_out,
                     .prune = prune,
                     .negative = negative,
                     .table = table,
                     .play_type = play_type,
                     .empty_board = first && !tiles};
    out = search(g, R, C, nanchors, &sa);
fail:
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    S->bidx = NULL;
    PyBuffer_Release(kb);
    S->busy = 0;
    return out;
}

static PyObject *py_last_stats(PyObject *Py_UNUSED(self), PyObject *args) {
    const Search *S = g_last_search ? g_last_search : &g_search;
    int detail = 0;
    if (!PyArg_ParseTuple(args, "|p", &detail)) return NULL;
    if (!detail) return Py_BuildValue("llll", S->st_anchors, S->st_searched, S->st_recorded, S->st_calls);
    PyObject *l = PyList_New(0);
    for (long i = 0; l && i < S->nsteps; i++) {
        const Step *A = &S->steps[i];
        PyObject *t = Py_BuildValue("iiiiiiil", A->dir, A->lane, A->pos, A->s, A->e, A->bound, A->best, A->work);
        if (!t || PyList_Append(l, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(t);
    }
    return l;
}

static PyMethodDef methods[] = {
    {"encode_words", py_encode_words, METH_VARARGS,
     "encode_words(words: list[str], table: bytes) -> bytes (tile numbers, 0 between words)"},
    {"check_kwg", py_check_kwg, METH_VARARGS,
     "check_kwg(kwg) -> None; ValueError when arcs point outside the array (so traversal is safe)."},
    {"build_kwg", py_build_kwg, METH_VARARGS,
     "build_kwg(words: bytes, node24=False) -> bytes\n\nWords as tile numbers (1..63), separated by "
     "zero bytes, in any order (duplicates allowed). Returns the KWG (DAWG + GADDAG), little-endian "
     "32-bit nodes; Node24 layout when asked or when there are more than 2^22 nodes."},
    {"generate", (PyCFunction)(void (*)(void))py_generate, METH_VARARGS | METH_KEYWORDS,
     "generate(kwg, grid, rack_counts, blanks, letter_mult, word_mult, start_row, start_col, "
     "tile_values, bingo_bonus, first_move, bingo_tiles, blocked=None, node24=-1, "
     "blank_letter_value=False, limit=-1, sorted=False, prune=False, tiles=None, play_type=None, "
     "bingo_index=None) "
     "-> list[RawMove] (generator order), or sorted best first (sorted, limit >= 0 or tiles); "
     "with tiles (128 objects, letter byte -> tile) and play_type: ScoredPlay-shaped tuples"},
    {"bingo_index", py_bingo_index, METH_VARARGS,
     "bingo_index(kwg, node24=-1, min_len=7) -> bytes: multiset hashes of the words of at least "
     "min_len letters (for generate(..., bingo_index=...): bingo spans no word fits are not searched)"},
    {"last_stats", py_last_stats, METH_VARARGS,
     "last_stats(detail=False) -> (anchors, anchors searched, plays recorded, search calls) of the last "
     "generate(); detail: per anchor searched with pruning (dir, lane, pos, best span s, e, bound, best score found, "
     "calls)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_native", "Compiled KWG builder and move generator.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&moduledef);
    search_init(&g_search);
    if (!m) return NULL;
    for (int i = 0; i < 256; i++) {
        g_ints[i] = PyLong_FromLong(i);
        if (!g_ints[i]) return NULL;
    }
    g_empty = PyTuple_New(0);
    if (!g_empty) return NULL;
    RawMoveType = PyStructSequence_NewType(&rawmove_desc);
    if (!RawMoveType) return NULL;
    Py_INCREF(RawMoveType);
    PyModule_AddObject(m, "RawMove", (PyObject *)RawMoveType);
    if (PyType_Ready(&MoveListType) < 0) return NULL;
    Py_INCREF(&MoveListType);
    PyModule_AddObject(m, "MoveList", (PyObject *)&MoveListType);
    if (PyType_Ready(&LeavesType) < 0) return NULL;
    Py_INCREF(&LeavesType);
    PyModule_AddObject(m, "Leaves", (PyObject *)&LeavesType);
    if (PyType_Ready(&PositionType) < 0) return NULL;
    Py_INCREF(&PositionType);
    PyModule_AddObject(m, "Position", (PyObject *)&PositionType);
    if (PyType_Ready(&EndgameType) < 0) return NULL;
    Py_INCREF(&EndgameType);
    PyModule_AddObject(m, "Endgame", (PyObject *)&EndgameType);
    /* bumped whenever the Python side needs a rebuilt extension (checked by gamecore.kwg) */
    PyModule_AddIntConstant(m, "ABI", NATIVE_ABI);
    return m;
}
