/*
 * enter.c - the throttling settings of the enter/exit funnel (hp_enter.h).
 */
#include "hp_enter.h"

uint64_t hp_throttle_calls = 100000;
uint64_t hp_throttle_ticks;

void hp_throttle_set(uint64_t calls, uint64_t ticks)
{
    hp_throttle_calls = calls;
    hp_throttle_ticks = ticks;
}
