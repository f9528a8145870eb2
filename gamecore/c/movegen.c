/*
 * Move generation: Gordon's GADDAG algorithm (Gordon 1994, "A faster Scrabble move generation
 * algorithm") per lane (row or column), anchors = empty squares next to a tile (or the start square
 * on the first move), cross-checks (64-bit letter sets) and cross-scores computed once per call from
 * the DAWG, narrowed by the lane's own tiles beside the square (lane_mask); the walk of an anchor
 * with tiles just right of it starts at their right end (rev(tiles) first), so that a left part is
 * checked against them at once; every node read is bounds-checked. When the plays are wanted
 * sorted, the first move takes each word of the rack once from the DAWG and places it at every
 * start covering the start square (first_words); for the best K its tiles are tried best value
 * first, and a word no start can bring to the K-th best score so far is not placed. Plays are
 * recorded as plain structs into a buffer kept between calls, sorted there (a 64-bit key, radix
 * sort) and made into Python objects only for the plays returned (RawMoves, or ScoredPlay tuples
 * built directly). For the best K plays the search is pruned (the idea of MAGPIE's "shadow",
 * written here from the scoring rule): each anchor gets an upper bound over its spans, anchors are
 * searched best bound first, the search inside an anchor skips spans whose bound is below the K-th
 * best score so far, and it stops when the best bound left is below it; a bingo index (multiset
 * hashes of the long words) drops spans that would take the whole rack when no word fits them,
 * and with it an anchor's bingos are bounded and searched apart from its shorter plays, a blank in
 * them standing only for the letters of some word of the rack and the span's board tiles. The
 * index also holds a word map (every word of up to min_len + 1 letters, by multiset hash): with it
 * and no blank on the rack, a span that can make the cut gets the best score of its plays instead
 * of its bound before its anchor is searched (the sub-racks that make a word with the span's
 * board tiles, each such word tried against the span's board tiles and cross-checks; MAGPIE
 * generates plays from sub-racks and a word map, its WMP, in the same way), and the first move
 * reads its words from the map instead of walking the DAWG. The result is exactly the first K of the full sorted list
 * (tests/test_shadow*.py).
 */

#include "native.h"

/* The search state of the module's generate() (a Position has its own), and the state of the last
 * search anywhere (for last_stats()). */
Search g_search;
Search *g_last_search;

/* A search state before its first search (the rest starts at zero). */
void search_init(Search *S) {
    S->L = S->lanes;
    S->G = S->grid;
    S->fmL = -1;
}

/* A new search state (a Position's), or NULL when out of memory. Its megabytes are mapped, not
 * written: the pages come zeroed when first used, so a Position costs little until it searches. */
