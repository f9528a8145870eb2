/* gamecore._scorer: a compiled board for replaying game logs (issue 4).
 *
 * ScoreBoard keeps the tiles on a board and, for a play written as in GCG (start square, direction,
 * one token per square), decides whether it is legal and scores it: the same rules as the Python
 * oracle gamecore.play (rules.md "Common core"), written apart from it and from the move generator
 * (gamecore/_native.c) on purpose; tests/test_scorer.py checks this file against gamecore.play on
 * random boards and plays.
 *
 * Tokens (bytes, one per square from the start square):
 *   0                 '.': a tile already on the board (any letter; THROUGH may be set too)
 *   code | BLANK      a tile: code = 1-based letter index of the tile set (1..62), 63 = a letter
 *                     the tile set lacks; BLANK (0x40) = a blank standing for the letter
 *   ... | THROUGH     (0x80) written in parentheses: must be a tile already on the board
 * Board squares hold code | BLANK, or 0 when empty.
 *
 * ScoreBoard.play(row, col, across, tokens) returns, for a legal play, the tuple
 *   (score, placed, words, main_text)
 * score with the bingo bonus; placed = bytes of the new tiles (code | BLANK) in token order; words =
 * every word formed (main word first, then cross words in token order), lowercase; main_text = the
 * main word in GCG notation ('.' for played-through tiles, lowercase blank, [..] around multi-letter
 * labels). The tiles are then on the board. For an illegal play it returns an int > 0 (the caller
 * asks the oracle for the reason) and changes nothing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAXD 32
#define BLANK 0x40
#define THROUGH 0x80
#define UNKNOWN 63
#define MAXTXT 8 /* code points of one label as text (brackets included) */
#define MAXLINE (MAXD * MAXTXT)

enum { OK = 0, E_OFF_BOARD = 1, E_EMPTY_THROUGH, E_MISMATCH, E_UNKNOWN, E_NOT_WHOLE, E_NO_TILES, E_BLOCKED,
       E_FIRST_OFF_START, E_NOT_TOUCHING, E_TOO_SHORT };

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

