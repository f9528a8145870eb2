/* The bingo index and its word map: multiset hashes of the lexicon's long words (bingo spans
 * dropped when no word fits them) and of its short words (the sub-racks that make a word with a
 * span's board tiles, exact span scores, the first move's words). */

#include "native.h"

static inline const uint8_t *wmap_find(Search *S, uint64_t h);

static inline uint64_t slot_of(uint64_t h) { return (h ^ (h >> 29)) * 0xD6E8FEB86659FD93ull; }

static int bidx_has(const uint64_t *tab, uint64_t mask, uint64_t h) {
    if (!h) h = 1;
    for (uint64_t i = slot_of(h) & mask;; i = (i + 1) & mask) {
        if (tab[i] == h) return 1;
        if (!tab[i]) return 0;
    }
}

/* (key: the hash of the span's board tiles, zobrist() of each tile summed)
 * 0 when no word takes the rack with these board tiles; else, for a rack of one or two blanks, the
 * letters a blank can stand for in such a word (bit t; all bits set otherwise, and without an index
 * or with more than two blanks): the word's multiset is the rack's letters, the board tiles and
 * the blanks' letters, so its hash is base + Z[x] (+ Z[y]) for some letters x (, y). */
uint64_t bingo_letters(const Gen *g, uint64_t key) {
    Search *S = g->s;
    if (!S->bidx || g->blanks > 2) return ~0ull;
    for (int i = 0; i < S->nbcache; i++)
        if (S->bcache_key[i] == key) return S->bcache_ok[i];
    uint64_t base = key;
    for (int t = 1; t <= MAX_TILE; t++)
        for (int k = 0; k < g->rack[t]; k++) base += zobrist(t);
    const uint64_t *tab = S->bidx + 2;
    uint64_t ok = 0;
    if (g->blanks == 0) {
        ok = bidx_has(tab, S->bidx_mask, base) ? ~0ull : 0;
    } else {
        for (uint32_t x = 1; x <= S->bidx_maxt; x++) {
            if (g->blanks == 1) {
                if (bidx_has(tab, S->bidx_mask, base + zobrist(x))) ok |= 1ull << x;
            } else {
                for (uint32_t y = x; y <= S->bidx_maxt; y++)
                    if (((~ok >> x) & 1 || (~ok >> y) & 1) &&
                        bidx_has(tab, S->bidx_mask, base + zobrist(x) + zobrist(y)))
                        ok |= 1ull << x | 1ull << y;
            }
        }
    }
    if (S->nbcache < BCACHE) {
        S->bcache_key[S->nbcache] = key;
        S->bcache_ok[S->nbcache++] = ok;
    }
    return ok;
}

/* The rack's sub-multisets (g->rack, no blanks) by size: their hashes, value sums and tiles (one a
 * byte); 0 when there are too many. Each letter's copies are added to the sub-multisets so far. */
int list_subracks(const Gen *g) {
    Search *S = g->s;
    uint64_t fh[1 << SUBK], ft[1 << SUBK];
    int fP[1 << SUBK], fk[1 << SUBK], nf = 1, n = 0;
    for (uint64_t m = g->rackmask; m; m &= m - 1) n += g->rack[__builtin_ctzll(m)];
    if (n > SUBK) return 0;
    fh[0] = ft[0] = 0;
    fP[0] = fk[0] = 0;
    for (uint64_t m = g->rackmask; m; m &= m - 1) {
        int t = __builtin_ctzll(m), v = g->values[t], n0 = nf;
        uint64_t z = zobrist(t);
        for (int q = 0; q < n0; q++) {
            uint64_t h = fh[q], tt = ft[q];
            int P = fP[q], k = fk[q];
            for (int c = 0; c < g->rack[t]; c++) {
                h += z;
                P += v;
                tt |= (uint64_t)t << (8 * k++);
                fh[nf] = h, ft[nf] = tt, fP[nf] = P, fk[nf++] = k;
            }
        }
    }
    for (int k = 0; k <= SUBK; k++) S->nsub[k] = 0;
    for (int q = nf - 1; q >= 0; q--) { /* (the sub-racks with the last letters first) */
        int k = fk[q], j = S->nsub[k]++;
        if (j == SUBMAX) return 0;
        S->subh[k][j] = fh[q];
        S->subP[k][j] = fP[q];
        S->subt[k][j] = ft[q];
    }
    return 1;
}

