/* The lean one-row input of the fast models: a plain row packed into a C buffer
 * (twin of reference/rows.py, whose plain_floats recognises the same rows).
 *
 * This is the one C file that uses the Python C API: it is built as its own extension
 * module, fast._rows_ext, not into the cffi library fast._lib. It exists because a
 * one-row call (learn_one, predict_one) of a fast model was mostly spent on its input:
 * a Python loop that checks the type of every value, then cffi's generic conversion of a
 * list argument into a double array (about 20 ns per value). Here one call checks and
 * copies a row in a few nanoseconds per value, into a buffer whose address the fast
 * engines hand to the C library as a `const double *`.
 *
 * RowBuffer(width, array_type).pack(x, keys) copies x into the buffer and returns True
 * only for rows that need no conversion, exactly the rows reference/rows.py's
 * plain_floats accepts, with the same values:
 *   - a list or tuple of `width` values, each an exact Python float or an exact int of
 *     magnitude at most 2**53 (converted without rounding); bools and every other type
 *     are refused;
 *   - an object of type exactly `array_type` (numpy.ndarray) exposing a 1-D buffer of
 *     `width` native doubles (format "d"), any stride;
 *   - an exact dict of `width` items whose keys are, in order, the model's feature names
 *     `keys` (a list or tuple): each key the same object, or an equal exact str or int
 *     (no user __eq__ is ever run), and values as for a list.
 * Everything else returns False and the caller takes its general path, which validates
 * the input as the reference does (and raises its exceptions); so does a row of the
 * wrong width. Finiteness is not checked here: the C library's *_row functions check it.
 * No Python code runs during pack and it never raises for any x or keys.
 *
 * A model whose one-row calls take well under a microsecond of C work (the stochastic
 * gradient trees) also binds them to its buffer (bind): then learn, score, label and
 * proba pack the row and call the library directly, in one Python call. Through cffi
 * the same call cost about as much as the C work itself (argument conversion, and the
 * GIL released and taken back around every call); here the GIL stays held, which is
 * right only for calls this short. The dynamic trees bind their predictions too, with
 * release_gil: they take up to milliseconds with many particles, and other threads run
 * meanwhile. The bound calls run under the model's lock, taken by the Python facade.
 *
 * Limited API: the file compiles with Py_LIMITED_API (0x030B0000, Python 3.11: the buffer
 * protocol joined the limited API there), which the build defines on Python >= 3.11 so
 * that one abi3 wheel serves every later version; without it (Python 3.10) the macros
 * below read list, tuple and float fields directly. The type is a heap type
 * (PyType_FromSpec) either way. tests/benchmarks/bench_limited_api.py measures what the
 * function calls cost a one-row call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define INT_EXACT 9007199254740992LL   /* 2**53: larger ints may round */

#ifdef Py_LIMITED_API
/* the limited API's functions (checked, bounds-checked; x is an exact list or tuple) */
#define FLOAT_VALUE(v) PyFloat_AsDouble(v)
#define SEQ_SIZE(x) (PyList_CheckExact(x) ? PyList_Size(x) : PyTuple_Size(x))
#define SEQ_ITEM(x, i) (PyList_CheckExact(x) ? PyList_GetItem(x, i) : PyTuple_GetItem(x, i))
#else
/* the full API's field reads, same results for the exact types checked before */
#define FLOAT_VALUE(v) PyFloat_AS_DOUBLE(v)
#define SEQ_SIZE(x) PySequence_Fast_GET_SIZE(x)
#define SEQ_ITEM(x, i) PySequence_Fast_GET_ITEM(x, i)
#endif

/* The C library's one-row calls that RowBuffer.bind can take, by signature (the model
 * handle as void *: the library's handle types are opaque here, and the addresses come
 * from the cffi module fast._lib, which declares the true types). */
typedef int (*learn_call)(void *, const double *, int64_t, double);
typedef int (*score_call)(void *, const double *, int64_t, double *);
typedef int (*label_call)(void *, const double *, int64_t, double *, int32_t *);

typedef struct {
    PyObject_HEAD
    double *values;        /* width doubles */
    Py_ssize_t width;
    PyObject *array_type;  /* numpy.ndarray (a strong reference) */
    /* bound by bind(): a model handle, its calls and their output buffers */
    PyObject *owner;       /* keeps the handle and the buffers alive (strong reference) */
    void *handle;
    learn_call learn;
    score_call score;
    label_call label;
    double *out;           /* score's output: out[0] is returned */
    double *probs;         /* label's probabilities (n_probs of them) */
    int32_t *label_out;    /* label's class index */
    Py_ssize_t n_probs;
    long enomem;           /* the library's out-of-memory status (0: none bound) */
    int release;           /* 1: the bound calls run with the GIL released */
    PyObject *enomem_message;  /* the MemoryError's message (a str; strong reference) */
} RowBuffer;

