/*
 * force.h - the header half of bench/kernels/force.c, like CoMD's
 * mytype.h: the vector type and a tiny static function on it that the
 * force loop calls once per atom (CoMD's zeroReal3).
 */
#ifndef FORCE_H
#define FORCE_H

typedef struct {
    double x, y, z;
} vec3;

/* zero_vec3 - clears v (straight-line: a tiny procedure of a header). */
static inline void zero_vec3(vec3 *v)
{
    v->x = 0.0;
    v->y = 0.0;
    v->z = 0.0;
}

#endif
