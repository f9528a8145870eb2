/*
 * gamecore._native: the compiled core of skrafl's lexicon graph (KWG) builder and move generator.
 *
 * KWG layout (docs/MOVEGEN.md §1; wolges `Node22`, word-golib, MAGPIE): little-endian array of 32-bit nodes,
 * bits 0-21 arc index (first node of the child sibling list, 0 = none), bit 22 is_end (last
 * sibling), bit 23 accepts (the path ending on this node's tile is a word), bits 24-31 tile
 * (1..63; 0 = the GADDAG separator). Node 0 points to the DAWG root list, node 1 to the GADDAG root
 * list. GADDAG separator arcs point straight into the DAWG (the continuations of a prefix are the
 * DAWG's children of that prefix), as in the "Gaddawg" form. A graph of more than 2^22 nodes (the
 * full Icelandic lexicon) is written in the Node24 layout: tile bits 0-5, is_end bit 6, accepts
 * bit 7, arc bits 8-31.
 *
 * Build: the DAWG is built from the sorted, de-duplicated words by incremental minimisation (Daciuk
 * et al. 2000, sorted-input algorithm); every distinct word prefix p is recorded with the DAWG state
 * of its continuations. The GADDAG's backward half is then built the same way from the reversed
 * prefixes rev(p), sorted by an in-place MSD radix sort; the state after rev(p) gets a separator
 * arc to p's DAWG state. Each phase splits its input by first tile into two halves built on two
 * threads (the second in its own register, merged afterwards), so equal sibling lists are still
 * stored once and the bytes do not depend on the threading. Register look-ups are memory-bound: a small cache sits in front of the hash table, and the
 * large arrays ask for transparent huge pages. Lists are laid out breadth-first from the roots.
 *
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
 *
 * SKRAFL_KWG_TIMING=1 in the environment prints the build's phases (wall, thread CPU) to stderr;
 * SKRAFL_KWG_ONE_THREAD=1 builds both GADDAG halves on the calling thread (same output).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define TMARK(msg)                                                                                                    \
    do {                                                                                                              \
        if (getenv("SKRAFL_KWG_TIMING")) fprintf(stderr, "%-14s wall %.3f thread-cpu %.3f\n", msg, now_s(), cpu_s()); \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* KWG node fields                                                                             */

#define ARC_MASK 0x3FFFFFu
#define IS_END (1u << 22)
#define ACCEPTS (1u << 23)
#define MAX_TILE 63
#define MAX_WORD 255
#define NATIVE_ABI 6

/* ------------------------------------------------------------------------------------------ */
/* Builder                                                                                     */

typedef struct {
    const uint8_t *p; /* first character (forward) or last character (reversed) */
    uint32_t len;
    uint32_t aux;
    uint64_t key;  /* characters 0..9, 6 bits each from bit 54 down, 0-padded */
    uint64_t key2; /* characters 10..19, likewise (no random access for words up to 20 tiles) */
} SKey;

#define PACKED 10
static __thread int g_step; /* +1 forward, -1 reversed, for the sort (per thread) */

static inline uint64_t pack_key(const uint8_t *p, uint32_t len, int step) {
    uint64_t k = 0;
    uint32_t n = len < PACKED ? len : PACKED;
    for (uint32_t d = 0; d < n; d++) k |= (uint64_t)p[(ptrdiff_t)d * step] << (54 - 6 * d);
    return k;
}

static inline int key_char(const SKey *k, uint32_t d) {
    if (d < PACKED) return (int)((k->key >> (54 - 6 * d)) & 63);
    if (d < 2 * PACKED) return (int)((k->key2 >> (54 - 6 * (d - PACKED))) & 63);
    return d < k->len ? k->p[(ptrdiff_t)d * g_step] : 0;
}

static inline void set_keys(SKey *k, int step) {
    k->key = pack_key(k->p, k->len, step);
    k->key2 = k->len > PACKED ? pack_key(k->p + (ptrdiff_t)PACKED * step, k->len - PACKED, step) : 0;
}

/* Length of the common prefix of a and b (same direction `step`). */
static inline uint32_t key_lcp(const SKey *a, const SKey *b, int step) {
    uint64_t x = a->key ^ b->key;
    uint32_t m = a->len < b->len ? a->len : b->len;
    if (x) {
        uint32_t l = (uint32_t)(__builtin_clzll(x) - 4) / 6;
        return l < m ? l : m;
    }
    x = a->key2 ^ b->key2;
    if (x) {
        uint32_t l = PACKED + (uint32_t)(__builtin_clzll(x) - 4) / 6;
        return l < m ? l : m;
    }
    uint32_t l = 2 * PACKED < m ? 2 * PACKED : m;
    while (l < m && a->p[(ptrdiff_t)l * step] == b->p[(ptrdiff_t)l * step]) l++;
    return l;
}

static int key_cmp(const SKey *a, const SKey *b, uint32_t d) {
    for (;; d++) {
        int ca = key_char(a, d), cb = key_char(b, d);
        if (ca != cb) return ca - cb;
        if (ca == 0) return 0;
    }
}

/* In-place MSD radix sort (American flag sort: McIlroy, Bostic & McIlroy 1993), 64 tile buckets
 * plus bucket 0 for strings that end at this depth; no extra buffer. */
static void msd_sort(SKey *a, size_t n, uint32_t depth) {
    if (n < 2) return;
    if (n < 24) {
        for (size_t i = 1; i < n; i++) {
            SKey k = a[i];
            size_t j = i;
            while (j > 0 && key_cmp(&a[j - 1], &k, depth) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = k;
        }
        return;
    }
    size_t count[65], start[65], next[65];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) count[key_char(&a[i], depth)]++;
    size_t s = 0;
    for (int c = 0; c < 65; c++) {
        start[c] = next[c] = s;
        s += count[c];
    }
    for (int c = 0; c < 65; c++) {
        size_t end = start[c] + count[c];
        while (next[c] < end) {
            SKey x = a[next[c]];
            int cc = key_char(&x, depth);
            while (cc != c) {
                SKey y = a[next[cc]];
                a[next[cc]++] = x;
                x = y;
                cc = key_char(&x, depth);
            }
            a[next[c]++] = x;
        }
    }
    for (int c = 1; c < 65; c++)
        if (count[c] > 1) msd_sort(a + start[c], count[c], depth + 1);
}

/* A register slot: the state's first arc, arc count and hash tag inline, so that looking up a
 * one-arc state (most states) touches only the table. */
typedef struct {
    uint64_t a0;
    uint32_t id;
    uint16_t cnt;
    uint16_t tag;
} HEnt;

#define REG_CACHE (1 << 14)

typedef struct {
    uint64_t *pool; /* arcs: child << 8 | accepts << 7 | tile */
    size_t pool_len, pool_cap;
    uint32_t *st_off, *st_cnt;
    uint64_t *st_hash;
    uint32_t nstates, st_cap;
    HEnt *htab;  /* open addressing; id 0 = free slot */
    size_t hcap; /* power of two */
    int use_cache;
    HEnt *cache; /* REG_CACHE entries */
    size_t cache_hits, lookups;
} Reg;

/* A zeroed block for a large randomly accessed table, on transparent huge pages where the kernel
 * offers them (fewer TLB misses: the register lookups are memory-bound). Free with free(). */