/* *out = v for an exact float or an exact int within ±2**53; 0 for anything else */
static int plain_value(PyObject *v, double *out)
{
    long long i;
    int overflow;
    if (PyFloat_CheckExact(v)) {
        *out = FLOAT_VALUE(v);
        return 1;
    }
    if (!PyLong_CheckExact(v))
        return 0;
    i = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || i > INT_EXACT || i < -INT_EXACT)
        return 0;
    *out = (double)i;
    return 1;
}

/* 1 if the dict key k stands for the feature name want without running user code */
static int same_key(PyObject *k, PyObject *want)
{
    int eq;
    if (k == want)
        return 1;
    if (PyUnicode_CheckExact(k) && PyUnicode_CheckExact(want))
        return PyUnicode_Compare(k, want) == 0;
    if (PyLong_CheckExact(k) && PyLong_CheckExact(want)) {
        eq = PyObject_RichCompareBool(k, want, Py_EQ);
        return eq == 1;
    }
    return 0;
}

static int pack_sequence(RowBuffer *self, PyObject *x)
{
    Py_ssize_t i;
    if (SEQ_SIZE(x) != self->width)
        return 0;
    for (i = 0; i < self->width; i++)
        if (!plain_value(SEQ_ITEM(x, i), self->values + i))
            return 0;
    return 1;
}

static int pack_dict(RowBuffer *self, PyObject *x, PyObject *keys)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0, i = 0;
    if (!(PyList_CheckExact(keys) || PyTuple_CheckExact(keys))
        || SEQ_SIZE(keys) != self->width || PyDict_Size(x) != self->width)
        return 0;
    while (PyDict_Next(x, &pos, &k, &v)) {
        if (i >= self->width || !same_key(k, SEQ_ITEM(keys, i))
            || !plain_value(v, self->values + i))
            return 0;
        i++;
    }
    return i == self->width;
}

static int pack_array(RowBuffer *self, PyObject *x)
{
    Py_buffer view;
    Py_ssize_t i, stride;
    int ok;
    if (PyObject_GetBuffer(x, &view, PyBUF_FORMAT | PyBUF_STRIDES) != 0) {
        PyErr_Clear();
        return 0;
    }
    ok = view.ndim == 1 && view.itemsize == (Py_ssize_t)sizeof(double)
         && view.format != NULL && strcmp(view.format, "d") == 0
         && view.shape[0] == self->width;
    if (ok) {
        stride = view.strides ? view.strides[0] : (Py_ssize_t)sizeof(double);
        for (i = 0; i < self->width; i++)
            memcpy(self->values + i, (const char *)view.buf + i * stride, sizeof(double));
    }
    PyBuffer_Release(&view);
    return ok;
}

/* pack(x, keys) without a Python call: 1 if x is a plain row, now in the buffer */
static int packed(RowBuffer *self, PyObject *x, PyObject *keys)
{
    if (PyList_CheckExact(x) || PyTuple_CheckExact(x))
        return pack_sequence(self, x);
    if (PyDict_CheckExact(x))
        return pack_dict(self, x, keys);
    if ((PyObject *)Py_TYPE(x) == self->array_type)
        return pack_array(self, x);
    return 0;
}

static PyObject *RowBuffer_pack(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pack(x, keys) takes exactly 2 arguments");
        return NULL;
    }
    return PyBool_FromLong(packed(self, args[0], args[1]));
}

/* rc = the bound call `call`, with the GIL released around it if the model asked so */
#define BOUND_CALL(self, rc, call)                    \
    do {                                              \
        if ((self)->release) {                        \
            Py_BEGIN_ALLOW_THREADS                    \
            (rc) = (call);                            \
            Py_END_ALLOW_THREADS                      \
        } else {                                      \
            (rc) = (call);                            \
        }                                             \
    } while (0)

static int two_args(Py_ssize_t nargs, Py_ssize_t want, const char *name)
{
    if (nargs == want)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s takes exactly %zd arguments", name, want);
    return 0;
}

/* learn(x, keys, target) -> bool: True once the bound learn call learned the row; False
 * if x is not a plain row, the target not an exact float (or int within ±2**53), or the
 * call refused them (the caller's general path then reports why); MemoryError with the
 * bound message if the call returns the bound out-of-memory status */
static PyObject *RowBuffer_learn(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    double target;
    int rc;
    if (!two_args(nargs, 3, "learn(x, keys, target)"))
        return NULL;
    if (self->learn == NULL || !plain_value(args[2], &target)
        || !packed(self, args[0], args[1]))
        Py_RETURN_FALSE;
    BOUND_CALL(self, rc, self->learn(self->handle, self->values, (int64_t)self->width, target));
    if (rc != 0 && rc == self->enomem) {
        PyErr_SetObject(PyExc_MemoryError, self->enomem_message);
        return NULL;
    }
    return PyBool_FromLong(rc == 0);
}

