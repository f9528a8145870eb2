/* Position: a board kept between calls, its lanes and cross-checks updated per play. */

#include "native.h"

/* ------------------------------------------------------------------------------------------ */
/* Position: a board kept between calls (MAGPIE keeps its cross-sets on the board the same way): */
/* the grid and both directions' lanes with their cross-checks, updated per play for the squares */
/* the play can change; generate() then reads only the rack.                                      */

void pos_use_kwg(Search *S, PositionObject *P) {
    S->wide = P->wide;
    S->nnodes = (size_t)P->kb.len / 4;
    S->kwg = (const uint32_t *)P->kb.buf;
}

/* The Position's search state; NULL with an exception when it was never initialised. */
Search *pos_search(PositionObject *P) {
    if (!P->s) PyErr_SetString(PyExc_RuntimeError, "Position not initialised");
    return P->s;
}

static void pos_dealloc(PositionObject *P) {
    if (P->has_kb) PyBuffer_Release(&P->kb);
    if (P->s) {
        if (g_last_search == P->s) g_last_search = NULL;
        search_delete(P->s);
    }
    Py_TYPE(P)->tp_free((PyObject *)P);
}

static int pos_init(PositionObject *P, PyObject *args, PyObject *kw) {
    if (!P->s) P->s = search_new();
    if (!P->s) {
        PyErr_NoMemory();
        return -1;
    }
    Search *S = P->s;
    static char *kwlist[] = {
        "kwg",         "letter_mult", "word_mult", "start_row",          "start_col", "tile_values", "bingo_bonus",
        "bingo_tiles", "blocked",     "node24",    "blank_letter_value", "grid",      NULL};
    PyObject *lm_o, *wm_o, *val_o, *blocked_o = Py_None, *grid_o = Py_None;
    int wide = -1, blv = 0;
    Py_buffer kb;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*OOiiOii|OipO", kwlist, &kb, &lm_o, &wm_o, &P->srow, &P->scol, &val_o,
                                     &P->bingo, &P->bingo_tiles, &blocked_o, &wide, &blv, &grid_o))
        return -1;
    if (S->busy) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_RuntimeError, "Position() made while generate() runs");
        return -1;
    }
    if (P->has_kb) PyBuffer_Release(&P->kb);
    P->kb = kb;
    P->has_kb = 1;
    size_t nnodes = (size_t)kb.len / 4;
    P->wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    S->wide = P->wide;
    if (nnodes < 2 || N_ARC(((const uint32_t *)kb.buf)[0]) >= nnodes ||
        N_ARC(((const uint32_t *)kb.buf)[1]) >= nnodes) {
        PyErr_SetString(PyExc_ValueError, "not a KWG");
        return -1;
    }
    static uint8_t lmg[MAXD][MAXD], wmg[MAXD][MAXD];
    int R = -1, C = -1;
    if (read_grid(lm_o, &R, &C, lmg, 255, "letter multipliers") < 0) return -1;
    if (read_grid(wm_o, &R, &C, wmg, 255, "word multipliers") < 0) return -1;
    memset(P->bkg, 0, sizeof P->bkg);
    memset(P->grid, 0, sizeof P->grid);
    if (blocked_o != Py_None && read_grid(blocked_o, &R, &C, P->bkg, 1, "blocked") < 0) return -1;
    if (grid_o != Py_None && read_grid(grid_o, &R, &C, P->grid, 127, "grid") < 0) return -1;
    P->R = R;
    P->C = C;
    if (P->srow < 0 || P->srow >= R || P->scol < 0 || P->scol >= C) {
        PyErr_SetString(PyExc_ValueError, "start square outside the board");
        return -1;
    }
    memset(P->values, 0, sizeof P->values);
    if (read_ints(val_o, P->values, MAX_TILE + 1, "tile_values") < 0) return -1;
    P->negative = 0;
    for (int t = 0; t <= MAX_TILE; t++) {
        P->bvalues[t] = blv ? P->values[t] : 0;
        if (P->values[t] < 0) P->negative = 1;
    }
    P->tiles_on_board = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            if (P->grid[r][c]) {
                if (!(P->grid[r][c] & 63)) {
                    PyErr_Format(PyExc_ValueError, "grid: bad value %d", P->grid[r][c]);
                    return -1;
                }
                P->tiles_on_board++;
            }
    pos_use_kwg(S, P);
    compute_lanes(S, P->lanes, P->grid, lmg, wmg, P->bkg, R, C, P->tiles_on_board == 0, P->srow, P->scol, P->values,
                  P->bvalues);
    P->fits = bounds_fit_in(P->lanes, P->values, P->bvalues, P->bingo, R, C, 1);
    return 0;
}