/* Bit j: sub-rack j of size k with the board tiles of hash `base` is an anagram of a word. */
uint64_t subrack_words(Search *S, int k, uint64_t base) {
    uint64_t key = zobrist(64 + k) + base, i = (key ^ (key >> 32)) & (SCACHE - 1);
    /* (open addressing; an entry of another search has another stamp: free) */
    for (; S->scache_st[i] == S->scache_serial; i = (i + 1) & (SCACHE - 1))
        if (S->scache_key[i] == key) return S->scache_ok[i];
    uint64_t ok = 0;
    for (int j = 0; j < S->nsub[k]; j++)
        if (wmap_find(S, base + S->subh[k][j])) ok |= 1ull << j;
    if (S->nscache < SCACHE / 2) {
        S->nscache++;
        S->scache_st[i] = S->scache_serial;
        S->scache_key[i] = key;
        S->scache_ok[i] = ok;
    }
    return ok;
}

static inline const uint8_t *wmap_find(Search *S, uint64_t h) {
    if (!h) h = 1;
    for (uint64_t i = slot_of(h) & S->wmask;; i = (i + 1) & S->wmask) {
        if (S->wtab[i] == h) return (uint64_t)S->woff[i] + 4 <= S->wpoolsize ? S->wpool + S->woff[i] : NULL;
        if (!S->wtab[i]) return NULL;
    }
}

/* (pruning) The best score of a play on span [s, e] of lane L whose new tiles are one of the
 * sub-racks `ok` of size k (see subrack_words), word by word from the word map: the word's letters
 * must match the span's board tiles and the cross-checks of its empty squares; NEG_BOUND when none
 * does. (A hash that two multisets share only adds words: the result stays an upper bound.) */
int span_exact(const Gen *g, const Lane *L, int s, int e, int k, uint64_t base, uint64_t ok) {
    Search *S = g->s;
    int len = e - s + 1, best = NEG_BOUND, best_eq = INT32_MIN;
    for (; ok; ok &= ok - 1) {
        int j = __builtin_ctzll(ok), termj = 0;
        const uint8_t *grp = wmap_find(S, base + S->subh[k][j]);
        if (!grp) continue;
        if (g->eq_on) { /* (equity) the sub-rack's leave is known: its term, exactly */
            uint64_t tt = S->subt[k][j];
            int idx = g->eq_full;
            for (int q = 0; q < k; q++) idx -= g->eq_stride[(tt >> (8 * q)) & 255];
            termj = g->eq_term[idx];
        }
        const uint8_t *end = S->wpool + S->wpoolsize;
        uint32_t cnt = grp[0] | grp[1] << 8 | grp[2] << 16 | (uint32_t)grp[3] << 24;
        const uint8_t *w = grp + 4;
        for (uint32_t c = 0; c < cnt && w < end; c++, w += 1 + w[0]) {
            if (w[0] != len || w + 1 + len > end) continue;
            int main = 0, W = 1, cross = 0, i;
            for (i = 0; i < len; i++) {
                int p = s + i, t = w[1 + i];
                uint8_t bt = L->tiles[p];
                if (bt) {
                    if ((bt & 63) != t) break;
                    main += (bt & 64) ? g->bvalues[t] : g->values[t];
                } else {
                    if (!((L->mask[p] >> t) & 1)) break;
                    int v = g->values[t] * L->lm[p];
                    main += v;
                    W *= L->wm[p];
                    if (L->hasx[p]) cross += (L->xscore[p] + v) * L->wm[p];
                }
            }
            if (i < len) continue;
            int sc = main * W + cross + (k >= g->bingo_tiles ? g->bingo : 0);
            if (g->eq_on) {
                sc = sc * 1000 + termj;
                if (sc > best_eq) best_eq = sc;
            } else if (sc > best) {
                best = sc;
            }
        }
    }
    if (g->eq_on && best_eq > INT32_MIN) { /* as a score: ceil((best_eq - eq_maxterm) / 1000) */
        long x = (long)best_eq - g->eq_maxterm;
        best = (int)(x > 0 ? (x + 999) / 1000 : 0); /* (not below 0: see eq_adjust) */
    }
    return best;
}

