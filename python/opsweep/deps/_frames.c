/* The recorder's hook (deps/recorder.py): which code objects of interest the interpreter evaluates
 * while a job runs, for about the price of one dictionary lookup per Python frame.
 *
 * A profile function (cProfile, or any sys.setprofile callback) puts CPython in tracing mode: every
 * Python and C call of torch pays an event, which doubled the time of a torch.export capture. A job's
 * keys need only the code objects of the surveyed library and of the registries, so this module
 * installs a frame-evaluation function (PEP 523) instead. It looks each frame's ``co_filename`` up in
 * ``decided`` (filename -> bool, shared by every window of the process), asks ``keep(filename)`` the
 * first time a filename is seen, keeps each wanted code object once, and hands the frame to the
 * function that was installed before it (torch's Dynamo chains the same way: frames it does not
 * compile reach this hook, and it restores this hook when it is done).
 *
 *   start(decided, keep) -> bool   install (if needed) and record from now (keep None keeps every
 *                         code object); False when the hook cannot be used (see start())
 *   pause() / resume()    stop / restart recording on this thread (Dynamo's bytecode translation)
 *   stop() -> (codes, intact)   the wanted code objects in first-evaluation order, and whether
 *                         frames still reached the hook at the end (it is the interpreter's frame
 *                         function, or what replaced it hands frames on to it; False: the
 *                         recording may miss frames)
 *   set_probe(fn)         a Python function of no arguments, called to test whether frames reach
 *                         the hook
 *
 * Built on first use by deps/native.py, for CPython 3.11 and later; where it cannot be built the
 * recorder falls back to cProfile, recording the same code objects.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030B0000
#error "the frame hook needs CPython 3.11 or later (the recorder falls back to cProfile)"
#endif
#if PY_VERSION_HEX < 0x030C0000
#define Py_BUILD_CORE
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
#define FRAME_CODE(f) ((PyObject *)(f)->f_code)
#else
#define FRAME_CODE(f) frame_code_borrowed(f)
static PyObject *frame_code_borrowed(struct _PyInterpreterFrame *f) {
    PyObject *code = PyUnstable_InterpreterFrame_GetCode(f);
    Py_XDECREF(code); /* the frame holds it for as long as the hook looks at it */
    return code;
}
#endif

static _PyFrameEvalFunction previous = NULL; /* what the hook hands frames to */
static int installed = 0;
static int recording = 0;
static int failed = 0;                 /* recording stopped on an error (memory, keep raised) */
static PyThreadState *paused_on = NULL; /* the thread whose recording is paused, if any */
static _Thread_local int busy = 0;     /* this thread is inside keep(): its frames are ours */
static PyObject *decided = NULL;       /* dict filename -> bool */
static PyObject *keep = NULL;          /* callable or None */
static PyObject *codes = NULL;         /* list: wanted code objects, each once */
static PyObject *probe = NULL;         /* a Python function whose frame tells whether frames reach the hook */
static PyObject *probe_code = NULL;    /* its code object while reaches() runs */
static int probe_seen = 0;
static void **seen = NULL;             /* open addressing set of their addresses (kept alive) */
static size_t seen_cap = 0, seen_len = 0;

static int seen_add(void *p);

static int seen_grow(void) {
    size_t old_cap = seen_cap;
    void **old = seen;
    size_t cap = old_cap ? old_cap * 2 : 1024;
    void **fresh = PyMem_Calloc(cap, sizeof(void *));
    if (fresh == NULL) {
        return -1;
    }
    seen = fresh;
    seen_cap = cap;
    seen_len = 0;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i] != NULL) {
            seen_add(old[i]);
        }
    }
    PyMem_Free(old);
    return 0;
}

/* 1: added, 0: already there, -1: no memory */
static int seen_add(void *p) {
    if ((seen_len + 1) * 2 > seen_cap && seen_grow() < 0) {
        return -1;
    }
    size_t mask = seen_cap - 1;
    size_t i = (((size_t)p >> 4) * (size_t)0x9E3779B97F4A7C15ull) & mask;
    while (seen[i] != NULL) {
        if (seen[i] == p) {
            return 0;
        }
        i = (i + 1) & mask;
    }
    seen[i] = p;
    seen_len++;
    return 1;
}