static void pos_touch(Search *S, PositionObject *P, int r, int c) {
    if (r >= 0 && r < P->R && c >= 0 && c < P->C && S->touched[r][c] != S->touch_serial) {
        S->touched[r][c] = S->touch_serial;
        square_data(S, P->lanes, P->grid, P->bkg, P->R, P->C, 0, P->srow, P->scol, P->values, P->bvalues, r, c);
    }
}

static void touch_start(Search *S) {
    if (++S->touch_serial == 0) { /* (wrapped: stamps of 2^32 calls ago would match) */
        memset(S->touched, 0, sizeof S->touched);
        S->touch_serial = 1;
    }
}

/* The lane data around new tile (r, c): its square and the empty squares at both ends of its
 * column's and row's lines of tiles. */
static void pos_update_around(Search *S, PositionObject *P, int r, int c) {
    pos_touch(S, P, r, c);
    int q = r;
    while (q >= 0 && P->grid[q][c]) q--;
    pos_touch(S, P, q, c);
    q = r;
    while (q < P->R && P->grid[q][c]) q++;
    pos_touch(S, P, q, c);
    q = c;
    while (q >= 0 && P->grid[r][q]) q--;
    pos_touch(S, P, r, q);
    q = c;
    while (q < P->C && P->grid[r][q]) q++;
    pos_touch(S, P, r, q);
}

/* A play's main word (tile numbers, +64 for a blank, board tiles included) from (row, col) onto the
 * board, checked already (on the board, letters agreeing with its tiles, no blocked square); the
 * squares it can change get their lane data again: the new tiles, and the empty squares at both
 * ends of the lines of tiles through each new tile (cross-checks, cross-scores, anchors). Returns
 * the number of new tiles. */
int position_place(PositionObject *P, int row, int col, int across, const uint8_t *t, int n) {
    Search *S = P->s;
    int dr = across ? 0 : 1, dc = across ? 1 : 0;
    int was_empty = P->tiles_on_board == 0;
    uint8_t placed[MAXD];
    int np = 0;
    for (int i = 0; i < n; i++) {
        int r = row + dr * i, c = col + dc * i;
        if (!P->grid[r][c]) {
            P->grid[r][c] = t[i];
            placed[np++] = (uint8_t)i;
            P->tiles_on_board++;
        }
    }
    pos_use_kwg(S, P);
    touch_start(S);
    if (was_empty && np) {
        /* the first play: the start square stops being the only anchor */
        for (int r = 0; r < P->R; r++)
            for (int c = 0; c < P->C; c++) pos_touch(S, P, r, c);
        return np;
    }
    for (int k = 0; k < np; k++) pos_update_around(S, P, row + dr * placed[k], col + dc * placed[k]);
    return np;
}

/* place(row, col, across, letters): the play's whole main word (tile numbers, +64 for a blank;
 * board tiles included, as RawMove.letters) onto the board; the squares it can change get their
 * lane data again: the new tiles, and the empty squares at both ends of the lines of tiles through
 * each new tile (cross-checks, cross-scores, anchors). */
