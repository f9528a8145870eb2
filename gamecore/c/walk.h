/* The GADDAG walk of the move generator (Gordon 1994), compiled once per node layout: included
 * twice by movegen.c with WALK_WIDE 0 (Node22) and 1 (Node24) and WALK(name) giving each copy its
 * own names, so the layout test is not made at every node read. */

#define WT(v) (WALK_WIDE ? ((v) & 63u) : ((v) >> 24))
#define WA(v) (WALK_WIDE ? ((v) >> 8) : ((v) & ARC_MASK))
#define WE(v) (WALK_WIDE ? ((v) & 0x40u) : ((v) & IS_END))
#define WACC(v) (WALK_WIDE ? ((v) & 0x80u) : ((v) & ACCEPTS))
/* bounds-checked: past the end reads as a childless last sibling */
#define WKW(i) ((size_t)(i) < S->nnodes ? S->kwg[i] : (WALK_WIDE ? 0x40u : IS_END))

static void WALK(gen)(Gen *g, int pos, uint32_t list, int start, int main_sum, int wmul, int xsum, int nplaced);

/* Continue after putting a tile (node value nv) on square pos. The walk of anchor a starts at
 * the right end of the tiles just right of a (at a itself when a + 1 is empty), goes left through
 * them to a and on (the left part), then crosses the separator to g->rstart, the square after
 * those tiles (the right part): a letter on a is then checked against the tiles at once, not
 * after a whole left part. Plays are recorded in the order of a walk started at a itself. */
static inline void WALK(go_on)(Gen *g, int pos, uint32_t nv, int start, int main_sum, int wmul, int xsum, int nplaced) {
    Search *S = g->s;
    uint32_t next = WA(nv);
    int accepts = WACC(nv) != 0;
    int a = g->anchor_pos, n = g->n, rs = g->rstart;
    if (pos <= a) {
        int left_empty = pos == 0 || g->tiles[pos - 1] == 0;
        int block = rs > a + 1; /* tiles right of the anchor: the word so far ends at rs - 1 */
        if (accepts && left_empty && !block) record(g, pos, a, main_sum, wmul, xsum, nplaced);
        /* (pruning) going on left: some span from pos - 1 or further left has to make the cut; a
         * play with a right part needs a tile still on the rack for square rs (none comes back
         * further down the walk), one without a right part has to pass left_ok */
        if (next && pos > 0 && (g->tiles[pos - 1] || !g->anchor[pos - 1]) &&
            (!g->prune_in || (S->leftmax[pos - 1] >= g->thr &&
                              ((S->leftopen[pos - 1] >= g->thr && rs < n &&
                                (g->mask[rs] & (g->blanks > 0 ? (g->rackmask | g->blank_ok) & ~1ull : g->rackmask))) ||
                               left_ok(g, pos, main_sum, xsum, nplaced)))))
            WALK(gen)(g, pos - 1, next, pos - 1, main_sum, wmul, xsum, nplaced);
        if (accepts && left_empty && block) record(g, pos, rs - 1, main_sum, wmul, xsum, nplaced);
        if (next && left_empty && rs < n &&
            (!g->prune_in || (S->rmax[pos][rs] >= g->thr && right_ok(g, rs, main_sum, wmul, xsum, nplaced)))) {
            uint32_t sv = WKW(next);
            if (WT(sv) == 0 && WA(sv)) WALK(gen)(g, rs, WA(sv), pos, main_sum, wmul, xsum, nplaced);
        }
    } else if (start == pos) {
        /* still on the tiles right of the anchor, going left towards it */
        if (next) WALK(gen)(g, pos - 1, next, pos - 1, main_sum, wmul, xsum, nplaced);
    } else {
        int right_empty = pos + 1 >= n || g->tiles[pos + 1] == 0;
        if (accepts && right_empty) record(g, start, pos, main_sum, wmul, xsum, nplaced);
        if (next && pos + 1 < n &&
            (!g->prune_in ||
             (S->rmax[start][pos + 1] >= g->thr && right_ok(g, pos + 1, main_sum, wmul, xsum, nplaced))))
            WALK(gen)(g, pos + 1, next, start, main_sum, wmul, xsum, nplaced);
    }
}

