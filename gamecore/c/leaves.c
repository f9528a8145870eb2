/* gamecore._native.Leaves: a KLV2 leave file in C, beside the move generator. Made once per leave file from gamecore.klv.Klv's arrays (gamecore/equity.py
 * LeaveTable.native): the KWG nodes of the leaves' DAWG, the word counts under each node and its
 * later siblings (MAGPIE klv_count_words, as Klv._word_counts), and the float32 values, each turned
 * into thousandths of a point as MAGPIE loads them (round half away from zero, gamecore.klv.to_milli).
 * A value that is not a number of points (NaN, infinite, beyond +-2,000,000) is marked and raises
 * when a look-up needs it. The look-up is Klv.index's walk (MAGPIE klv_get_word_index): a leave's
 * index is counted in the DAWG's preorder. */

#include "native.h"
#include <math.h>
#define LEAVE_BAD INT32_MIN
#define LEAVE_LIMIT 2000000.0

static void leaves_dealloc(LeavesObject *L) {
    free(L->nodes);
    free(L->counts);
    free(L->milli);
    Py_TYPE(L)->tp_free((PyObject *)L);
}

static int leaves_init(LeavesObject *L, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"nodes", "counts", "values", NULL};
    Py_buffer nb, cb, vb;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*y*y*", kwlist, &nb, &cb, &vb)) return -1;
    int ok = 0;
    const char *err = NULL;
    size_t k = (size_t)nb.len / 4, n = (size_t)vb.len / 4;
    if (nb.len % 4 || cb.len != nb.len || vb.len % 4 || k < 2 || k > 0xFFFFFFFFu || n > 0xFFFFFFFFu)
        err = "Leaves(nodes, counts, values): u32 nodes, as many u32 counts, f32 values";
    free(L->nodes), free(L->counts), free(L->milli);
    L->nodes = L->counts = NULL;
    L->milli = NULL;
    if (!err) {
        L->nodes = malloc(k * 4);
        L->counts = malloc(k * 4);
        L->milli = malloc((n ? n : 1) * 4);
        if (!L->nodes || !L->counts || !L->milli) {
            PyErr_NoMemory();
            goto out;
        }
        memcpy(L->nodes, nb.buf, k * 4); /* (the machine is little-endian, as the file) */
        memcpy(L->counts, cb.buf, k * 4);
        const float *v = vb.buf;
        for (size_t i = 0; i < n; i++) {
            double x = (double)v[i];
            if (!isfinite(x) || fabs(x) > LEAVE_LIMIT) {
                L->milli[i] = LEAVE_BAD;
                continue;
            }
            double y = x * 1000.0, r = floor(fabs(y) + 0.5);
            L->milli[i] = (int32_t)(y >= 0 ? r : -r);
        }
        for (size_t i = 0; i < k && !err; i++)
            if ((L->nodes[i] & ARC_MASK) >= k) err = "Leaves: an arc points past the last node";
        L->nnodes = (uint32_t)k;
        L->nvalues = (uint32_t)n;
        L->root = L->nodes[0] & ARC_MASK;
    }
    if (err) PyErr_SetString(PyExc_ValueError, err);
    else ok = 1;
out:
    PyBuffer_Release(&nb);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&vb);
    return ok ? 0 : -1;
}

/* The index of a leave (KLV tile numbers ascending, 0 = blank), -1 when the file lacks it. */
static int64_t leave_index(const LeavesObject *L, const uint8_t *tiles, int n) {
    if (n <= 0 || !L->nodes) return -1;
    const uint32_t *nodes = L->nodes, *counts = L->counts;
    uint32_t node = L->root, k = L->nnodes;
    int64_t idx = 0;
    for (int pos = 0; pos < n; pos++) {
        if (node == 0) return -1;
        for (;;) { /* MAGPIE increment_node_to_ml: skip the lower siblings and their words */
            if (node >= k) return -1;
            uint32_t x = nodes[node];
            if ((x >> 24) == tiles[pos]) break;
            if ((x & IS_END) || node + 1 >= k) return -1;
            idx += (int64_t)counts[node] - counts[node + 1];
            node++;
        }
        if (pos == n - 1) return (nodes[node] & ACCEPTS) ? idx : -1;
        idx++; /* MAGPIE follow_arc: the word ending here comes before its extensions */
        node = nodes[node] & ARC_MASK;
    }
    return -1;
}

