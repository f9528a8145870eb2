/* Pruning of the best-K search: the upper bound of each anchor's spans (the idea of MAGPIE's
 * "shadow", written here from the scoring rule), the anchors' parts searched best bound first. */

#include "native.h"

/* ------------------------------------------------------------------------------------------ */
/* Upper bound per anchor (the idea of MAGPIE's "shadow"; written here from the scoring rule):  */
/* a play generated from anchor a covers a span [s, e] with s <= a <= e, no other empty anchor  */
/* in [s, a) (the generator does not extend left over one), every empty square of the span able */
/* to take a rack letter, board tiles on both sides of the span included in it. Its score is    */
/*   sum over new squares i of v_i * (lm_i * W + hasx_i * lm_i * wm_i)                          */
/*   + W * (values of the span's board tiles) + sum over new squares of hasx_i * xscore_i * wm_i */
/*   + bingo (when bingo_tiles tiles are placed),  W = product of wm_i over the new squares,     */
/* and the first sum is at most the rack's k best values paired best-first with the k largest   */
/* multipliers (rearrangement inequality; all values and multipliers >= 0).                     */

static void sort_desc(int *a, int n) {
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i;
        while (j > 0 && a[j - 1] < x) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* The rack's tile values, best first, at most MAXD of them; returns how many. */
int rack_values(const Gen *g, int *rv) {
    int tmp[(MAX_TILE + 2) * MAXD], n = 0, bmax = 0;
    for (uint64_t m = g->rackmask; m; m &= m - 1) { /* the tiles on the rack */
        int t = __builtin_ctzll(m), c = g->rack[t] < MAXD ? g->rack[t] : MAXD;
        for (int k = 0; k < c; k++) tmp[n++] = g->values[t];
    }
    if (g->blanks > 0)
        for (int t = 1; t <= MAX_TILE; t++)
            if (g->bvalues[t] > bmax) bmax = g->bvalues[t];
    int b = g->blanks < MAXD ? g->blanks : MAXD;
    for (int k = 0; k < b; k++) tmp[n++] = bmax;
    sort_desc(tmp, n);
    if (n > MAXD) n = MAXD;
    memcpy(rv, tmp, n * sizeof(int));
    return n;
}

/* The spans of `cand` scored word by word (span_exact, cached in exv), best bound first, while
 * their bound can still beat `best`: the best of `best` and those at or above the threshold, its
 * span in *bs, *be (span_bounds and pool_bounds). */
/* A span's bound once its plays have been scored from the word map (ex): at most that score, and
 * at most its bound (sum). With a blank on the rack (equity, sub_blank) the word map scores only
 * the plays of the rack's letters, which keep every blank: those that take a blank are bounded by
 * the span's score bound (raw) less what their leave, a blank short, lacks of the best term. */
static inline int exact_bound(const Gen *g, int ex, int sum, int raw, int k) {
    Search *S = g->s;
    if (!S->sub_blank) return ex < sum ? ex : sum;
    int bp = raw;
    if (raw >= 0) {
        bp = raw + g->eq_adjnb[k];
        if (bp < 0) bp = 0;
    }
    int v = ex > bp ? ex : bp;
    return v < sum ? v : sum;
}

static int exact_candidates(const Gen *g, const Lane *L, SpanCand *cand, int ncand, int best, int16_t *bs,
                            int16_t *be) {
    Search *S = g->s;
    for (int i = 1; i < ncand; i++) { /* best bound first */
        SpanCand x = cand[i];
        int j = i;
        while (j > 0 && cand[j - 1].sum < x.sum) {
            cand[j] = cand[j - 1];
            j--;
        }
        cand[j] = x;
    }
    for (int i = 0; i < ncand && cand[i].sum > best; i++) {
        const SpanCand *c = &cand[i];
        uint64_t ok = subrack_words(S, c->k, c->base);
        int ex = ok ? span_exact(g, L, c->s, c->e, c->k, c->base, ok) : NEG_BOUND;
        S->exv[c->s][c->e] = ex;
        S->exst[c->s][c->e] = S->exkey;
        int v = exact_bound(g, ex, c->sum, c->raw, c->k);
        if (v >= g->thr && v > best) {
            best = v;
            *bs = c->s;
            *be = c->e;
        }
    }
    return best;
}

int span_bounds(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv, int fill, int check, int part,
                int16_t *bs, int16_t *be, int *bbest, uint64_t *blank_ok) {
    Search *S = g->s;
    uint64_t usable = g->blanks > 0 ? ~1ull : g->rackmask;
    *bs = *be = -1;
    if (bbest) *bbest = -1;
    if (!(L->mask[a] & usable)) return -1;
    int best = -1, ncand = 0;
    int lm[MAXD], xw[MAXD], eff[MAXD];
    SpanCand *cand = S->span_cand;
    if (fill) {
        for (int s = 0; s <= a; s++) {
            S->leftmax[s] = S->leftopen[s] = NEG_BOUND;
            for (int e = a; e <= n; e++) S->rmax[s][e] = NEG_BOUND;
        }
    }
    int lo = a;
    for (int s = a, left = 0; s >= 0; s--) {
        if (s < a && !L->tiles[s] && (L->anchor[s] || !(L->mask[s] & usable) || ++left >= nrv)) break;
        lo = s;
        if (s > 0 && L->tiles[s - 1]) continue; /* the word would go on to the left */
        /* the new squares' multipliers of a letter's value, eff_i = lm_i * W + xw_i (xw_i: its
         * cross word's share), kept sorted best first as the span grows (sorted again only when a
         * word premium changes W); capped = sum of eff_i * cap_i = W * sa + sx; dot = sum of
         * eff_i * rv_i, kept as eff is (an element moved from i to i + 1 adds eff_i (rv_{i+1} - rv_i)) */
        int k = 0, W = 1, board = 0, cross = 0, sa = 0, sx = 0, dot = 0;
        uint64_t tb = 0; /* the hash of the span's board tiles (see bingo_letters) */
        for (int e = s; e < n; e++) {
            uint8_t bt = L->tiles[e];
            if (bt) {
                board += (bt & 64) ? g->bvalues[bt & 63] : g->values[bt & 63];
                tb += zobrist(bt & 63);
            } else {
                if (!(L->mask[e] & usable) || k == nrv) break;
                int l = L->lm[e], w = L->wm[e];
                lm[k] = l;
                xw[k] = L->hasx[e] ? l * w : 0;
                sa += l * L->cap[e];
                sx += xw[k] * L->cap[e];
                if (L->hasx[e]) cross += L->xscore[e] * w;
                k++;
                if (w != 1) {
                    W *= w;
                    for (int i = 0; i < k; i++) eff[i] = lm[i] * W + xw[i];
                    sort_desc(eff, k);
                    dot = 0;
                    for (int i = 0; i < k; i++) dot += eff[i] * rv[i];
                } else {
                    int x = l * W + xw[k - 1], j = k - 1;
                    while (j > 0 && eff[j - 1] < x) {
                        eff[j] = eff[j - 1];
                        dot += eff[j] * (rv[j] - rv[j - 1]);
                        j--;
                    }
                    eff[j] = x;
                    dot += x * rv[j];
                }
            }
            if (e < a || e == s || (e + 1 < n && L->tiles[e + 1])) continue;
            int capped = W * sa + sx, sum = capped < dot ? capped : dot;
            int bingo_span = k >= g->bingo_tiles;
            int raw = sum + board * W + cross + (bingo_span ? g->bingo : 0);
            sum = eq_adjust(g, raw, k);
            if (S->spool_rec) {
                if (S->nspool < SPOOL)
                    S->spool[S->nspool++] =
                        (SpanCand){sum, raw, (int16_t)s, (int16_t)e, (int16_t)k, (int16_t)bingo_span, tb};
                else S->spool_rec = -1;
            }
            if (part && part != 1 + bingo_span && !(bbest && bingo_span)) continue;
            if (check && sum >= g->thr && S->sub_on && k <= g->ntiles && k <= SUBK && e - s + 1 <= (int)S->wmaxlen &&
                !(S->sub_blank && bingo_span)) {
                /* the span's plays, word by word (sub-rack words): when they can change the best
                 * bound (or, filling, once K plays are kept), answered once per anchor */
                int ex;
                if (!fill && S->exst[s][e] != S->exkey) {
                    /* bounding: answered below, best bound first, while they can change it */
                    if (ncand < MAXD * MAXD) {
                        cand[ncand++] =
                            (SpanCand){sum, raw, (int16_t)s, (int16_t)e, (int16_t)k, (int16_t)bingo_span, tb};
                        continue;
                    }
                }
                if (S->exst[s][e] == S->exkey) {
                    ex = S->exv[s][e];
                } else if (fill ? g->nheap == g->limit : sum > best) {
                    uint64_t ok = subrack_words(S, k, tb);
                    ex = ok ? span_exact(g, L, s, e, k, tb, ok) : NEG_BOUND;
                    S->exv[s][e] = ex;
                    S->exst[s][e] = S->exkey;
                } else {
                    ex = sum;
                }
                sum = exact_bound(g, ex, sum, raw, k);
                if (sum < g->thr) continue;
            } else if (check && bingo_span && sum >= g->thr) {
                uint64_t bl = k == g->ntiles ? bingo_letters(g, tb) : ~0ull;
                if (!bl) continue; /* no word takes the rack with these board tiles */
                if (blank_ok) *blank_ok |= bl;
            }
            if (part && part != 1 + bingo_span) {
                if (sum > *bbest) *bbest = sum;
                continue;
            }
            if (sum > best) {
                best = sum;
                *bs = (int16_t)s;
                *be = (int16_t)e;
            }
            if (fill) S->rmax[s][e] = sum;
        }
    }
    if (ncand) best = exact_candidates(g, L, cand, ncand, best, bs, be);
    if (fill) {
        int rs = a + 1;
        while (rs < n && L->tiles[rs]) rs++;
        for (int s = lo; s <= a; s++) {
            for (int e = n - 1; e >= a; e--)
                // NOLINTNEXTLINE(clang-analyzer-security.ArrayBound): s >= lo >= 0 (a is a square of the lane)
                if (S->rmax[s][e + 1] > S->rmax[s][e]) S->rmax[s][e] = S->rmax[s][e + 1];
            S->leftmax[s] = s > lo && S->leftmax[s - 1] > S->rmax[s][a] ? S->leftmax[s - 1] : S->rmax[s][a];
            S->leftopen[s] = s > lo && S->leftopen[s - 1] > S->rmax[s][rs] ? S->leftopen[s - 1] : S->rmax[s][rs];
        }
    }
    return best;
}

/* span_bounds(check, no fill) of anchor i's `part` from its spans kept by its first bounding. */
int pool_bounds(const Gen *g, const Lane *L, int i, int part, int16_t *bs, int16_t *be) {
    Search *S = g->s;
    SpanCand *cand = S->pool_cand;
    int best = -1, ncand = 0;
    *bs = *be = -1;
    const SpanCand *sp = S->spool + S->aspan[i][0];
    for (int q = 0; q < S->aspan[i][1]; q++) {
        const SpanCand *c = &sp[q];
        int sum = c->sum, k = c->k;
        if ((part && part != 1 + c->bingo) || sum < g->thr) continue;
        if (S->sub_on && k <= g->ntiles && k <= SUBK && c->e - c->s + 1 <= (int)S->wmaxlen &&
            !(S->sub_blank && c->bingo)) {
            if (S->exst[c->s][c->e] != S->exkey) {
                if (ncand < MAXD * MAXD) {
                    cand[ncand++] = *c;
                    continue;
                }
                uint64_t ok = subrack_words(S, k, c->base);
                S->exv[c->s][c->e] = ok ? span_exact(g, L, c->s, c->e, k, c->base, ok) : NEG_BOUND;
                S->exst[c->s][c->e] = S->exkey;
            }
            sum = exact_bound(g, S->exv[c->s][c->e], sum, c->raw, k);
            if (sum < g->thr) continue;
        } else if (c->bingo) {
            if (k == g->ntiles && !bingo_letters(g, c->base)) continue;
        }
        if (sum > best) {
            best = sum;
            *bs = c->s;
            *be = c->e;
        }
    }
    if (ncand) best = exact_candidates(g, L, cand, ncand, best, bs, be);
    return best;
}

/* (pruning) dW, dMW, dX, dK for the squares right of anchor a (see right_ok): each part
 * maximised on its own over the ends, the rack's best values on the best multipliers. */
void right_tables(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv) {
    Search *S = g->s;
    uint64_t usable = g->blanks > 0 ? ~1ull : g->rackmask;
    /* the new squares' letter and cross-word premiums, each kept sorted, and their sums of
     * premium_i * rv_i kept with them (as dot in span_bounds) */
    int lmv[MAXD], xmv[MAXD];
    for (int p = a + 1; p < n; p++) {
        int mW = -1, mMW = 0, mX = 0, k = 0, W = 1, board = 0, cross = 0, dm = 0, dx = 0;
        uint64_t km = 0;
        for (int e = p; e < n; e++) {
            uint8_t bt = L->tiles[e];
            if (bt) {
                board += (bt & 64) ? g->bvalues[bt & 63] : g->values[bt & 63];
            } else {
                if (!(L->mask[e] & usable) || k == nrv) break;
                int l = L->lm[e], x = L->hasx[e] ? L->lm[e] * L->wm[e] : 0, j;
                for (j = k; j > 0 && lmv[j - 1] < l; j--) {
                    lmv[j] = lmv[j - 1];
                    dm += lmv[j] * (rv[j] - rv[j - 1]);
                }
                lmv[j] = l;
                dm += l * rv[j];
                for (j = k; j > 0 && xmv[j - 1] < x; j--) {
                    xmv[j] = xmv[j - 1];
                    dx += xmv[j] * (rv[j] - rv[j - 1]);
                }
                xmv[j] = x;
                dx += x * rv[j];
                if (L->hasx[e]) cross += L->xscore[e] * L->wm[e];
                W *= L->wm[e];
                k++;
            }
            if (e + 1 < n && L->tiles[e + 1]) continue;
            int mr = board + dm, xr = cross + dx;
            if (W > mW) mW = W;
            if (mr * W > mMW) mMW = mr * W;
            if (xr > mX) mX = xr;
            if (k < 64) km |= 1ull << k;
        }
        S->dW[p] = mW;
        S->dMW[p] = mMW;
        S->dX[p] = mX;
        S->dK[p] = km;
    }
}

/* (pruning) per lane square, the most a rack tile that may stand there can score (before
 * multipliers): letters of the cross-check held on the rack, or any of its letters for a blank. */
void lane_caps(const Gen *g, int R, int C) {
    Search *S = g->s;
    int bmax = 0; /* the most a blank can score (0 unless a blank counts its letter's value) */
    for (int t = 1; t <= MAX_TILE; t++)
        if (g->bvalues[t] > bmax) bmax = g->bvalues[t];
    /* the rack's letters by value, best first: a square's cap is the first one it allows */
    int order[MAX_TILE + 1], no = 0;
    for (int t = 1; t <= MAX_TILE; t++)
        if (g->rack[t] > 0) {
            int j = no++;
            while (j > 0 && g->values[order[j - 1]] < g->values[t]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = t;
        }
    for (int dir = 0; dir < 2; dir++) {
        int nl = dir == 0 ? R : C, n = dir == 0 ? C : R;
        for (int l = 0; l < nl; l++) {
            Lane *L = &S->L[dir][l];
            if (!L->abits) continue; /* no anchor: its caps are never read */
            for (int p = 0; p < n; p++) {
                int best = 0;
                uint64_t m = L->mask[p] & g->rackmask;
                if (m)
                    for (int i = 0; i < no; i++)
                        if ((m >> order[i]) & 1) {
                            best = g->values[order[i]];
                            break;
                        }
                if (g->blanks > 0 && bmax > best) {
                    m = L->mask[p] & ~1ull;
                    while (m) {
                        int t = __builtin_ctzll(m);
                        if (g->bvalues[t] > best) best = g->bvalues[t];
                        m &= m - 1;
                    }
                }
                L->cap[p] = best;
            }
        }
    }
}

static int aheap_before(Search *S, int x, int y) {
    const APart *a = &S->parts[x], *b = &S->parts[y];
    return a->bound > b->bound || (a->bound == b->bound && x < y);
}

void aheap_push(Search *S, int x) {
    int i = S->naheap++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!aheap_before(S, x, S->aheap[p])) break;
        S->aheap[i] = S->aheap[p];
        i = p;
    }
    S->aheap[i] = x;
}

