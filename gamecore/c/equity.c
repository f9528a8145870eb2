/* Position.equity: the best plays by static equity (score + leave value + MAGPIE's static terms)
 * searched in C as plays are found, and the best exchanges. */

#include "native.h"

/* (equity) One exchange: the kept counts' index, its equity, the tiles it gives back by their order
 * (KLV tile numbers, the blank last), best first. */
typedef struct {
    int idx, eq, ngone;
    uint8_t gone[MAXD];
} Exch;

static int exch_cmp(const void *x, const void *y) {
    const Exch *a = x, *b = y;
    if (a->eq != b->eq) return a->eq > b->eq ? -1 : 1;
    if (a->ngone != b->ngone) return a->ngone < b->ngone ? -1 : 1;
    int c = memcmp(a->gone, b->gone, (size_t)a->ngone);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/* equity(rack_counts, blanks, leaves, klv_tiles, bag, outplay, vowels, pen_across, pen_down,
 * exchanges, limit, prune, tiles, play_type, bingo_index, max_gone): the best `limit` plays by static
 * equity (gamecore/equity.py's rules, in thousandths) and the best `exchanges` exchanges of at
 * most `max_gone` tiles; see
 * gamecore.movegen.Position.equity. */
PyObject *pos_equity(PositionObject *P, PyObject *args, PyObject *kw) {
    Search *S = pos_search(P);
    if (!S) return NULL;
    static char *kwlist[] = {"rack_counts", "blanks",     "leaves",      "klv_tiles", "bag",   "outplay",
                             "vowels",      "pen_across", "pen_down",    "exchanges", "limit", "prune",
                             "tiles",       "play_type",  "bingo_index", "max_gone",  NULL};
    PyObject *rack_o, *leaves_o, *pa_o, *pd_o, *table_o = Py_None, *type_o = Py_None, *bidx_o = Py_None;
    Py_buffer kt;
    int blanks, bag, outplay, nexch, limit, prune = 1, max_gone = MAXD;
    unsigned long long vowels;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OiO!y*iiKOOii|pOOOi", kwlist, &rack_o, &blanks, &LeavesType, &leaves_o,
                                     &kt, &bag, &outplay, &vowels, &pa_o, &pd_o, &nexch, &limit, &prune, &table_o,
                                     &type_o, &bidx_o, &max_gone))
        return NULL;
    if (S->busy) {
        PyBuffer_Release(&kt);
        PyErr_SetString(PyExc_RuntimeError, "equity() called while generate() runs");
        return NULL;
    }
    const LeavesObject *LV = (const LeavesObject *)leaves_o;
    S->busy = 1;
    Gen gen;
    Gen *g = &gen;
    memset(g, 0, sizeof *g);
    g->s = S;
    PyObject *out = NULL, *plays = NULL, *eqs = NULL, *exl = NULL, *table_seq = NULL;
    PyObject **table = NULL;
    PyTypeObject *play_type = NULL;
    Py_buffer bb = {0};
    int32_t *term = NULL;
    int8_t *kept_n = NULL;
    Exch *ex = NULL;
    if (kt.len != MAX_TILE + 1) {
        PyErr_SetString(PyExc_ValueError, "klv_tiles: 64 bytes (lexicon tile number -> the leave file's)");
        goto done;
    }
    if (limit < 1 || nexch < 0) {
        PyErr_SetString(PyExc_ValueError, "limit must be at least 1, exchanges at least 0");
        goto done;
    }
    const uint8_t *klv = kt.buf;
    if (bingo_arg(S, bidx_o, &bb) < 0) goto done;
    memcpy(g->values, P->values, sizeof g->values);
    memcpy(g->bvalues, P->bvalues, sizeof g->bvalues);
    if (rack_arg(g, rack_o, blanks) < 0) goto done;
    if (play_args(table_o, type_o, &table_seq, &table, &play_type) < 0) goto done;
    int opening = P->tiles_on_board == 0;
    if (opening) {
        if (read_ints(pa_o, g->eq_pen[0], MAXD, "pen_across") < 0 ||
            read_ints(pd_o, g->eq_pen[1], MAXD, "pen_down") < 0)
            goto done;
    }
    /* the rack's kinds (the blank first, then the letters) and their strides */
    int kind[MAX_TILE + 1], cnt[MAX_TILE + 1], stride[MAX_TILE + 1], nk = 0, ntiles = 0;
    long size = 1;
    if (g->blanks > 0) kind[nk] = 0, cnt[nk++] = g->blanks;
    for (int t = 1; t <= MAX_TILE; t++)
        if (g->rack[t] > 0) kind[nk] = t, cnt[nk++] = g->rack[t];
    for (int i = 0; i < nk; i++) {
        if (kind[i] && !klv[kind[i]]) {
            PyErr_Format(PyExc_ValueError, "klv_tiles: rack tile %d has no number in the leave file", kind[i]);
            goto done;
        }
        stride[i] = (int)size;
        g->eq_stride[kind[i]] = (int)size;
        g->eq_full += cnt[i] * (int)size;
        size *= cnt[i] + 1;
        ntiles += cnt[i];
        if (size > (1 << 20) || ntiles > MAXD) {
            PyErr_SetString(PyExc_ValueError, "equity(): the rack is too large");
            goto done;
        }
    }
    term = malloc(sizeof(int32_t) * (size_t)size);
    kept_n = malloc((size_t)size);
    ex = nexch ? malloc(sizeof(Exch) * (size_t)(size > 2 ? size : 2)) : NULL;
    if (!term || !kept_n || (nexch && !ex)) {
        PyErr_NoMemory();
        goto done;
    }
    /* the leave values of every set of kept tiles, in one walk of the leave file's graph */
    int32_t *vals = term;
    memset(vals, 0, sizeof(int32_t) * (size_t)size);
    if (bag > 0 || nexch) {
        int order[MAX_TILE + 1], used[MAX_TILE + 1], ocnt[MAX_TILE + 1], ostride[MAX_TILE + 1];
        uint8_t okt[MAX_TILE + 1];
        for (int i = 0; i < nk; i++) { /* the kinds by the leave file's tile numbers */
            int j = i, key = kind[i] ? klv[kind[i]] : 0;
            while (j > 0 && okt[j - 1] > key) {
                order[j] = order[j - 1], okt[j] = okt[j - 1];
                j--;
            }
            order[j] = i, okt[j] = (uint8_t)key;
        }
        for (int i = 0; i < nk; i++) ocnt[i] = cnt[order[i]], ostride[i] = stride[order[i]], used[i] = 0;
        int64_t badv = 0;
        if (LV->nodes && leave_values(LV, okt, ocnt, ostride, nk, 0, LV->root, 0, 0, used, vals, &badv) < 0) {
            PyErr_Format(PyExc_ValueError, "leave value number %lld is not a number of points", (long long)badv);
            goto done;
        }
    }
    /* the term of every set of kept tiles (gamecore.equity.rank): the leave's value while the bag
     * has tiles; on an empty bag -2 x the kept tiles' points - 10, or going out: outplay; and the
     * exchanges (the leave's value) */
    g->eq_maxterm = INT32_MIN;
    int nex = 0, best_ex = -1;
    int cc[MAX_TILE + 1] = {0}, n = 0, pts = 0; /* the kept counts of idx (an odometer), their number and points */
    int32_t mknb[MAXD + 1]; /* the best term of the leaves of n tiles a blank short of the rack's blanks */
    for (int i = 0; i <= ntiles; i++) mknb[i] = INT32_MIN;
    for (long idx = 0; idx < size; idx++) {
        if (idx) {
            for (int i = 0; i < nk; i++) {
                int pv = kind[i] ? g->values[kind[i]] : 0;
                if (cc[i] < cnt[i]) {
                    cc[i]++, n++, pts += pv;
                    break;
                }
                n -= cc[i], pts -= cc[i] * pv, cc[i] = 0;
            }
        }
        kept_n[idx] = (int8_t)n;
        int32_t v = vals[idx];
        if (nexch && idx != g->eq_full && ntiles - n <= max_gone && (nexch > 1 || best_ex < 0 || v >= ex[1].eq)) {
            Exch *e = &ex[nex];
            int ng = 0;
            for (int i = 0; i < nk; i++)
                for (int j = cc[i]; j < cnt[i]; j++) e->gone[ng++] = kind[i] ? klv[kind[i]] : 255;
            for (int i = 1; i < ng; i++) {
                uint8_t x = e->gone[i];
                int j = i;
                while (j > 0 && e->gone[j - 1] > x) {
                    e->gone[j] = e->gone[j - 1];
                    j--;
                }
                e->gone[j] = x;
            }
            e->idx = (int)idx, e->eq = v, e->ngone = ng;
            if (nexch > 1) nex++;
            else if (best_ex < 0 || exch_cmp(e, &ex[1]) < 0) { /* the best one so far is kept in ex[1] */ ex[1] = *e;
                best_ex = 1;
            }
        }
        if (bag <= 0) v = n ? -2000 * pts - 10000 : outplay;
        term[idx] = v;
        if (g->blanks > 0 && cc[0] < g->blanks && v > mknb[n]) mknb[n] = v; /* (the blank is kind 0) */
        if (idx != g->eq_full && v > g->eq_maxterm) g->eq_maxterm = v;
    }
    if (nexch == 1 && best_ex > 0) ex[0] = ex[1], nex = 1;
    if (g->eq_maxterm == INT32_MIN) g->eq_maxterm = 0;
    int32_t mk[MAXD + 1]; /* the best term of the leaves of n tiles */
    for (int i = 0; i <= ntiles; i++) mk[i] = INT32_MIN;
    for (long idx = 0; idx < size; idx++)
        if (term[idx] > mk[kept_n[idx]]) mk[kept_n[idx]] = term[idx];
    for (int k = 1; k <= ntiles; k++) { /* a play of k tiles keeps ntiles - k: what it lacks of the best */
        long x = (long)g->eq_maxterm - mk[ntiles - k]; /* >= 0 */
        g->eq_adj[k] = -(int)(x / 1000);
    }
    for (int k = 1; k <= ntiles; k++) /* plays of k tiles taking a blank: (no such leave: none is a play) */
        g->eq_adjnb[k] =
            mknb[ntiles - k] == INT32_MIN ? NEG_BOUND / 2 : -(int)(((long)g->eq_maxterm - mknb[ntiles - k]) / 1000);
    for (int k = ntiles, best = INT32_MIN; k >= 0; k--) { /* plays of k tiles or more (at least one) */
        if (k >= 1 && mk[ntiles - k] > best) best = mk[ntiles - k];
        g->eq_adjge[k] = best == INT32_MIN ? 0 : -(int)(((long)g->eq_maxterm - best) / 1000);
    }
    g->eq_on = 1;
    g->eq_term = term;
    g->eq_opening = opening;
    g->eq_vowels = (uint64_t)vowels;
    g->bingo = P->bingo;
    g->bingo_tiles = P->bingo_tiles;
    pos_use_kwg(S, P);
    S->L = P->lanes;
    S->G = P->grid;
    int nanchors = list_anchors(S, P->lanes, P->R, P->C);
    SearchArgs sa = {.limit = limit,
                     .sorted = 1,
                     .prune = prune,
                     .negative = P->negative,
                     .table = table,
                     .play_type = play_type,
                     .fits = P->fits,
                     .empty_board = opening,
                     .release = 1};
    plays = search(g, P->R, P->C, nanchors, &sa);
    if (!plays) goto done;
    Py_ssize_t np = PyList_GET_SIZE(plays);
    eqs = PyList_New(np);
    if (!eqs) goto done;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *v = PyLong_FromLong((int32_t)(uint32_t)S->moves[i].key);
        if (!v) goto done;
        PyList_SET_ITEM(eqs, i, v);
    }
    if (nex > 1) qsort(ex, (size_t)nex, sizeof(Exch), exch_cmp);
    if (nex > nexch) nex = nexch;
    exl = PyList_New(nex);
    if (!exl) goto done;
    for (int e = 0; e < nex; e++) {
        uint8_t kept[MAXD];
        int nkept = 0;
        for (int i = 0; i < nk; i++) {
            int c = (ex[e].idx / stride[i]) % (cnt[i] + 1);
            for (int j = 0; j < c; j++) kept[nkept++] = (uint8_t)kind[i];
        }
        PyObject *t = Py_BuildValue("iy#", ex[e].eq, (const char *)kept, (Py_ssize_t)nkept);
        if (!t) goto done;
        PyList_SET_ITEM(exl, e, t);
    }
    out = PyTuple_Pack(3, plays, eqs, exl);
done:
    g->eq_on = 0;
    g->eq_term = NULL;
    free(term);
    free(kept_n);
    free(ex);
    Py_XDECREF(plays);
    Py_XDECREF(eqs);
    Py_XDECREF(exl);
    S->L = S->lanes;
    S->G = S->grid;
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    S->bidx = NULL;
    PyBuffer_Release(&kt);
    S->busy = 0;
    return out;
}
