/*
 * stack.c - growable per-thread stacks (hp_stack.h).
 */
#include <assert.h>
#include <stdlib.h>
#include "hp_stack.h"

int hp_stack_room(void **items, uint32_t *cap, uint32_t n, size_t size)
{
    assert(size > 0);
    if (n < *cap)
        return 1;
    if (n >= HP_STACK_MAX)
        return 0;
    uint32_t want = *cap ? *cap * 2 : 64;
    while (want <= n)
        want *= 2;
    if (want > HP_STACK_MAX)
        want = HP_STACK_MAX;
    void *p = realloc(*items, (size_t)want * size);
    if (!p)
        return 0;
    *items = p;
    *cap = want;
    return 1;
}