int aheap_pop(Search *S) {
    int top = S->aheap[0], x = S->aheap[--S->naheap], n = S->naheap, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && aheap_before(S, S->aheap[c + 1], S->aheap[c])) c++;
        if (!aheap_before(S, S->aheap[c], x)) break;
        S->aheap[i] = S->aheap[c];
        i = c;
    }
    if (n) S->aheap[i] = x;
    return top;
}

/* Whether every bound stays far inside an int: per lane, (every square's best letter value x its
 * letter premium) x (the product of its word premiums) x (1 + the largest word premium), plus
 * the bingo bonus, in floating point. Absurd premium layouts search without pruning instead. */
int bounds_fit_in(const Lane (*lanes)[MAXD], const int *values, const int *bvalues, int bingo, int R, int C,
                  int any_board) {
    double maxv = 0;
    for (int t = 0; t <= MAX_TILE; t++) {
        if (values[t] > maxv) maxv = values[t];
        if (bvalues[t] > maxv) maxv = bvalues[t];
    }
    for (int dir = 0; dir < 2; dir++) {
        int nl = dir == 0 ? R : C, n = dir == 0 ? C : R;
        for (int l = 0; l < nl; l++) {
            const Lane *L = &lanes[dir][l];
            double sum = 0, w = 1, wmax = 1;
            for (int p = 0; p < n; p++) {
                /* any_board: a cross word's board tiles, whatever the board, score at most maxv each */
                sum += maxv * (L->lm[p] > 1 ? L->lm[p] : 1) + (any_board ? maxv * MAXD : L->xscore[p]);
                if (L->wm[p] > 1) w *= L->wm[p];
                if (L->wm[p] > wmax) wmax = L->wm[p];
            }
            if (sum * w * (1 + wmax) * 2 + bingo > 1e9) return 0;
        }
    }
    return 1;
}

int bounds_fit(const Gen *g, int R, int C) { return bounds_fit_in(g->s->L, g->values, g->bvalues, g->bingo, R, C, 0); }
