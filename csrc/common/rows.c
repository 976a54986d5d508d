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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define INT_EXACT 9007199254740992LL   /* 2**53: larger ints may round */

typedef struct {
    PyObject_HEAD
    double *values;        /* width doubles */
    Py_ssize_t width;
    PyObject *array_type;  /* numpy.ndarray (a strong reference) */
} RowBuffer;

/* *out = v for an exact float or an exact int within ±2**53; 0 for anything else */
static int plain_value(PyObject *v, double *out)
{
    long long i;
    int overflow;
    if (PyFloat_CheckExact(v)) {
        *out = PyFloat_AS_DOUBLE(v);
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
    PyObject **items = PySequence_Fast_ITEMS(x);
    Py_ssize_t i;
    if (PySequence_Fast_GET_SIZE(x) != self->width)
        return 0;
    for (i = 0; i < self->width; i++)
        if (!plain_value(items[i], self->values + i))
            return 0;
    return 1;
}

static int pack_dict(RowBuffer *self, PyObject *x, PyObject *keys)
{
    PyObject *k, *v, **names;
    Py_ssize_t pos = 0, i = 0;
    if (!(PyList_CheckExact(keys) || PyTuple_CheckExact(keys))
        || PySequence_Fast_GET_SIZE(keys) != self->width || PyDict_GET_SIZE(x) != self->width)
        return 0;
    names = PySequence_Fast_ITEMS(keys);
    while (PyDict_Next(x, &pos, &k, &v)) {
        if (i >= self->width || !same_key(k, names[i]) || !plain_value(v, self->values + i))
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

static PyObject *RowBuffer_pack(RowBuffer *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *x;
    int ok = 0;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "pack(x, keys) takes exactly 2 arguments");
        return NULL;
    }
    x = args[0];
    if (PyList_CheckExact(x) || PyTuple_CheckExact(x))
        ok = pack_sequence(self, x);
    else if (PyDict_CheckExact(x))
        ok = pack_dict(self, x, args[1]);
    else if ((PyObject *)Py_TYPE(x) == self->array_type)
        ok = pack_array(self, x);
    return PyBool_FromLong(ok);
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
        PyList_SET_ITEM(out, i, v);
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
    self = (RowBuffer *)type->tp_alloc(type, 0);
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
    PyMem_Free(self->values);
    Py_XDECREF(self->array_type);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef RowBuffer_methods[] = {
    {"pack", (PyCFunction)(void (*)(void))RowBuffer_pack, METH_FASTCALL,
     "pack(x, keys) -> bool: copy a plain row into the buffer (see the module doc)"},
    {"get", (PyCFunction)RowBuffer_get, METH_NOARGS,
     "get() -> list: the buffer's values (for tests)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef RowBuffer_getset[] = {
    {"address", (getter)RowBuffer_address, NULL, "the buffer's address, for cffi", NULL},
    {"width", (getter)RowBuffer_width, NULL, "values per row", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject RowBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fast._rows_ext.RowBuffer",
    .tp_basicsize = sizeof(RowBuffer),
    .tp_dealloc = (destructor)RowBuffer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "RowBuffer(width, array_type): a C buffer of one plain input row",
    .tp_methods = RowBuffer_methods,
    .tp_getset = RowBuffer_getset,
    .tp_new = RowBuffer_new,
};

static struct PyModuleDef rows_module = {
    PyModuleDef_HEAD_INIT, "fast._rows_ext",
    "Plain input rows packed into C buffers (see csrc/common/rows.c).", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__rows_ext(void)
{
    PyObject *module;
    if (PyType_Ready(&RowBufferType) < 0)
        return NULL;
    module = PyModule_Create(&rows_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&RowBufferType);
    if (PyModule_AddObject(module, "RowBuffer", (PyObject *)&RowBufferType) < 0) {
        Py_DECREF(&RowBufferType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