/* (pruning, the first move) With the word map and no blank on the rack: the words of each sub-rack
 * of two tiles or more straight from the map (each word is in the group of its own multiset only),
 * placed by first_place; a sub-rack whose words cannot reach the K-th best score so far
 * (first_tables' bound, with the value sum of the sub-rack's tiles) is not looked up. */
void first_words_map(Gen *g, int ntiles) {
    Search *S = g->s;
    int cnt[MAX_TILE + 1] = {0};
    for (int k = ntiles < g->n ? ntiles : g->n; k >= 2; k--) {
        for (int j = 0; j < S->nsub[k]; j++) {
            int P = S->subP[k][j];
            if (eq_adjust(g, S->fMmin[k] * P + S->fE[k] + (k >= g->bingo_tiles ? g->bingo : 0), k) < g->thr) continue;
            const uint8_t *grp = wmap_find(S, S->subh[k][j]);
            if (!grp) continue;
            const uint8_t *end = S->wpool + S->wpoolsize, *w = grp + 4;
            uint32_t n = grp[0] | grp[1] << 8 | grp[2] << 16 | (uint32_t)grp[3] << 24;
            for (uint32_t c = 0; c < n && w < end; c++, w += 1 + w[0]) {
                if (w[0] != k || w + 1 + k > end) continue;
                /* the word's tiles are this sub-rack's (not another multiset of the same hash) */
                int same = 1;
                uint64_t tt = S->subt[k][j];
                for (int i = 0; i < k; i++) cnt[(tt >> (8 * i)) & 255]++;
                for (int i = 0; i < k; i++)
                    if (w[1 + i] > MAX_TILE || --cnt[w[1 + i]] < 0) same = 0;
                for (int i = 0; i < k; i++) {
                    cnt[(tt >> (8 * i)) & 255] = 0;
                    if (w[1 + i] <= MAX_TILE) cnt[w[1 + i]] = 0;
                }
                if (same) first_place(g, w + 1, k);
                if (g->error) return;
            }
        }
    }
}

typedef struct {
    uint64_t h;
    uint32_t off;
    uint8_t len;
} ShortWord;

typedef struct {
    ShortWord *w;
    size_t n, cap;
    uint8_t *pool;
    size_t npool, cappool;
    int maxlen;
    int oom;
} ShortWords;

static void collect_short(Search *S, ShortWords *sw, uint32_t list, uint64_t h, int depth, uint8_t *buf) {
    if (!list || depth >= sw->maxlen) return;
    for (uint32_t i = list;; i++) {
        uint32_t nv = KW(i);
        uint32_t t = N_TILE(nv);
        if (t) {
            uint64_t h2 = h + zobrist(t);
            buf[depth] = (uint8_t)t;
            if (N_ACC(nv) && depth + 1 >= 2) {
                if ((sw->n == sw->cap && grow((void **)&sw->w, &sw->cap, sw->n + 1, sizeof(ShortWord)) < 0) ||
                    (sw->npool + depth + 1 > sw->cappool &&
                     grow((void **)&sw->pool, &sw->cappool, sw->npool + depth + 1, 1) < 0)) {
                    sw->oom = 1;
                    return;
                }
                sw->w[sw->n++] = (ShortWord){h2 ? h2 : 1, (uint32_t)sw->npool, (uint8_t)(depth + 1)};
                memcpy(sw->pool + sw->npool, buf, depth + 1);
                sw->npool += depth + 1;
            }
            collect_short(S, sw, N_ARC(nv), h2, depth + 1, buf);
            if (sw->oom) return;
        }
        if (N_END(nv)) break;
    }
}