static void *big_calloc(size_t size) {
    void *p = NULL;
    if (size >= (4u << 20)) {
        size_t huge = 2u << 20;
        size = (size + huge - 1) & ~(huge - 1);
        if (posix_memalign(&p, huge, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
        madvise(p, size, MADV_HUGEPAGE);
#endif
        memset(p, 0, size);
        return p;
    }
    return calloc(1, size);
}

static uint64_t hash_arcs(const uint64_t *a, uint32_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= a[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h;
}

static int reg_init(Reg *r) {
    memset(r, 0, sizeof *r);
    r->pool_cap = 1 << 20;
    r->pool = malloc(r->pool_cap * sizeof(uint64_t));
    r->st_cap = 1 << 18;
    r->st_off = malloc(r->st_cap * sizeof(uint32_t));
    r->st_cnt = malloc(r->st_cap * sizeof(uint32_t));
    r->st_hash = malloc(r->st_cap * sizeof(uint64_t));
    r->hcap = 1 << 19;
    r->htab = calloc(r->hcap, sizeof(HEnt));
    if (!r->pool || !r->st_off || !r->st_cnt || !r->st_hash || !r->htab) return -1;
    /* state 0: the empty state (no children) */
    r->st_off[0] = 0;
    r->st_cnt[0] = 0;
    r->st_hash[0] = 0;
    r->nstates = 1;
    r->use_cache = 1;
    r->cache = calloc(REG_CACHE, sizeof(HEnt));
    if (!r->cache) return -1;
    return 0;
}

static void reg_free(Reg *r) {
    free(r->pool);
    free(r->st_off);
    free(r->st_cnt);
    free(r->st_hash);
    free(r->htab);
    free(r->cache);
    r->pool = NULL;
    r->st_off = r->st_cnt = NULL;
    r->st_hash = NULL;
    r->htab = NULL;
    r->cache = NULL;
}

/* Make room for `expect` states without rehashing (load factor <= 3/4). */
static int reg_reserve(Reg *r, size_t expect) {
    size_t ncap = r->hcap;
    while (ncap * 3 < expect * 4) ncap *= 2;
    if (ncap == r->hcap) return 0;
    HEnt *nt = big_calloc(ncap * sizeof(HEnt));
    if (!nt) return -1;
    for (size_t i = 0; i < r->hcap; i++) {
        HEnt e = r->htab[i];
        if (!e.id) continue;
        size_t q = r->st_hash[e.id] & (ncap - 1);
        while (nt[q].id) q = (q + 1) & (ncap - 1);
        nt[q] = e;
    }
    free(r->htab);
    r->htab = nt;
    r->hcap = ncap;
    return 0;
}

/* Returns the id of the state with these arcs, registering it if new; (uint32_t)-1 on no memory. */
static uint32_t reg_state(Reg *r, const uint64_t *arcs, uint32_t n) {
    if (n == 0) return 0;
    uint64_t h = hash_arcs(arcs, n);
    uint16_t tag = (uint16_t)(h >> 48);
    /* a small cache in front of the table (recently used states recur in sorted input) */
    HEnt *ce = &r->cache[(h >> 24) & (REG_CACHE - 1)];
    if (ce->id && ce->tag == tag && ce->cnt == n && ce->a0 == arcs[0] &&
        (n == 1 || memcmp(r->pool + r->st_off[ce->id] + 1, arcs + 1, (n - 1) * sizeof(uint64_t)) == 0)) {
        r->cache_hits++;
        return ce->id;
    }
    r->lookups++;
    size_t i = h & (r->hcap - 1);
    for (;;) {
        HEnt *e = &r->htab[i];
        if (!e->id) break;
        if (e->tag == tag && e->cnt == n && e->a0 == arcs[0] &&
            (n == 1 || memcmp(r->pool + r->st_off[e->id] + 1, arcs + 1, (n - 1) * sizeof(uint64_t)) == 0)) {
            if (r->use_cache) *ce = *e;
            return e->id;
        }
        i = (i + 1) & (r->hcap - 1);
    }
    if (r->pool_len + n > r->pool_cap) {
        while (r->pool_len + n > r->pool_cap) r->pool_cap *= 2;
        uint64_t *np = realloc(r->pool, r->pool_cap * sizeof(uint64_t));
        if (!np) return (uint32_t)-1;
        r->pool = np;
    }
    if (r->nstates == r->st_cap) {
        r->st_cap *= 2;
        uint32_t *a = realloc(r->st_off, r->st_cap * sizeof(uint32_t));
        if (!a) return (uint32_t)-1;
        r->st_off = a;
        a = realloc(r->st_cnt, r->st_cap * sizeof(uint32_t));
        if (!a) return (uint32_t)-1;
        r->st_cnt = a;
        uint64_t *hh = realloc(r->st_hash, r->st_cap * sizeof(uint64_t));
        if (!hh) return (uint32_t)-1;
        r->st_hash = hh;
    }
    uint32_t id = r->nstates++;
    r->st_off[id] = (uint32_t)r->pool_len;
    r->st_cnt[id] = n;
    r->st_hash[id] = h;
    memcpy(r->pool + r->pool_len, arcs, n * sizeof(uint64_t));
    r->pool_len += n;
    r->htab[i].a0 = arcs[0];
    r->htab[i].id = id;
    r->htab[i].cnt = (uint16_t)n;
    r->htab[i].tag = tag;
    if (r->use_cache) *ce = r->htab[i];
    if ((size_t)r->nstates * 4 > r->hcap * 3) {
        if (reg_reserve(r, (size_t)r->nstates * 2) < 0) return (uint32_t)-1;
    }
    return id;
}

#define ARC_CHILD_(a) ((uint32_t)((a) >> 8))
/* Place every state's sibling list in the node array, in breadth-first order from the GADDAG root
 * and then the DAWG root, so that the lists a move generator visits most (the top levels) sit
 * together in memory. pos[id] = index of the list's first node; returns the total node count
 * (incl. nodes 0 and 1), 0 when out of memory. (Storing one-node lists inside equal list tails,
 * as wolges does, saves only ~3 % here and costs a large hash table: not done.) */
static size_t place_states(const Reg *r, uint32_t *pos, uint32_t gaddag_root, uint32_t dawg_root) {
    uint32_t *queue = malloc((size_t)r->nstates * sizeof(uint32_t));
    uint8_t *seen = calloc(r->nstates, 1);
    size_t total = 0;
    if (!queue || !seen) goto out;
    total = 2;
    pos[0] = 0;
    seen[0] = 1;
    size_t head = 0, tail = 0;
    uint32_t roots[2] = {gaddag_root, dawg_root};
    for (int k = 0; k < 2; k++)
        if (!seen[roots[k]]) {
            seen[roots[k]] = 1;
            queue[tail++] = roots[k];
        }
    while (head < tail) {
        uint32_t id = queue[head++];
        const uint64_t *a = r->pool + r->st_off[id];
        uint32_t n = r->st_cnt[id];
        pos[id] = (uint32_t)total;
        total += n;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t c = ARC_CHILD_(a[j]);
            if (!seen[c]) {
                seen[c] = 1;
                queue[tail++] = c;
            }
        }
    }
    for (uint32_t id = 1; id < r->nstates; id++)
        if (!seen[id]) pos[id] = 0; /* unreachable (none expected): not written */
out:
    free(queue);
    free(seen);
    return total;
}

#define ARC(tile, acc, child) (((uint64_t)(child) << 8) | ((uint64_t)(acc) << 7) | (uint64_t)(tile))
#define ARC_CHILD(a) ((uint32_t)((a) >> 8))
#define ARC_ACC(a) ((uint32_t)(((a) >> 7) & 1))
#define ARC_TILE(a) ((uint32_t)((a) & 63))

/* The unfinished path of the incremental builder: per depth, the arcs of the open state. */
typedef struct {
    uint64_t arcs[MAX_WORD + 2][MAX_TILE + 1];
    uint32_t n[MAX_WORD + 2];
} Path;

typedef struct {
    SKey *recs;
    size_t nrecs, cap;
} Recs;

static int recs_push(Recs *rc, const uint8_t *word, uint32_t k, uint32_t state, uint32_t acc) {
    if (rc->nrecs == rc->cap) return -1; /* allocated exactly beforehand: cannot happen */
    SKey *s = &rc->recs[rc->nrecs++];
    s->p = word + k - 1; /* reversed: starts at the prefix's last character */
    s->len = k;
    s->aux = (state << 1) | acc;
    set_keys(s, -1);
    return 0;
}

/* Close the open states deeper than `keep` (the path of `prev`, reached by its characters).
 * When rc is given, record each closed prefix prev[0:k] with its state. */
static int close_path(Reg *r, Path *ps, const SKey *prev, uint32_t prevlen, uint32_t keep, Recs *rc) {
    for (uint32_t k = prevlen; k > keep; k--) {
        uint32_t id = reg_state(r, ps->arcs[k], ps->n[k]);
        if (id == (uint32_t)-1) return -1;
        ps->n[k] = 0;
        uint64_t *last = &ps->arcs[k - 1][ps->n[k - 1] - 1];
        uint32_t acc = ARC_ACC(*last);
        *last = ARC(ARC_TILE(*last), acc, id);
        if (rc && recs_push(rc, prev->p, k, id, acc) < 0) return -1;
    }
    return 0;
}

/* One half of the GADDAG's backward part: the reversed prefixes starting with a range of tiles.
 * The first job uses the shared register; the second its own (merged afterwards), so the two run
 * on two cores. In a private register, arcs with tile 0 (separators) point to shared DAWG states. */
typedef struct {
    Reg *reg;
    SKey *recs;
    size_t n;
    Path *ps;
    int fail;
} GJob;

static void *gaddag_job(void *arg) {
    GJob *j = arg;
    g_step = -1;
    Path *ps = j->ps;
    msd_sort(j->recs, j->n, 0);
    TMARK("job sorted");
    const SKey *prev = NULL;
    uint32_t prevlen = 0;
    for (size_t w = 0; w < j->n; w++) {
        const SKey *k = &j->recs[w];
        uint32_t lcp = 0;
        if (prev) {
            lcp = key_lcp(prev, k, -1);
            if (close_path(j->reg, ps, prev, prevlen, lcp, NULL) < 0) {
                j->fail = 1;
                return NULL;
            }
        }
        for (uint32_t d = lcp; d < k->len; d++)
            ps->arcs[d][ps->n[d]++] = ARC(key_char(k, d), d == k->len - 1 ? (k->aux & 1) : 0, 0);
        uint32_t sep = k->aux >> 1;
        if (sep) ps->arcs[k->len][ps->n[k->len]++] = ARC(0, 0, sep);
        prev = k;
        prevlen = k->len;
    }
    /* close everything but the root; ps->arcs[0] keeps this half's root arcs */
    if (prev && close_path(j->reg, ps, prev, prevlen, 0, NULL) < 0) j->fail = 1;
    TMARK("job done");
    return NULL;
}

/* One half of the DAWG: the sorted words of a range of first tiles (words[0..n)), recording each
 * distinct prefix into rc (allocated exactly). Leaves the half's root arcs in ps->arcs[0]. */
typedef struct {
    Reg *reg;
    SKey *words;
    size_t n;
    Path *ps;
    Recs rc;
    int phase; /* 0: sort and count prefixes into rc.cap; 1: build */
    int fail;
} DJob;

static void *dawg_job(void *arg) {
    DJob *j = arg;
    g_step = 1;
    if (j->phase == 0) {
        msd_sort(j->words, j->n, 0);
        size_t np = j->n ? j->words[0].len : 0;
        for (size_t w = 1; w < j->n; w++) np += j->words[w].len - key_lcp(&j->words[w - 1], &j->words[w], 1);
        j->rc.cap = np;
        return NULL;
    }
    Path *ps = j->ps;
    const SKey *prev = NULL;
    uint32_t prevlen = 0;
    for (size_t w = 0; w < j->n; w++) {
        const SKey *k = &j->words[w];
        uint32_t lcp = 0;
        if (prev) {
            lcp = key_lcp(prev, k, 1);
            if (lcp == k->len && lcp == prevlen) continue; /* duplicate */
            if (close_path(j->reg, ps, prev, prevlen, lcp, &j->rc) < 0) {
                j->fail = 1;
                return NULL;
            }
        }
        for (uint32_t d = lcp; d < k->len; d++) ps->arcs[d][ps->n[d]++] = ARC(k->p[d], d == k->len - 1, 0);
        prev = k;
        prevlen = k->len;
    }
    if (prev && close_path(j->reg, ps, prev, prevlen, 0, &j->rc) < 0) j->fail = 1;
    TMARK("dawg job done");
    return NULL;
}

/* Run a on this thread and b on another (or both here when asked or when no thread starts). */
static void run_pair(void *(*fn)(void *), void *a, void *b) {
    pthread_t th;
    int threaded = !getenv("SKRAFL_KWG_ONE_THREAD") && pthread_create(&th, NULL, fn, b) == 0;
    fn(a);
    if (threaded) pthread_join(th, NULL);
    else fn(b);
}

/* Split items by first tile (key_char 0) into [0, lo) with tiles < split and [lo, n), balancing
 * the characters (the work) between the two; returns lo. */
static size_t split_by_first_tile(SKey *a, size_t n) {
    size_t w1[MAX_TILE + 1] = {0}, total_w = 0;
    for (size_t i = 0; i < n; i++) {
        w1[key_char(&a[i], 0)] += a[i].len;
        total_w += a[i].len;
    }
    size_t acc = 0;
    int split = MAX_TILE + 1; /* first tile of the second half */
    for (int t = 1; t <= MAX_TILE; t++) {
        if (acc + w1[t] / 2 >= total_w / 2) {
            split = t;
            break;
        }
        acc += w1[t];
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        if (key_char(&a[lo], 0) < split) lo++;
        else {
            SKey t = a[--hi];
            a[hi] = a[lo];
            a[lo] = t;
        }
    }
    return lo;
}

/* Re-register the states of the private register r2 into r (children come before parents);
 * arcs with tile 0 (GADDAG separators) point into r already when sep_shared. Returns the id map
 * (malloc'ed; NULL when out of memory). */
static uint32_t *merge_register(Reg *r, const Reg *r2, int sep_shared) {
    uint32_t *remap = malloc(r2->nstates * sizeof(uint32_t));
    if (!remap) return NULL;
    uint64_t arcs[MAX_TILE + 1];
    remap[0] = 0;
    for (uint32_t id = 1; id < r2->nstates; id++) {
        const uint64_t *a = r2->pool + r2->st_off[id];
        uint32_t n = r2->st_cnt[id];
        for (uint32_t q = 0; q < n; q++)
            arcs[q] =
                (sep_shared && ARC_TILE(a[q]) == 0) ? a[q] : ARC(ARC_TILE(a[q]), ARC_ACC(a[q]), remap[ARC_CHILD(a[q])]);
        remap[id] = reg_state(r, arcs, n);
        if (remap[id] == (uint32_t)-1) {
            free(remap);
            return NULL;
        }
    }
    return remap;
}

static PyObject *py_build_kwg(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer buf;
    int force_wide = 0;
    if (!PyArg_ParseTuple(args, "y*|p", &buf, &force_wide)) return NULL;
    const uint8_t *data = buf.buf;
    size_t len = (size_t)buf.len;
    SKey *words = NULL, *tmp = NULL;
    Path *ps = NULL, *ps2 = NULL;
    Recs rc = {0};
    Reg r, r2;
    uint32_t *pos = NULL, *remap = NULL;
    PyObject *result = NULL;
    int reg_ok = 0, reg2_ok = 0;
    const char *err = NULL;
    uint32_t dawg_root = 0, gaddag_root = 0;

    size_t nw = 1;
    for (size_t i = 0; i < len; i++)
        if (data[i] == 0) nw++;
    words = big_calloc(nw * sizeof(SKey));
    ps = calloc(1, sizeof(Path));
    ps2 = calloc(1, sizeof(Path));
    if (!words || !ps || !ps2) {
        err = "out of memory";
        goto done;
    }
    size_t cnt = 0, st = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || data[i] == 0) {
            if (i > st) {
                if (i - st > MAX_WORD) {
                    err = "a word is longer than 255 tiles";
                    goto done;
                }
                words[cnt].p = data + st;
                words[cnt].len = (uint32_t)(i - st);
                words[cnt].aux = 0;
                set_keys(&words[cnt], 1);
                cnt++;
            }
            st = i + 1;
        } else if (data[i] > MAX_TILE) {
            err = "tile number above 63";
            goto done;
        }
    }
    TMARK("parsed");
    if (reg_init(&r) < 0) {
        err = "out of memory";
        goto done;
    }
    reg_ok = 1;
    if (reg_init(&r2) < 0) {
        err = "out of memory";
        goto done;
    }
    reg2_ok = 1;
    int fail = 0;
    Py_BEGIN_ALLOW_THREADS
    /* 1. DAWG by incremental minimisation over the sorted words, recording every prefix's state;
     * two halves by first tile on two threads, the second merged into the shared register */
    {
        size_t lo = split_by_first_tile(words, cnt);
        DJob da = {&r, words, lo, ps, {0}, 0, 0}, db = {&r2, words + lo, cnt - lo, ps2, {0}, 0, 0};
        run_pair(dawg_job, &da, &db);
        TMARK("sorted");
        rc.cap = da.rc.cap + db.rc.cap;
        rc.recs = big_calloc((rc.cap ? rc.cap : 1) * sizeof(SKey));
        if (!rc.recs) fail = 1;
        if (!fail) {
            da.rc.recs = rc.recs;
            db.rc.recs = rc.recs + da.rc.cap;
            da.phase = db.phase = 1;
            run_pair(dawg_job, &da, &db);
            fail = da.fail || db.fail;
        }
        uint32_t *dremap = fail ? NULL : merge_register(&r, &r2, 0);
        if (!dremap) fail = 1;
        if (!fail) {
            /* the second half's prefix records name its private states: map them */
            for (size_t i = 0; i < db.rc.nrecs; i++) {
                SKey *k = &db.rc.recs[i];
                k->aux = (dremap[k->aux >> 1] << 1) | (k->aux & 1);
            }
            rc.nrecs = da.rc.nrecs + db.rc.nrecs; /* both exact: the halves are contiguous */
            uint64_t arcs[MAX_TILE + 1];
            uint32_t n = 0;
            for (uint32_t q = 0; q < ps->n[0]; q++) arcs[n++] = ps->arcs[0][q];
            for (uint32_t q = 0; q < ps2->n[0]; q++) {
                uint64_t a2 = ps2->arcs[0][q];
                arcs[n++] = ARC(ARC_TILE(a2), ARC_ACC(a2), dremap[ARC_CHILD(a2)]);
            }
            ps->n[0] = ps2->n[0] = 0;
            dawg_root = reg_state(&r, arcs, n);
            if (dawg_root == (uint32_t)-1) fail = 1;
        }
        free(dremap);
        reg_free(&r2);
        if (reg_init(&r2) < 0) {
            fail = 1;
            reg2_ok = 0;
        }
    }
    free(words);
    words = NULL;
    TMARK("dawg");
    /* 2. GADDAG: reversed prefixes split by first tile into two halves of similar size */
    if (!fail && reg_reserve(&r, r.nstates + rc.nrecs * 3 / 4) < 0) fail = 1;
    if (!fail) {
        size_t lo = split_by_first_tile(rc.recs, rc.nrecs);
        g_step = -1;
        GJob ja = {&r, rc.recs, lo, ps, 0}, jb = {&r2, rc.recs + lo, rc.nrecs - lo, ps2, 0};
        run_pair(gaddag_job, &ja, &jb);
        fail = ja.fail || jb.fail;
        TMARK("gaddag halves");
        /* the jobs are done with the prefix records (the root arcs are in ps/ps2) */
        free(rc.recs);
        rc.recs = NULL;
        /* 3. merge the private register into the shared one */
        if (!fail) remap = merge_register(&r, &r2, 1);
        if (!remap) fail = 1;
        uint64_t arcs[MAX_TILE + 1];
        if (!fail) {
            uint32_t n = 0;
            for (uint32_t q = 0; q < ps->n[0]; q++) arcs[n++] = ps->arcs[0][q];
            for (uint32_t q = 0; q < ps2->n[0]; q++) {
                uint64_t a = ps2->arcs[0][q];
                arcs[n++] = ARC(ARC_TILE(a), ARC_ACC(a), remap[ARC_CHILD(a)]);
            }
            gaddag_root = reg_state(&r, arcs, n);
            if (gaddag_root == (uint32_t)-1) fail = 1;
        }
        reg_free(&r2);
        reg2_ok = 0;
        free(remap);
        remap = NULL;
    }
    Py_END_ALLOW_THREADS
    if (fail) {
        err = "out of memory";
        goto done;
    }
    TMARK("gaddag");
    if (getenv("SKRAFL_KWG_TIMING"))
        fprintf(stderr, "prefixes %zu states %u arcs %zu; cache hits %zu, table look-ups %zu\n", rc.nrecs, r.nstates,
                r.pool_len, r.cache_hits, r.lookups);
    free(r.htab); /* no more look-ups */
    r.htab = NULL;

    /* 4. layout: node 0 -> DAWG root, node 1 -> GADDAG root, then the sibling lists */
    pos = malloc(r.nstates * sizeof(uint32_t));
    size_t total = pos ? place_states(&r, pos, gaddag_root, dawg_root) : 0;
    if (!total) {
        err = "out of memory";
        goto done;
    }
    TMARK("placed");
    int wide = force_wide || total > ARC_MASK + 1;
    if (total > 0xFFFFFFu) {
        PyErr_Format(PyExc_ValueError, "lexicon too large: %zu KWG nodes, at most 16,777,215", total);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * 4));
    if (!result) goto done;
    {
        uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
#define PUT(i, v)                            \
    do {                                     \
        uint32_t _v = (v);                   \
        out[4 * (i)] = _v & 255;             \
        out[4 * (i) + 1] = (_v >> 8) & 255;  \
        out[4 * (i) + 2] = (_v >> 16) & 255; \
        out[4 * (i) + 3] = _v >> 24;         \
    } while (0)
#define MK(tile, acc, end, arc)                                                           \
    (wide ? (((uint32_t)(arc) << 8) | ((acc) ? 0x80u : 0) | ((end) ? 0x40u : 0) | (tile)) \
          : (((uint32_t)(tile) << 24) | ((acc) ? ACCEPTS : 0) | ((end) ? IS_END : 0) | (arc)))
        PUT(0, MK(0, 0, 1, pos[dawg_root]));
        PUT(1, MK(0, 0, 1, pos[gaddag_root]));
        for (uint32_t id = 1; id < r.nstates; id++) {
            const uint64_t *a = r.pool + r.st_off[id];
            uint32_t n = r.st_cnt[id];
            if (!pos[id]) continue;
            for (uint32_t j = 0; j < n; j++)
                PUT(pos[id] + j, MK(ARC_TILE(a[j]), ARC_ACC(a[j]), j == n - 1, pos[ARC_CHILD(a[j])]));
        }
#undef PUT
#undef MK
    }