static PyObject *pos_place(PositionObject *P, PyObject *args) {
    Search *S = pos_search(P);
    if (!S) return NULL;
    int row, col, across;
    Py_buffer w;
    if (!PyArg_ParseTuple(args, "iipy*", &row, &col, &across, &w)) return NULL;
    if (S->busy) {
        PyBuffer_Release(&w);
        PyErr_SetString(PyExc_RuntimeError, "place() called while generate() runs");
        return NULL;
    }
    const uint8_t *t = w.buf;
    Py_ssize_t n = w.len;
    int dr = across ? 0 : 1, dc = across ? 1 : 0;
    const char *err = NULL;
    if (n < 1 || row < 0 || col < 0 || row + dr * (n - 1) >= P->R || col + dc * (n - 1) >= P->C)
        err = "play off the board";
    for (Py_ssize_t i = 0; !err && i < n; i++) {
        uint8_t b = t[i], have = P->grid[row + dr * i][col + dc * i];
        if (!(b & 63) || b > 127) err = "bad letter value";
        else if (have && (have & 63) != (b & 63)) err = "a letter differs from the tile on the board";
        else if (!have && P->bkg[row + dr * i][col + dc * i]) err = "a tile on a blocked square";
    }
    if (err) {
        PyBuffer_Release(&w);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    int np = position_place(P, row, col, across, t, (int)n);
    PyBuffer_Release(&w);
    return PyLong_FromLong(np);
}

/* sync(grid): make the board this grid (bytes of rows*cols codes, row by row, or rows of ints):
 * tiles added since are placed as by place(); any tile taken off or changed recomputes the whole
 * board. Returns the number of tiles added (-1 after a whole recomputation). */
static PyObject *pos_sync(PositionObject *P, PyObject *arg) {
    Search *S = pos_search(P);
    if (!S) return NULL;
    if (S->busy) {
        PyErr_SetString(PyExc_RuntimeError, "sync() called while generate() runs");
        return NULL;
    }
    static uint8_t ng[MAXD][MAXD];
    int R = P->R, C = P->C;
    if (PyBytes_Check(arg) || PyByteArray_Check(arg)) {
        Py_buffer b;
        if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
        if (b.len != (Py_ssize_t)R * C) {
            PyBuffer_Release(&b);
            PyErr_Format(PyExc_ValueError, "grid: %d bytes expected", R * C);
            return NULL;
        }
        const uint8_t *q = b.buf;
        for (int r = 0; r < R; r++) memcpy(ng[r], q + (ptrdiff_t)r * C, C);
        PyBuffer_Release(&b);
    } else if (read_grid(arg, &R, &C, ng, 127, "grid") < 0) {
        return NULL;
    }
    int removed = 0, added = 0, tiles = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            uint8_t v = ng[r][c], have = P->grid[r][c];
            if (v && (!(v & 63) || v > 127 || P->bkg[r][c])) {
                PyErr_Format(PyExc_ValueError, "grid: bad value %d at row %d column %d", v, r + 1, c + 1);
                return NULL;
            }
            if (have && have != v) removed = 1;
            else if (!have && v) added++;
            tiles += v != 0;
        }
    pos_use_kwg(S, P);
    int was_empty = P->tiles_on_board == 0;
    if (removed || (was_empty && added)) {
        memcpy(P->grid, ng, sizeof ng);
        P->tiles_on_board = tiles;
        for (int r = 0; r < R; r++)
            for (int c = 0; c < C; c++)
                square_data(S, P->lanes, P->grid, P->bkg, R, C, tiles == 0, P->srow, P->scol, P->values, P->bvalues, r,
                            c);
        return PyLong_FromLong(-1);
    }
    static uint16_t news[MAXD * MAXD];
    int nn = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            if (!P->grid[r][c] && ng[r][c]) {
                P->grid[r][c] = ng[r][c];
                news[nn++] = (uint16_t)(r * MAXD + c);
            }
    touch_start(S);
    for (int k = 0; k < nn; k++) pos_update_around(S, P, news[k] / MAXD, news[k] % MAXD);
    P->tiles_on_board = tiles;
    return PyLong_FromLong(added);
}

