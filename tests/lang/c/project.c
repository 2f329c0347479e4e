// A C project laid out as C projects are: headers under include/, sources under src/, a
// test under tests/. A call to a function declared in a header resolves to the .c file
// that defines it; a static function is seen only by its own file; a function-like macro
// is called like a function; a field holding a function pointer has no known target, but
// the functions stored in a dispatch table are referenced.
// exact: calls, imports
// path: include/shapes.h
#ifndef SHAPES_H
#define SHAPES_H
#include <stddef.h>
//       ^ imports: <external>::stddef.h
#include "util.h"
//       ^ imports: include/util.h::

//      v defines: AREA macro
#define AREA(s) ((s)->w * (s)->h)
#define SHAPE_LOG(m) log_msg(m)
//                   ^ calls: log_msg (import)
#define shape_make shape_new
//                 ^ calls: shape_new (import)

typedef struct shape {
//             ^ defines: shape struct
    int w;
    //  ^ defines: shape.w variable
    int h;
    int (*draw)(struct shape *s);
} shape_t;
// ^ defines: shape_t type_alias

union value { int i; float f; };
//    ^ defines: value union

enum color { RED, GREEN };
//   ^ defines: color enum
//           ^ defines: color.RED constant

struct shape *shape_new(int w, int h);
int shape_area(struct shape *s);
extern int shape_count;
#endif
// path: include/util.h
#pragma once
static inline int clamp(int v) { return v < 0 ? 0 : v; }
//                ^ defines: clamp function
int log_msg(const char *m);
// path: src/shapes.c
#include <stdlib.h>
//       ^ imports: <external>::stdlib.h
#include "shapes.h"
//       ^ imports: include/shapes.h::

int shape_count = 0;

static int draw_box(struct shape *s) {
    return log_msg("box");
    //     ^ calls: log_msg (import)
}

static struct shape_ops { int (*draw)(struct shape *); } box_ops = { .draw = draw_box };
//                                                                           ^ references: src/shapes.c::draw_box

struct shape *shape_new(int w, int h) {
    struct shape *s = malloc(sizeof *s);
    s->w = clamp(w);
    //     ^ calls: clamp (import)
    s->h = h;
    s->draw = draw_box;
    //        ^ references: src/shapes.c::draw_box
    SHAPE_LOG("new");
    // ^ calls: SHAPE_LOG (import)
    shape_count++;
    return s;
}

int shape_area(struct shape *s) {
    s->draw(s);
    // ^ calls: -
    return AREA(s);
    //     ^ calls: AREA (import)
}
// path: src/util.c
#include <stdio.h>
//       ^ imports: <external>::stdio.h
#include "../include/util.h"
//       ^ imports: include/util.h::

static int helper(const char *m) { return puts(m); }

int log_msg(const char *m) {
    return helper(m);
    //     ^ calls: helper (scope)
}
// path: src/other.c
static int helper(void) { return 0; }

int lib_call(int);

int main(void) {
    undeclared_call();
    // ^ unresolved: undeclared_call
    lib_call(1);
    // ^ calls: <external>::lib_call (import)
    return helper() + shape_area(0);
    //     ^ calls: src/other.c::helper (scope)
    //                ^ calls: shape_area (unique-name)
}
// path: tests/test_shapes.c
#include "shapes.h"
//       ^ imports: include/shapes.h::

void test_area(void) {
    struct shape *s = shape_make(2, 3);
    //                ^ calls: shape_make (import)
    shape_area(s);
    // ^ calls: shape_area (import)
}