/* Whether code from this file is wanted: 1 / 0, -1 on error (exception set). */
static int wanted(PyObject *filename) {
    if (keep == Py_None) {
        return 1;
    }
    PyObject *hit = PyDict_GetItemWithError(decided, filename);
    if (hit != NULL) {
        return hit == Py_True;
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    busy = 1;
    PyObject *answer = PyObject_CallOneArg(keep, filename);
    busy = 0;
    if (answer == NULL) {
        return -1;
    }
    int yes = PyObject_IsTrue(answer);
    Py_DECREF(answer);
    if (yes < 0 || PyDict_SetItem(decided, filename, yes ? Py_True : Py_False) < 0) {
        return -1;
    }
    return yes;
}

static void note(PyObject *code) {
    PyObject *filename = ((PyCodeObject *)code)->co_filename;
    /* a frame may be evaluated with an exception pending (a generator's throw): keep it aside */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    int yes = wanted(filename);
    if (yes > 0) {
        int added = seen_add(code);
        if (added > 0) {
            if (PyList_Append(codes, code) < 0) {
                yes = -1;
            }
        } else if (added < 0) {
            yes = -1;
        }
    }
    if (yes < 0) {
        PyErr_Clear();
        failed = 1;
        recording = 0;
    }
    PyErr_Restore(type, value, traceback);
}

static PyObject *hook(PyThreadState *tstate, struct _PyInterpreterFrame *frame, int throwflag) {
    if (probe_code != NULL && FRAME_CODE(frame) == probe_code) {
        probe_seen = 1;
    }
    if (recording && !busy && tstate != paused_on) {
        PyObject *code = FRAME_CODE(frame);
        if (code != NULL) {
            note(code);
        }
    }
    if (previous != NULL) {
        return previous(tstate, frame, throwflag);
    }
    return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}

static void forget(void) {
    Py_CLEAR(decided);
    Py_CLEAR(keep);
    Py_CLEAR(codes);
    PyMem_Free(seen);
    seen = NULL;
    seen_cap = seen_len = 0;
}

/* Whether a frame evaluated now reaches the hook: it is the interpreter's frame function, or the
 * function that replaced it hands frames on to it (Dynamo's shim does, and a failed compile can
 * leave the shim installed with no callback). 1 / 0, -1 on error. */
static int reaches(void) {
    if (probe == NULL) {
        return 0;
    }
    PyObject *code = PyObject_GetAttrString(probe, "__code__");
    if (code == NULL) {
        return -1;
    }
    probe_code = code;
    probe_seen = 0;
    PyObject *out = PyObject_CallNoArgs(probe);
    probe_code = NULL;
    Py_DECREF(code);
    if (out == NULL) {
        return -1;
    }
    Py_DECREF(out);
    return probe_seen;
}

static PyObject *set_probe(PyObject *module, PyObject *fn) {
    if (!PyFunction_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "set_probe: a Python function is needed");
        return NULL;
    }
    Py_INCREF(fn);
    Py_XSETREF(probe, fn);
    Py_RETURN_NONE;
}

static PyObject *start_window(PyObject *module, PyObject *args) {
    PyObject *new_decided, *new_keep;
    if (!PyArg_ParseTuple(args, "O!O:start", &PyDict_Type, &new_decided, &new_keep)) {
        return NULL;
    }
    if (new_keep != Py_None && !PyCallable_Check(new_keep)) {
        PyErr_SetString(PyExc_TypeError, "start: keep must be callable or None");
        return NULL;
    }
    if (recording) {
        PyErr_SetString(PyExc_RuntimeError, "start: a recording window is already open");
        return NULL;
    }
    PyObject *new_codes = PyList_New(0);
    if (new_codes == NULL) {
        return NULL;
    }
    PyInterpreterState *interp = PyThreadState_Get()->interp;
    _PyFrameEvalFunction current = _PyInterpreterState_GetEvalFrameFunc(interp);
    int chained = 0;
    if (installed && current != hook) {
        /* replaced in an earlier window and never given back. If frames still reach the hook
         * through whoever replaced it, record as before; else the caller records another way
         * (installing the hook again could loop: the replacement may call it). */
        int r = reaches();
        if (r < 0) {
            Py_DECREF(new_codes);
            return NULL;
        }
        if (r == 0) {
            Py_DECREF(new_codes);
            Py_RETURN_FALSE;
        }
        chained = 1;
    }
    forget();
    Py_INCREF(new_decided);
    decided = new_decided;
    Py_INCREF(new_keep);
    keep = new_keep;
    codes = new_codes;
    failed = 0;
    paused_on = NULL;
    if (!chained && current != hook) {
        previous = current == _PyEval_EvalFrameDefault ? NULL : current;
        _PyInterpreterState_SetEvalFrameFunc(interp, hook);
        installed = 1;
    }
    recording = 1;
    Py_RETURN_TRUE;
}

static PyObject *pause_here(PyObject *module, PyObject *unused) {
    paused_on = PyThreadState_Get();
    Py_RETURN_NONE;
}

static PyObject *resume_here(PyObject *module, PyObject *unused) {
    paused_on = NULL;
    Py_RETURN_NONE;
}

static PyObject *stop_window(PyObject *module, PyObject *unused) {
    int was_failed = failed;
    recording = 0;
    paused_on = NULL;
    PyInterpreterState *interp = PyThreadState_Get()->interp;
    int ours = installed && _PyInterpreterState_GetEvalFrameFunc(interp) == hook;
    int intact = ours;
    if (!ours && installed) {
        int r = reaches();
        if (r < 0) {
            PyErr_Clear();
            r = 0;
        }
        intact = r;  /* still handed every frame by what replaced it */
    }
    if (ours) {
        /* back to what was there; a hook someone stacked on ours keeps calling ours, which then
         * only passes frames on */
        _PyInterpreterState_SetEvalFrameFunc(interp, previous != NULL ? previous : _PyEval_EvalFrameDefault);
        previous = NULL;
        installed = 0;
    }
    PyObject *out = Py_BuildValue("(OO)", codes != NULL ? codes : Py_None, (intact && !was_failed) ? Py_True : Py_False);
    forget();
    return out;
}

static PyObject *is_installed(PyObject *module, PyObject *unused) {
    PyInterpreterState *interp = PyThreadState_Get()->interp;
    return PyBool_FromLong(_PyInterpreterState_GetEvalFrameFunc(interp) == hook);
}

static PyMethodDef methods[] = {
    {"start", start_window, METH_VARARGS, "start(decided, keep) -> bool: record the wanted code objects from now."},
    {"pause", pause_here, METH_NOARGS, "Stop recording this thread's frames until resume()."},
    {"resume", resume_here, METH_NOARGS, "Record this thread's frames again."},
    {"stop", stop_window, METH_NOARGS, "End the window: (codes, intact)."},
    {"is_installed", is_installed, METH_NOARGS, "Whether the hook is the interpreter's frame function now."},
    {"set_probe", set_probe, METH_O, "set_probe(fn): the function whose frame tells whether frames reach the hook."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_opsweep_frames", "The recorder's frame-evaluation hook.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__opsweep_frames(void) {
    return PyModule_Create(&module_def);
}