/* score(x, keys) -> float or None: out[0] of the bound score call, None if x is not a
 * plain row or the call fails (the caller's general path then reports why) */
static PyObject *RowBuffer_score(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    int rc;
    if (!two_args(nargs, 2, "score(x, keys)"))
        return NULL;
    if (self->score == NULL || !packed(self, args[0], args[1]))
        Py_RETURN_NONE;
    BOUND_CALL(self, rc, self->score(self->handle, self->values, (int64_t)self->width,
                                     self->out));
    if (rc != 0)
        Py_RETURN_NONE;
    return PyFloat_FromDouble(self->out[0]);
}

static int call_label(RowBuffer *self, PyObject *const *args)
{
    int rc;
    if (self->label == NULL || !packed(self, args[0], args[1]))
        return 0;
    BOUND_CALL(self, rc, self->label(self->handle, self->values, (int64_t)self->width,
                                     self->probs, self->label_out));
    return rc == 0;
}

/* label(x, keys) -> int: the class index of the bound label call, -1 as score's None */
static PyObject *RowBuffer_label(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (!two_args(nargs, 2, "label(x, keys)"))
        return NULL;
    return PyLong_FromLong(call_label(self, args) ? (long)self->label_out[0] : -1L);
}

/* proba(x, keys) -> list or None: the n_probs probabilities of the bound label call */
static PyObject *RowBuffer_proba(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out;
    Py_ssize_t k;
    if (!two_args(nargs, 2, "proba(x, keys)"))
        return NULL;
    if (!call_label(self, args))
        Py_RETURN_NONE;
    out = PyList_New(self->n_probs);
    if (out == NULL)
        return NULL;
    for (k = 0; k < self->n_probs; k++) {
        PyObject *v = PyFloat_FromDouble(self->probs[k]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SetItem(out, k, v);   /* steals v */
    }
    return out;
}

/* *slot = a new reference to value, the old one released last (Py_XSETREF) */
static void replace_ref(PyObject **slot, PyObject *value)
{
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
}

/* the address given as keyword `name` (0 if absent) */
static uintptr_t address(PyObject *kwds, const char *name)
{
    PyObject *v = kwds ? PyDict_GetItemString(kwds, name) : NULL;   /* borrowed */
    return v ? (uintptr_t)PyLong_AsUnsignedLongLong(v) : 0;
}

/* bind(owner, message, handle=, learn=, score=, label=, out=, probs=, label_out=,
 * n_probs=, enomem=, release_gil=): addresses as ints, 0 or absent for none; owner keeps
 * them valid; message is the MemoryError's when learn returns the status enomem;
 * release_gil=1 runs the calls with the GIL released */
static PyObject *RowBuffer_bind(RowBuffer *self, PyObject *args, PyObject *kwds)
{
    PyObject *owner, *n;
    void *handle;
    learn_call learn;
    score_call score;
    label_call label;
    double *out, *probs;
    int32_t *label_out;
    Py_ssize_t n_probs;
    long enomem;
    int release;
    static const char *names[] = {"handle", "learn", "score", "label", "out", "probs",
                                  "label_out", "n_probs", "enomem", "release_gil"};
    size_t i;
    PyObject *message;
    if (!PyArg_ParseTuple(args, "OU", &owner, &message))
        return NULL;
    if (kwds != NULL) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kwds, &pos, &key, &value)) {
            int known = 0;
            for (i = 0; i < sizeof names / sizeof names[0]; i++)
                known |= PyUnicode_Check(key)
                         && PyUnicode_CompareWithASCIIString(key, names[i]) == 0;
            if (!known || !PyLong_Check(value)) {
                PyErr_Format(PyExc_TypeError, "bind: unexpected argument %R", key);
                return NULL;
            }
        }
    }
    handle = (void *)address(kwds, "handle");
    learn = (learn_call)address(kwds, "learn");
    score = (score_call)address(kwds, "score");
    label = (label_call)address(kwds, "label");
    out = (double *)address(kwds, "out");
    probs = (double *)address(kwds, "probs");
    label_out = (int32_t *)address(kwds, "label_out");
    n = kwds ? PyDict_GetItemString(kwds, "n_probs") : NULL;
    n_probs = n ? PyLong_AsSsize_t(n) : 0;
    n = kwds ? PyDict_GetItemString(kwds, "enomem") : NULL;
    enomem = n ? PyLong_AsLong(n) : 0;
    n = kwds ? PyDict_GetItemString(kwds, "release_gil") : NULL;
    release = n ? PyObject_IsTrue(n) : 0;
    if (PyErr_Occurred())
        return NULL;
    if (handle == NULL || n_probs < 0 || (score && !out)
        || (label && (!probs || !label_out))) {
        PyErr_SetString(PyExc_ValueError, "bind: a call without its handle or buffers");
        return NULL;
    }
    self->handle = handle;
    self->learn = learn;
    self->score = score;
    self->label = label;
    self->out = out;
    self->probs = probs;
    self->label_out = label_out;
    self->n_probs = n_probs;
    self->enomem = enomem;
    self->release = release;
    replace_ref(&self->enomem_message, message);
    replace_ref(&self->owner, owner);
    Py_RETURN_NONE;
}

