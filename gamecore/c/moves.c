/* The plays as Python objects, made only for the plays returned: RawMove, ScoredPlay tuples with
 * shared word tuples, and MoveList (the plays of one generation kept as plain structs). */

#include "native.h"

PyTypeObject *RawMoveType;

static PyStructSequence_Field rawmove_fields[] = {
    {"row", "0-based row of the main word's first square"},
    {"col", "0-based column of the main word's first square"},
    {"across", "True: the main word runs across; False: down"},
    {"letters", "bytes, the whole main word: tile number 1..63, +64 for a blank"},
    {"score", "the play's score (main word, cross words, bingo)"},
    {"tiles_placed", "number of tiles taken from the rack"},
    {NULL, NULL}};

PyStructSequence_Desc rawmove_desc = {
    "gamecore._native.RawMove", "One legal play: (row, col, across, letters, score, tiles_placed).", rawmove_fields, 6};

/* ------------------------------------------------------------------------------------------ */
/* Python objects, made only for the plays returned                                             */

/* The ints 0..255 and the empty tuple, held once (CPython keeps one object of each anyway): the
 * plays made take references to them without a call per field. */
PyObject *g_ints[256], *g_empty;

static inline PyObject *small_int(long v) {
    if (v >= 0 && v < 256) {
        Py_INCREF(g_ints[v]);
        return g_ints[v];
    }
    return PyLong_FromLong(v);
}

