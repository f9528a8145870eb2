/* gamecore._scorer: a compiled board for replaying game logs.
 *
 * ScoreBoard keeps the tiles on a board and, for a play written as in GCG (start square, direction,
 * one token per square), decides whether it is legal and scores it: the same rules as the Python
 * oracle gamecore.play (docs/RULES.md §2), written apart from it and from the move generator
 * (gamecore/c/) on purpose; tests/test_replay_board.py checks this file against gamecore.play on
 * random boards and plays.
 *
 * A play is given as tokens (strings, one per square from the start square, as in a GCG word) and
 * the board's token_codes mapping (a dict, or a dict subclass that fills itself in __missing__)
 * turns each token into a byte:
 *   0                 '.': a tile already on the board (any letter)
 *   code | BLANK      a tile: code = 1-based letter index of the tile set (1..62), 63 = a letter
 *                     the tile set lacks; BLANK (0x40) = a blank standing for the letter
 * Tokens whose index is in `through` (written in parentheses) must be on occupied squares.
 * Board squares hold code | BLANK, or 0 when empty.
 *
 * ScoreBoard.play(row, col, across, tokens, through) returns, for a legal play, the tuple
 *   (score, used, words, main_text)
 * score with the bingo bonus; used = the rack tiles of the new tiles in token order (from the
 * rack_labels tuple: the label, or '?' for a blank); words = every word formed (main word first,
 * then cross words in token order), lowercase; main_text = the main word in GCG notation ('.' for
 * played-through tiles, lowercase blank, [..] around multi-letter labels). The tiles are then on
 * the board. For an illegal play it returns an int > 0 (the caller asks the oracle for the reason)
 * and changes nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAXD 32
#define BLANK 0x40
#define THROUGH 0x80
#define UNKNOWN 63
#define MAXTXT 8 /* code points of one label as text (brackets included) */
#define MAXLINE (MAXD * MAXTXT)

enum {
    OK = 0,
    E_OFF_BOARD,
    E_EMPTY_THROUGH,
    E_MISMATCH,
    E_UNKNOWN,
    E_NOT_WHOLE,
    E_NO_TILES,
    E_BLOCKED,
    E_FIRST_OFF_START,
    E_NOT_TOUCHING,
    E_TOO_SHORT
};

typedef struct {
    Py_UCS4 cp[MAXTXT];
    int n;
} Text;

typedef struct {
    PyObject_HEAD
    int size;
    int start;           /* start square, row * size + col */
    int blank_scores;    /* rules blank_value = "letter" */
    int add_word;        /* rules word_premiums = "add" */
    int bingo_min, bingo_bonus;
    int ntiles;          /* tiles on the board */
    int values[64];
    Text word[64];       /* label in lowercase (words formed) */
    Text gcg[64];        /* label as written in GCG words: upper case, [..] when multi-letter */
    Text gcg_blank[64];  /* the same in lower case (a blank) */
    uint8_t lmul[MAXD * MAXD], wmul[MAXD * MAXD], blocked[MAXD * MAXD];
    uint8_t grid[MAXD * MAXD];
    int last[MAXD];      /* squares of the last play (undo) */
    int nlast;
    PyObject *token_codes; /* token -> byte code (mapping) */
    PyObject *rack_labels; /* tuple of 128 strings: byte code -> rack tile */
} ScoreBoard;

static int read_bytes(PyObject *obj, uint8_t *out, Py_ssize_t n, const char *what) {
    if (!PyBytes_Check(obj) || PyBytes_GET_SIZE(obj) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd bytes", what, n);
        return -1;
    }
    memcpy(out, PyBytes_AS_STRING(obj), (size_t)n);
    return 0;
}