static int short_cmp(const void *x, const void *y) {
    const ShortWord *a = x, *b = y;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    return a->off < b->off ? -1 : a->off > b->off;
}

typedef struct {
    uint64_t *h;
    size_t n, cap;
    uint32_t maxt;
    int min_len;
    int oom;
} WordHashes;

static void collect_words(Search *S, WordHashes *w, uint32_t list, uint64_t h, int depth) {
    if (!list || depth >= MAX_WORD) return;
    for (uint32_t i = list;; i++) {
        uint32_t nv = KW(i);
        uint32_t t = N_TILE(nv);
        if (t) {
            uint64_t h2 = h + zobrist(t);
            if (t > w->maxt) w->maxt = t;
            if (N_ACC(nv) && depth + 1 >= w->min_len) {
                if (w->n == w->cap && grow((void **)&w->h, &w->cap, w->n + 1, sizeof(uint64_t)) < 0) {
                    w->oom = 1;
                    return;
                }
                w->h[w->n++] = h2 ? h2 : 1;
            }
            collect_words(S, w, N_ARC(nv), h2, depth + 1);
            if (w->oom) return;
        }
        if (N_END(nv)) break;
    }
}

PyObject *py_bingo_index(PyObject *Py_UNUSED(self), PyObject *args) {
    Search *S = &g_search;
    Py_buffer kb;
    int wide = -1, min_len = 7;
    if (!PyArg_ParseTuple(args, "y*|ii", &kb, &wide, &min_len)) return NULL;
    if (S->busy) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_RuntimeError, "bingo_index() called while generate() runs");
        return NULL;
    }
    size_t nnodes = (size_t)kb.len / 4;
    if (nnodes < 2) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_ValueError, "KWG too small");
        return NULL;
    }
    S->wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    S->nnodes = nnodes;
    S->kwg = (const uint32_t *)kb.buf;
    WordHashes w = {NULL, 0, 0, 0, min_len < 1 ? 1 : min_len, 0};
    ShortWords sw = {0};
    collect_words(S, &w, N_ARC(KW(0)), 0, 0);
    PyObject *out = NULL;
    if (w.oom) {
        PyErr_NoMemory();
        goto done;
    }
    size_t cap = 16;
    while (cap < 2 * w.n + 16) cap *= 2;
    /* the word map: words of 2 to min_len + 1 letters grouped by multiset hash */
    uint8_t buf[MAX_WORD + 1];
    sw.maxlen = min_len + 1 < 2 ? 2 : min_len + 1;
    if (sw.maxlen > MAXD) sw.maxlen = MAXD;
    collect_short(S, &sw, N_ARC(KW(0)), 0, 0, buf);
    if (sw.oom) {
        PyErr_NoMemory();
        goto done;
    }
    if (sw.n > 1) qsort(sw.w, sw.n, sizeof(ShortWord), short_cmp);
    size_t ngroups = 0, gpool = 0;
    for (size_t i = 0; i < sw.n; i++) {
        if (i == 0 || sw.w[i].h != sw.w[i - 1].h) {
            ngroups++;
            gpool += 4;
        }
        gpool += 1 + sw.w[i].len;
    }
    size_t wcap = 16;
    while (wcap < 2 * ngroups + 16) wcap *= 2;
    size_t total = cap + 2 + 5 + wcap + (wcap + 1) / 2 + (gpool + 7) / 8;
    if (gpool > UINT32_MAX) {
        PyErr_NoMemory();
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * sizeof(uint64_t)));
    if (!out) goto done;
    uint64_t *o = (uint64_t *)PyBytes_AS_STRING(out);
    memset(o, 0, total * sizeof(uint64_t));
    o[0] = w.maxt | 1ull << 20; /* (a word map follows) */
    o[1] = cap;
    uint64_t *tab = o + 2;
    for (size_t i = 0; i < w.n; i++) {
        uint64_t h = w.h[i];
        uint64_t j = slot_of(h) & (cap - 1);
        while (tab[j] && tab[j] != h) j = (j + 1) & (cap - 1);
        tab[j] = h;
    }
    uint64_t *wh = o + 2 + cap;
    wh[0] = wcap;
    wh[1] = gpool;
    wh[2] = (uint64_t)sw.maxlen;
    wh[3] = nnodes;
    wh[4] = KW(0) | (uint64_t)KW(1) << 32;
    uint64_t *wtab = wh + 5;
    uint32_t *woff = (uint32_t *)(wtab + wcap);
    uint8_t *pool = (uint8_t *)(wtab + wcap + (wcap + 1) / 2);
    size_t at = 0;
    for (size_t i = 0; i < sw.n;) {
        size_t j = i;
        while (j < sw.n && sw.w[j].h == sw.w[i].h) j++;
        uint64_t h = sw.w[i].h, x = slot_of(h) & (wcap - 1);
        while (wtab[x]) x = (x + 1) & (wcap - 1);
        wtab[x] = h;
        woff[x] = (uint32_t)at;
        uint32_t cnt = (uint32_t)(j - i);
        for (int b = 0; b < 4; b++) pool[at++] = (uint8_t)(cnt >> (8 * b));
        for (size_t q = i; q < j; q++) {
            pool[at++] = sw.w[q].len;
            memcpy(pool + at, sw.pool + sw.w[q].off, sw.w[q].len);
            at += sw.w[q].len;
        }
        i = j;
    }