Search *search_new(void) {
    void *p = mmap(NULL, sizeof(Search), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    search_init(p);
    return p;
}

/* A search state of search_new() and its buffers. */
void search_delete(Search *S) {
    free(S->moves);
    free(S->tmp);
    free(S->pool);
    munmap(S, sizeof(Search));
}

/* Whether a play whose squares up to p-1 are placed (main_sum, wmul, xsum, nplaced so far) can
 * still score at least the K-th best when it goes on to square p. */
static inline int right_ok(const Gen *g, int p, int main_sum, int wmul, int xsum, int nplaced) {
    Search *S = g->s;
    if (S->dW[p] < 0) return 0;
    int k = g->bingo_tiles - nplaced; /* new tiles still needed for the bingo bonus */
    int reach = k <= 0 || (k < 64 && (S->dK[p] >> k));
    if (g->part == 2 && !reach) return 0; /* looking for bingos only: none on this way */
    int b = wmul * (main_sum * S->dW[p] + S->dMW[p]) + xsum + S->dX[p] + (reach && g->part != 1 ? g->bingo : 0);
    if (g->eq_on && b >= 0) { /* (equity) less what a leave of the tiles still kept lacks of the best term */
        b += g->eq_adjge[nplaced];
        if (b < 0) b = 0;
    }
    return b >= g->thr;
}

/* (pruning) the rack's order for left_ok, at the start of an anchor's search. */
static void left_order(const Gen *g) {
    Search *S = g->s;
    int bmax = -1; /* a blank scores at most its best letter (of those it may stand for) */
    if (g->blanks > 0)
        for (uint64_t m = g->blank_ok & ~1ull; m; m &= m - 1)
            if (g->bvalues[__builtin_ctzll(m)] > bmax) bmax = g->bvalues[__builtin_ctzll(m)];
    S->nord = 0;
    for (uint64_t m = g->rackmask | (bmax >= 0 ? 1 : 0); m; m &= m - 1) {
        int t = __builtin_ctzll(m), v = t ? g->values[t] : bmax, j = S->nord++;
        while (j > 0 && S->ordv[j - 1] < v) {
            S->ordt[j] = S->ordt[j - 1];
            S->ordv[j] = S->ordv[j - 1];
            j--;
        }
        S->ordt[j] = t;
        S->ordv[j] = v;
    }
    S->nlx = 0;
    for (int o = 0; o < S->nord; o++)
        for (int c = S->ordt[o] ? g->rack[S->ordt[o]] : g->blanks; c > 0 && S->nlx < MAXD; c--)
            S->lx[S->nlx++] = S->ordv[o];
    S->lusable = g->blanks > 0 ? ~1ull : g->rackmask;
    S->lready = 0;
}

/* (pruning) lW, lF, lB, lHi, lLo for the left parts of the anchor being searched (see
 * left_ok): for each pos, over the starts s < pos of the plays that end at the tiles right of it. */
static void left_tables(const Gen *g) {
    Search *S = g->s;
    int a = g->anchor_pos;
    for (int p = 0; p <= a; p++) S->lW[p] = -1;
    int wmul = 1, np = 0; /* of the squares pos..a */
    for (int pos = a; pos >= 1; pos--) {
        if (!g->tiles[pos]) {
            if (pos < a && (g->anchor[pos] || !(g->mask[pos] & S->lusable))) break;
            wmul *= g->wm[pos];
            np++;
        }
        int R = g->ntiles - np, mW = -1, mF = NEG_BOUND, B[MAXD + 1];
        if (R < 0) break; /* (more squares than tiles: the walk cannot get here) */
        if (R > MAXD) R = MAXD;
        for (int j = 0; j <= R; j++) B[j] = 0;
        int lm[MAXD], xw[MAXD], eff[MAXD], k = 0, W = wmul, board = 0, cross = 0;
        for (int s = pos - 1; s >= 0; s--) {
            uint8_t bt = g->tiles[s];
            if (bt) {
                board += (bt & 64) ? g->bvalues[bt & 63] : g->values[bt & 63];
            } else {
                if (g->anchor[s] || !(g->mask[s] & S->lusable) || k == R || np + k == g->max_placed) break;
                int l = g->lm[s], w = g->wm[s];
                lm[k] = l;
                xw[k] = g->hasx[s] ? l * w : 0;
                if (g->hasx[s]) cross += g->xscore[s] * w;
                k++;
                if (w != 1) {
                    W *= w;
                    for (int i = 0; i < k; i++) eff[i] = lm[i] * W + xw[i];
                    for (int i = 1; i < k; i++) { /* sorted again, best first */
                        int x = eff[i], j = i;
                        while (j > 0 && eff[j - 1] < x) {
                            eff[j] = eff[j - 1];
                            j--;
                        }
                        eff[j] = x;
                    }
                } else {
                    int x = l * W + xw[k - 1], j = k - 1;
                    while (j > 0 && eff[j - 1] < x) {
                        eff[j] = eff[j - 1];
                        j--;
                    }
                    eff[j] = x;
                }
            }
            if ((s > 0 && g->tiles[s - 1]) || np + k < g->min_placed) continue;
            int f = board * W + cross + (np + k >= g->bingo_tiles && g->part != 1 ? g->bingo : 0);
            if (W > mW) mW = W;
            if (f > mF) mF = f;
            for (int j = 1, E = 0; j <= R; j++) {
                if (j <= k) E += eff[j - 1];
                if (E > B[j]) B[j] = E;
            }
        }
        if (mW < 0) continue;
        S->lW[pos] = mW;
        S->lF[pos] = mF;
        S->lHi[pos] = S->lLo[pos] = 0;
        for (int i = 0; i < R; i++) {
            int d = B[i + 1] - B[i];
            S->lHi[pos] += (i < S->nlx ? S->lx[i] : 0) * d;
            S->lLo[pos] += (i + np < S->nlx ? S->lx[i + np] : 0) * d;
        }
        memcpy(S->lB[pos], B, (R + 1) * sizeof(int));
    }
    S->lready = 1;
}

/* (pruning) Whether a left part that has placed squares pos..a (main_sum, xsum so far; one tile on
 * each empty one) can still score at least the K-th best by going on left and ending at the tiles
 * right of the anchor (no right part). Such a play adds k tiles on new squares s..pos-1, each of
 * value v_i scoring v_i * eff_i (eff_i = lm_i * W + its cross word's share, W = the word
 * multiplier of the whole play); with eff sorted best first and the tiles still on the rack
 * r_0 >= r_1 >= ... >= r_{R-1} (none placed further on is worth more) that is at most
 * sum_i eff_i r_i (rearrangement) = sum_j (r_{j-1} - r_j) E_j (E_j = eff_0 + ... + eff_{j-1},
 * E_j = E_k past k, r_R = 0) <= sum_j (r_{j-1} - r_j) B_j = sum_i r_i (B_{i+1} - B_i), B_j = the
 * largest E_j over the starts s (lB[pos][j]). So b = main_sum * (the largest W) + (the largest
 * rest: board tiles, cross words' board tiles, bingo) + xsum + sum_i r_i (B_{i+1} - B_i), added up
 * a letter at a time (its c tiles are r_i .. r_{i+c-1}, of one value v: v (B_{i+c} - B_i)). Unlike
 * the span bounds it follows the tiles the part has used: a left part that placed the rack's best
 * tiles cannot place them again. The sum lies between lLo[pos] and lHi[pos] (the rack's values
 * x_0 >= x_1 >= ...: x_{i+m} <= r_i <= x_i, m the tiles placed) and is added up only when those do
 * not settle it. */
static inline int left_ok(const Gen *g, int pos, int main_sum, int xsum, int nplaced) {
    Search *S = g->s;
    if (!S->lready) left_tables(g);
    if (S->lW[pos] < 0) return 0;
    int b = main_sum * S->lW[pos] + S->lF[pos] + xsum, i = 0;
    /* (equity) less what the leaves of the tiles still kept lack of the best term (as right_ok: a
     * bound not below 0 stays so, and the threshold is 0 or more) */
    int thr = g->eq_on && g->thr > 0 ? g->thr - g->eq_adjge[nplaced] : g->thr;
    if (b + S->lLo[pos] >= thr) return 1;
    if (b + S->lHi[pos] < thr) return 0;
    const int *B = S->lB[pos];
    for (int o = 0; o < S->nord; o++) {
        int t = S->ordt[o], j = i + (t ? g->rack[t] : g->blanks);
        if (j > MAXD) j = MAXD; /* (the tiles left are as many as the table's entries) */
        b += S->ordv[o] * (B[j] - B[i]);
        i = j;
    }
    return b >= thr;
}

static void heap_push(Gen *g, int s) {
    int i = g->nheap++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (g->heap[p] <= s) break;
        g->heap[i] = g->heap[p];
        i = p;
    }
    g->heap[i] = s;
}