static int ScoreBoard_init(ScoreBoard *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"size", "start", "letter_mult", "word_mult", "blocked", "values", "word_text",
                             "gcg_text", "gcg_blank_text", "blank_scores", "add_word_premiums", "bingo_min",
                             "bingo_bonus", NULL};
    PyObject *lmul, *wmul, *blocked, *values, *word, *gcg, *gcg_blank;
    int size, start, blank_scores, add_word, bingo_min, bingo_bonus;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiOOOOOOOppii", kwlist, &size, &start, &lmul, &wmul, &blocked,
                                     &values, &word, &gcg, &gcg_blank, &blank_scores, &add_word, &bingo_min,
                                     &bingo_bonus))
        return -1;
    if (size < 1 || size > MAXD) {
        PyErr_Format(PyExc_ValueError, "size %d: expected 1..%d", size, MAXD);
        return -1;
    }
    if (start < 0 || start >= size * size) {
        PyErr_SetString(PyExc_ValueError, "start square off the board");
        return -1;
    }
    Py_ssize_t n = (Py_ssize_t)size * size;
    if (read_bytes(lmul, self->lmul, n, "letter_mult") || read_bytes(wmul, self->wmul, n, "word_mult") ||
        read_bytes(blocked, self->blocked, n, "blocked"))
        return -1;
    if (!PyTuple_Check(values) || PyTuple_GET_SIZE(values) != 64) {
        PyErr_SetString(PyExc_ValueError, "values: expected a tuple of 64 ints");
        return -1;
    }
    for (int i = 0; i < 64; i++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(values, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        self->values[i] = (int)v;
    }
    if (read_texts(word, self->word, "word_text") || read_texts(gcg, self->gcg, "gcg_text") ||
        read_texts(gcg_blank, self->gcg_blank, "gcg_blank_text"))
        return -1;
    self->size = size;
    self->start = start;
    self->blank_scores = blank_scores;
    self->add_word = add_word;
    self->bingo_min = bingo_min;
    self->bingo_bonus = bingo_bonus;
    self->ntiles = 0;
    self->nlast = 0;
    memset(self->grid, 0, sizeof self->grid);
    return 0;
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
        if (across) c--; else r--;
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
static int find_placed(const ScoreBoard *b, int row, int col, int across, const uint8_t *tok, Py_ssize_t n,
                       int *placed, uint8_t *codes, int *np) {
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
    int row, col, across;
    Py_buffer tok;
    if (!PyArg_ParseTuple(args, "iipy*", &row, &col, &across, &tok)) return NULL;
    int placed[MAXD];
    uint8_t codes[MAXD];
    int np, size = self->size;
    int err = tok.len > MAXD ? E_OFF_BOARD : find_placed(self, row, col, across, tok.buf, tok.len, placed, codes, &np);
    PyBuffer_Release(&tok);
    if (err) return PyLong_FromLong(err);
    /* touching a tile on the board, or the first play covering the start square */
    int touches = 0, covers_start = 0;
    for (int i = 0; i < np; i++) {
        int r = placed[i] / size, c = placed[i] % size;
        if (occupied(self, r - 1, c) || occupied(self, r + 1, c) || occupied(self, r, c - 1) || occupied(self, r, c + 1))
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
    int score = 0;
    for (int i = 0; i < nlines; i++) score += lines[i].points;
    if (np >= self->bingo_min) score += self->bingo_bonus;
    PyObject *words = PyTuple_New(nlines), *placed_b = NULL, *main_text = NULL, *res = NULL;
    if (!words) goto fail;
    for (int i = 0; i < nlines; i++) {
        PyObject *w = line_word(self, lines[i], i == 0 ? main_across : !main_across);
        if (!w) goto fail;
        PyTuple_SET_ITEM(words, i, w);
    }
    placed_b = PyBytes_FromStringAndSize((const char *)codes, np);
    main_text = line_gcg(self, lines[0], main_across, isnew);
    if (!placed_b || !main_text) goto fail;
    res = Py_BuildValue("(iNNN)", score, placed_b, words, main_text);
    if (!res) {
        words = placed_b = main_text = NULL; /* Py_BuildValue "N" steals even on failure */
        goto fail;
    }
    self->ntiles += np;
    self->nlast = np;
    memcpy(self->last, placed, sizeof(int) * (size_t)np);
    return res;
fail:
    Py_XDECREF(words);
    Py_XDECREF(placed_b);
    Py_XDECREF(main_text);
    for (int i = 0; i < np; i++) self->grid[placed[i]] = 0;
    return NULL;
}

static PyObject *ScoreBoard_undo(ScoreBoard *self, PyObject *unused) {
    for (int i = 0; i < self->nlast; i++) self->grid[self->last[i]] = 0;
    self->ntiles -= self->nlast;
    self->nlast = 0;
    Py_RETURN_NONE;
}

static PyObject *ScoreBoard_grid(ScoreBoard *self, PyObject *unused) {
    return PyBytes_FromStringAndSize((const char *)self->grid, (Py_ssize_t)self->size * self->size);
}

static PyMethodDef ScoreBoard_methods[] = {
    {"play", (PyCFunction)ScoreBoard_play, METH_VARARGS,
     "play(row, col, across, tokens) -> (score, placed, words, main_text) for a legal play (its tiles\n"
     "are then on the board), or an int > 0 for an illegal one (the board is unchanged)."},
    {"undo", (PyCFunction)ScoreBoard_undo, METH_NOARGS, "Take the last play's tiles off the board."},
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
    .tp_methods = ScoreBoard_methods,
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "_scorer",
                                       "Compiled play checker and scorer for replays.", -1, NULL};

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