static int read_texts(PyObject *seq, Text *out, const char *what) {
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != 64) {
        PyErr_Format(PyExc_ValueError, "%s: expected a tuple of 64 strings", what);
        return -1;
    }
    for (int i = 0; i < 64; i++) {
        PyObject *s = PyTuple_GET_ITEM(seq, i);
        if (!PyUnicode_Check(s) || PyUnicode_GET_LENGTH(s) > MAXTXT) {
            PyErr_Format(PyExc_ValueError, "%s[%d]: expected a string of at most %d characters", what, i, MAXTXT);
            return -1;
        }
        out[i].n = (int)PyUnicode_GET_LENGTH(s);
        for (int k = 0; k < out[i].n; k++) out[i].cp[k] = PyUnicode_READ_CHAR(s, k);
    }
    return 0;
}

/* Limits that keep every score within a C int: a letter is worth at most MAXVALUE, a square
 * multiplies a letter by at most 4, and the word multipliers along one row or column multiply to at
 * most MAXWORDMULT (a board or tile set beyond them is left to the oracle). */
#define MAXVALUE 1000
#define MAXWORDMULT 4096
#define MAXBINGO 100000

static int line_mult_ok(const uint8_t *wmul, int size) {
    for (int k = 0; k < size; k++) {
        long row = 1, col = 1;
        for (int i = 0; i < size; i++) {
            row *= wmul[k * size + i] ? wmul[k * size + i] : 1;
            col *= wmul[i * size + k] ? wmul[i * size + k] : 1;
            if (row > MAXWORDMULT || col > MAXWORDMULT) return 0;
        }
    }
    return 1;
}

static int ScoreBoard_init(ScoreBoard *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"size",           "start",        "letter_mult",       "word_mult",
                             "blocked",        "values",       "word_text",         "gcg_text",
                             "gcg_blank_text", "blank_scores", "add_word_premiums", "bingo_min",
                             "bingo_bonus",    "token_codes",  "rack_labels",       NULL};
    PyObject *lmul, *wmul, *blocked, *values, *word, *gcg, *gcg_blank, *token_codes, *rack_labels;
    int size, start, blank_scores, add_word, bingo_min, bingo_bonus;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOOOOOppiiO!O!", kwlist, &size, &start, &lmul, &wmul, &blocked,
                                     &values, &word, &gcg, &gcg_blank, &blank_scores, &add_word, &bingo_min,
                                     &bingo_bonus, &PyDict_Type, &token_codes, &PyTuple_Type, &rack_labels))
        return -1;
    if (PyTuple_GET_SIZE(rack_labels) != 128) {
        PyErr_SetString(PyExc_ValueError, "rack_labels: expected a tuple of 128 strings");
        return -1;
    }
    if (size < 1 || size > MAXD) {
        PyErr_Format(PyExc_ValueError, "size %d: expected 1..%d", size, MAXD);
        return -1;
    }
    if (start < 0 || start >= size * size) {
        PyErr_SetString(PyExc_ValueError, "start square off the board");
        return -1;
    }
    if (bingo_bonus < 0 || bingo_bonus > MAXBINGO) {
        PyErr_Format(PyExc_ValueError, "bingo bonus %d: expected 0..%d", bingo_bonus, MAXBINGO);
        return -1;
    }
    /* everything is read into a scratch board first: a failed call leaves this one as it was */
    ScoreBoard *t = PyMem_Calloc(1, sizeof(ScoreBoard));
    if (!t) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t n = (Py_ssize_t)size * size;
    if (read_bytes(lmul, t->lmul, n, "letter_mult") || read_bytes(wmul, t->wmul, n, "word_mult") ||
        read_bytes(blocked, t->blocked, n, "blocked"))
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++)
        if (t->lmul[i] > 4) {
            PyErr_SetString(PyExc_ValueError, "letter_mult: a square multiplies a letter by at most 4");
            goto fail;
        }
    if (!line_mult_ok(t->wmul, size)) {
        PyErr_Format(PyExc_ValueError, "word_mult: the word premiums of a line multiply to more than %d", MAXWORDMULT);
        goto fail;
    }
    if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != 64) {
        PyErr_SetString(PyExc_ValueError, "values: expected a tuple of 64 ints");
        goto fail;
    }
    for (int i = 0; i < 64; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(values, i));
        if (v == -1 && PyErr_Occurred()) goto fail;
        if (v < 0 || v > MAXVALUE) {
            PyErr_Format(PyExc_ValueError, "values[%d] = %ld: expected 0..%d", i, v, MAXVALUE);
            goto fail;
        }
        t->values[i] = (int)v;
    }
    if (read_texts(word, t->word, "word_text") || read_texts(gcg, t->gcg, "gcg_text") ||
        read_texts(gcg_blank, t->gcg_blank, "gcg_blank_text"))
        goto fail;
    t->size = size;
    t->start = start;
    t->blank_scores = blank_scores;
    t->add_word = add_word;
    t->bingo_min = bingo_min;
    t->bingo_bonus = bingo_bonus;
    /* the plain data (from size up to the references), then the references */
    memcpy(&self->size, &t->size, offsetof(ScoreBoard, token_codes) - offsetof(ScoreBoard, size));
    PyMem_Free(t);
    Py_INCREF(token_codes);
    Py_XSETREF(self->token_codes, token_codes);
    Py_INCREF(rack_labels);
    Py_XSETREF(self->rack_labels, rack_labels);
    return 0;