/* The leave's value in thousandths (0 when absent); -1 and *bad = its value number (1-based) when
 * the stored value is not a number of points. */
static int leave_milli(const LeavesObject *L, const uint8_t *tiles, int n, int32_t *out, int64_t *bad) {
    int64_t i = leave_index(L, tiles, n);
    if (i < 0 || i >= L->nvalues) {
        *out = 0;
        return 0;
    }
    if (L->milli[i] == LEAVE_BAD) {
        *bad = i + 1;
        return -1;
    }
    *out = L->milli[i];
    return 0;
}

/* The values of every sub-multiset of a rack at once, in one walk of the leave DAWG (each prefix
 * followed once, as MAGPIE's leave map is filled): the rack's kinds by KLV tile number ascending
 * (kt[0..nk), counts cnt, mixed-radix strides stride: a sub-multiset's index is the sum of its
 * counts times the strides), vals[index] = its value in thousandths (left as it is, 0, for a leave
 * the file lacks). Returns -1 and *bad (the value number, 1-based) on a value that is not a number
 * of points. used[]: the counts taken so far (zeros at the start). */
int leave_values(const LeavesObject *L, const uint8_t *kt, const int *cnt, const int *stride, int nk, int i,
                 uint32_t node, int64_t idx, int sub, int *used, int32_t *vals, int64_t *bad) {
    const uint32_t *nodes = L->nodes, *counts = L->counts;
    uint32_t k = L->nnodes;
    for (int j = i; j < nk && node && node < k; j++) {
        if (used[j] == cnt[j]) continue;
        /* the tile kt[j] among the siblings from node (ascending: later kinds search on from it) */
        uint32_t x;
        for (;;) {
            x = nodes[node];
            if ((x >> 24) >= kt[j] || (x & IS_END) || node + 1 >= k) break;
            idx += (int64_t)counts[node] - counts[node + 1];
            node++;
        }
        if ((x >> 24) != kt[j]) {
            if ((x >> 24) > kt[j]) continue; /* not here: the next kind may be */
            break; /* the list ended below this tile */
        }
        int s2 = sub + stride[j];
        if (x & ACCEPTS) {
            if (idx >= L->nvalues) return 0;
            if (L->milli[idx] == LEAVE_BAD) {
                *bad = idx + 1;
                return -1;
            }
            vals[s2] = L->milli[idx];
        }
        uint32_t child = x & ARC_MASK;
        if (child) {
            used[j]++;
            int r = leave_values(L, kt, cnt, stride, nk, j, child, idx + 1, s2, used, vals, bad);
            used[j]--;
            if (r < 0) return r;
        }
    }
    return 0;
}

static PyObject *leaves_milli(LeavesObject *L, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    int32_t v = 0;
    int64_t bad = 0;
    int r = b.len > 255 ? 0 : leave_milli(L, b.buf, (int)b.len, &v, &bad);
    PyBuffer_Release(&b);
    if (r < 0)
        return PyErr_Format(PyExc_ValueError, "leave value number %lld is not a number of points", (long long)bad);
    return PyLong_FromLong(v);
}

static PyMethodDef leaves_methods[] = {
    {"milli", (PyCFunction)leaves_milli, METH_O,
     "milli(tiles: bytes) -> int: a leave's value in thousandths of a point (KLV tile numbers ascending, "
     "0 = blank); 0 when absent; ValueError for a value that is not a number of points"},
    {NULL, NULL, 0, NULL}};

PyTypeObject LeavesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gamecore._native.Leaves",
    .tp_basicsize = sizeof(LeavesObject),
    .tp_dealloc = (destructor)leaves_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Leaves(nodes, counts, values): a KLV2 leave file for the equity search (u32 nodes, u32 word "
              "counts per node, f32 values; gamecore.equity.LeaveTable.native makes it).",
    .tp_methods = leaves_methods,
    .tp_init = (initproc)leaves_init,
    .tp_new = PyType_GenericNew,
};