static PyObject *pos_generate(PositionObject *P, PyObject *args, PyObject *kw) {
    Search *S = pos_search(P);
    if (!S) return NULL;
    static char *kwlist[] = {"rack_counts", "blanks",    "limit",       "sorted", "prune",
                             "tiles",       "play_type", "bingo_index", "lazy",   NULL};
    PyObject *rack_o, *table_o = Py_None, *type_o = Py_None, *bidx_o = Py_None;
    int blanks, limit = -1, sorted_out = 0, prune = 0, lazy = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|ippOOOp", kwlist, &rack_o, &blanks, &limit, &sorted_out, &prune,
                                     &table_o, &type_o, &bidx_o, &lazy))
        return NULL;
    if (S->busy) {
        PyErr_SetString(PyExc_RuntimeError, "generate() called again while it runs");
        return NULL;
    }
    S->busy = 1;
    Gen gen;
    Gen *g = &gen;
    memset(g, 0, sizeof *g);
    g->s = S;
    PyObject *out = NULL, *table_seq = NULL;
    PyObject **table = NULL;
    PyTypeObject *play_type = NULL;
    Py_buffer bb = {0};
    if (bingo_arg(S, bidx_o, &bb) < 0) goto done;
    memcpy(g->values, P->values, sizeof g->values);
    memcpy(g->bvalues, P->bvalues, sizeof g->bvalues);
    if (rack_arg(g, rack_o, blanks) < 0) goto done;
    if (play_args(table_o, type_o, &table_seq, &table, &play_type) < 0) goto done;
    if (table) sorted_out = 1;
    g->bingo = P->bingo;
    g->bingo_tiles = P->bingo_tiles;
    pos_use_kwg(S, P);
    S->L = P->lanes;
    S->G = P->grid;
    int nanchors = list_anchors(S, P->lanes, P->R, P->C);
    SearchArgs sa = {.limit = limit,
                     .sorted = sorted_out,
                     .prune = prune,
                     .negative = P->negative,
                     .table = table,
                     .play_type = play_type,
                     .lazy = lazy,
                     .fits = P->fits,
                     .empty_board = P->tiles_on_board == 0,
                     .release = 1};
    out = search(g, P->R, P->C, nanchors, &sa);
done:
    S->L = S->lanes;
    S->G = S->grid;
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    S->bidx = NULL;
    S->busy = 0;
    return out;
}

/* Make P's board O's (grid, lanes with their cross-checks, the layout and values), both made on the
 * same KWG and board size (checked by the caller). */
void position_copy(PositionObject *P, const PositionObject *O) {
    for (int r = 0; r < P->R; r++) {
        memcpy(P->grid[r], O->grid[r], (size_t)P->C);
        memcpy(P->bkg[r], O->bkg[r], (size_t)P->C);
    }
    memcpy(P->lanes[0], O->lanes[0], (size_t)P->R * sizeof(Lane));
    memcpy(P->lanes[1], O->lanes[1], (size_t)P->C * sizeof(Lane));
    memcpy(P->values, O->values, sizeof P->values);
    memcpy(P->bvalues, O->bvalues, sizeof P->bvalues);
    P->srow = O->srow, P->scol = O->scol, P->bingo = O->bingo, P->bingo_tiles = O->bingo_tiles;
    P->tiles_on_board = O->tiles_on_board, P->negative = O->negative, P->fits = O->fits;
}

/* copy_from(other): make this board the other Position's (grid, lanes with their cross-checks, the
 * layout and values), both made on the same KWG and board size: a search that tries plays one after
 * another copies the parent's board in place of taking tiles off (the rows and columns in use only). */