static void heap_replace_top(Gen *g, int s) {
    int n = g->nheap, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && g->heap[c + 1] < g->heap[c]) c++;
        if (g->heap[c] >= s) break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    g->heap[i] = s;
}

int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    void *np = realloc(*p, nc * size);
    if (!np) return -1;
    *p = np;
    *cap = nc;
    return 0;
}

/* (equity) The least score a play needs to reach the K-th best equity so far: its term is at most
 * eq_maxterm and the opening penalties are never above 0 (and no play scores below 0). */
static inline int eq_threshold(const Gen *g) {
    long x = (long)g->heap[0] - g->eq_maxterm;
    long t = x > 0 ? (x + 999) / 1000 : -((-x) / 1000);
    return t > 0 ? (int)t : 0;
}

static void record(Gen *g, int start, int end, int main_sum, int wmul, int xsum, int nplaced) {
    Search *S = g->s;
    int len = end - start + 1;
    if (len < 2 || nplaced < g->min_placed) return;
    if (g->dedupe_single && nplaced == 1) {
        for (int i = start; i <= end; i++)
            if (g->placed[i] && g->hasx[i]) return;
    }
    int score = main_sum * wmul + xsum + (nplaced >= g->bingo_tiles ? g->bingo : 0);
    if (score > S->cur_best) S->cur_best = score;
    int val = score; /* what the top K are chosen by: the score, or the equity */
    if (g->eq_on) {
        int idx = g->eq_full, pen = 0;
        const int *pt = g->eq_pen[!g->across];
        for (int i = start; i <= end; i++) {
            if (g->tiles[i]) continue;
            int t = g->placed[i];
            idx -= g->eq_stride[(t & 64) ? 0 : t];
            if (g->eq_opening && ((g->eq_vowels >> (t & 63)) & 1)) pen += pt[i];
        }
        val = score * 1000 + g->eq_term[idx] + pen;
    }
    if (g->limit) {
        if (g->nheap == g->limit) {
            if (val < g->heap[0]) return; /* below the K-th best so far: never in the top K */
            if (val > g->heap[0]) {
                heap_replace_top(g, val);
                g->thr = g->eq_on ? eq_threshold(g) : g->heap[0];
            }
        } else {
            heap_push(g, val);
            if (g->nheap == g->limit) g->thr = g->eq_on ? eq_threshold(g) : g->heap[0];
        }
    }
    if ((S->nmoves == S->capmoves && grow((void **)&S->moves, &S->capmoves, S->nmoves + 1, sizeof(Move)) < 0) ||
        (S->npool + len > S->cappool && grow((void **)&S->pool, &S->cappool, S->npool + len, 1) < 0)) {
        g->error = 1;
        return;
    }
    Move *m = &S->moves[S->nmoves++];
    uint8_t *w = S->pool + S->npool;
    m->off = (uint32_t)S->npool;
    S->npool += len;
    for (int i = start; i <= end; i++) w[i - start] = g->tiles[i] ? g->tiles[i] : g->placed[i];
    m->score = score;
    m->row = (uint8_t)(g->across ? g->lane : start);
    m->col = (uint8_t)(g->across ? start : g->lane);
    m->across = (uint8_t)g->across;
    m->len = (uint8_t)len;
    m->placed = (uint8_t)nplaced;
    m->key = g->eq_on ? (uint64_t)(uint32_t)val : 0; /* (equity: kept here until the plays are sorted) */
}

