/*
 * The Python resolver's methods written in C (core_chain.c eval_chain, core_lookup.c
 * lookup_name): what they share, defined in core_chain.c.
 */
#ifndef CODEIMPACT_CORE_METHODS_H
#define CODEIMPACT_CORE_METHODS_H

#include "core.h"

/* the shared names interned (and `zero`), once: 0, or -1 */
int methods_init(void);
extern PyObject *zero; /* (the default depth) */
/* a depth argument as a C long (a huge one clamped): 0, or -1 */
int depth_of(PyObject *depth, long *d);
/* `self.NAME(*args)` (n arguments after self; args[0] is self) */
PyObject *call_method(PyObject *name, PyObject **args, Py_ssize_t n);
/* `self.memo.cuts` (new reference) */
PyObject *memo_cuts(PyObject *self);
/* a method's arguments by position or keyword into `a` (n parameters, the first `required`
 * required, the others None unless given; `depth`, at `at_depth`, 0): 0, or -1 */
int method_args(const char *method, const char *const *params, int n, int required,
                int at_depth, PyObject *const *args, Py_ssize_t nargsf, PyObject *kwnames,
                PyObject **a);

#endif