static PyObject *pos_copy_from(PositionObject *P, PyObject *arg) {
    Search *S = pos_search(P);
    if (!S) return NULL;
    if (!PyObject_TypeCheck(arg, Py_TYPE(P))) {
        PyErr_SetString(PyExc_TypeError, "copy_from() takes a Position");
        return NULL;
    }
    PositionObject *O = (PositionObject *)arg;
    if (S->busy || (O->s && O->s->busy)) { /* (a search writes its lanes' pruning caps) */
        PyErr_SetString(PyExc_RuntimeError, "copy_from() called while generate() runs");
        return NULL;
    }
    if (O->R != P->R || O->C != P->C || O->kb.buf != P->kb.buf || O->wide != P->wide) {
        PyErr_SetString(PyExc_ValueError, "copy_from(): the Positions differ in board size or lexicon");
        return NULL;
    }
    if (O != P) position_copy(P, O);
    Py_RETURN_NONE;
}

static PyObject *pos_grid(PositionObject *P, PyObject *Py_UNUSED(noargs)) {
    PyObject *rows = PyList_New(P->R);
    for (int r = 0; rows && r < P->R; r++) {
        PyObject *row = PyList_New(P->C);
        if (!row) {
            Py_CLEAR(rows);
            break;
        }
        for (int c = 0; c < P->C; c++) PyList_SET_ITEM(row, c, PyLong_FromLong(P->grid[r][c]));
        PyList_SET_ITEM(rows, r, row);
    }
    return rows;
}

static PyObject *pos_is_empty(PositionObject *P, PyObject *Py_UNUSED(noargs)) {
    return PyBool_FromLong(P->tiles_on_board == 0);
}

static PyMethodDef pos_methods[] = {
    {"place", (PyCFunction)pos_place, METH_VARARGS,
     "place(row, col, across, letters: bytes) -> int: put a play's main word on the board (tile numbers, "
     "+64 for a blank, board tiles included); returns the number of new tiles"},
    {"generate", (PyCFunction)(void (*)(void))pos_generate, METH_VARARGS | METH_KEYWORDS,
     "generate(rack_counts, blanks, limit=-1, sorted=False, prune=False, tiles=None, play_type=None, "
     "bingo_index=None, lazy=False): as gamecore._native.generate, on this board; lazy (without tiles): a MoveList "
     "(the plays kept in C, RawMoves made when read) instead of a list"},
    {"sync", (PyCFunction)pos_sync, METH_O,
     "sync(grid) -> int: make the board this grid (bytes of rows*cols codes row by row, or rows of ints); "
     "new tiles are placed as by place(), a tile taken off or changed recomputes the board (-1)"},
    {"equity", (PyCFunction)(void (*)(void))pos_equity, METH_VARARGS | METH_KEYWORDS,
     "equity(rack_counts, blanks, leaves, klv_tiles, bag, outplay, vowels, pen_across, pen_down, exchanges, "
     "limit, prune=True, tiles=None, play_type=None, bingo_index=None) -> (plays, their equities, "
     "[(equity, kept tiles: bytes)] of the best exchanges): the best plays by static equity (thousandths)"},
    {"grid", (PyCFunction)pos_grid, METH_NOARGS, "grid() -> rows of ints (0 empty, tile number, +64 blank)"},
    {"is_empty", (PyCFunction)pos_is_empty, METH_NOARGS, "is_empty() -> bool: no tile on the board"},
    {"copy_from", (PyCFunction)pos_copy_from, METH_O,
     "copy_from(other): make this board the other Position's (both on the same KWG and board size)"},
    {NULL, NULL, 0, NULL}};

PyTypeObject PositionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._native.Position",
    .tp_basicsize = sizeof(PositionObject),
    .tp_dealloc = (destructor)pos_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Position(kwg, letter_mult, word_mult, start_row, start_col, tile_values, bingo_bonus, "
              "bingo_tiles, blocked=None, node24=-1, blank_letter_value=False, grid=None): a board kept "
              "between move generations, its cross-checks updated per play.",
    .tp_methods = pos_methods,
    .tp_init = (initproc)pos_init,
    .tp_new = PyType_GenericNew,
};