fail:
    PyMem_Free(t);
    return -1;
}

static void ScoreBoard_dealloc(ScoreBoard *self) {
    Py_XDECREF(self->token_codes);
    Py_XDECREF(self->rack_labels);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The byte codes of the tokens (THROUGH set for the indexes in `through`); -1 with an exception set
 * on an error, 1 when there are more tokens than any board row holds. */
static int token_bytes(ScoreBoard *self, PyObject *tokens, PyObject *through, uint8_t *out, Py_ssize_t *n) {
    /* a tuple of our own: the look-ups below may run Python code, which must not change it */
    PyObject *seq = PySequence_Tuple(tokens);
    if (!seq) return -1;
    *n = PyTuple_GET_SIZE(seq);
    if (*n > MAXD) {
        Py_DECREF(seq);
        return 1;
    }
    PyObject **items = &PyTuple_GET_ITEM(seq, 0);
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *v = PyDict_GetItemWithError(self->token_codes, items[i]); /* borrowed */
        long code;
        if (v) {
            code = PyLong_AsLong(v);
        } else {
            if (PyErr_Occurred()) goto fail;
            v = PyObject_GetItem(self->token_codes, items[i]); /* a dict subclass fills itself in */
            if (!v) goto fail;
            code = PyLong_AsLong(v);
            Py_DECREF(v);
        }
        if (code == -1 && PyErr_Occurred()) goto fail;
        out[i] = (uint8_t)code;
    }
    Py_DECREF(seq);
    int any = through == Py_None ? 0 : PyObject_IsTrue(through);
    if (any < 0) return -1;
    if (any) {
        PyObject *it = PyObject_GetIter(through), *x;
        if (!it) return -1;
        while ((x = PyIter_Next(it))) {
            Py_ssize_t k = PyLong_AsSsize_t(x);
            Py_DECREF(x);
            if (k == -1 && PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_OverflowError)) break;
                PyErr_Clear(); /* an index beyond any board: no token has it */
                continue;
            }
            if (k >= 0 && k < *n) out[k] |= THROUGH;
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
fail:
    Py_DECREF(seq);
    return -1;
}

/* The line of tiles through square sq in direction step (1 across, size down), with the new tiles
 * (isnew[square] set) already in the grid: its first square and length, and its points. */
typedef struct {
    int first, len, points;
} Line;