done:
    if (err) {
        Py_CLEAR(result);
        PyErr_SetString(PyExc_ValueError, err);
    }
    free(words);
    free(tmp);
    free(ps);
    free(ps2);
    free(rc.recs);
    free(pos);
    free(remap);
    if (reg_ok) reg_free(&r);
    if (reg2_ok) reg_free(&r2);
    PyBuffer_Release(&buf);
    return result;
}

/* ------------------------------------------------------------------------------------------ */
/* Move generator                                                                              */

/* Node fields for both layouts: Node22 (docs/MOVEGEN.md §1 standard) and Node24 (tile bits 0-5, is_end bit 6,
 * accepts bit 7, arc bits 8-31; written only when a lexicon has more than 2^22 nodes). */
static int g_wide;
#define N_TILE(v) (g_wide ? ((v) & 63u) : ((v) >> 24))
#define N_ARC(v) (g_wide ? ((v) >> 8) : ((v) & ARC_MASK))
#define N_END(v) (g_wide ? ((v) & 0x40u) : ((v) & IS_END))
#define N_ACC(v) (g_wide ? ((v) & 0x80u) : ((v) & ACCEPTS))

/* Node i, bounds-checked: past the end reads as a childless last sibling, so a damaged file can
 * give wrong words but never a read outside the buffer (Kwg.load does not scan the whole file). */
static size_t g_nnodes;
static const uint32_t *g_kwg;
#define KW(i) ((size_t)(i) < g_nnodes ? g_kwg[i] : (g_wide ? 0x40u : IS_END))

#define MAXD 64

static PyTypeObject *RawMoveType;

static PyStructSequence_Field rawmove_fields[] = {
    {"row", "0-based row of the main word's first square"},
    {"col", "0-based column of the main word's first square"},
    {"across", "True: the main word runs across; False: down"},
    {"letters", "bytes, the whole main word: tile number 1..63, +64 for a blank"},
    {"score", "the play's score (main word, cross words, bingo)"},
    {"tiles_placed", "number of tiles taken from the rack"},
    {NULL, NULL}};

static PyStructSequence_Desc rawmove_desc = {
    "gamecore._native.RawMove", "One legal play: (row, col, across, letters, score, tiles_placed).", rawmove_fields, 6};

/* Plays are recorded into a buffer of plain structs (kept between calls, grown when needed) and
 * turned into Python objects only at the end, and only for the plays asked for. */
typedef struct {
    uint64_t key;   /* sort key: see move_keys (0 when the slow comparison is needed) */
    int32_t score;
    uint32_t off;   /* the main word's letters: g_pool[off .. off + len) */
    uint8_t row, col, across, len, placed;
} Move;

/* One lane (row for plays across, column for plays down), computed once per call. */
typedef struct {
    uint64_t abits;        /* bit p: square p is an anchor (the anchor flags below, read at once) */
    uint8_t tiles[MAXD];   /* board tiles in the lane: 0 empty, else tile | 64 if blank */
    uint64_t mask[MAXD];   /* allowed tiles on empty squares (bit t); 0 = no tile can go here */
    int32_t xscore[MAXD];  /* sum of values of the perpendicular word's board tiles */
    uint8_t hasx[MAXD];    /* a perpendicular word is formed on this square */
    uint8_t anchor[MAXD];
    uint8_t lm[MAXD], wm[MAXD];
    int32_t cap[MAXD];     /* (pruning) the most a rack tile can score here: value, not multiplied */
} Lane;

typedef struct {
    uint8_t dir, lane, pos;
    uint8_t searched; /* (pruning) one of its parts has been searched (for the statistics) */
} Anchor;

typedef struct {
    int n; /* lane length */
    int across;
    int lane; /* index of the lane (row when across) */
    /* the current lane's data (pointers into a Lane) */
    const uint8_t *tiles;
    const uint64_t *mask;
    const int32_t *xscore;
    const uint8_t *hasx, *anchor, *lm, *wm;
    uint8_t placed[MAXD];  /* tiles placed in the current partial play */
    /* play state */
    int rack[MAX_TILE + 1];
    int blanks, ntiles;
    uint64_t rackmask; /* bit t: the rack holds a tile t */
    int values[MAX_TILE + 1];
    int bvalues[MAX_TILE + 1]; /* what a blank standing for the letter scores: 0, or the letter's value */
    int bingo, bingo_tiles;
    int anchor_pos;
    int rstart; /* the first square after the tiles just right of the anchor (see _walk.h) */
    int dedupe_single; /* down pass: one-tile plays forming an across word were listed already */
    /* top-K: a min-heap of the best `limit` scores recorded so far (limit 0 = keep every play) */
    int limit, nheap;
    int *heap;
    /* pruning inside an anchor's search (the anchor's span bounds, see span_bounds) */
    int prune_in;
    /* which plays an anchor's search looks for (see search): 0 all, 1 those of fewer than
     * bingo_tiles tiles (no tile is placed beyond max_placed), 2 the bingos (min_placed) */
    int part, min_placed, max_placed;
    uint64_t blank_ok; /* the letters a blank may stand for (all but while searching bingos) */
    int thr; /* the K-th best score so far once K plays are kept (INT_MIN before) */
    int error;
    /* equity (Position.equity): each play is kept by its static equity in thousandths, score * 1000
     * + the term of the tiles it keeps (eq_term, indexed by the kept counts in mixed radix:
     * eq_full - the eq_stride of each tile placed, the blank's at 0) + on the empty board the
     * opening penalty of each vowel placed (eq_pen by direction and square); the K-th best equity
     * so far is turned into a score threshold for the pruning (eq_maxterm: the best term) */
    int eq_on, eq_opening, eq_full, eq_maxterm;
    int eq_adj[MAXD + 1]; /* a span of k new tiles: ceil((the best term keeping ntiles - k) - eq_maxterm) / 1000) */
    int eq_adjge[MAXD + 1]; /* the same for plays of k new tiles or more (a play under way: see right_ok) */
    int eq_adjnb[MAXD + 1]; /* the same for plays of k new tiles that take a blank (see exact_bound) */
    int eq_stride[MAX_TILE + 1];
    const int32_t *eq_term;
    uint64_t eq_vowels;
    int eq_pen[2][MAXD];
} Gen;

#define NEG_BOUND (-0x3FFFFFFF)
/* for the anchor being searched: g_rmax[s][e] = the best bound of a span [s, e'] with e' >= e,
 * g_leftmax[s] = the best bound of a span starting at s or left of it, g_leftopen[s] the same over
 * the spans that go on past the tiles right of the anchor (that have a right part, see _walk.h) */
static int g_rmax[MAXD][MAXD + 1];
static int g_leftmax[MAXD], g_leftopen[MAXD];
/* and for a left part that has placed squares pos..a and goes on left (left_tables): a bound on
 * its plays without a right part that follows the tiles still on the rack, see left_ok */
static int g_lW[MAXD + 1], g_lF[MAXD + 1], g_lB[MAXD + 1][MAXD + 1], g_lHi[MAXD + 1], g_lLo[MAXD + 1];
static int g_lready; /* the tables are made for the anchor being searched (made when first needed) */
/* the rack at the anchor's start: its letters by value, best first (0: a blank, at the most it can
 * score), the values of its tiles, best first, and the letters it can put down */
static int g_ordt[MAX_TILE + 2], g_ordv[MAX_TILE + 2], g_nord, g_lx[MAXD], g_nlx;
static uint64_t g_lusable;
/* and for the right part of a play (squares p.. after its left part is placed), over every end:
 * the largest word multiplier still to come, the largest (main-word points to come) x (its word
 * multiplier), the largest cross-word points to come, and which numbers of new tiles can end it.
 * g_dW[p] < 0: no play can go on to square p. */
static int g_dW[MAXD + 1], g_dMW[MAXD + 1], g_dX[MAXD + 1];
static uint64_t g_dK[MAXD + 1];

/* Whether a play whose squares up to p-1 are placed (main_sum, wmul, xsum, nplaced so far) can
 * still score at least the K-th best when it goes on to square p. */
static inline int right_ok(const Gen *g, int p, int main_sum, int wmul, int xsum, int nplaced) {
    if (g_dW[p] < 0) return 0;
    int k = g->bingo_tiles - nplaced; /* new tiles still needed for the bingo bonus */
    int reach = k <= 0 || (k < 64 && (g_dK[p] >> k));
    if (g->part == 2 && !reach) return 0; /* looking for bingos only: none on this way */
    int b = wmul * (main_sum * g_dW[p] + g_dMW[p]) + xsum + g_dX[p] + (reach && g->part != 1 ? g->bingo : 0);
    if (g->eq_on && b >= 0) { /* (equity) less what a leave of the tiles still kept lacks of the best term */
        b += g->eq_adjge[nplaced];
        if (b < 0) b = 0;
    }
    return b >= g->thr;
}

/* (pruning) the rack's order for left_ok, at the start of an anchor's search. */
static void left_order(const Gen *g) {
    int bmax = -1; /* a blank scores at most its best letter (of those it may stand for) */
    if (g->blanks > 0)
        for (uint64_t m = g->blank_ok & ~1ull; m; m &= m - 1)
            if (g->bvalues[__builtin_ctzll(m)] > bmax) bmax = g->bvalues[__builtin_ctzll(m)];
    g_nord = 0;
    for (uint64_t m = g->rackmask | (bmax >= 0 ? 1 : 0); m; m &= m - 1) {
        int t = __builtin_ctzll(m), v = t ? g->values[t] : bmax, j = g_nord++;
        while (j > 0 && g_ordv[j - 1] < v) {
            g_ordt[j] = g_ordt[j - 1];
            g_ordv[j] = g_ordv[j - 1];
            j--;
        }
        g_ordt[j] = t;
        g_ordv[j] = v;
    }
    g_nlx = 0;
    for (int o = 0; o < g_nord; o++)
        for (int c = g_ordt[o] ? g->rack[g_ordt[o]] : g->blanks; c > 0 && g_nlx < MAXD; c--) g_lx[g_nlx++] = g_ordv[o];
    g_lusable = g->blanks > 0 ? ~1ull : g->rackmask;
    g_lready = 0;
}

/* (pruning) g_lW, g_lF, g_lB, g_lHi, g_lLo for the left parts of the anchor being searched (see
 * left_ok): for each pos, over the starts s < pos of the plays that end at the tiles right of it. */
