/* Cross-checks and the lanes: each lane's squares with their letter sets (the perpendicular words'
 * cross-checks from the DAWG, narrowed by the lane's own tiles from the GADDAG), cross-scores,
 * premiums and anchors, computed for a whole board (compute_lanes) or kept by a Position. */

#include "native.h"

/* Follows tiles[0..n) (in reverse order when rev) down the graph from the sibling list *list: 1
 * when the path is there, *list then the child list after it and *node the node of its last tile
 * (unchanged when n == 0); 0 when it leaves the graph. */
static inline int follow(Search *S, uint32_t *list, uint32_t *node, const uint8_t *tiles, int n, int rev) {
    for (int k = 0; k < n; k++) {
        if (!*list) return 0;
        uint32_t want = tiles[rev ? n - 1 - k : k] & 63, found = 0;
        for (uint32_t j = *list;; j++) {
            uint32_t nv = KW(j);
            if (N_TILE(nv) == want) {
                found = j;
                break;
            }
            if (N_TILE(nv) > want || N_END(nv)) break;
        }
        if (!found) return 0;
        *node = found;
        *list = N_ARC(KW(found));
    }
    return 1;
}

/* The letters a play along a lane may put on an empty square between the lane's own tiles
 * left[0..nl) (ending just left of it) and right[0..nr) (starting just right of it): letters c
 * with left + c + right inside some word (a substring, not necessarily a whole word). In the
 * GADDAG (every word w as rev(w[0..k]) + separator + w[k..]): c follows rev(right) from the root
 * and rev(left) follows c. (MAGPIE keeps such "extension sets" on its board; these are our own.)
 * Only a necessary condition on the square, so it may be folded into the square's cross-check:
 * the walk then leaves dead letters out at once instead of finding out tiles later. */
static uint64_t lane_mask(Search *S, const uint8_t *left, int nl, const uint8_t *right, int nr) {
    uint32_t list = N_ARC(KW(1)), node = 0;
    if (!follow(S, &list, &node, right, nr, 1) || !list) return 0;
    uint64_t m = 0;
    for (uint32_t j = list;; j++) {
        uint32_t nv = KW(j);
        uint32_t t = N_TILE(nv);
        if (t) {
            uint32_t l2 = N_ARC(nv), n2 = 0;
            if (follow(S, &l2, &n2, left, nl, 1)) m |= 1ull << t;
        }
        if (N_END(nv)) break;
    }
    return m;
}

/* Allowed tiles between the perpendicular tiles before[0..nb) and after[0..na) (DAWG walk). */
static uint64_t cross_mask(Search *S, const uint8_t *before, int nb, const uint8_t *after, int na) {
    uint32_t list = N_ARC(KW(0)), node = 0;
    if (!follow(S, &list, &node, before, nb, 0) || !list) return 0;
    uint64_t m = 0;
    for (uint32_t j = list;; j++) {
        uint32_t nv = KW(j);
        uint32_t t = N_TILE(nv);
        if (t) {
            if (na == 0) {
                if (N_ACC(nv)) m |= 1ull << t;
            } else {
                uint32_t l2 = N_ARC(nv), cur = 0;
                if (follow(S, &l2, &cur, after, na, 0) && N_ACC(KW(cur))) m |= 1ull << t;
            }
        }
        if (N_END(nv)) break;
    }
    return m;
}

/* One square's lane data in both directions (its row's lane for plays across, its column's for
 * plays down): the tile, and on an empty square the anchor flag, the cross-check, cross-score and
 * whether a perpendicular word is formed. `first`: the board is empty (the start square is the
 * only anchor). */