static Line read_line(const ScoreBoard *b, const uint8_t *isnew, int sq, int across) {
    int size = b->size, step = across ? 1 : size;
    int r = sq / size, c = sq % size;
    /* back to the first tile */
    while ((across ? c : r) > 0 && b->grid[sq - step]) {
        sq -= step;
        if (across) c--;
        else r--;
    }
    Line ln = {sq, 0, 0};
    int total = 0, mult = 1, addsum = 0, nwm = 0;
    int pos = across ? c : r;
    while (pos < size && b->grid[sq]) {
        uint8_t t = b->grid[sq];
        int code = t & 0x3F;
        int v = (b->blank_scores || !(t & BLANK)) ? b->values[code] : 0;
        if (isnew[sq]) {
            total += v * b->lmul[sq];
            int wm = b->wmul[sq];
            if (wm > 1) {
                mult *= wm;
                addsum += wm;
                nwm++;
            }
        } else {
            total += v;
        }
        ln.len++;
        sq += step;
        pos++;
    }
    if (b->add_word) mult = nwm ? addsum : 1;
    ln.points = total * mult;
    return ln;
}

static PyObject *line_word(const ScoreBoard *b, Line ln, int across) {
    Py_UCS4 buf[MAXLINE];
    int n = 0, step = across ? 1 : b->size;
    for (int i = 0, sq = ln.first; i < ln.len; i++, sq += step) {
        const Text *t = &b->word[b->grid[sq] & 0x3F];
        for (int k = 0; k < t->n; k++) buf[n++] = t->cp[k];
    }
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n);
}

static PyObject *line_gcg(const ScoreBoard *b, Line ln, int across, const uint8_t *isnew) {
    Py_UCS4 buf[MAXLINE];
    int n = 0, step = across ? 1 : b->size;
    for (int i = 0, sq = ln.first; i < ln.len; i++, sq += step) {
        uint8_t g = b->grid[sq];
        if (!isnew[sq]) {
            buf[n++] = '.';
            continue;
        }
        const Text *t = (g & BLANK) ? &b->gcg_blank[g & 0x3F] : &b->gcg[g & 0x3F];
        for (int k = 0; k < t->n; k++) buf[n++] = t->cp[k];
    }
    return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n);
}

static int occupied(const ScoreBoard *b, int r, int c) {
    return r >= 0 && c >= 0 && r < b->size && c < b->size && b->grid[r * b->size + c];
}

/* Legality and the squares of the new tiles; the grid is not changed. */
static int find_placed(const ScoreBoard *b, int row, int col, int across, const uint8_t *tok, Py_ssize_t n, int *placed,
                       uint8_t *codes, int *np) {
    int size = b->size, dr = across ? 0 : 1, dc = across ? 1 : 0;
    Py_ssize_t on_board = 0;
    if (row >= 0 && row < size && col >= 0 && col < size) {
        on_board = size - (across ? col : row);
        if (n < on_board) on_board = n;
    }
    *np = 0;
    int r = row, c = col;
    for (Py_ssize_t i = 0; i < n; i++, r += dr, c += dc) {
        if (i == on_board) return E_OFF_BOARD;
        int sq = r * size + c;
        uint8_t t = tok[i], have = b->grid[sq];
        if ((t & 0x3F) == 0) { /* '.' (with or without parentheses) */
            if (!have) return E_EMPTY_THROUGH;
            continue;
        }
        if (have) {
            if ((have & 0x3F) != (t & 0x3F)) return E_MISMATCH;
            continue;
        }
        if (t & THROUGH) return E_EMPTY_THROUGH;
        if ((t & 0x3F) == UNKNOWN) return E_UNKNOWN;
        if (b->blocked[sq]) return E_BLOCKED;
        placed[*np] = sq;
        codes[*np] = t & (0x3F | BLANK);
        (*np)++;
    }
    if (occupied(b, row - dr, col - dc) || occupied(b, r, c)) return E_NOT_WHOLE;
    if (*np == 0) return E_NO_TILES;
    return OK;
}