/* The first move when the plays are wanted sorted (their order of finding does not matter then):
 * the words the rack can make, found once each in the DAWG, each placed at every start that
 * covers the start square a of the lane set -- the same plays as the GADDAG walk of that anchor
 * (on an empty board every square takes any letter its mask allows, and no word is crossed),
 * without walking each word once per square of it. */
void first_place(Gen *g, const uint8_t *w, int len) {
    int a = g->anchor_pos, n = g->n;
    int s0 = a - len + 1 > 0 ? a - len + 1 : 0, s1 = n - len < a ? n - len : a;
    for (int s = s0; s <= s1; s++) {
        int main_sum = 0, wmul = 1, ok = 1;
        for (int i = 0; i < len; i++) {
            int p = s + i, t = w[i] & 63;
            if (!((g->mask[p] >> t) & 1)) {
                ok = 0;
                break;
            }
            main_sum += ((w[i] & 64) ? g->bvalues[t] : g->values[t]) * g->lm[p];
            wmul *= g->wm[p];
            g->placed[p] = w[i];
        }
        if (ok) record(g, s, s + len - 1, main_sum, wmul, 0, len);
    }
}

/* fMmin and fE for the lane set, rv[0..nrv) = the rack's values best first. */
static void first_tables(const Gen *g, const int *rv, int nrv) {
    Search *S = g->s;
    int a = g->anchor_pos, n = g->n, Lmax = n < nrv ? n : nrv; /* (no word is longer than the rack) */
    uint8_t key[3][MAXD];
    for (int p = 0; p < n; p++) {
        key[0][p] = g->lm[p];
        key[1][p] = g->wm[p];
        key[2][p] = g->mask[p] != 0;
    }
    if (S->fmL < Lmax || S->fmn != n || S->fma != a || memcmp(key[0], S->fmkey[0], n) != 0 ||
        memcmp(key[1], S->fmkey[1], n) != 0 || memcmp(key[2], S->fmkey[2], n) != 0) {
        for (int L = 1; L <= Lmax; L++) {
            int *M = S->fM[L];
            for (int i = 0; i < L; i++) M[i] = 0;
            S->fok[L] = 0;
            for (int s = a - L + 1 > 0 ? a - L + 1 : 0; s <= a && s + L <= n; s++) {
                int lm[MAXD], W = 1, k;
                for (k = 0; k < L && g->mask[s + k]; k++) {
                    int x = g->lm[s + k], j = k;
                    while (j > 0 && lm[j - 1] < x) { /* kept sorted, best first */
                        lm[j] = lm[j - 1];
                        j--;
                    }
                    lm[j] = x;
                    W *= g->wm[s + k];
                }
                if (k < L) continue; /* a blocked square */
                S->fok[L] = 1;
                for (int i = 0; i < L; i++)
                    if (W * lm[i] > M[i]) M[i] = W * lm[i];
            }
        }
        S->fmL = Lmax;
        S->fmn = n;
        S->fma = a;
        memcpy(S->fmkey, key, sizeof key);
    }
    for (int L = 1; L <= Lmax; L++) {
        const int *M = S->fM[L];
        S->fMmin[L] = M[L - 1];
        S->fE[L] = S->fok[L] ? 0 : NEG_BOUND;
        for (int i = 0; S->fok[L] && i < L; i++) S->fE[L] += (M[i] - M[L - 1]) * rv[i];
    }
}

#define WALK_WIDE 0
#define WALK(name) name##_22
#include "walk.h"
#undef WALK_WIDE
#undef WALK
#define WALK_WIDE 1
#define WALK(name) name##_24
#include "walk.h"
#undef WALK_WIDE
#undef WALK