void square_data(Search *S, Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*bkg)[MAXD], int R, int C, int first,
                 int srow, int scol, const int *values, const int *bvalues, int r, int c) {
    for (int dir = 0; dir < 2; dir++) {
        int across = dir == 0;
        int nl = across ? R : C, n = across ? C : R;
        int l = across ? r : c, p = across ? c : r;
#define AT(A, l, p) (across ? (A)[l][p] : (A)[p][l])
        Lane *L = &lanes[dir][l];
        L->tiles[p] = AT(grid, l, p);
        L->anchor[p] = 0;
        L->abits &= ~(1ull << p);
        L->hasx[p] = 0;
        L->xscore[p] = 0;
        L->mask[p] = 0;
        if (L->tiles[p] || AT(bkg, l, p)) continue; /* a blocked square: no tile, no anchor */
        /* perpendicular neighbours: along the other axis, lane index l-1 / l+1 */
        uint8_t before[MAXD], after[MAXD];
        int nb = 0, na = 0;
        int q = l - 1;
        while (q >= 0 && AT(grid, q, p)) q--;
        for (int k = q + 1; k < l; k++) before[nb++] = AT(grid, k, p);
        q = l + 1;
        while (q < nl && AT(grid, q, p)) after[na++] = AT(grid, q++, p);
        if (first) {
            L->anchor[p] = r == srow && c == scol;
        } else {
            L->anchor[p] = nb || na || (p > 0 && AT(grid, l, p - 1)) || (p + 1 < n && AT(grid, l, p + 1));
        }
        if (L->anchor[p]) L->abits |= 1ull << p;
        if (nb || na) {
            int xs = 0;
            for (int k = 0; k < nb; k++) xs += (before[k] & 64) ? bvalues[before[k] & 63] : values[before[k] & 63];
            for (int k = 0; k < na; k++) xs += (after[k] & 64) ? bvalues[after[k] & 63] : values[after[k] & 63];
            L->hasx[p] = 1;
            L->xscore[p] = xs;
            L->mask[p] = cross_mask(S, before, nb, after, na);
        } else {
            L->mask[p] = ~1ull;
        }
        /* the lane's own tiles on either side (see lane_mask) */
        int nl2 = 0, nr2 = 0;
        uint8_t left[MAXD], right[MAXD];
        q = p - 1;
        while (q >= 0 && AT(grid, l, q)) q--;
        for (int k = q + 1; k < p; k++) left[nl2++] = AT(grid, l, k);
        q = p + 1;
        while (q < n && AT(grid, l, q)) right[nr2++] = AT(grid, l, q++);
        if (!S->no_lane_mask && L->mask[p] && (nl2 || nr2)) L->mask[p] &= lane_mask(S, left, nl2, right, nr2);
#undef AT
    }
}

/* The anchors of both directions into anchors, in generator order (plays across by row, then
 * down by column; within a lane by square); returns how many. */
int list_anchors(Search *S, Lane (*lanes)[MAXD], int R, int C) {
    int na = 0;
    for (int dir = 0; dir < 2; dir++) {
        int nl = dir == 0 ? R : C;
        for (int l = 0; l < nl; l++) {
            for (uint64_t b = lanes[dir][l].abits; b; b &= b - 1)
                S->anchors[na++] = (Anchor){(uint8_t)dir, (uint8_t)l, (uint8_t)__builtin_ctzll(b), 0};
        }
    }
    return na;
}

/* Lanes (premiums and square data) of both directions for a whole grid. */
void compute_lanes(Search *S, Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*lmg)[MAXD], uint8_t (*wmg)[MAXD],
                   uint8_t (*bkg)[MAXD], int R, int C, int first, int srow, int scol, const int *values,
                   const int *bvalues) {
    for (int r = 0; r < R; r++) lanes[0][r].abits = 0; /* (the lanes may hold a larger board's) */
    for (int c = 0; c < C; c++) lanes[1][c].abits = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            lanes[0][r].lm[c] = lanes[1][c].lm[r] = lmg[r][c];
            lanes[0][r].wm[c] = lanes[1][c].wm[r] = wmg[r][c];
            square_data(S, lanes, grid, bkg, R, C, first, srow, scol, values, bvalues, r, c);
        }
}

/* Whether two lanes hold the same squares (tiles none, cross-checks, premiums, anchors): a walk
 * from the same square of each finds the same plays in the same order. */
int lanes_mirror(const Lane *a, const Lane *b, int n) {
    for (int p = 0; p < n; p++)
        if (a->tiles[p] || b->tiles[p] || a->mask[p] != b->mask[p] || a->hasx[p] != b->hasx[p] ||
            a->xscore[p] != b->xscore[p] || a->anchor[p] != b->anchor[p] || a->lm[p] != b->lm[p] ||
            a->wm[p] != b->wm[p])
            return 0;
    return 1;
}