static PyObject *ScoreBoard_play(ScoreBoard *self, PyObject *args) {
    PyObject *row_o, *col_o, *tokens, *through = Py_None;
    int across, over_r = 0, over_c = 0;
    if (!PyArg_ParseTuple(args, "O!O!pO|O", &PyLong_Type, &row_o, &PyLong_Type, &col_o, &across, &tokens, &through))
        return NULL;
    long row_n = PyLong_AsLongAndOverflow(row_o, &over_r), col_n = PyLong_AsLongAndOverflow(col_o, &over_c);
    if (!self->token_codes) {
        PyErr_SetString(PyExc_RuntimeError, "ScoreBoard not initialised");
        return NULL;
    }
    uint8_t tok[MAXD];
    Py_ssize_t ntok;
    int tok_err = token_bytes(self, tokens, through, tok, &ntok);
    if (tok_err < 0) return NULL;
    if (tok_err > 0 || over_r || over_c || row_n < -MAXD || row_n > 2L * MAXD || col_n < -MAXD || col_n > 2L * MAXD)
        return PyLong_FromLong(E_OFF_BOARD); /* far off the board (or longer than any line) */
    int row = (int)row_n, col = (int)col_n;
    int placed[MAXD];
    uint8_t codes[MAXD];
    int np, size = self->size;
    int err = find_placed(self, row, col, across, tok, ntok, placed, codes, &np);
    if (err) return PyLong_FromLong(err);
    /* touching a tile on the board, or the first play covering the start square */
    int touches = 0, covers_start = 0;
    for (int i = 0; i < np; i++) {
        int r = placed[i] / size, c = placed[i] % size;
        if (occupied(self, r - 1, c) || occupied(self, r + 1, c) || occupied(self, r, c - 1) ||
            occupied(self, r, c + 1))
            touches = 1;
        if (placed[i] == self->start) covers_start = 1;
    }
    if (!touches) {
        if (self->ntiles) return PyLong_FromLong(E_NOT_TOUCHING);
        if (!covers_start) return PyLong_FromLong(E_FIRST_OFF_START);
    }
    /* cross words need a tile of the board beside a new tile, across the main line (read before
     * the new tiles go down) */
    uint8_t cross_here[MAXD];
    int main_across = across;
    if (np > 1) {
        for (int i = 0; i < np; i++) {
            int r = placed[i] / size, c = placed[i] % size;
            cross_here[i] = across ? (occupied(self, r - 1, c) || occupied(self, r + 1, c))
                                   : (occupied(self, r, c - 1) || occupied(self, r, c + 1));
        }
    }
    uint8_t isnew[MAXD * MAXD];
    memset(isnew, 0, (size_t)size * size);
    for (int i = 0; i < np; i++) {
        self->grid[placed[i]] = codes[i];
        isnew[placed[i]] = 1;
    }
    Line lines[MAXD + 1];
    int nlines = 0;
    if (np == 1) {
        Line a = read_line(self, isnew, placed[0], 1), d = read_line(self, isnew, placed[0], 0);
        Line m = across ? a : d, o = across ? d : a;
        if (m.len < 2) {
            Line t = m;
            m = o;
            o = t;
            main_across = !across;
        }
        lines[nlines++] = m;
        if (o.len >= 2) lines[nlines++] = o;
    } else {
        lines[nlines++] = read_line(self, isnew, placed[0], across);
        for (int i = 0; i < np; i++)
            if (cross_here[i]) lines[nlines++] = read_line(self, isnew, placed[i], !across);
    }
    if (lines[0].len < 2) {
        for (int i = 0; i < np; i++) self->grid[placed[i]] = 0;
        return PyLong_FromLong(E_TOO_SHORT);
    }
    long long score = 0; /* each line stays within an int (see MAXVALUE); their sum may not */
    for (int i = 0; i < nlines; i++) score += lines[i].points;
    if (np >= self->bingo_min) score += self->bingo_bonus;
    PyObject *words = PyTuple_New(nlines), *used = NULL, *main_text = NULL, *res = NULL;
    if (!words) goto fail;
    for (int i = 0; i < nlines; i++) {
        PyObject *w = line_word(self, lines[i], i == 0 ? main_across : !main_across);
        if (!w) goto fail;
        PyTuple_SET_ITEM(words, i, w);
    }
    used = PyList_New(np);
    if (!used) goto fail;
    for (int i = 0; i < np; i++) {
        PyObject *lab = PyTuple_GET_ITEM(self->rack_labels, codes[i] & 0x7F);
        Py_INCREF(lab);
        PyList_SET_ITEM(used, i, lab);
    }
    main_text = line_gcg(self, lines[0], main_across, isnew);
    if (!main_text) goto fail;
    res = Py_BuildValue("(LNNN)", score, used, words, main_text);
    if (!res) {
        words = used = main_text = NULL; /* Py_BuildValue "N" steals even on failure */
        goto fail;
    }
    self->ntiles += np;
    self->nlast = np;
    memcpy(self->last, placed, sizeof(int) * (size_t)np);
    return res;
fail:
    Py_XDECREF(words);
    Py_XDECREF(used);
    Py_XDECREF(main_text);
    for (int i = 0; i < np; i++) self->grid[placed[i]] = 0;
    return NULL;
}