done:
    free(w.h);
    free(sw.w);
    free(sw.pool);
    PyBuffer_Release(&kb);
    return out;
}

/* The bingo index argument into bidx (held in *bb); -1 on a bad one. */
int bingo_arg(Search *S, PyObject *bidx_o, Py_buffer *bb) {
    S->bidx = NULL;
    S->wtab = NULL;
    if (bidx_o == Py_None) return 0;
    if (PyObject_GetBuffer(bidx_o, bb, PyBUF_SIMPLE) < 0) return -1;
    const uint64_t *bi = bb->buf;
    size_t nw = (size_t)bb->len / 8;
    int words = nw >= 3 && ((bi[0] >> 20) & 1);
    uint64_t wcap = 0, wpool = 0, wmax = 0, extra = 0;
    if (words && bi[1] < nw && bi[1] + 7 <= nw) {
        const uint64_t *wh = bi + 2 + bi[1];
        wcap = wh[0], wpool = wh[1], wmax = wh[2];
        if (wcap >= 1 && !(wcap & (wcap - 1)) && wcap < nw && wpool < ((uint64_t)8 << 32))
            extra = 5 + wcap + (wcap + 1) / 2 + (wpool + 7) / 8;
        else extra = (uint64_t)-1;
    }
    if (bb->len % 8 || nw < 3 || ((uintptr_t)bi & 7) || bi[1] < 1 || (bi[1] & (bi[1] - 1)) ||
        (bi[0] & ~(0xFFull | 1ull << 20)) || bi[1] + 2 + (words ? extra : 0) != nw || (bi[0] & 0xFF) > MAX_TILE) {
        PyBuffer_Release(bb);
        bb->obj = NULL;
        PyErr_SetString(PyExc_ValueError, "not a bingo index");
        return -1;
    }
    S->bidx = bi;
    S->bidx_mask = bi[1] - 1;
    S->bidx_maxt = bi[0] & 0xFF;
    if (words) {
        S->wtab = bi + 2 + bi[1] + 5;
        S->wnodes = bi[2 + bi[1] + 3];
        S->wroots = bi[2 + bi[1] + 4];
        S->wmask = wcap - 1;
        S->woff = (const uint32_t *)(S->wtab + wcap);
        S->wpool = (const uint8_t *)(S->wtab + wcap + (wcap + 1) / 2);
        S->wpoolsize = wpool;
        S->wmaxlen = wmax;
    }
    return 0;
}