static PyObject *raw_move_in(const Move *m, const uint8_t *pool) {
    PyObject *o = PyStructSequence_New(RawMoveType);
    if (!o) return NULL;
    PyObject *w = PyBytes_FromStringAndSize((const char *)pool + m->off, m->len);
    PyObject *r = small_int(m->row), *c = small_int(m->col), *s = small_int(m->score);
    PyObject *t = small_int(m->placed);
    PyObject *a = m->across ? Py_True : Py_False;
    Py_INCREF(a);
    PyStructSequence_SET_ITEM(o, 0, r);
    PyStructSequence_SET_ITEM(o, 1, c);
    PyStructSequence_SET_ITEM(o, 2, a);
    PyStructSequence_SET_ITEM(o, 3, w);
    PyStructSequence_SET_ITEM(o, 4, s);
    PyStructSequence_SET_ITEM(o, 5, t);
    if (!w || !r || !c || !s || !t) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

PyObject *raw_move(Search *S, const Move *m) { return raw_move_in(m, S->pool); }

/* A gamecore.play.ScoredPlay (a NamedTuple: row, col, across, word, new, score, tiles_placed,
 * words): word from the tile table (one shared Tile per letter byte), new = the square was empty. */
/* The `new` tuples, one per span (row, col, direction, length) for the plays of one call: most
 * plays share their span with others. The slots used are listed, so that clearing costs only
 * what was used. */
#define NEWCACHE 4096

static uint32_t g_newkey[NEWCACHE];

static PyObject *g_newtup[NEWCACHE];

static uint16_t g_newused[NEWCACHE];

static int g_nnewused;

/* The `word` tuples, one per main word (letters, blanks marked) for the plays of one call: a word
 * is often played at many places (on the empty board each word ~9 times). A compact open-address
 * table (hash tag, entry) kept at most half full, the entries apart; cleared by its entries. */
#define WORDSLOTS (1 << 16)
#define WORDENTRIES (WORDSLOTS / 2)

typedef struct {
    uint32_t off, slot;
    uint8_t len;
    PyObject *tup;
} WordEntry;

static uint32_t g_wordtag[WORDSLOTS], g_wordent[WORDSLOTS];

static WordEntry g_wordents[WORDENTRIES];

static int g_nwordents;

void newcache_clear(void) {
    for (int i = 0; i < g_nnewused; i++) {
        int h = g_newused[i];
        Py_CLEAR(g_newtup[h]);
        g_newkey[h] = 0;
    }
    g_nnewused = 0;
    for (int i = 0; i < g_nwordents; i++) {
        Py_CLEAR(g_wordents[i].tup);
        g_wordtag[g_wordents[i].slot] = 0;
    }
    g_nwordents = 0;
}

static PyObject *new_flags(Search *S, const Move *m) {
    uint32_t key = 1u + ((uint32_t)m->row | (uint32_t)m->col << 6 | (uint32_t)m->across << 12 | (uint32_t)m->len << 13);
    uint32_t h = (key * 2654435761u) >> 20; /* 12 bits */
    for (int probe = 0; probe < 8; probe++, h = (h + 1) & (NEWCACHE - 1)) {
        if (g_newkey[h] == key) {
            Py_INCREF(g_newtup[h]);
            return g_newtup[h];
        }
        if (!g_newkey[h]) break;
    }
    PyObject *t = PyTuple_New(m->len);
    if (!t) return NULL;
    for (int i = 0; i < m->len; i++) {
        int rr = m->across ? m->row : m->row + i, cc = m->across ? m->col + i : m->col;
        PyObject *b = S->G[rr][cc] == 0 ? Py_True : Py_False;
        Py_INCREF(b);
        PyTuple_SET_ITEM(t, i, b);
    }
    if (!g_newkey[h]) {
        g_newkey[h] = key;
        Py_INCREF(t);
        g_newtup[h] = t;
        g_newused[g_nnewused++] = (uint16_t)h;
    }
    return t;
}

static PyObject *word_tuple(Search *S, const Move *m, PyObject **table) {
    const uint8_t *w = S->pool + m->off;
    uint32_t h = 2166136261u;
    for (int i = 0; i < m->len; i++) h = (h ^ w[i]) * 16777619u;
    uint32_t tag = h | 1u, i = (h ^ (h >> 16)) & (WORDSLOTS - 1);
    for (;; i = (i + 1) & (WORDSLOTS - 1)) {
        uint32_t t = g_wordtag[i];
        if (!t) break;
        if (t == tag) {
            WordEntry *e = &g_wordents[g_wordent[i]];
            if (e->len == m->len && memcmp(S->pool + e->off, w, m->len) == 0) {
                Py_INCREF(e->tup);
                return e->tup;
            }
        }
    }
    PyObject *t = PyTuple_New(m->len);
    if (!t) return NULL;
    for (int k = 0; k < m->len; k++) {
        PyObject *tile = table[w[k] & 127];
        Py_INCREF(tile);
        PyTuple_SET_ITEM(t, k, tile);
    }
    if (g_nwordents < WORDENTRIES) {
        WordEntry *e = &g_wordents[g_nwordents];
        e->off = m->off;
        e->slot = i;
        e->len = m->len;
        Py_INCREF(t);
        e->tup = t;
        g_wordtag[i] = tag;
        g_wordent[i] = (uint32_t)g_nwordents++;
    }
    return t;
}

PyObject *scored_play(Search *S, const Move *m, PyTypeObject *type, PyObject **table) {
    PyObject *o = type->tp_alloc(type, 8);
    if (!o) return NULL;
    PyObject *word = word_tuple(S, m, table), *isnew = new_flags(S, m);
    PyObject *r = small_int(m->row), *c = small_int(m->col), *s = small_int(m->score);
    PyObject *t = small_int(m->placed), *words = g_empty;
    PyObject *a = m->across ? Py_True : Py_False;
    Py_INCREF(words);
    Py_INCREF(a);
    PyTuple_SET_ITEM(o, 0, r);
    PyTuple_SET_ITEM(o, 1, c);
    PyTuple_SET_ITEM(o, 2, a);
    PyTuple_SET_ITEM(o, 3, word);
    PyTuple_SET_ITEM(o, 4, isnew);
    PyTuple_SET_ITEM(o, 5, s);
    PyTuple_SET_ITEM(o, 6, t);
    PyTuple_SET_ITEM(o, 7, words);
    if (!word || !isnew || !r || !c || !s || !t || !words) {
        Py_DECREF(o);
        return NULL;
    }
    return o;
}

/* ------------------------------------------------------------------------------------------ */
/* MoveList: the plays of one generation kept as the generator recorded them (plain structs and  */
/* their letters), a sequence whose items are RawMoves made when read -- MAGPIE's practice of a  */
/* move list turned into objects only when asked for. It takes over the generator's buffers     */
/* (no copy) and hands them back for reuse when it goes.                                         */

/* buffers handed back by a MoveList, for the next generation of any search (a free list, used with
 * the GIL held) */
static Move *g_spare_moves;
static uint8_t *g_spare_pool;
static size_t g_spare_capm, g_spare_capp;

typedef struct {
    PyObject_HEAD
    Move *moves;
    uint8_t *pool;
    size_t n, capm, capp;
} MoveListObject;

void take_spare_buffers(Search *S) {
    if (!S->moves && g_spare_moves) {
        S->moves = g_spare_moves;
        S->capmoves = g_spare_capm;
        g_spare_moves = NULL;
        g_spare_capm = 0;
    }
    if (!S->pool && g_spare_pool) {
        S->pool = g_spare_pool;
        S->cappool = g_spare_capp;
        g_spare_pool = NULL;
        g_spare_capp = 0;
    }
}

static void ml_dealloc(MoveListObject *L) {
    if (L->moves) {
        if (!g_spare_moves || g_spare_capm < L->capm) {
            free(g_spare_moves);
            g_spare_moves = L->moves;
            g_spare_capm = L->capm;
        } else {
            free(L->moves);
        }
    }
    if (L->pool) {
        if (!g_spare_pool || g_spare_capp < L->capp) {
            free(g_spare_pool);
            g_spare_pool = L->pool;
            g_spare_capp = L->capp;
        } else {
            free(L->pool);
        }
    }
    Py_TYPE(L)->tp_free((PyObject *)L);
}

static Py_ssize_t ml_len(MoveListObject *L) { return (Py_ssize_t)L->n; }

static PyObject *ml_item(MoveListObject *L, Py_ssize_t i) {
    if (i < 0 || (size_t)i >= L->n) {
        PyErr_SetString(PyExc_IndexError, "MoveList index out of range");
        return NULL;
    }
    return raw_move_in(&L->moves[i], L->pool);
}

static PyObject *ml_subscript(MoveListObject *L, PyObject *key) {
    if (PyIndex_Check(key)) {
        Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred()) return NULL;
        if (i < 0) i += (Py_ssize_t)L->n;
        return ml_item(L, i);
    }
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
        Py_ssize_t k = PySlice_AdjustIndices((Py_ssize_t)L->n, &start, &stop, step);
        PyObject *out = PyList_New(k);
        for (Py_ssize_t j = 0; out && j < k; j++) {
            PyObject *o = raw_move_in(&L->moves[start + j * step], L->pool);
            if (!o) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, j, o);
        }
        return out;
    }
    PyErr_SetString(PyExc_TypeError, "MoveList indices must be integers or slices");
    return NULL;
}

static PySequenceMethods ml_as_sequence = {.sq_length = (lenfunc)ml_len, .sq_item = (ssizeargfunc)ml_item};

static PyMappingMethods ml_as_mapping = {.mp_length = (lenfunc)ml_len, .mp_subscript = (binaryfunc)ml_subscript};

PyTypeObject MoveListType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._native.MoveList",
    .tp_basicsize = sizeof(MoveListObject),
    .tp_dealloc = (destructor)ml_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The plays of one generation as the generator recorded them; items are RawMoves, made when read.",
    .tp_as_sequence = &ml_as_sequence,
    .tp_as_mapping = &ml_as_mapping,
};

/* A MoveList of the first n plays recorded (it takes the buffers). */
PyObject *move_list_take(Search *S, size_t n) {
    MoveListObject *L = PyObject_New(MoveListObject, &MoveListType);
    if (!L) return NULL;
    L->moves = S->moves;
    L->pool = S->pool;
    L->capm = S->capmoves;
    L->capp = S->cappool;
    L->n = n;
    S->moves = NULL;
    S->pool = NULL;
    S->capmoves = S->cappool = 0;
    return (PyObject *)L;
}