static void gen(Gen *g, int pos, uint32_t list, int start, int main_sum, int wmul, int xsum, int nplaced) {
    Search *S = g->s;
    if (S->wide) gen_24(g, pos, list, start, main_sum, wmul, xsum, nplaced);
    else gen_22(g, pos, list, start, main_sum, wmul, xsum, nplaced);
}

static void first_words(Gen *g, uint32_t root, uint8_t *w) {
    Search *S = g->s;
    if (g->prune_in) {
        if (S->wide) first_words_ordered_24(g, root, w);
        else first_words_ordered_22(g, root, w);
    } else {
        if (S->wide) first_words_24(g, root, w, 0, 0);
        else first_words_22(g, root, w, 0, 0);
    }
}

/* The plays of anchor a (the lane set): the walk starts at the right end of the tiles just right
 * of a (a itself when there are none) and ends its left part at a (see walk.h). */
static void walk_anchor(Gen *g, int a, uint32_t groot) {
    int q = a;
    while (q + 1 < g->n && g->tiles[q + 1]) q++;
    g->anchor_pos = a;
    g->rstart = q + 1;
    gen(g, q, groot, q, 0, 1, 0, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Sorting the recorded plays: score descending, fewer tiles, row, column, across before down,  */
/* then the letters (bytes order, a prefix first) -- best.py's order. A 64-bit key holds all    */
/* but the letters after the third; equal keys are few and compared in full.                    */

static int move_cmp(Search *S, const Move *a, const Move *b) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->placed != b->placed) return a->placed < b->placed ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    if (a->across != b->across) return a->across > b->across ? -1 : 1;
    int n = a->len < b->len ? a->len : b->len;
    int c = memcmp(S->pool + a->off, S->pool + b->off, n);
    if (c) return c;
    return (int)a->len - (int)b->len;
}

static int move_qcmp(const void *a, const void *b, void *S) { return move_cmp(S, a, b); }

/* (equity) equity descending, then the order of move_cmp (gamecore.equity.rank's order). */
static int move_eq_qcmp(const void *x, const void *y, void *S) {
    const Move *a = x, *b = y;
    int32_t ea = (int32_t)(uint32_t)a->key, eb = (int32_t)(uint32_t)b->key;
    if (ea != eb) return ea > eb ? -1 : 1;
    return move_cmp(S, a, b);
}

static void insertion_sort(Search *S, Move *a, size_t n) {
    for (size_t i = 1; i < n; i++) {
        Move x = a[i];
        size_t j = i;
        while (j > 0 && move_cmp(S, &a[j - 1], &x) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Sort moves[0..n); -1 when out of memory. */
static int sort_moves(Search *S, size_t n) {
    if (n < 2) return 0;
    int keyed = n >= 256;
    for (size_t i = 0; keyed && i < n; i++) {
        Move *m = &S->moves[i];
        if (m->score < 0 || m->score > 0xFFFFFF || m->placed > 63 || m->row > 63 || m->col > 63) {
            keyed = 0;
            break;
        }
        const uint8_t *w = S->pool + m->off;
        m->key = ((uint64_t)(0xFFFFFF - m->score) << 40) | ((uint64_t)m->placed << 34) | ((uint64_t)m->row << 28) |
                 ((uint64_t)m->col << 22) | ((uint64_t)!m->across << 21) | ((uint64_t)(w[0] & 127) << 14) |
                 ((uint64_t)(w[1] & 127) << 7) | (m->len > 2 ? (uint64_t)(w[2] & 127) : 0);
    }
    if (!keyed) {
        qsort_r(S->moves, n, sizeof(Move), move_qcmp, S);
        return 0;
    }
    if (grow((void **)&S->tmp, &S->captmp, n, sizeof(Move)) < 0) return -1;
    Move *src = S->moves, *dst = S->tmp;
    /* the counts of all eight digits in one pass over the plays */
    size_t (*counts)[256] = S->radix_counts;
    memset(S->radix_counts, 0, sizeof S->radix_counts);
    for (size_t i = 0; i < n; i++) {
        uint64_t k = src[i].key;
        for (int d = 0; d < 8; d++) counts[d][(k >> (8 * d)) & 255]++;
    }
    for (int d = 0; d < 8; d++) {
        int shift = 8 * d;
        size_t *count = counts[d];
        if (count[(src[0].key >> shift) & 255] == n) continue; /* one digit: nothing to do */
        size_t s = 0;
        for (int v = 0; v < 256; v++) {
            size_t c = count[v];
            count[v] = s;
            s += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i].key >> shift) & 255]++] = src[i];
        Move *t = src;
        src = dst;
        dst = t;
    }
    if (src != S->moves) memcpy(S->moves, src, n * sizeof(Move));
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && S->moves[j].key == S->moves[i].key) j++;
        if (j - i > 1) insertion_sort(S, S->moves + i, j - i);
        i = j;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* generate()                                                                                   */

