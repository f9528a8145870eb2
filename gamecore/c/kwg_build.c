/*
 * The KWG builder.
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
 * SKRAFL_KWG_TIMING=1 in the environment prints the build's phases (wall, thread CPU) to stderr;
 * SKRAFL_KWG_ONE_THREAD=1 builds both GADDAG halves on the calling thread (same output).
 */

#include "native.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* `timing`: SKRAFL_KWG_TIMING as py_build_kwg read it (getenv is not safe on the build's threads) */
#define TMARK(timing, msg)                                                                             \
    do {                                                                                               \
        if (timing) (void)fprintf(stderr, "%-14s wall %.3f thread-cpu %.3f\n", msg, now_s(), cpu_s()); \
    } while (0)

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

/* An empty register; -1 (nothing left allocated) when out of memory. */
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
    if (!r->pool || !r->st_off || !r->st_cnt || !r->st_hash || !r->htab) {
        reg_free(r);
        return -1;
    }
    /* state 0: the empty state (no children) */
    r->st_off[0] = 0;
    r->st_cnt[0] = 0;
    r->st_hash[0] = 0;
    r->nstates = 1;
    r->use_cache = 1;
    r->cache = calloc(REG_CACHE, sizeof(HEnt));
    if (!r->cache) {
        reg_free(r);
        return -1;
    }
    return 0;
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
    int timing;
} GJob;

static void *gaddag_job(void *arg) {
    GJob *j = arg;
    g_step = -1;
    Path *ps = j->ps;
    msd_sort(j->recs, j->n, 0);
    TMARK(j->timing, "job sorted");
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
        // NOLINTNEXTLINE(clang-analyzer-security.ArrayBound): k is within recs (n <= the counted cap, both exact)
        for (uint32_t d = lcp; d < k->len; d++)
            ps->arcs[d][ps->n[d]++] = ARC(key_char(k, d), d == k->len - 1 ? (k->aux & 1) : 0, 0);
        uint32_t sep = k->aux >> 1;
        if (sep) ps->arcs[k->len][ps->n[k->len]++] = ARC(0, 0, sep);
        prev = k;
        prevlen = k->len;
    }
    /* close everything but the root; ps->arcs[0] keeps this half's root arcs */
    if (prev && close_path(j->reg, ps, prev, prevlen, 0, NULL) < 0) j->fail = 1;
    TMARK(j->timing, "job done");
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
    int timing;
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
    TMARK(j->timing, "dawg job done");
    return NULL;
}

/* Run a on this thread and b on another (or both here when one_thread or when no thread starts). */
static void run_pair(void *(*fn)(void *), void *a, void *b, int one_thread) {
    pthread_t th;
    int threaded = !one_thread && pthread_create(&th, NULL, fn, b) == 0;
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

PyObject *py_build_kwg(PyObject *Py_UNUSED(self), PyObject *args) {
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
    /* read here, with the GIL (Python's os.environ writes hold it too), not on the build's threads */
    int timing = getenv("SKRAFL_KWG_TIMING") != NULL; // NOLINT(concurrency-mt-unsafe): with the GIL held
    int one_thread = getenv("SKRAFL_KWG_ONE_THREAD") != NULL; // NOLINT(concurrency-mt-unsafe): with the GIL held

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
    TMARK(timing, "parsed");
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
        DJob da = {&r, words, lo, ps, {0}, 0, 0, timing}, db = {&r2, words + lo, cnt - lo, ps2, {0}, 0, 0, timing};
        run_pair(dawg_job, &da, &db, one_thread);
        TMARK(timing, "sorted");
        rc.cap = da.rc.cap + db.rc.cap;
        rc.recs = big_calloc((rc.cap ? rc.cap : 1) * sizeof(SKey));
        if (!rc.recs) fail = 1;
        if (!fail) {
            da.rc.recs = rc.recs;
            db.rc.recs = rc.recs + da.rc.cap;
            da.phase = db.phase = 1;
            run_pair(dawg_job, &da, &db, one_thread);
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
    TMARK(timing, "dawg");
    /* 2. GADDAG: reversed prefixes split by first tile into two halves of similar size */
    if (!fail && reg_reserve(&r, r.nstates + rc.nrecs * 3 / 4) < 0) fail = 1;
    if (!fail) {
        size_t lo = split_by_first_tile(rc.recs, rc.nrecs);
        g_step = -1;
        GJob ja = {&r, rc.recs, lo, ps, 0, timing}, jb = {&r2, rc.recs + lo, rc.nrecs - lo, ps2, 0, timing};
        run_pair(gaddag_job, &ja, &jb, one_thread);
        fail = ja.fail || jb.fail;
        TMARK(timing, "gaddag halves");
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
    TMARK(timing, "gaddag");
    if (timing)
        (void)fprintf(stderr, "prefixes %zu states %u arcs %zu; cache hits %zu, table look-ups %zu\n", rc.nrecs,
                      r.nstates, r.pool_len, r.cache_hits, r.lookups);
    free(r.htab); /* no more look-ups */
    r.htab = NULL;

    /* 4. layout: node 0 -> DAWG root, node 1 -> GADDAG root, then the sibling lists */
    pos = malloc(r.nstates * sizeof(uint32_t));
    size_t total = pos ? place_states(&r, pos, gaddag_root, dawg_root) : 0;
    if (!total) {
        err = "out of memory";
        goto done;
    }
    TMARK(timing, "placed");
    int wide = force_wide || total > ARC_MASK + 1;
    if (total > 0xFFFFFFu) {
        PyErr_Format(PyExc_ValueError, "lexicon too large: %zu KWG nodes, at most 16,777,215", total);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * 4));
    if (!result) goto done;
    {
        uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
#define PUT(i, v)                                    \
    do {                                             \
        uint32_t _v = (v);                           \
        out[4 * (size_t)(i)] = _v & 255;             \
        out[4 * (size_t)(i) + 1] = (_v >> 8) & 255;  \
        out[4 * (size_t)(i) + 2] = (_v >> 16) & 255; \
        out[4 * (size_t)(i) + 3] = _v >> 24;         \
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

__attribute__((optimize("O3"))) PyObject *py_check_kwg(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer kb;
    int wide = 0;
    if (!PyArg_ParseTuple(args, "y*|p", &kb, &wide)) return NULL;
    const uint32_t *k = kb.buf;
    size_t n = (size_t)kb.len / 4;
    const char *err = NULL;
    if (kb.len % 4) err = "size is not a multiple of 4 bytes";
    else if (n < 2) err = "fewer than 2 nodes";
    else if (!(wide ? (k[n - 1] & 0x40u) : (k[n - 1] & IS_END))) err = "the last node does not end a sibling list";
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
PyObject *py_encode_words(PyObject *Py_UNUSED(self), PyObject *args) {
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