static void left_tables(const Gen *g) {
    int a = g->anchor_pos;
    for (int p = 0; p <= a; p++) g_lW[p] = -1;
    int wmul = 1, np = 0; /* of the squares pos..a */
    for (int pos = a; pos >= 1; pos--) {
        if (!g->tiles[pos]) {
            if (pos < a && (g->anchor[pos] || !(g->mask[pos] & g_lusable))) break;
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
                if (g->anchor[s] || !(g->mask[s] & g_lusable) || k == R || np + k == g->max_placed) break;
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
        g_lW[pos] = mW;
        g_lF[pos] = mF;
        g_lHi[pos] = g_lLo[pos] = 0;
        for (int i = 0; i < R; i++) {
            int d = B[i + 1] - B[i];
            g_lHi[pos] += (i < g_nlx ? g_lx[i] : 0) * d;
            g_lLo[pos] += (i + np < g_nlx ? g_lx[i + np] : 0) * d;
        }
        memcpy(g_lB[pos], B, (R + 1) * sizeof(int));
    }
    g_lready = 1;
}

/* (pruning) Whether a left part that has placed squares pos..a (main_sum, xsum so far; one tile on
 * each empty one) can still score at least the K-th best by going on left and ending at the tiles
 * right of the anchor (no right part). Such a play adds k tiles on new squares s..pos-1, each of
 * value v_i scoring v_i * eff_i (eff_i = lm_i * W + its cross word's share, W = the word
 * multiplier of the whole play); with eff sorted best first and the tiles still on the rack
 * r_0 >= r_1 >= ... >= r_{R-1} (none placed further on is worth more) that is at most
 * sum_i eff_i r_i (rearrangement) = sum_j (r_{j-1} - r_j) E_j (E_j = eff_0 + ... + eff_{j-1},
 * E_j = E_k past k, r_R = 0) <= sum_j (r_{j-1} - r_j) B_j = sum_i r_i (B_{i+1} - B_i), B_j = the
 * largest E_j over the starts s (g_lB[pos][j]). So b = main_sum * (the largest W) + (the largest
 * rest: board tiles, cross words' board tiles, bingo) + xsum + sum_i r_i (B_{i+1} - B_i), added up
 * a letter at a time (its c tiles are r_i .. r_{i+c-1}, of one value v: v (B_{i+c} - B_i)). Unlike
 * the span bounds it follows the tiles the part has used: a left part that placed the rack's best
 * tiles cannot place them again. The sum lies between g_lLo[pos] and g_lHi[pos] (the rack's values
 * x_0 >= x_1 >= ...: x_{i+m} <= r_i <= x_i, m the tiles placed) and is added up only when those do
 * not settle it. */
static inline int left_ok(const Gen *g, int pos, int main_sum, int xsum, int nplaced) {
    if (!g_lready) left_tables(g);
    if (g_lW[pos] < 0) return 0;
    int b = main_sum * g_lW[pos] + g_lF[pos] + xsum, i = 0;
    /* (equity) less what the leaves of the tiles still kept lack of the best term (as right_ok: a
     * bound not below 0 stays so, and the threshold is 0 or more) */
    int thr = g->eq_on && g->thr > 0 ? g->thr - g->eq_adjge[nplaced] : g->thr;
    if (b + g_lLo[pos] >= thr) return 1;
    if (b + g_lHi[pos] < thr) return 0;
    const int *B = g_lB[pos];
    for (int o = 0; o < g_nord; o++) {
        int t = g_ordt[o], j = i + (t ? g->rack[t] : g->blanks);
        if (j > MAXD) j = MAXD; /* (the tiles left are as many as the table's entries) */
        b += g_ordv[o] * (B[j] - B[i]);
        i = j;
    }
    return b >= thr;
}

static int g_busy; /* generate() is running (the buffers below are in use) */
static Move *g_moves, *g_tmp;
static size_t g_nmoves, g_capmoves, g_captmp;
static uint8_t *g_pool;
static size_t g_npool, g_cappool;
static Lane g_lanes[2][MAXD];
static Lane (*g_L)[MAXD] = g_lanes; /* the lanes searched: g_lanes, or a Position's */
static Anchor g_anchors[2 * MAXD * MAXD];
static uint8_t g_grid[MAXD][MAXD];
static uint8_t (*g_G)[MAXD] = g_grid; /* the grid searched: g_grid, or a Position's */
/* statistics of the last call (for the bench): anchors, anchors searched, plays recorded */
static long g_st_anchors, g_st_searched, g_st_recorded, g_st_calls;
static long g_calls; /* search calls (work done) of the step at hand */
typedef struct {
    uint8_t dir, lane, pos, part;
    int16_t s, e;
    int bound, best;
    long work;
} Step; /* part: see Gen */
static Step g_steps[2 * MAXD * MAXD];
static long g_nsteps;
static int g_cur_best;

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

static int grow(void **p, size_t *cap, size_t need, size_t size) {
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

/* (equity) A score bound b of plays of k new tiles, less what their leave lacks of the best term
 * (eq_adj): not below 0 when b is not (the search takes a bound below 0 for "no play here", and
 * the threshold is never below 0). */
static inline int eq_adjust(const Gen *g, int b, int k) {
    if (b < 0 || !g->eq_adj[k]) return b;
    b += g->eq_adj[k];
    return b > 0 ? b : 0;
}

static void record(Gen *g, int start, int end, int main_sum, int wmul, int xsum, int nplaced) {
    int len = end - start + 1;
    if (len < 2 || nplaced < g->min_placed) return;
    if (g->dedupe_single && nplaced == 1) {
        for (int i = start; i <= end; i++)
            if (g->placed[i] && g->hasx[i]) return;
    }
    int score = main_sum * wmul + xsum + (nplaced >= g->bingo_tiles ? g->bingo : 0);
    if (score > g_cur_best) g_cur_best = score;
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
    if ((g_nmoves == g_capmoves && grow((void **)&g_moves, &g_capmoves, g_nmoves + 1, sizeof(Move)) < 0) ||
        (g_npool + len > g_cappool && grow((void **)&g_pool, &g_cappool, g_npool + len, 1) < 0)) {
        g->error = 1;
        return;
    }
    Move *m = &g_moves[g_nmoves++];
    uint8_t *w = g_pool + g_npool;
    m->off = (uint32_t)g_npool;
    g_npool += len;
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
static void first_place(Gen *g, const uint8_t *w, int len) {
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

/* (pruning, the first move) A word of length L whose letter values sorted best first are x_i
 * scores at most sum_i x_i M_L[i] (+ the bingo), M_L[i] = the best over the starts covering the
 * start square of W_s * (the i-th largest letter premium of the start's squares) (rearrangement
 * inequality). With x_i <= T_i (the rack's i-th best value, a blank counted at its best) that is
 * at most g_fMmin[L] * (the word's value sum) + g_fE[L], g_fMmin[L] = M_L[L-1] and
 * g_fE[L] = sum_i (M_L[i] - g_fMmin[L]) * T_i (NEG_BOUND when no start fits L letters). */
static int g_fMmin[MAXD + 1], g_fE[MAXD + 1];

/* The multipliers M_L of the lane set (the anchor at g->anchor_pos) for L <= g_fmL, kept between
 * calls: they depend only on the lane's premiums and blocked squares and the anchor, which the
 * key below holds (a first move is asked for on the same lane again and again). */
static int g_fM[MAXD + 1][MAXD], g_fmL = -1, g_fmn, g_fma;
static uint8_t g_fok[MAXD + 1]; /* some start fits L letters */
static uint8_t g_fmkey[3][MAXD];

/* g_fMmin and g_fE for the lane set, rv[0..nrv) = the rack's values best first. */
static void first_tables(const Gen *g, const int *rv, int nrv) {
    int a = g->anchor_pos, n = g->n, Lmax = n < nrv ? n : nrv; /* (no word is longer than the rack) */
    uint8_t key[3][MAXD];
    for (int p = 0; p < n; p++) {
        key[0][p] = g->lm[p];
        key[1][p] = g->wm[p];
        key[2][p] = g->mask[p] != 0;
    }
    if (g_fmL < Lmax || g_fmn != n || g_fma != a || memcmp(key[0], g_fmkey[0], n) || memcmp(key[1], g_fmkey[1], n) ||
        memcmp(key[2], g_fmkey[2], n)) {
        for (int L = 1; L <= Lmax; L++) {
            int *M = g_fM[L];
            for (int i = 0; i < L; i++) M[i] = 0;
            g_fok[L] = 0;
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
                g_fok[L] = 1;
                for (int i = 0; i < L; i++)
                    if (W * lm[i] > M[i]) M[i] = W * lm[i];
            }
        }
        g_fmL = Lmax;
        g_fmn = n;
        g_fma = a;
        memcpy(g_fmkey, key, sizeof key);
    }
    for (int L = 1; L <= Lmax; L++) {
        const int *M = g_fM[L];
        g_fMmin[L] = M[L - 1];
        g_fE[L] = g_fok[L] ? 0 : NEG_BOUND;
        for (int i = 0; g_fok[L] && i < L; i++) g_fE[L] += (M[i] - M[L - 1]) * rv[i];
    }
}

#define WALK_WIDE 0
#define WALK(name) name##_22
#include "_walk.h"
#undef WALK_WIDE
#undef WALK
#define WALK_WIDE 1
#define WALK(name) name##_24
#include "_walk.h"
#undef WALK_WIDE
#undef WALK

static void gen(Gen *g, int pos, uint32_t list, int start, int main_sum, int wmul, int xsum, int nplaced) {
    if (g_wide) gen_24(g, pos, list, start, main_sum, wmul, xsum, nplaced);
    else gen_22(g, pos, list, start, main_sum, wmul, xsum, nplaced);
}

static void first_words(Gen *g, uint32_t root, uint8_t *w) {
    if (g->prune_in) {
        if (g_wide) first_words_ordered_24(g, root, w);
        else first_words_ordered_22(g, root, w);
    } else {
        if (g_wide) first_words_24(g, root, w, 0, 0);
        else first_words_22(g, root, w, 0, 0);
    }
}

/* Follows tiles[0..n) (in reverse order when rev) down the graph from the sibling list *list: 1
 * when the path is there, *list then the child list after it and *node the node of its last tile
 * (unchanged when n == 0); 0 when it leaves the graph. */
static inline int follow(uint32_t *list, uint32_t *node, const uint8_t *tiles, int n, int rev) {
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
static uint64_t lane_mask(const uint8_t *left, int nl, const uint8_t *right, int nr) {
    uint32_t list = N_ARC(KW(1)), node = 0;
    if (!follow(&list, &node, right, nr, 1) || !list) return 0;
    uint64_t m = 0;
    for (uint32_t j = list;; j++) {
        uint32_t nv = KW(j);
        uint32_t t = N_TILE(nv);
        if (t) {
            uint32_t l2 = N_ARC(nv), n2 = 0;
            if (follow(&l2, &n2, left, nl, 1)) m |= 1ull << t;
        }
        if (N_END(nv)) break;
    }
    return m;
}

/* The plays of anchor a (the lane set): the walk starts at the right end of the tiles just right
 * of a (a itself when there are none) and ends its left part at a (see _walk.h). */
static void walk_anchor(Gen *g, int a, uint32_t groot) {
    int q = a;
    while (q + 1 < g->n && g->tiles[q + 1]) q++;
    g->anchor_pos = a;
    g->rstart = q + 1;
    gen(g, q, groot, q, 0, 1, 0, 0);
}

/* Allowed tiles between the perpendicular tiles before[0..nb) and after[0..na) (DAWG walk). */
static uint64_t cross_mask(const uint8_t *before, int nb, const uint8_t *after, int na) {
    uint32_t list = N_ARC(KW(0)), node = 0;
    if (!follow(&list, &node, before, nb, 0) || !list) return 0;
    uint64_t m = 0;
    for (uint32_t j = list;; j++) {
        uint32_t nv = KW(j);
        uint32_t t = N_TILE(nv);
        if (t) {
            if (na == 0) {
                if (N_ACC(nv)) m |= 1ull << t;
            } else {
                uint32_t l2 = N_ARC(nv), cur = 0;
                if (follow(&l2, &cur, after, na, 0) && N_ACC(KW(cur))) m |= 1ull << t;
            }
        }
        if (N_END(nv)) break;
    }
    return m;
}

static int read_grid(PyObject *obj, int *rows, int *cols, uint8_t out[MAXD][MAXD], int maxv, const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    Py_ssize_t nr = PySequence_Fast_GET_SIZE(seq);
    if (nr < 1 || nr > MAXD) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: 1 to %d rows expected", what, MAXD);
        return -1;
    }
    for (Py_ssize_t r = 0; r < nr; r++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, r), what);
        if (!row) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t nc = PySequence_Fast_GET_SIZE(row);
        if ((*cols >= 0 && nc != *cols) || nc < 1 || nc > MAXD) {
            Py_DECREF(row);
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s: row %zd has %zd squares", what, r + 1, nc);
            return -1;
        }
        *cols = (int)nc;
        for (Py_ssize_t c = 0; c < nc; c++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(row, c));
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(row);
                Py_DECREF(seq);
                return -1;
            }
            if (v < 0 || v > maxv) {
                Py_DECREF(row);
                Py_DECREF(seq);
                PyErr_Format(PyExc_ValueError, "%s: bad value %ld at row %zd column %zd", what, v, r + 1, c + 1);
                return -1;
            }
            out[r][c] = (uint8_t)v;
        }
        Py_DECREF(row);
    }
    if (*rows >= 0 && nr != *rows) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: %zd rows, expected %d", what, nr, *rows);
        return -1;
    }
    *rows = (int)nr;
    Py_DECREF(seq);
    return 0;
}