static void WALK(gen)(Gen *g, int pos, uint32_t list, int start, int main_sum, int wmul, int xsum, int nplaced) {
    Search *S = g->s;
    if (g->error) return;
    S->calls++;
    uint8_t bt = g->tiles[pos];
    if (bt) {
        uint32_t want = bt & 63;
        for (uint32_t i = list;; i++) {
            uint32_t nv = WKW(i);
            uint32_t t = WT(nv);
            if (t == want) {
                WALK(go_on)(g, pos, nv, start, main_sum + ((bt & 64) ? g->bvalues[want] : g->values[want]), wmul, xsum,
                            nplaced);
                return;
            }
            if (t > want || WE(nv)) return;
        }
    }
    if (nplaced >= g->max_placed) return; /* (see Gen.part) */
    /* letters allowed here (cross-check) that the rack can supply */
    uint64_t allowed = g->mask[pos] & (g->blanks > 0 ? (g->rackmask | g->blank_ok) & ~1ull : g->rackmask);
    if (!allowed) return;
    uint32_t maxt = 63 - (uint32_t)__builtin_clzll(allowed);
    int lm = g->lm[pos], wm = g->wm[pos];
    int hx = g->hasx[pos], xs = g->xscore[pos];
    /* a sibling list has at most MAX_TILE + 1 nodes (its tiles differ): read that many at most,
     * checking the graph's end once instead of at each node */
    size_t last = (size_t)list + MAX_TILE < S->nnodes ? (size_t)list + MAX_TILE : S->nnodes - 1;
    for (uint32_t i = list; i <= last; i++) {
        uint32_t nv = S->kwg[i];
        uint32_t t = WT(nv);
        if (t > maxt) break;
        if ((allowed >> t) & 1) {
            /* the child list is read soon, after the rack and score bookkeeping: fetch it now
             * (a new position's part of the graph is mostly out of the caches) */
            __builtin_prefetch(&S->kwg[WA(nv) < S->nnodes ? WA(nv) : 0]);
            if (g->rack[t] > 0) {
                int v = g->values[t] * lm;
                if (--g->rack[t] == 0) g->rackmask &= ~(1ull << t);
                g->placed[pos] = (uint8_t)t;
                WALK(go_on)(g, pos, nv, start, main_sum + v, wmul * wm, xsum + (hx ? (xs + v) * wm : 0), nplaced + 1);
                g->placed[pos] = 0;
                g->rack[t]++;
                g->rackmask |= 1ull << t;
            }
            if (g->blanks > 0 && ((g->blank_ok >> t) & 1)) {
                g->blanks--;
                g->placed[pos] = (uint8_t)(t | 64);
                int bv = g->bvalues[t] * lm;
                WALK(go_on)(g, pos, nv, start, main_sum + bv, wmul * wm, xsum + (hx ? (xs + bv) * wm : 0), nplaced + 1);
                g->placed[pos] = 0;
                g->blanks++;
            }
        }
        if (WE(nv)) break;
    }
}

static void WALK(first_words)(Gen *g, uint32_t list, uint8_t *w, int d, int P);

/* One letter of a first move: tile t (from the rack, or a blank standing for it) at w[d] after
 * w[0..d) of value sum P, node value nv: the word so far placed when it is one, then the words
 * going on from it. When pruning, a word is not placed when even its best start cannot reach the
 * K-th best score so far (first_tables). */
static inline void WALK(first_letter)(Gen *g, uint32_t nv, uint32_t t, int blank, uint8_t *w, int d, int P) {
    Search *S = g->s;
    if (blank) {
        g->blanks--;
        w[d] = (uint8_t)(t | 64);
        P += g->bvalues[t];
    } else {
        g->rack[t]--;
        w[d] = (uint8_t)t;
        P += g->values[t];
    }
    int len = d + 1;
    if (WACC(nv) && d >= 1 &&
        (!g->prune_in ||
         eq_adjust(g, S->fMmin[len] * P + S->fE[len] + (len >= g->bingo_tiles ? g->bingo : 0), len) >= g->thr))
        first_place(g, w, len);
    WALK(first_words)(g, WA(nv), w, len, P);
    if (blank) g->blanks++;
    else g->rack[t]++;
}

/* The words the rack can make, from the DAWG sibling list `list` on (w[0..d) so far, of value sum
 * P), each placed by first_place (the first move, see there). */
static void WALK(first_words)(Gen *g, uint32_t list, uint8_t *w, int d, int P) {
    Search *S = g->s;
    if (!list || d >= g->n || g->error) return;
    S->calls++;
    /* without a blank, the tiles above the rack's highest cannot be played (a list is sorted) */
    uint32_t maxt = g->blanks > 0 ? MAX_TILE : 63 - (uint32_t)__builtin_clzll(g->rackmask | 1);
    for (uint32_t i = list;; i++) {
        uint32_t nv = WKW(i);
        uint32_t t = WT(nv);
        if (t > maxt) break;
        if (t) {
            if (g->rack[t] > 0) WALK(first_letter)(g, nv, t, 0, w, d, P);
            if (g->blanks > 0) WALK(first_letter)(g, nv, t, 1, w, d, P);
        }
        if (WE(nv)) break;
    }
}

/* The same from the DAWG root when pruning, the rack's tiles best value first (then the blanks'
 * letters): the best plays tend to come first, and the threshold rises early. */
static void WALK(first_words_ordered)(Gen *g, uint32_t root, uint8_t *w) {
    Search *S = g->s;
    if (!root || g->n < 1) return;
    S->calls++;
    /* the root nodes of the rack's tiles (one pass over the root list), best value first */
    uint32_t node[MAX_TILE + 1];
    int order[MAX_TILE + 1], no = 0;
    for (uint32_t i = root;; i++) {
        uint32_t nv = WKW(i);
        uint32_t t = WT(nv);
        if (t && g->rack[t] > 0) {
            int j = no++;
            while (j > 0 && g->values[order[j - 1]] < g->values[t]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = (int)t;
            node[t] = nv;
        }
        if (WE(nv)) break;
    }
    for (int k = 0; k < no && !g->error; k++) WALK(first_letter)(g, node[order[k]], (uint32_t)order[k], 0, w, 0, 0);
    if (g->blanks > 0)
        for (uint32_t i = root; !g->error; i++) {
            uint32_t nv = WKW(i);
            uint32_t t = WT(nv);
            if (t) WALK(first_letter)(g, nv, t, 1, w, 0, 0);
            if (WE(nv)) break;
        }
}

#undef WT
#undef WA
#undef WE
#undef WACC
#undef WKW