static PyObject *ScoreBoard_undo(ScoreBoard *self, PyObject *Py_UNUSED(unused)) {
    for (int i = 0; i < self->nlast; i++) self->grid[self->last[i]] = 0;
    self->ntiles -= self->nlast;
    self->nlast = 0;
    Py_RETURN_NONE;
}

static PyObject *ScoreBoard_copy(ScoreBoard *self, PyObject *Py_UNUSED(unused)) {
    ScoreBoard *c = (ScoreBoard *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);
    if (!c) return NULL;
    /* everything after the object header: plain data, no references */
    memcpy((char *)c + sizeof(PyObject), (char *)self + sizeof(PyObject), sizeof(ScoreBoard) - sizeof(PyObject));
    Py_XINCREF(c->token_codes);
    Py_XINCREF(c->rack_labels);
    return (PyObject *)c;
}

static PyObject *ScoreBoard_grid(ScoreBoard *self, PyObject *Py_UNUSED(unused)) {
    return PyBytes_FromStringAndSize((const char *)self->grid, (Py_ssize_t)self->size * self->size);
}

static PyMethodDef ScoreBoard_methods[] = {
    {"play", (PyCFunction)ScoreBoard_play, METH_VARARGS,
     "play(row, col, across, tokens, through=()) -> (score, used, words, main_text) for a legal play\n"
     "(its tiles are then on the board), or an int > 0 for an illegal one (the board is unchanged)."},
    {"undo", (PyCFunction)ScoreBoard_undo, METH_NOARGS, "Take the last play's tiles off the board."},
    {"copy", (PyCFunction)ScoreBoard_copy, METH_NOARGS, "A copy of the board (rules and tiles)."},
    {"grid", (PyCFunction)ScoreBoard_grid, METH_NOARGS,
     "The squares row by row as bytes: 0 empty, else code | 0x40 for a blank."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ScoreBoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._scorer.ScoreBoard",
    .tp_basicsize = sizeof(ScoreBoard),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A board that checks and scores plays written as in GCG (see the module's source).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)ScoreBoard_init,
    .tp_dealloc = (destructor)ScoreBoard_dealloc,
    .tp_methods = ScoreBoard_methods,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT,
                                       "_scorer",
                                       "Compiled play checker and scorer for replays.",
                                       -1,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

PyMODINIT_FUNC PyInit__scorer(void) {
    if (PyType_Ready(&ScoreBoardType) < 0) return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    Py_INCREF(&ScoreBoardType);
    if (PyModule_AddObject(m, "ScoreBoard", (PyObject *)&ScoreBoardType) < 0) {
        Py_DECREF(&ScoreBoardType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