static void set_lane(Gen *g, int dir, int l, int R, int C) {
    Search *S = g->s;
    const Lane *L = &S->L[dir][l];
    g->across = dir == 0;
    g->n = dir == 0 ? C : R;
    g->lane = l;
    g->dedupe_single = dir != 0;
    g->tiles = L->tiles;
    g->mask = L->mask;
    g->xscore = L->xscore;
    g->hasx = L->hasx;
    g->anchor = L->anchor;
    g->lm = L->lm;
    g->wm = L->wm;
}

/* The walk of search(): the plays recorded into S->moves (W->nout of them to return, sorted when
 * asked). It touches no Python object (search() releases the GIL around it for a Position, whose
 * Search is its own): -1 when out of memory. */
static int traverse(Gen *g, Traversal *W, const SearchArgs *args) {
    Search *S = g->s;
    int R = W->R, C = W->C, nanchors = W->nanchors, sorted_out = W->sorted, mirror = W->mirror;
    int mirror_lane = W->mirror_lane, limit = args->limit, prune = args->prune, negative = args->negative;
    int fits = args->fits, empty_board = args->empty_board;
    S->sub_blank = 0;
    S->nmoves = S->npool = 0;
    S->st_anchors = nanchors;
    S->st_searched = S->st_recorded = S->st_calls = 0;
    uint32_t groot = N_ARC(S->kwg[1]);
    prune = prune && g->limit > 0 && !negative && g->bingo >= 0 && (fits || bounds_fit(g, R, C));
    g->thr = INT32_MIN;
    g->part = g->min_placed = 0;
    g->max_placed = INT32_MAX;
    g->blank_ok = ~0ull;
    int rv[MAXD], nrv = 0;
    S->nsteps = 0;
    if (empty_board && sorted_out) {
        /* the first move, sorted: every word of the rack once (first_words) */
        uint32_t droot = N_ARC(S->kwg[0]);
        uint8_t w[MAXD];
        int by_map = 0, ntiles = 0;
        if (prune) {
            nrv = rack_values(g, rv);
            g->thr = 0; /* no play scores below 0 when pruning */
            for (int t = 1; t <= MAX_TILE; t++) ntiles += g->rack[t] > 0 ? g->rack[t] : 0;
            by_map = S->bidx && S->wtab && g->blanks == 0 && ntiles <= (int)S->wmaxlen && list_subracks(g);
        }
        for (int i = 0; i < nanchors; i++) {
            const Anchor *A = &S->anchors[i];
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            S->calls = 0;
            /* the best K: words that cannot make the cut are not placed */
            if (prune) first_tables(g, rv, nrv);
            g->prune_in = prune;
            if (by_map) first_words_map(g, ntiles);
            else first_words(g, droot, w);
            g->prune_in = 0;
            S->st_searched++;
            S->st_calls += S->calls;
            if (g->error) return -1;
        }
    } else if (prune) {
        /* best bound first; an anchor on top has its bingo spans checked (bingo_letters) and goes
         * back, then gets the GADDAG search, pruned inside by its span bounds (rmax, leftmax).
         * Stop when the best bound left is below the K-th best score recorded. */
        nrv = rack_values(g, rv);
        g->ntiles = g->blanks;
        for (int t = 1; t <= MAX_TILE; t++) g->ntiles += g->rack[t] > 0 ? g->rack[t] : 0;
        lane_caps(g, R, C);
        S->nbcache = 0;
        S->nscache = 0;
        S->scache_serial++; /* (never 0: the stamps start at 0) */
        /* (equity, a blank on the rack: the plays of its letters only, which keep every blank, are
         * scored from the word map; those that take a blank are bounded apart, see exact_bound) */
        S->sub_on = S->bidx && S->wtab && (g->blanks == 0 || g->eq_on) && list_subracks(g);
        S->sub_blank = S->sub_on && g->blanks > 0;
        S->search_serial++;
        S->nspool = 0;
        S->naheap = 0;
        /* A rack that can make a bingo splits each anchor in two (heap entry 2i + p): its plays of
         * fewer than bingo_tiles tiles (p = 0, part 1) and its bingos (p = 1, part 2), each bounded
         * and searched on its own. A bingo span's high bound then no longer sends the anchor's
         * short plays to be searched early, while the threshold is still low, and the bingo search
         * takes a blank only as the letters the bingo index allows. Without an index the two walks
         * would go over the same left parts for little: one search then. */
        int split = S->bidx && g->bingo > 0 && g->ntiles >= g->bingo_tiles;
        /* no play scores below 0 (no negative values when pruning): a bound below it, the NEG_BOUND
         * of a span that cannot hold a play, prunes from the start */
        g->thr = 0;
        for (int i = 0; i < nanchors; i++) {
            Anchor *A = &S->anchors[i];
            A->searched = 0;
            int n = A->dir == 0 ? C : R, bb = -1;
            APart *P0 = &S->parts[2 * (ptrdiff_t)i], *P1 = &S->parts[2 * (ptrdiff_t)i + 1];
            S->aspan[i][0] = S->nspool;
            S->spool_rec = 1;
            P0->bound = span_bounds(g, &S->L[A->dir][A->lane], n, A->pos, rv, nrv, 0, 0, split, &P0->bs, &P0->be,
                                    split ? &bb : NULL, NULL);
            S->aspan[i][1] = S->spool_rec > 0 ? S->nspool - S->aspan[i][0] : -1;
            S->spool_rec = 0;
            /* only bingo spans are checked against the index: nothing to check without one */
            P0->checked = (split && !S->sub_on) || S->bidx == NULL;
            if (P0->bound >= 0) aheap_push(S, 2 * i);
            if (split) {
                P1->bound = bb;
                P1->bs = P1->be = -1;
                P1->checked = S->bidx == NULL;
                if (bb >= 0) aheap_push(S, 2 * i + 1);
            }
        }
        while (S->naheap) {
            int x = S->aheap[0];
            APart *P = &S->parts[x];
            Anchor *A = &S->anchors[x >> 1];
            int part = split ? 1 + (x & 1) : 0;
            if (g->nheap == g->limit && P->bound < g->thr) break;
            aheap_pop(S);
            int n = A->dir == 0 ? C : R;
            if (!P->checked) {
                P->checked = 1;
                S->exkey = S->search_serial << 16 | (uint64_t)(x >> 1);
                if (S->aspan[x >> 1][1] >= 0)
                    P->bound = pool_bounds(g, &S->L[A->dir][A->lane], x >> 1, part, &P->bs, &P->be);
                else
                    P->bound = span_bounds(g, &S->L[A->dir][A->lane], n, A->pos, rv, nrv, 0, 1, part, &P->bs, &P->be,
                                           NULL, NULL);
                if (P->bound >= 0) aheap_push(S, x);
                continue;
            }
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            S->calls = 0;
            S->cur_best = -1;
            /* the bingos' blanks: only the letters some word of the spans left takes */
            uint64_t blank_ok = 0;
            S->exkey = S->search_serial << 16 | (uint64_t)(x >> 1);
            span_bounds(g, &S->L[A->dir][A->lane], n, A->pos, rv, nrv, 1, 1, part, &P->bs, &P->be, NULL,
                        part == 2 ? &blank_ok : NULL);
            g->blank_ok = part == 2 ? blank_ok : ~0ull;
            right_tables(g, &S->L[A->dir][A->lane], n, A->pos, rv, nrv);
            left_order(g);
            g->prune_in = 1;
            g->part = part;
            g->min_placed = part == 2 ? g->bingo_tiles : 0;
            g->max_placed = part == 1 ? g->bingo_tiles - 1 : INT32_MAX;
            walk_anchor(g, A->pos, groot);
            g->prune_in = g->part = g->min_placed = 0;
            g->max_placed = INT32_MAX;
            g->blank_ok = ~0ull;
            S->st_searched += !A->searched;
            A->searched = 1;
            S->st_calls += S->calls;
            if (S->nsteps < 2L * MAXD * MAXD) {
                Step *st = &S->steps[S->nsteps++];
                *st = (Step){A->dir, A->lane, A->pos, (uint8_t)part, P->bs, P->be, P->bound, S->cur_best, S->calls};
            }
            if (g->error) return -1;
        }
    } else {
        for (int i = 0; i < nanchors; i++) {
            const Anchor *A = &S->anchors[i];
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            S->calls = 0;
            walk_anchor(g, A->pos, groot);
            S->st_searched++;
            S->st_calls += S->calls;
            if (g->error) return -1;
        }
    }
    S->st_recorded = (long)(mirror ? 2 * S->nmoves : S->nmoves);
    if (g->limit && g->nheap == g->limit) {
        /* a play below the K-th best score recorded is in no top K: drop those (most of the plays
         * recorded on the way up to the final threshold) before they are copied and sorted */
        size_t k = 0;
        for (size_t i = 0; i < S->nmoves; i++)
            if ((g->eq_on ? (int32_t)(uint32_t)S->moves[i].key : S->moves[i].score) >= g->heap[0])
                S->moves[k++] = S->moves[i];
        S->nmoves = k;
    }
    if (mirror) {
        size_t n0 = S->nmoves;
        if (grow((void **)&S->moves, &S->capmoves, 2 * n0, sizeof(Move)) < 0) return -1;
        for (size_t i = 0; i < n0; i++) {
            Move m = S->moves[i];
            m.across = 0;
            m.row = S->moves[i].col;
            m.col = (uint8_t)mirror_lane;
            S->moves[n0 + i] = m;
        }
        S->nmoves = 2 * n0;
    }
    size_t nout = S->nmoves;
    if (sorted_out && g->eq_on) {
        if (S->nmoves > 1) qsort_r(S->moves, S->nmoves, sizeof(Move), move_eq_qcmp, S);
        if (limit >= 0 && (size_t)limit < nout) nout = (size_t)limit;
    } else if (sorted_out) {
        if (sort_moves(S, S->nmoves) < 0) return -1;
        if (limit >= 0 && (size_t)limit < nout) nout = (size_t)limit;
    }
    W->nout = nout;
    return 0;
}