static int read_ints(PyObject *obj, int *out, int maxn, const char *what) {
    PyObject *seq = PySequence_Fast(obj, what);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > maxn) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: at most %d entries", what, maxn);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

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
static int rack_values(const Gen *g, int *rv) {
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

/* (pruning) Bingo spans. A span with bingo_tiles new squares, when the rack holds exactly that many
 * tiles, takes the whole rack: it can hold a play only if some word of the lexicon is an anagram
 * of the rack plus the span's board tiles (a blank: any letter). A bingo index (bingo_index()) holds
 * a multiset hash of every word of at least bingo_tiles letters: h(word) = sum of Z[tile] mod 2^64,
 * so equal multisets have equal hashes (a collision can only say "maybe": answers stay exact).
 * Layout: uint64 words; [0] = largest tile seen (bits 0-7; bit 20: a word map follows, see
 * g_wtab), [1] = table size (a power of two), then the open-addressing table (0 = free). Without an
 * index every bingo span counts. */
static const uint64_t *g_bidx;
static uint64_t g_bidx_mask, g_bidx_maxt;
/* (pruning) The index's word map (bit 20 of [0] set; after the table: [0] its table size wcap (a
 * power of two), [1] its pool's bytes, [2] the longest word held, [3] and [4] the graph's node
 * count and root nodes (an index is used only with its own graph), then wcap multiset hashes (0 =
 * free, open addressing as above), wcap uint32 offsets into the pool, the pool): every word of 2
 * to min_len + 1 letters, in groups of one hash: a uint32 count, then per word its length and
 * tiles. With it (and no blank on the rack) the sub-racks of the rack that make a word with a
 * span's board tiles are known (subrack_words), a span's plays can be scored word by word
 * (span_exact) and the first move's words are read from it (first_words_map). */
static const uint64_t *g_wtab;
static const uint32_t *g_woff;
static const uint8_t *g_wpool;
static uint64_t g_wmask, g_wmaxlen, g_wpoolsize, g_wnodes, g_wroots;

static inline const uint8_t *wmap_find(uint64_t h);
#define BCACHE 64
static uint64_t g_bcache_key[BCACHE];
static uint64_t g_bcache_ok[BCACHE];
static int g_nbcache;

static inline uint64_t zobrist(uint32_t t) {
    uint64_t z = (uint64_t)t * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

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
static uint64_t bingo_letters(const Gen *g, uint64_t key) {
    if (!g_bidx || g->blanks > 2) return ~0ull;
    for (int i = 0; i < g_nbcache; i++)
        if (g_bcache_key[i] == key) return g_bcache_ok[i];
    uint64_t base = key;
    for (int t = 1; t <= MAX_TILE; t++)
        for (int k = 0; k < g->rack[t]; k++) base += zobrist(t);
    const uint64_t *tab = g_bidx + 2;
    uint64_t ok = 0;
    if (g->blanks == 0) {
        ok = bidx_has(tab, g_bidx_mask, base) ? ~0ull : 0;
    } else {
        for (uint32_t x = 1; x <= g_bidx_maxt; x++) {
            if (g->blanks == 1) {
                if (bidx_has(tab, g_bidx_mask, base + zobrist(x))) ok |= 1ull << x;
            } else {
                for (uint32_t y = x; y <= g_bidx_maxt; y++)
                    if (((~ok >> x) & 1 || (~ok >> y) & 1) &&
                        bidx_has(tab, g_bidx_mask, base + zobrist(x) + zobrist(y)))
                        ok |= 1ull << x | 1ull << y;
            }
        }
    }
    if (g_nbcache < BCACHE) {
        g_bcache_key[g_nbcache] = key;
        g_bcache_ok[g_nbcache++] = ok;
    }
    return ok;
}

/* (pruning) Sub-rack words. A span with k new squares and board tiles T can hold a play only with
 * k tiles S of the rack such that S and T are an anagram of a word (the word's multiset hash is
 * h(S) + h(T)). The rack's distinct sub-multisets (no blank) are listed once per search (g_sub*,
 * by size k), the answers per (k, T) kept (g_scache, keyed by a hash as the bingo cache). */
#define SUBMAX 64
#define SUBK 8
static int g_sub_on, g_sub_blank; /* g_sub_blank: see exact_bound */
static int g_nsub[SUBK + 1];
static uint64_t g_subh[SUBK + 1][SUBMAX];
static int g_subP[SUBK + 1][SUBMAX]; /* value sums */
static uint64_t g_subt[SUBK + 1][SUBMAX]; /* their tiles, one a byte */
#define SCACHE 256 /* (a power of two) */
static uint64_t g_scache_key[SCACHE], g_scache_ok[SCACHE], g_scache_st[SCACHE], g_scache_serial;
static int g_nscache;

/* The rack's sub-multisets (g->rack, no blanks) by size: their hashes, value sums and tiles (one a
 * byte); 0 when there are too many. Each letter's copies are added to the sub-multisets so far. */
static int list_subracks(const Gen *g) {
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
    for (int k = 0; k <= SUBK; k++) g_nsub[k] = 0;
    for (int q = nf - 1; q >= 0; q--) { /* (the sub-racks with the last letters first) */
        int k = fk[q], j = g_nsub[k]++;
        if (j == SUBMAX) return 0;
        g_subh[k][j] = fh[q];
        g_subP[k][j] = fP[q];
        g_subt[k][j] = ft[q];
    }
    return 1;
}

/* Bit j: sub-rack j of size k with the board tiles of hash `base` is an anagram of a word. */
static uint64_t subrack_words(int k, uint64_t base) {
    uint64_t key = zobrist(64 + k) + base, i = (key ^ (key >> 32)) & (SCACHE - 1);
    /* (open addressing; an entry of another search has another stamp: free) */
    for (; g_scache_st[i] == g_scache_serial; i = (i + 1) & (SCACHE - 1))
        if (g_scache_key[i] == key) return g_scache_ok[i];
    uint64_t ok = 0;
    for (int j = 0; j < g_nsub[k]; j++)
        if (wmap_find(base + g_subh[k][j])) ok |= 1ull << j;
    if (g_nscache < SCACHE / 2) {
        g_nscache++;
        g_scache_st[i] = g_scache_serial;
        g_scache_key[i] = key;
        g_scache_ok[i] = ok;
    }
    return ok;
}

static inline const uint8_t *wmap_find(uint64_t h) {
    if (!h) h = 1;
    for (uint64_t i = slot_of(h) & g_wmask;; i = (i + 1) & g_wmask) {
        if (g_wtab[i] == h) return (uint64_t)g_woff[i] + 4 <= g_wpoolsize ? g_wpool + g_woff[i] : NULL;
        if (!g_wtab[i]) return NULL;
    }
}

/* (pruning) The best score of a play on span [s, e] of lane L whose new tiles are one of the
 * sub-racks `ok` of size k (see subrack_words), word by word from the word map: the word's letters
 * must match the span's board tiles and the cross-checks of its empty squares; NEG_BOUND when none
 * does. (A hash that two multisets share only adds words: the result stays an upper bound.) */
static int span_exact(const Gen *g, const Lane *L, int s, int e, int k, uint64_t base, uint64_t ok) {
    int len = e - s + 1, best = NEG_BOUND, best_eq = INT32_MIN;
    for (; ok; ok &= ok - 1) {
        int j = __builtin_ctzll(ok), termj = 0;
        const uint8_t *grp = wmap_find(base + g_subh[k][j]);
        if (!grp) continue;
        if (g->eq_on) { /* (equity) the sub-rack's leave is known: its term, exactly */
            uint64_t tt = g_subt[k][j];
            int idx = g->eq_full;
            for (int q = 0; q < k; q++) idx -= g->eq_stride[(tt >> (8 * q)) & 255];
            termj = g->eq_term[idx];
        }
        const uint8_t *end = g_wpool + g_wpoolsize;
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

/* span_exact's answers for the anchor being bounded (g_exkey: the anchor's key, see span_bounds) */
static int g_exv[MAXD][MAXD];
static uint64_t g_exst[MAXD][MAXD], g_exkey;

/* (pruning, the first move) With the word map and no blank on the rack: the words of each sub-rack
 * of two tiles or more straight from the map (each word is in the group of its own multiset only),
 * placed by first_place; a sub-rack whose words cannot reach the K-th best score so far
 * (first_tables' bound, with the value sum of the sub-rack's tiles) is not looked up. */
static void first_words_map(Gen *g, int ntiles) {
    int cnt[MAX_TILE + 1] = {0};
    for (int k = ntiles < g->n ? ntiles : g->n; k >= 2; k--) {
        for (int j = 0; j < g_nsub[k]; j++) {
            int P = g_subP[k][j];
            if (eq_adjust(g, g_fMmin[k] * P + g_fE[k] + (k >= g->bingo_tiles ? g->bingo : 0), k) < g->thr) continue;
            const uint8_t *grp = wmap_find(g_subh[k][j]);
            if (!grp) continue;
            const uint8_t *end = g_wpool + g_wpoolsize, *w = grp + 4;
            uint32_t n = grp[0] | grp[1] << 8 | grp[2] << 16 | (uint32_t)grp[3] << 24;
            for (uint32_t c = 0; c < n && w < end; c++, w += 1 + w[0]) {
                if (w[0] != k || w + 1 + k > end) continue;
                /* the word's tiles are this sub-rack's (not another multiset of the same hash) */
                int same = 1;
                uint64_t tt = g_subt[k][j];
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

static void collect_short(ShortWords *sw, uint32_t list, uint64_t h, int depth, uint8_t *buf) {
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
            collect_short(sw, N_ARC(nv), h2, depth + 1, buf);
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

static void collect_words(WordHashes *w, uint32_t list, uint64_t h, int depth) {
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
            collect_words(w, N_ARC(nv), h2, depth + 1);
            if (w->oom) return;
        }
        if (N_END(nv)) break;
    }
}

static PyObject *py_bingo_index(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer kb;
    int wide = -1, min_len = 7;
    if (!PyArg_ParseTuple(args, "y*|ii", &kb, &wide, &min_len)) return NULL;
    if (g_busy) {
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
    g_wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    g_nnodes = nnodes;
    g_kwg = (const uint32_t *)kb.buf;
    WordHashes w = {NULL, 0, 0, 0, min_len < 1 ? 1 : min_len, 0};
    ShortWords sw = {0};
    collect_words(&w, N_ARC(KW(0)), 0, 0);
    PyObject *out = NULL;
    if (w.oom) {
        PyErr_NoMemory();
        goto done;
    }
    size_t cap = 16;
    while (cap < 2 * w.n + 16) cap *= 2;
    /* the word map: words of 2 to min_len + 1 letters grouped by multiset hash */
    uint8_t buf[MAX_WORD + 1];
    sw.maxlen = min_len + 1 > MAXD ? MAXD : min_len + 1 < 2 ? 2 : min_len + 1;
    collect_short(&sw, N_ARC(KW(0)), 0, 0, buf);
    if (sw.oom) {
        PyErr_NoMemory();
        goto done;
    }
    qsort(sw.w, sw.n, sizeof(ShortWord), short_cmp);
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

/* The best bound over the anchor's spans of `part` (see Gen.part: 0 all, 1 fewer than bingo_tiles
 * new squares, 2 at least that many); with `fill`, also g_rmax and g_leftmax for them; *bbest (when
 * given) = the best bound over the spans of part 2. With `check`, *blank_ok (when given) gathers
 * the letters a blank can stand for in the bingos of the spans that can still make the cut
 * (bingo_letters; all when one of them is not checked). With `check` and the word map (g_sub_on),
 * a span that can make the cut and is no longer than its words gets its plays' best score
 * (span_exact) instead of its bound: when bounding (no `fill`), those spans are scored best bound
 * first while they can raise the best; when filling, all of them once K plays are kept; each
 * answer is kept for the anchor (g_exkey). */
static uint64_t g_search_serial;
typedef struct {
    int sum, raw;
    int16_t s, e, k, bingo;
    uint64_t base;
} SpanCand; /* raw: before eq_adjust */
/* (pruning) The spans of each anchor as its first bounding found them (the bound, the span, its
 * new squares, whether it is a bingo span and its board tiles' hash): the anchor's bounding when
 * it comes on top reads them instead of walking its spans again (g_aspan: anchor i's first entry
 * in g_spool and how many; -1: not kept, the pool was full). */
#define SPOOL (1 << 16)
static SpanCand g_spool[SPOOL];
static int g_nspool, g_spool_rec; /* g_spool_rec: span_bounds records its spans */
static int g_aspan[2 * MAXD * MAXD][2];
/* The spans of `cand` scored word by word (span_exact, cached in g_exv), best bound first, while
 * their bound can still beat `best`: the best of `best` and those at or above the threshold, its
 * span in *bs, *be (span_bounds and pool_bounds). */
/* A span's bound once its plays have been scored from the word map (ex): at most that score, and
 * at most its bound (sum). With a blank on the rack (equity, g_sub_blank) the word map scores only
 * the plays of the rack's letters, which keep every blank: those that take a blank are bounded by
 * the span's score bound (raw) less what their leave, a blank short, lacks of the best term. */
static inline int exact_bound(const Gen *g, int ex, int sum, int raw, int k) {
    if (!g_sub_blank) return ex < sum ? ex : sum;
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
        uint64_t ok = subrack_words(c->k, c->base);
        int ex = ok ? span_exact(g, L, c->s, c->e, c->k, c->base, ok) : NEG_BOUND;
        g_exv[c->s][c->e] = ex;
        g_exst[c->s][c->e] = g_exkey;
        int v = exact_bound(g, ex, c->sum, c->raw, c->k);
        if (v >= g->thr && v > best) {
            best = v;
            *bs = c->s;
            *be = c->e;
        }
    }
    return best;
}

static int span_bounds(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv, int fill, int check, int part,
                       int16_t *bs, int16_t *be, int *bbest, uint64_t *blank_ok) {
    uint64_t usable = g->blanks > 0 ? ~1ull : g->rackmask;
    *bs = *be = -1;
    if (bbest) *bbest = -1;
    if (!(L->mask[a] & usable)) return -1;
    int best = -1, ncand = 0;
    int lm[MAXD], xw[MAXD], eff[MAXD];
    static SpanCand cand[MAXD * MAXD];
    if (fill) {
        for (int s = 0; s <= a; s++) {
            g_leftmax[s] = g_leftopen[s] = NEG_BOUND;
            for (int e = a; e <= n; e++) g_rmax[s][e] = NEG_BOUND;
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
            if (g_spool_rec) {
                if (g_nspool < SPOOL)
                    g_spool[g_nspool++] =
                        (SpanCand){sum, raw, (int16_t)s, (int16_t)e, (int16_t)k, (int16_t)bingo_span, tb};
                else g_spool_rec = -1;
            }
            if (part && part != 1 + bingo_span && !(bbest && bingo_span)) continue;
            if (check && sum >= g->thr && g_sub_on && k <= g->ntiles && k <= SUBK && e - s + 1 <= (int)g_wmaxlen &&
                !(g_sub_blank && bingo_span)) {
                /* the span's plays, word by word (sub-rack words): when they can change the best
                 * bound (or, filling, once K plays are kept), answered once per anchor */
                int ex;
                if (!fill && g_exst[s][e] != g_exkey) {
                    /* bounding: answered below, best bound first, while they can change it */
                    if (ncand < MAXD * MAXD) {
                        cand[ncand++] =
                            (SpanCand){sum, raw, (int16_t)s, (int16_t)e, (int16_t)k, (int16_t)bingo_span, tb};
                        continue;
                    }
                }
                if (g_exst[s][e] == g_exkey) {
                    ex = g_exv[s][e];
                } else if (fill ? g->nheap == g->limit : sum > best) {
                    uint64_t ok = subrack_words(k, tb);
                    ex = ok ? span_exact(g, L, s, e, k, tb, ok) : NEG_BOUND;
                    g_exv[s][e] = ex;
                    g_exst[s][e] = g_exkey;
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
            if (fill) g_rmax[s][e] = sum;
        }
    }
    if (ncand) best = exact_candidates(g, L, cand, ncand, best, bs, be);
    if (fill) {
        int rs = a + 1;
        while (rs < n && L->tiles[rs]) rs++;
        for (int s = lo; s <= a; s++) {
            for (int e = n - 1; e >= a; e--)
                if (g_rmax[s][e + 1] > g_rmax[s][e]) g_rmax[s][e] = g_rmax[s][e + 1];
            g_leftmax[s] = s > lo && g_leftmax[s - 1] > g_rmax[s][a] ? g_leftmax[s - 1] : g_rmax[s][a];
            g_leftopen[s] = s > lo && g_leftopen[s - 1] > g_rmax[s][rs] ? g_leftopen[s - 1] : g_rmax[s][rs];
        }
    }
    return best;
}

/* span_bounds(check, no fill) of anchor i's `part` from its spans kept by its first bounding. */
static int pool_bounds(const Gen *g, const Lane *L, int i, int part, int16_t *bs, int16_t *be) {
    static SpanCand cand[MAXD * MAXD];
    int best = -1, ncand = 0;
    *bs = *be = -1;
    const SpanCand *sp = g_spool + g_aspan[i][0];
    for (int q = 0; q < g_aspan[i][1]; q++) {
        const SpanCand *c = &sp[q];
        int sum = c->sum, k = c->k;
        if ((part && part != 1 + c->bingo) || sum < g->thr) continue;
        if (g_sub_on && k <= g->ntiles && k <= SUBK && c->e - c->s + 1 <= (int)g_wmaxlen &&
            !(g_sub_blank && c->bingo)) {
            if (g_exst[c->s][c->e] != g_exkey) {
                if (ncand < MAXD * MAXD) {
                    cand[ncand++] = *c;
                    continue;
                }
                uint64_t ok = subrack_words(k, c->base);
                g_exv[c->s][c->e] = ok ? span_exact(g, L, c->s, c->e, k, c->base, ok) : NEG_BOUND;
                g_exst[c->s][c->e] = g_exkey;
            }
            sum = exact_bound(g, g_exv[c->s][c->e], sum, c->raw, k);
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

/* (pruning) g_dW, g_dMW, g_dX, g_dK for the squares right of anchor a (see right_ok): each part
 * maximised on its own over the ends, the rack's best values on the best multipliers. */
static void right_tables(const Gen *g, const Lane *L, int n, int a, const int *rv, int nrv) {
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
        g_dW[p] = mW;
        g_dMW[p] = mMW;
        g_dX[p] = mX;
        g_dK[p] = km;
    }
}

/* (pruning) per lane square, the most a rack tile that may stand there can score (before
 * multipliers): letters of the cross-check held on the rack, or any of its letters for a blank. */
static void lane_caps(const Gen *g, int R, int C) {
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
            Lane *L = &g_L[dir][l];
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

/* (pruning) the parts of the anchors searched apart (see search): anchor i's entries 2i and 2i + 1 */
typedef struct {
    int32_t bound;
    uint8_t checked; /* the bound has the bingo spans checked against the lexicon */
    int16_t bs, be;  /* the span [bs, be] that gives the bound (-1: none) */
} APart;
static APart g_parts[4 * MAXD * MAXD];

/* A max-heap of part indices by bound (ties: the lower index first). */
static int g_aheap[4 * MAXD * MAXD], g_naheap;

static int aheap_before(int x, int y) {
    const APart *a = &g_parts[x], *b = &g_parts[y];
    return a->bound > b->bound || (a->bound == b->bound && x < y);
}

static void aheap_push(int x) {
    int i = g_naheap++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!aheap_before(x, g_aheap[p])) break;
        g_aheap[i] = g_aheap[p];
        i = p;
    }
    g_aheap[i] = x;
}

static int aheap_pop(void) {
    int top = g_aheap[0], x = g_aheap[--g_naheap], n = g_naheap, i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && aheap_before(g_aheap[c + 1], g_aheap[c])) c++;
        if (!aheap_before(g_aheap[c], x)) break;
        g_aheap[i] = g_aheap[c];
        i = c;
    }
    if (n) g_aheap[i] = x;
    return top;
}

/* ------------------------------------------------------------------------------------------ */
/* Sorting the recorded plays: score descending, fewer tiles, row, column, across before down,  */
/* then the letters (bytes order, a prefix first) -- best.py's order. A 64-bit key holds all    */
/* but the letters after the third; equal keys are few and compared in full.                    */

static int move_cmp(const Move *a, const Move *b) {
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->placed != b->placed) return a->placed < b->placed ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    if (a->across != b->across) return a->across > b->across ? -1 : 1;
    int n = a->len < b->len ? a->len : b->len;
    int c = memcmp(g_pool + a->off, g_pool + b->off, n);
    if (c) return c;
    return (int)a->len - (int)b->len;
}

static int move_qcmp(const void *a, const void *b) { return move_cmp(a, b); }

/* (equity) equity descending, then the order of move_cmp (gamecore.equity.rank's order). */
static int move_eq_qcmp(const void *x, const void *y) {
    const Move *a = x, *b = y;
    int32_t ea = (int32_t)(uint32_t)a->key, eb = (int32_t)(uint32_t)b->key;
    if (ea != eb) return ea > eb ? -1 : 1;
    return move_cmp(a, b);
}

static void insertion_sort(Move *a, size_t n) {
    for (size_t i = 1; i < n; i++) {
        Move x = a[i];
        size_t j = i;
        while (j > 0 && move_cmp(&a[j - 1], &x) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

/* Sort g_moves[0..n); -1 when out of memory. */
static int sort_moves(size_t n) {
    if (n < 2) return 0;
    int keyed = n >= 256;
    for (size_t i = 0; keyed && i < n; i++) {
        Move *m = &g_moves[i];
        if (m->score < 0 || m->score > 0xFFFFFF || m->placed > 63 || m->row > 63 || m->col > 63) {
            keyed = 0;
            break;
        }
        const uint8_t *w = g_pool + m->off;
        m->key = ((uint64_t)(0xFFFFFF - m->score) << 40) | ((uint64_t)m->placed << 34) | ((uint64_t)m->row << 28) |
                 ((uint64_t)m->col << 22) | ((uint64_t)!m->across << 21) | ((uint64_t)(w[0] & 127) << 14) |
                 ((uint64_t)(w[1] & 127) << 7) | (m->len > 2 ? (uint64_t)(w[2] & 127) : 0);
    }
    if (!keyed) {
        qsort(g_moves, n, sizeof(Move), move_qcmp);
        return 0;
    }
    if (grow((void **)&g_tmp, &g_captmp, n, sizeof(Move)) < 0) return -1;
    Move *src = g_moves, *dst = g_tmp;
    /* the counts of all eight digits in one pass over the plays */
    static size_t counts[8][256];
    memset(counts, 0, sizeof counts);
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
    if (src != g_moves) memcpy(g_moves, src, n * sizeof(Move));
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && g_moves[j].key == g_moves[i].key) j++;
        if (j - i > 1) insertion_sort(g_moves + i, j - i);
        i = j;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Python objects, made only for the plays returned                                             */

/* The ints 0..255 and the empty tuple, held once (CPython keeps one object of each anyway): the
 * plays made take references to them without a call per field. */
static PyObject *g_ints[256], *g_empty;

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

static PyObject *raw_move(const Move *m) { return raw_move_in(m, g_pool); }

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

static void newcache_clear(void) {
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

static PyObject *new_flags(const Move *m) {
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
        PyObject *b = g_G[rr][cc] == 0 ? Py_True : Py_False;
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

static PyObject *word_tuple(const Move *m, PyObject **table) {
    const uint8_t *w = g_pool + m->off;
    uint32_t h = 2166136261u;
    for (int i = 0; i < m->len; i++) h = (h ^ w[i]) * 16777619u;
    uint32_t tag = h | 1u, i = (h ^ (h >> 16)) & (WORDSLOTS - 1);
    for (;; i = (i + 1) & (WORDSLOTS - 1)) {
        uint32_t t = g_wordtag[i];
        if (!t) break;
        if (t == tag) {
            WordEntry *e = &g_wordents[g_wordent[i]];
            if (e->len == m->len && memcmp(g_pool + e->off, w, m->len) == 0) {
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

static PyObject *scored_play(const Move *m, PyTypeObject *type, PyObject **table) {
    PyObject *o = type->tp_alloc(type, 8);
    if (!o) return NULL;
    PyObject *word = word_tuple(m, table), *isnew = new_flags(m);
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

typedef struct {
    PyObject_HEAD
    Move *moves;
    uint8_t *pool;
    size_t n, capm, capp;
} MoveListObject;

/* buffers handed back by a MoveList, for the next generation */
static Move *g_spare_moves;
static uint8_t *g_spare_pool;
static size_t g_spare_capm, g_spare_capp;

static void take_spare_buffers(void) {
    if (!g_moves && g_spare_moves) {
        g_moves = g_spare_moves;
        g_capmoves = g_spare_capm;
        g_spare_moves = NULL;
        g_spare_capm = 0;
    }
    if (!g_pool && g_spare_pool) {
        g_pool = g_spare_pool;
        g_cappool = g_spare_capp;
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

static PyTypeObject MoveListType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._native.MoveList",
    .tp_basicsize = sizeof(MoveListObject),
    .tp_dealloc = (destructor)ml_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The plays of one generation as the generator recorded them; items are RawMoves, made when read.",
    .tp_as_sequence = &ml_as_sequence,
    .tp_as_mapping = &ml_as_mapping,
};

/* A MoveList of the first n plays recorded (it takes the buffers). */
static PyObject *move_list_take(size_t n) {
    MoveListObject *L = PyObject_New(MoveListObject, &MoveListType);
    if (!L) return NULL;
    L->moves = g_moves;
    L->pool = g_pool;
    L->capm = g_capmoves;
    L->capp = g_cappool;
    L->n = n;
    g_moves = NULL;
    g_pool = NULL;
    g_capmoves = g_cappool = 0;
    return (PyObject *)L;
}

/* ------------------------------------------------------------------------------------------ */
/* generate()                                                                                   */

static Gen g_gen;

static void set_lane(Gen *g, int dir, int l, int R, int C) {
    const Lane *L = &g_L[dir][l];
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

/* One square's lane data in both directions (its row's lane for plays across, its column's for
 * plays down): the tile, and on an empty square the anchor flag, the cross-check, cross-score and
 * whether a perpendicular word is formed. `first`: the board is empty (the start square is the
 * only anchor). */
static void square_data(Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*bkg)[MAXD], int R, int C, int first,
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
            L->mask[p] = cross_mask(before, nb, after, na);
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
        if (L->mask[p] && (nl2 || nr2)) L->mask[p] &= lane_mask(left, nl2, right, nr2);
#undef AT
    }
}

/* The anchors of both directions into g_anchors, in generator order (plays across by row, then
 * down by column; within a lane by square); returns how many. */
static int list_anchors(Lane (*lanes)[MAXD], int R, int C) {
    int na = 0;
    for (int dir = 0; dir < 2; dir++) {
        int nl = dir == 0 ? R : C;
        for (int l = 0; l < nl; l++) {
            for (uint64_t b = lanes[dir][l].abits; b; b &= b - 1)
                g_anchors[na++] = (Anchor){(uint8_t)dir, (uint8_t)l, (uint8_t)__builtin_ctzll(b), 0};
        }
    }
    return na;
}

/* Lanes (premiums and square data) of both directions for a whole grid. */
static void compute_lanes(Lane (*lanes)[MAXD], uint8_t (*grid)[MAXD], uint8_t (*lmg)[MAXD], uint8_t (*wmg)[MAXD],
                          uint8_t (*bkg)[MAXD], int R, int C, int first, int srow, int scol, const int *values,
                          const int *bvalues) {
    for (int r = 0; r < R; r++) lanes[0][r].abits = 0; /* (the lanes may hold a larger board's) */
    for (int c = 0; c < C; c++) lanes[1][c].abits = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            lanes[0][r].lm[c] = lanes[1][c].lm[r] = lmg[r][c];
            lanes[0][r].wm[c] = lanes[1][c].wm[r] = wmg[r][c];
            square_data(lanes, grid, bkg, R, C, first, srow, scol, values, bvalues, r, c);
        }
}

/* Whether two lanes hold the same squares (tiles none, cross-checks, premiums, anchors): a walk
 * from the same square of each finds the same plays in the same order. */
static int lanes_mirror(const Lane *a, const Lane *b, int n) {
    for (int p = 0; p < n; p++)
        if (a->tiles[p] || b->tiles[p] || a->mask[p] != b->mask[p] || a->hasx[p] != b->hasx[p] ||
            a->xscore[p] != b->xscore[p] || a->anchor[p] != b->anchor[p] || a->lm[p] != b->lm[p] ||
            a->wm[p] != b->wm[p])
            return 0;
    return 1;
}

/* Whether every bound stays far inside an int: per lane, (every square's best letter value x its
 * letter premium) x (the product of its word premiums) x (1 + the largest word premium), plus
 * the bingo bonus, in floating point. Absurd premium layouts search without pruning instead. */
static int bounds_fit_in(const Lane (*lanes)[MAXD], const int *values, const int *bvalues, int bingo, int R, int C,
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

static int bounds_fit(const Gen *g, int R, int C) {
    return bounds_fit_in(g_L, g->values, g->bvalues, g->bingo, R, C, 0);
}

/* The search over the anchors in g_anchors (lanes g_L, grid g_G) for the rack in g, and the plays
 * as a list: RawMoves or play_type tuples; sorted (best first) and cut at limit, or in generator
 * order. NULL with an exception on failure. */
static PyObject *search(Gen *g, int R, int C, int nanchors, int limit, int sorted_out, int prune, int negative,
                        PyObject **table, PyTypeObject *play_type, int lazy, int fits, int empty_board) {
    PyObject *out = NULL;
    int heap_stack[64];
    if (limit >= 0) sorted_out = 1;
    /* an index made for another graph is not used (its words are not this lexicon's) */
    if (g_bidx && g_wtab && (g_wnodes != g_nnodes || g_wroots != (g_kwg[0] | (uint64_t)g_kwg[1] << 32)))
        g_bidx = NULL, g_wtab = NULL;
    /* The first move on a board symmetric about the start square's diagonal (two anchors, the
     * start square's row and column lanes alike): the plays down are the plays across turned
     * over, found by the same walk in the same order, so only the row is searched and each play
     * recorded is copied down afterwards (every score twice: the K-th best of all is the
     * ceil(K/2)-th best across). */
    int mirror = !g->eq_on && nanchors == 2 && g_anchors[0].dir == 0 && g_anchors[1].dir == 1 && R == C &&
                 lanes_mirror(&g_L[0][g_anchors[0].lane], &g_L[1][g_anchors[1].lane], C);
    int mirror_lane = mirror ? g_anchors[1].lane : 0;
    if (mirror) nanchors = 1;
    int keep = mirror && limit > 0 ? (limit + 1) / 2 : limit;
    /* keep only the best `limit` while generating (a heap of their scores) */
    g->limit = keep > 0 && keep <= (1 << 20) ? keep : 0;
    g->heap = heap_stack;
    if (g->limit > 64) {
        g->heap = malloc(sizeof(int) * g->limit);
        if (!g->heap) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    take_spare_buffers();
    g_sub_blank = 0;
    g_nmoves = g_npool = 0;
    g_st_anchors = nanchors;
    g_st_searched = g_st_recorded = g_st_calls = 0;
    uint32_t groot = N_ARC(g_kwg[1]);
    prune = prune && g->limit > 0 && !negative && g->bingo >= 0 && (fits || bounds_fit(g, R, C));
    g->thr = INT32_MIN;
    g->part = g->min_placed = 0;
    g->max_placed = INT32_MAX;
    g->blank_ok = ~0ull;
    int rv[MAXD], nrv = 0;
    g_nsteps = 0;
    if (empty_board && sorted_out) {
        /* the first move, sorted: every word of the rack once (first_words) */
        uint32_t droot = N_ARC(g_kwg[0]);
        uint8_t w[MAXD];
        int by_map = 0, ntiles = 0;
        if (prune) {
            nrv = rack_values(g, rv);
            g->thr = 0; /* no play scores below 0 when pruning */
            for (int t = 1; t <= MAX_TILE; t++) ntiles += g->rack[t] > 0 ? g->rack[t] : 0;
            by_map = g_bidx && g_wtab && g->blanks == 0 && ntiles <= (int)g_wmaxlen && list_subracks(g);
        }
        for (int i = 0; i < nanchors; i++) {
            const Anchor *A = &g_anchors[i];
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            g_calls = 0;
            /* the best K: words that cannot make the cut are not placed */
            if (prune) first_tables(g, rv, nrv);
            g->prune_in = prune;
            if (by_map) first_words_map(g, ntiles);
            else first_words(g, droot, w);
            g->prune_in = 0;
            g_st_searched++;
            g_st_calls += g_calls;
            if (g->error) {
                PyErr_NoMemory();
                goto done;
            }
        }
    } else if (prune) {
        /* best bound first; an anchor on top has its bingo spans checked (bingo_letters) and goes
         * back, then gets the GADDAG search, pruned inside by its span bounds (g_rmax, g_leftmax).
         * Stop when the best bound left is below the K-th best score recorded. */
        nrv = rack_values(g, rv);
        g->ntiles = g->blanks;
        for (int t = 1; t <= MAX_TILE; t++) g->ntiles += g->rack[t] > 0 ? g->rack[t] : 0;
        lane_caps(g, R, C);
        g_nbcache = 0;
        g_nscache = 0;
        g_scache_serial++; /* (never 0: the stamps start at 0) */
        /* (equity, a blank on the rack: the plays of its letters only, which keep every blank, are
         * scored from the word map; those that take a blank are bounded apart, see exact_bound) */
        g_sub_on = g_bidx && g_wtab && (g->blanks == 0 || g->eq_on) && list_subracks(g);
        g_sub_blank = g_sub_on && g->blanks > 0;
        g_search_serial++;
        g_nspool = 0;
        g_naheap = 0;
        /* A rack that can make a bingo splits each anchor in two (heap entry 2i + p): its plays of
         * fewer than bingo_tiles tiles (p = 0, part 1) and its bingos (p = 1, part 2), each bounded
         * and searched on its own. A bingo span's high bound then no longer sends the anchor's
         * short plays to be searched early, while the threshold is still low, and the bingo search
         * takes a blank only as the letters the bingo index allows. Without an index the two walks
         * would go over the same left parts for little: one search then. */
        int split = g_bidx && g->bingo > 0 && g->ntiles >= g->bingo_tiles;
        /* no play scores below 0 (no negative values when pruning): a bound below it, the NEG_BOUND
         * of a span that cannot hold a play, prunes from the start */
        g->thr = 0;
        for (int i = 0; i < nanchors; i++) {
            Anchor *A = &g_anchors[i];
            A->searched = 0;
            int n = A->dir == 0 ? C : R, bb = -1;
            APart *P0 = &g_parts[2 * i], *P1 = &g_parts[2 * i + 1];
            g_aspan[i][0] = g_nspool;
            g_spool_rec = 1;
            P0->bound = span_bounds(g, &g_L[A->dir][A->lane], n, A->pos, rv, nrv, 0, 0, split, &P0->bs, &P0->be,
                                    split ? &bb : NULL, NULL);
            g_aspan[i][1] = g_spool_rec > 0 ? g_nspool - g_aspan[i][0] : -1;
            g_spool_rec = 0;
            /* only bingo spans are checked against the index: nothing to check without one */
            P0->checked = (split && !g_sub_on) || g_bidx == NULL;
            if (P0->bound >= 0) aheap_push(2 * i);
            if (split) {
                P1->bound = bb;
                P1->bs = P1->be = -1;
                P1->checked = g_bidx == NULL;
                if (bb >= 0) aheap_push(2 * i + 1);
            }
        }
        while (g_naheap) {
            int x = g_aheap[0];
            APart *P = &g_parts[x];
            Anchor *A = &g_anchors[x >> 1];
            int part = split ? 1 + (x & 1) : 0;
            if (g->nheap == g->limit && P->bound < g->thr) break;
            aheap_pop();
            int n = A->dir == 0 ? C : R;
            if (!P->checked) {
                P->checked = 1;
                g_exkey = g_search_serial << 16 | (uint64_t)(x >> 1);
                if (g_aspan[x >> 1][1] >= 0)
                    P->bound = pool_bounds(g, &g_L[A->dir][A->lane], x >> 1, part, &P->bs, &P->be);
                else
                    P->bound = span_bounds(g, &g_L[A->dir][A->lane], n, A->pos, rv, nrv, 0, 1, part, &P->bs, &P->be,
                                           NULL, NULL);
                if (P->bound >= 0) aheap_push(x);
                continue;
            }
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            g_calls = 0;
            g_cur_best = -1;
            /* the bingos' blanks: only the letters some word of the spans left takes */
            uint64_t blank_ok = 0;
            g_exkey = g_search_serial << 16 | (uint64_t)(x >> 1);
            span_bounds(g, &g_L[A->dir][A->lane], n, A->pos, rv, nrv, 1, 1, part, &P->bs, &P->be, NULL,
                        part == 2 ? &blank_ok : NULL);
            g->blank_ok = part == 2 ? blank_ok : ~0ull;
            right_tables(g, &g_L[A->dir][A->lane], n, A->pos, rv, nrv);
            left_order(g);
            g->prune_in = 1;
            g->part = part;
            g->min_placed = part == 2 ? g->bingo_tiles : 0;
            g->max_placed = part == 1 ? g->bingo_tiles - 1 : INT32_MAX;
            walk_anchor(g, A->pos, groot);
            g->prune_in = g->part = g->min_placed = 0;
            g->max_placed = INT32_MAX;
            g->blank_ok = ~0ull;
            g_st_searched += !A->searched;
            A->searched = 1;
            g_st_calls += g_calls;
            if (g_nsteps < 2 * MAXD * MAXD) {
                Step *st = &g_steps[g_nsteps++];
                *st = (Step){A->dir, A->lane, A->pos, (uint8_t)part, P->bs, P->be, P->bound, g_cur_best, g_calls};
            }
            if (g->error) {
                PyErr_NoMemory();
                goto done;
            }
        }
    } else {
        for (int i = 0; i < nanchors; i++) {
            const Anchor *A = &g_anchors[i];
            set_lane(g, A->dir, A->lane, R, C);
            g->anchor_pos = A->pos;
            g_calls = 0;
            walk_anchor(g, A->pos, groot);
            g_st_searched++;
            g_st_calls += g_calls;
            if (g->error) {
                PyErr_NoMemory();
                goto done;
            }
        }
    }
    g_st_recorded = (long)(mirror ? 2 * g_nmoves : g_nmoves);
    if (g->limit && g->nheap == g->limit) {
        /* a play below the K-th best score recorded is in no top K: drop those (most of the plays
         * recorded on the way up to the final threshold) before they are copied and sorted */
        size_t k = 0;
        for (size_t i = 0; i < g_nmoves; i++)
            if ((g->eq_on ? (int32_t)(uint32_t)g_moves[i].key : g_moves[i].score) >= g->heap[0])
                g_moves[k++] = g_moves[i];
        g_nmoves = k;
    }
    if (mirror) {
        size_t n0 = g_nmoves;
        if (grow((void **)&g_moves, &g_capmoves, 2 * n0, sizeof(Move)) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        for (size_t i = 0; i < n0; i++) {
            Move m = g_moves[i];
            m.across = 0;
            m.row = g_moves[i].col;
            m.col = (uint8_t)mirror_lane;
            g_moves[n0 + i] = m;
        }
        g_nmoves = 2 * n0;
    }
    size_t nout = g_nmoves;
    if (sorted_out && g->eq_on) {
        qsort(g_moves, g_nmoves, sizeof(Move), move_eq_qcmp);
        if (limit >= 0 && (size_t)limit < nout) nout = (size_t)limit;
    } else if (sorted_out) {
        if (sort_moves(g_nmoves) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        if (limit >= 0 && (size_t)limit < nout) nout = (size_t)limit;
    }
    if (lazy && !play_type) {
        out = move_list_take(nout);
        goto done;
    }
    out = PyList_New((Py_ssize_t)nout);
    if (!out) goto done;
    /* no cyclic collection while the plays are made: tens of thousands of new tuples would set it
     * off again and again, each pass walking every tuple made so far (none of them can be garbage) */
    int gc_was = PyGC_Disable();
    for (size_t i = 0; i < nout; i++) {
        PyObject *o = play_type ? scored_play(&g_moves[i], play_type, table) : raw_move(&g_moves[i]);
        if (!o) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, (Py_ssize_t)i, o);
    }
    if (gc_was) PyGC_Enable();
    if (play_type) newcache_clear();
done:
    if (g->heap != heap_stack) free(g->heap);
    g->heap = NULL;
    return out;
}

/* The tile table and play type arguments: NULL table when none was given; -1 on a bad one. */
static int play_args(PyObject *table_o, PyObject *type_o, PyObject **table_seq, PyObject ***table,
                     PyTypeObject **play_type) {
    *table_seq = NULL;
    *table = NULL;
    *play_type = NULL;
    if (table_o == Py_None) return 0;
    *table_seq = PySequence_Fast(table_o, "tiles must be a sequence");
    if (!*table_seq) return -1;
    if (PySequence_Fast_GET_SIZE(*table_seq) != 128) {
        PyErr_SetString(PyExc_ValueError, "tiles: 128 entries expected (letter byte -> tile)");
        return -1;
    }
    if (!PyType_Check(type_o) || !PyType_IsSubtype((PyTypeObject *)type_o, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "play_type must be a tuple subclass");
        return -1;
    }
    *table = PySequence_Fast_ITEMS(*table_seq);
    *play_type = (PyTypeObject *)type_o;
    return 0;
}

/* The bingo index argument into g_bidx (held in *bb); -1 on a bad one. */
static int bingo_arg(PyObject *bidx_o, Py_buffer *bb) {
    g_bidx = NULL;
    g_wtab = NULL;
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
    g_bidx = bi;
    g_bidx_mask = bi[1] - 1;
    g_bidx_maxt = bi[0] & 0xFF;
    if (words) {
        g_wtab = bi + 2 + bi[1] + 5;
        g_wnodes = bi[2 + bi[1] + 3];
        g_wroots = bi[2 + bi[1] + 4];
        g_wmask = wcap - 1;
        g_woff = (const uint32_t *)(g_wtab + wcap);
        g_wpool = (const uint8_t *)(g_wtab + wcap + (wcap + 1) / 2);
        g_wpoolsize = wpool;
        g_wmaxlen = wmax;
    }
    return 0;
}

/* The rack into g (counts, blanks, mask); the values must be set. */
static int rack_arg(Gen *g, PyObject *rack_o, int blanks) {
    if (read_ints(rack_o, g->rack, MAX_TILE + 1, "rack_counts") < 0) return -1;
    g->rack[0] = 0;
    g->blanks = blanks < 0 ? 0 : blanks;
    g->rackmask = 0;
    for (int t = 1; t <= MAX_TILE; t++)
        if (g->rack[t] > 0) g->rackmask |= 1ull << t;
    return 0;
}

static PyObject *py_generate(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer kb;
    PyObject *grid_o, *rack_o, *lm_o, *wm_o, *val_o;
    int blanks, srow, scol, bingo, first, bingo_tiles;
    PyObject *blocked_o = Py_None, *table_o = Py_None, *type_o = Py_None, *bidx_o = Py_None;
    Py_buffer bb = {0};
    int wide = -1, blank_letter_value = 0, limit = -1, sorted_out = 0, prune = 0;
    if (!PyArg_ParseTuple(args, "y*OOiOOiiOipi|OipippOOO", &kb, &grid_o, &rack_o, &blanks, &lm_o, &wm_o, &srow, &scol,
                          &val_o, &bingo, &first, &bingo_tiles, &blocked_o, &wide, &blank_letter_value, &limit,
                          &sorted_out, &prune, &table_o, &type_o, &bidx_o))
        return NULL;
    static uint8_t lmg[MAXD][MAXD], wmg[MAXD][MAXD], bkg[MAXD][MAXD];
    Gen *g = &g_gen;
    PyObject *out = NULL, *table_seq = NULL;
    PyObject **table = NULL;
    PyTypeObject *play_type = NULL;
    if (g_busy) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_RuntimeError, "generate() called again while it runs");
        return NULL;
    }
    g_busy = 1;
    memset(g, 0, sizeof *g);
    g_L = g_lanes;
    g_G = g_grid;
    if (bingo_arg(bidx_o, &bb) < 0) goto fail;
    size_t nnodes = (size_t)kb.len / 4;
    /* our writer's rule unless told: Node24 only beyond 2^22 nodes */
    g_wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    g_nnodes = nnodes;
    g_kwg = (const uint32_t *)kb.buf;
    if (nnodes < 2) {
        PyErr_SetString(PyExc_ValueError, "KWG too small");
        goto fail;
    }
    int R = -1, C = -1;
    if (read_grid(grid_o, &R, &C, g_grid, 127, "grid") < 0) goto fail;
    if (read_grid(lm_o, &R, &C, lmg, 255, "letter multipliers") < 0) goto fail;
    if (read_grid(wm_o, &R, &C, wmg, 255, "word multipliers") < 0) goto fail;
    memset(bkg, 0, sizeof bkg);
    if (blocked_o != Py_None && read_grid(blocked_o, &R, &C, bkg, 1, "blocked") < 0) goto fail;
    if (N_ARC(g_kwg[0]) >= nnodes || N_ARC(g_kwg[1]) >= nnodes) {
        PyErr_SetString(PyExc_ValueError, "not a KWG");
        goto fail;
    }
    int tiles = 0;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++)
            if (g_grid[r][c]) {
                if ((g_grid[r][c] & 63) == 0) {
                    PyErr_Format(PyExc_ValueError, "grid: bad value %d", g_grid[r][c]);
                    goto fail;
                }
                tiles++;
            }
    if (read_ints(val_o, g->values, MAX_TILE + 1, "tile_values") < 0) goto fail;
    if (rack_arg(g, rack_o, blanks) < 0) goto fail;
    if (play_args(table_o, type_o, &table_seq, &table, &play_type) < 0) goto fail;
    if (table) sorted_out = 1;
    int negative = 0;
    for (int t = 0; t <= MAX_TILE; t++) {
        g->bvalues[t] = blank_letter_value ? g->values[t] : 0;
        if (g->values[t] < 0) negative = 1;
    }
    g->bingo = bingo;
    g->bingo_tiles = bingo_tiles;
    if (first && (srow < 0 || srow >= R || scol < 0 || scol >= C)) {
        PyErr_SetString(PyExc_ValueError, "start square outside the board");
        goto fail;
    }
    compute_lanes(g_lanes, g_grid, lmg, wmg, bkg, R, C, first, srow, scol, g->values, g->bvalues);
    int nanchors = list_anchors(g_lanes, R, C);
    out = search(g, R, C, nanchors, limit, sorted_out, prune, negative, table, play_type, 0, 0, first && !tiles);
fail:
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    g_bidx = NULL;
    PyBuffer_Release(&kb);
    g_busy = 0;
    return out;
}

/* ------------------------------------------------------------------------------------------ */
/* Position: a board kept between calls (MAGPIE keeps its cross-sets on the board the same way): */
/* the grid and both directions' lanes with their cross-checks, updated per play for the squares */
/* the play can change; generate() then reads only the rack.                                      */

typedef struct {
    PyObject_HEAD
    Py_buffer kb;
    int has_kb;
    int wide, R, C, srow, scol, bingo, bingo_tiles, tiles_on_board, negative;
    int fits; /* the bounds stay inside an int whatever the board (bounds_fit_in) */
    int values[MAX_TILE + 1], bvalues[MAX_TILE + 1];
    uint8_t grid[MAXD][MAXD], bkg[MAXD][MAXD];
    Lane lanes[2][MAXD];
} PositionObject;

static void pos_use_kwg(PositionObject *P) {
    g_wide = P->wide;
    g_nnodes = (size_t)P->kb.len / 4;
    g_kwg = (const uint32_t *)P->kb.buf;
}

static void pos_dealloc(PositionObject *P) {
    if (P->has_kb) PyBuffer_Release(&P->kb);
    Py_TYPE(P)->tp_free((PyObject *)P);
}

static int pos_init(PositionObject *P, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {
        "kwg",         "letter_mult", "word_mult", "start_row",          "start_col", "tile_values", "bingo_bonus",
        "bingo_tiles", "blocked",     "node24",    "blank_letter_value", "grid",      NULL};
    PyObject *lm_o, *wm_o, *val_o, *blocked_o = Py_None, *grid_o = Py_None;
    int wide = -1, blv = 0;
    Py_buffer kb;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*OOiiOii|OipO", kwlist, &kb, &lm_o, &wm_o, &P->srow, &P->scol, &val_o,
                                     &P->bingo, &P->bingo_tiles, &blocked_o, &wide, &blv, &grid_o))
        return -1;
    if (g_busy) {
        PyBuffer_Release(&kb);
        PyErr_SetString(PyExc_RuntimeError, "Position() made while generate() runs");
        return -1;
    }
    if (P->has_kb) PyBuffer_Release(&P->kb);
    P->kb = kb;
    P->has_kb = 1;
    size_t nnodes = (size_t)kb.len / 4;
    P->wide = wide >= 0 ? wide : nnodes > ARC_MASK + 1;
    g_wide = P->wide;
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
    pos_use_kwg(P);
    compute_lanes(P->lanes, P->grid, lmg, wmg, P->bkg, R, C, P->tiles_on_board == 0, P->srow, P->scol, P->values,
                  P->bvalues);
    P->fits = bounds_fit_in(P->lanes, P->values, P->bvalues, P->bingo, R, C, 1);
    return 0;
}

/* The squares already recomputed in this place() or sync() (stamped with g_touch_serial): the new
 * tiles of a play share the empty squares at the ends of its line, each recomputed once (on the
 * final grid, as every time). */
static uint32_t g_touched[MAXD][MAXD], g_touch_serial;

static void pos_touch(PositionObject *P, int r, int c) {
    if (r >= 0 && r < P->R && c >= 0 && c < P->C && g_touched[r][c] != g_touch_serial) {
        g_touched[r][c] = g_touch_serial;
        square_data(P->lanes, P->grid, P->bkg, P->R, P->C, 0, P->srow, P->scol, P->values, P->bvalues, r, c);
    }
}

static void touch_start(void) {
    if (++g_touch_serial == 0) { /* (wrapped: stamps of 2^32 calls ago would match) */
        memset(g_touched, 0, sizeof g_touched);
        g_touch_serial = 1;
    }
}

/* The lane data around new tile (r, c): its square and the empty squares at both ends of its
 * column's and row's lines of tiles. */
static void pos_update_around(PositionObject *P, int r, int c) {
    pos_touch(P, r, c);
    int q = r;
    while (q >= 0 && P->grid[q][c]) q--;
    pos_touch(P, q, c);
    q = r;
    while (q < P->R && P->grid[q][c]) q++;
    pos_touch(P, q, c);
    q = c;
    while (q >= 0 && P->grid[r][q]) q--;
    pos_touch(P, r, q);
    q = c;
    while (q < P->C && P->grid[r][q]) q++;
    pos_touch(P, r, q);
}

/* place(row, col, across, letters): the play's whole main word (tile numbers, +64 for a blank;
 * board tiles included, as RawMove.letters) onto the board; the squares it can change get their
 * lane data again: the new tiles, and the empty squares at both ends of the lines of tiles through
 * each new tile (cross-checks, cross-scores, anchors). */
static PyObject *pos_place(PositionObject *P, PyObject *args) {
    int row, col, across;
    Py_buffer w;
    if (!PyArg_ParseTuple(args, "iipy*", &row, &col, &across, &w)) return NULL;
    if (g_busy) {
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
    int was_empty = P->tiles_on_board == 0;
    uint8_t placed[MAXD];
    int np = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int r = row + dr * (int)i, c = col + dc * (int)i;
        if (!P->grid[r][c]) {
            P->grid[r][c] = t[i];
            placed[np++] = (uint8_t)i;
            P->tiles_on_board++;
        }
    }
    PyBuffer_Release(&w);
    pos_use_kwg(P);
    if (was_empty && np) {
        /* the first play: the start square stops being the only anchor */
        touch_start();
        for (int r = 0; r < P->R; r++)
            for (int c = 0; c < P->C; c++) pos_touch(P, r, c);
        return PyLong_FromLong(np);
    }
    touch_start();
    for (int k = 0; k < np; k++) pos_update_around(P, row + dr * placed[k], col + dc * placed[k]);
    return PyLong_FromLong(np);
}

/* sync(grid): make the board this grid (bytes of rows*cols codes, row by row, or rows of ints):
 * tiles added since are placed as by place(); any tile taken off or changed recomputes the whole
 * board. Returns the number of tiles added (-1 after a whole recomputation). */
static PyObject *pos_sync(PositionObject *P, PyObject *arg) {
    if (g_busy) {
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
        for (int r = 0; r < R; r++) memcpy(ng[r], q + r * C, C);
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
    pos_use_kwg(P);
    int was_empty = P->tiles_on_board == 0;
    if (removed || (was_empty && added)) {
        memcpy(P->grid, ng, sizeof ng);
        P->tiles_on_board = tiles;
        for (int r = 0; r < R; r++)
            for (int c = 0; c < C; c++)
                square_data(P->lanes, P->grid, P->bkg, R, C, tiles == 0, P->srow, P->scol, P->values, P->bvalues, r, c);
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
    touch_start();
    for (int k = 0; k < nn; k++) pos_update_around(P, news[k] / MAXD, news[k] % MAXD);
    P->tiles_on_board = tiles;
    return PyLong_FromLong(added);
}

static PyObject *pos_generate(PositionObject *P, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"rack_counts", "blanks",    "limit",       "sorted", "prune",
                             "tiles",       "play_type", "bingo_index", "lazy",   NULL};
    PyObject *rack_o, *table_o = Py_None, *type_o = Py_None, *bidx_o = Py_None;
    int blanks, limit = -1, sorted_out = 0, prune = 0, lazy = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|ippOOOp", kwlist, &rack_o, &blanks, &limit, &sorted_out, &prune,
                                     &table_o, &type_o, &bidx_o, &lazy))
        return NULL;
    if (g_busy) {
        PyErr_SetString(PyExc_RuntimeError, "generate() called again while it runs");
        return NULL;
    }
    g_busy = 1;
    Gen *g = &g_gen;
    memset(g, 0, sizeof *g);
    PyObject *out = NULL, *table_seq = NULL;
    PyObject **table = NULL;
    PyTypeObject *play_type = NULL;
    Py_buffer bb = {0};
    if (bingo_arg(bidx_o, &bb) < 0) goto done;
    memcpy(g->values, P->values, sizeof g->values);
    memcpy(g->bvalues, P->bvalues, sizeof g->bvalues);
    if (rack_arg(g, rack_o, blanks) < 0) goto done;
    if (play_args(table_o, type_o, &table_seq, &table, &play_type) < 0) goto done;
    if (table) sorted_out = 1;
    g->bingo = P->bingo;
    g->bingo_tiles = P->bingo_tiles;
    pos_use_kwg(P);
    g_L = P->lanes;
    g_G = P->grid;
    int nanchors = list_anchors(P->lanes, P->R, P->C);
    out = search(g, P->R, P->C, nanchors, limit, sorted_out, prune, P->negative, table, play_type, lazy, P->fits,
                 P->tiles_on_board == 0);
done:
    g_L = g_lanes;
    g_G = g_grid;
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    g_bidx = NULL;
    g_busy = 0;
    return out;
}

#include "_leave.h"

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
static PyObject *pos_equity(PositionObject *P, PyObject *args, PyObject *kw) {
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
    if (g_busy) {
        PyBuffer_Release(&kt);
        PyErr_SetString(PyExc_RuntimeError, "equity() called while generate() runs");
        return NULL;
    }
    const LeavesObject *LV = (const LeavesObject *)leaves_o;
    g_busy = 1;
    Gen *g = &g_gen;
    memset(g, 0, sizeof *g);
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
    if (bingo_arg(bidx_o, &bb) < 0) goto done;
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
    pos_use_kwg(P);
    g_L = P->lanes;
    g_G = P->grid;
    int nanchors = list_anchors(P->lanes, P->R, P->C);
    plays = search(g, P->R, P->C, nanchors, limit, 1, prune, P->negative, table, play_type, 0, P->fits, opening);
    if (!plays) goto done;
    Py_ssize_t np = PyList_GET_SIZE(plays);
    if (!(eqs = PyList_New(np))) goto done;
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *v = PyLong_FromLong((int32_t)(uint32_t)g_moves[i].key);
        if (!v) goto done;
        PyList_SET_ITEM(eqs, i, v);
    }
    if (nex > 1) qsort(ex, (size_t)nex, sizeof(Exch), exch_cmp);
    if (nex > nexch) nex = nexch;
    if (!(exl = PyList_New(nex))) goto done;
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
    g_L = g_lanes;
    g_G = g_grid;
    Py_XDECREF(table_seq);
    if (bb.obj) PyBuffer_Release(&bb);
    g_bidx = NULL;
    PyBuffer_Release(&kt);
    g_busy = 0;
    return out;
}

/* copy_from(other): make this board the other Position's (grid, lanes with their cross-checks, the
 * layout and values), both made on the same KWG and board size: a search that tries plays one after
 * another copies the parent's board in place of taking tiles off (the rows and columns in use only). */
static PyObject *pos_copy_from(PositionObject *P, PyObject *arg) {
    if (!PyObject_TypeCheck(arg, Py_TYPE(P))) {
        PyErr_SetString(PyExc_TypeError, "copy_from() takes a Position");
        return NULL;
    }
    PositionObject *O = (PositionObject *)arg;
    if (g_busy) {
        PyErr_SetString(PyExc_RuntimeError, "copy_from() called while generate() runs");
        return NULL;
    }
    if (O->R != P->R || O->C != P->C || O->kb.buf != P->kb.buf || O->wide != P->wide) {
        PyErr_SetString(PyExc_ValueError, "copy_from(): the Positions differ in board size or lexicon");
        return NULL;
    }
    if (O == P) Py_RETURN_NONE;
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

static PyTypeObject PositionType = {
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

static PyObject *py_last_stats(PyObject *Py_UNUSED(self), PyObject *args) {
    int detail = 0;
    if (!PyArg_ParseTuple(args, "|p", &detail)) return NULL;
    if (!detail) return Py_BuildValue("llll", g_st_anchors, g_st_searched, g_st_recorded, g_st_calls);
    PyObject *l = PyList_New(0);
    for (long i = 0; l && i < g_nsteps; i++) {
        const Step *A = &g_steps[i];
        PyObject *t = Py_BuildValue("iiiiiiil", A->dir, A->lane, A->pos, A->s, A->e, A->bound, A->best, A->work);
        if (!t || PyList_Append(l, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(t);
    }
    return l;
}

__attribute__((optimize("O3"))) static PyObject *py_check_kwg(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer kb;
    int wide = 0;
    if (!PyArg_ParseTuple(args, "y*|p", &kb, &wide)) return NULL;
    g_wide = wide;
    const uint32_t *k = kb.buf;
    size_t n = (size_t)kb.len / 4;
    const char *err = NULL;
    if (kb.len % 4) err = "size is not a multiple of 4 bytes";
    else if (n < 2) err = "fewer than 2 nodes";
    else if (!N_END(k[n - 1])) err = "the last node does not end a sibling list";
    else {
        /* max-reductions (vectorised by the compiler): a 30 MB lexicon checks in a few ms */
        uint32_t max_arc = 0, max_tile = 0;
        if (wide) {
            for (size_t i = 0; i < n; i++) max_arc = k[i] >> 8 > max_arc ? k[i] >> 8 : max_arc;
        } else {
            for (size_t i = 0; i < n; i++) {
                uint32_t a = k[i] & ARC_MASK, t = k[i] >> 24;
                max_arc = a > max_arc ? a : max_arc;
                max_tile = t > max_tile ? t : max_tile;
            }
        }
        if (max_arc >= n) err = "an arc points past the end";
        else if (max_tile > MAX_TILE) err = "a tile number above 63";
    }
    PyBuffer_Release(&kb);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Words (a list of str) as tile numbers separated by zero bytes, through a table of 65,536 bytes
 * (code point -> tile, 0xFF = not a letter). Raises IndexError(i) for the first bad word i. */
static PyObject *py_encode_words(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *list;
    Py_buffer tb;
    if (!PyArg_ParseTuple(args, "Oy*", &list, &tb)) return NULL;
    PyObject *result = NULL, *seq = NULL;
    if (tb.len != 65536) {
        PyErr_SetString(PyExc_ValueError, "table must have 65536 bytes");
        goto out;
    }
    const uint8_t *table = tb.buf;
    seq = PySequence_Fast(list, "words must be a sequence");
    if (!seq) goto out;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), total = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_Check(items[i])) {
            PyErr_Format(PyExc_TypeError, "word %zd is not a str", i + 1);
            goto out;
        }
        total += PyUnicode_GET_LENGTH(items[i]) + 1;
    }
    result = PyBytes_FromStringAndSize(NULL, total ? total - 1 : 0);
    if (!result) goto out;
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(result);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *w = items[i];
        int kind = PyUnicode_KIND(w);
        const void *data = PyUnicode_DATA(w);
        Py_ssize_t len = PyUnicode_GET_LENGTH(w);
        for (Py_ssize_t j = 0; j < len; j++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, j);
            uint8_t t = ch < 65536 ? table[ch] : 0xFF;
            if (t == 0xFF) {
                Py_CLEAR(result);
                PyErr_SetObject(PyExc_IndexError, PyLong_FromSsize_t(i));
                goto out;
            }
            o[at++] = t;
        }
        if (i + 1 < n) o[at++] = 0;
    }
out:
    Py_XDECREF(seq);
    PyBuffer_Release(&tb);
    return result;
}

static PyMethodDef methods[] = {
    {"encode_words", py_encode_words, METH_VARARGS,
     "encode_words(words: list[str], table: bytes) -> bytes (tile numbers, 0 between words)"},
    {"check_kwg", py_check_kwg, METH_VARARGS,
     "check_kwg(kwg) -> None; ValueError when arcs point outside the array (so traversal is safe)."},
    {"build_kwg", py_build_kwg, METH_VARARGS,
     "build_kwg(words: bytes, node24=False) -> bytes\n\nWords as tile numbers (1..63), separated by "
     "zero bytes, in any order (duplicates allowed). Returns the KWG (DAWG + GADDAG), little-endian "
     "32-bit nodes; Node24 layout when asked or when there are more than 2^22 nodes."},
    {"generate", py_generate, METH_VARARGS,
     "generate(kwg, grid, rack_counts, blanks, letter_mult, word_mult, start_row, start_col, "
     "tile_values, bingo_bonus, first_move, bingo_tiles, blocked=None, node24=-1, "
     "blank_letter_value=False, limit=-1, sorted=False, prune=False, tiles=None, play_type=None, "
     "bingo_index=None) "
     "-> list[RawMove] (generator order), or sorted best first (sorted, limit >= 0 or tiles); "
     "with tiles (128 objects, letter byte -> tile) and play_type: ScoredPlay-shaped tuples"},
    {"bingo_index", py_bingo_index, METH_VARARGS,
     "bingo_index(kwg, node24=-1, min_len=7) -> bytes: multiset hashes of the words of at least "
     "min_len letters (for generate(..., bingo_index=...): bingo spans no word fits are not searched)"},
    {"last_stats", py_last_stats, METH_VARARGS,
     "last_stats(detail=False) -> (anchors, anchors searched, plays recorded, search calls) of the last "
     "generate(); detail: per anchor searched with pruning (dir, lane, pos, best span s, e, bound, best score found, "
     "calls)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_native", "Compiled KWG builder and move generator.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    for (int i = 0; i < 256; i++)
        if (!(g_ints[i] = PyLong_FromLong(i))) return NULL;
    if (!(g_empty = PyTuple_New(0))) return NULL;
    RawMoveType = PyStructSequence_NewType(&rawmove_desc);
    if (!RawMoveType) return NULL;
    Py_INCREF(RawMoveType);
    PyModule_AddObject(m, "RawMove", (PyObject *)RawMoveType);
    if (PyType_Ready(&MoveListType) < 0) return NULL;
    Py_INCREF(&MoveListType);
    PyModule_AddObject(m, "MoveList", (PyObject *)&MoveListType);
    if (PyType_Ready(&LeavesType) < 0) return NULL;
    Py_INCREF(&LeavesType);
    PyModule_AddObject(m, "Leaves", (PyObject *)&LeavesType);
    if (PyType_Ready(&PositionType) < 0) return NULL;
    Py_INCREF(&PositionType);
    PyModule_AddObject(m, "Position", (PyObject *)&PositionType);
    /* bumped whenever the Python side needs a rebuilt extension (checked by gamecore.kwg) */
    PyModule_AddIntConstant(m, "ABI", NATIVE_ABI);
    return m;
}
