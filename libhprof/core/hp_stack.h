/*
 * hp_stack.h - room for one more entry of a per-thread stack that grows
 * on demand (the open constructs of the OMPT and POMP2 sources): tasks
 * run nested in taskwaits make such stacks as deep as the task tree, so a
 * fixed size would drop the records of deep trees.
 */
#ifndef HP_STACK_H
#define HP_STACK_H

#include <stddef.h>
#include <stdint.h>

/* Entries a stack may hold: past this (or without memory) an entry is
 * not kept and its construct is not recorded. */
#define HP_STACK_MAX (1u << 20)

/* Makes room for entry n of *items, an array of *cap entries of `size`
 * bytes, growing it (entries may move: keep no pointers into it across
 * calls); 0 if there is none. */
int hp_stack_room(void **items, uint32_t *cap, uint32_t n, size_t size);

#endif