/* The search over the anchors in anchors (lanes L, grid G) for the rack in g, without Python
 * objects: the plays left in S->moves (their letters in S->pool), *nout of them to return (sorted,
 * best first, and cut at the limit when asked; else in generator order). -1 when out of memory
 * (no exception set). Releases the GIL around the walk when args->release. */
int search_moves(Gen *g, int R, int C, int nanchors, const SearchArgs *args, size_t *nout) {
    Search *S = g->s;
    g_last_search = S;
    int limit = args->limit, sorted_out = args->sorted;
    int heap_stack[64];
    if (limit >= 0) sorted_out = 1;
    /* an index made for another graph is not used (its words are not this lexicon's) */
    if (S->bidx && S->wtab && (S->wnodes != S->nnodes || S->wroots != (S->kwg[0] | (uint64_t)S->kwg[1] << 32)))
        S->bidx = NULL, S->wtab = NULL;
    /* The first move on a board symmetric about the start square's diagonal (two anchors, the
     * start square's row and column lanes alike): the plays down are the plays across turned
     * over, found by the same walk in the same order, so only the row is searched and each play
     * recorded is copied down afterwards (every score twice: the K-th best of all is the
     * ceil(K/2)-th best across). */
    int mirror = !g->eq_on && nanchors == 2 && S->anchors[0].dir == 0 && S->anchors[1].dir == 1 && R == C &&
                 lanes_mirror(&S->L[0][S->anchors[0].lane], &S->L[1][S->anchors[1].lane], C);
    int mirror_lane = mirror ? S->anchors[1].lane : 0;
    if (mirror) nanchors = 1;
    int keep = mirror && limit > 0 ? (limit + 1) / 2 : limit;
    /* keep only the best `limit` while generating (a heap of their scores) */
    g->limit = keep > 0 && keep <= (1 << 20) ? keep : 0;
    g->heap = heap_stack;
    if (g->limit > 64) {
        g->heap = malloc(sizeof(int) * g->limit);
        if (!g->heap) return -1;
    }
    take_spare_buffers(S);
    Traversal W = {
        .R = R, .C = C, .nanchors = nanchors, .sorted = sorted_out, .mirror = mirror, .mirror_lane = mirror_lane};
    int rc;
    if (args->release) {
        Py_BEGIN_ALLOW_THREADS
        rc = traverse(g, &W, args);
        Py_END_ALLOW_THREADS
    } else {
        rc = traverse(g, &W, args);
    }
    if (g->heap != heap_stack) free(g->heap);
    g->heap = NULL;
    *nout = W.nout;
    return rc;
}

/* The search over the anchors in anchors (lanes L, grid G) for the rack in g, and the plays
 * as a list: RawMoves or play_type tuples; sorted (best first) and cut at limit, or in generator
 * order. NULL with an exception on failure. */
PyObject *search(Gen *g, int R, int C, int nanchors, const SearchArgs *args) {
    Search *S = g->s;
    PyObject **table = args->table;
    PyTypeObject *play_type = args->play_type;
    size_t nout = 0;
    if (search_moves(g, R, C, nanchors, args, &nout) < 0) return PyErr_NoMemory();
    if (args->lazy && !play_type) return move_list_take(S, nout);
    PyObject *out = PyList_New((Py_ssize_t)nout);
    if (!out) return NULL;
    /* no cyclic collection while the plays are made: tens of thousands of new tuples would set it
     * off again and again, each pass walking every tuple made so far (none of them can be garbage) */
    int gc_was = PyGC_Disable();
    for (size_t i = 0; i < nout; i++) {
        PyObject *o = play_type ? scored_play(S, &S->moves[i], play_type, table) : raw_move(S, &S->moves[i]);
        if (!o) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, o);
    }
    if (gc_was) PyGC_Enable();
    if (play_type) newcache_clear();
    return out;
}