static PyObject *RowBuffer_get(RowBuffer *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *out = PyList_New(self->width);
    Py_ssize_t i;
    if (out == NULL)
        return NULL;
    for (i = 0; i < self->width; i++) {
        PyObject *v = PyFloat_FromDouble(self->values[i]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SetItem(out, i, v);   /* steals v */
    }
    return out;
}

static PyObject *RowBuffer_address(RowBuffer *self, void *Py_UNUSED(closure))
{
    return PyLong_FromVoidPtr(self->values);
}

static PyObject *RowBuffer_width(RowBuffer *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(self->width);
}

static PyObject *RowBuffer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"width", "array_type", NULL};
    Py_ssize_t width;
    PyObject *array_type;
    RowBuffer *self;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nO!", names, &width, &PyType_Type,
                                     &array_type))
        return NULL;
    if (width < 1 || width > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "width must be a positive int");
        return NULL;
    }
    self = (RowBuffer *)PyType_GenericAlloc(type, 0);
    if (self == NULL)
        return NULL;
    self->values = PyMem_Calloc((size_t)width, sizeof(double));
    if (self->values == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->width = width;
    Py_INCREF(array_type);
    self->array_type = array_type;
    return (PyObject *)self;
}

static void RowBuffer_dealloc(RowBuffer *self)
{
    PyTypeObject *type = Py_TYPE((PyObject *)self);
    PyMem_Free(self->values);
    Py_XDECREF(self->array_type);
    Py_XDECREF(self->owner);
    Py_XDECREF(self->enomem_message);
    PyObject_Free(self);
    Py_DECREF(type);   /* a heap type: each instance holds a reference to it */
}

static PyMethodDef RowBuffer_methods[] = {
    {"pack", (PyCFunction)(void (*)(void))RowBuffer_pack, METH_FASTCALL,
     "pack(x, keys) -> bool: copy a plain row into the buffer (see the module doc)"},
    {"learn", (PyCFunction)(void (*)(void))RowBuffer_learn, METH_FASTCALL,
     "learn(x, keys, target) -> bool: True once the bound learn call learned the row"},
    {"score", (PyCFunction)(void (*)(void))RowBuffer_score, METH_FASTCALL,
     "score(x, keys) -> float or None: out[0] of the bound score call"},
    {"label", (PyCFunction)(void (*)(void))RowBuffer_label, METH_FASTCALL,
     "label(x, keys) -> int: the bound label call's class index, -1: not handled"},
    {"proba", (PyCFunction)(void (*)(void))RowBuffer_proba, METH_FASTCALL,
     "proba(x, keys) -> list or None: the bound label call's probabilities"},
    {"bind", (PyCFunction)(void (*)(void))RowBuffer_bind, METH_VARARGS | METH_KEYWORDS,
     "bind(owner, message, **addresses): bind a model's one-row calls (module doc)"},
    {"get", (PyCFunction)RowBuffer_get, METH_NOARGS,
     "get() -> list: the buffer's values (for tests)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef RowBuffer_getset[] = {
    {"address", (getter)RowBuffer_address, NULL, "the buffer's address, for cffi", NULL},
    {"width", (getter)RowBuffer_width, NULL, "values per row", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot RowBuffer_slots[] = {
    {Py_tp_dealloc, (void *)RowBuffer_dealloc},
    {Py_tp_doc, (void *)"RowBuffer(width, array_type): a C buffer of one plain input row"},
    {Py_tp_methods, RowBuffer_methods},
    {Py_tp_getset, RowBuffer_getset},
    {Py_tp_new, (void *)RowBuffer_new},
    {0, NULL},
};

static PyType_Spec RowBuffer_spec = {
    "fast._rows_ext.RowBuffer", (int)sizeof(RowBuffer), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE, RowBuffer_slots,
};

static struct PyModuleDef rows_module = {
    PyModuleDef_HEAD_INIT, "fast._rows_ext",
    "Plain input rows packed into C buffers (see csrc/common/rows.c).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__rows_ext(void)
{
    PyObject *module, *type;
    module = PyModule_Create(&rows_module);
    if (module == NULL)
        return NULL;
    type = PyType_FromSpec(&RowBuffer_spec);
    if (type == NULL || PyModule_AddObject(module, "RowBuffer", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
