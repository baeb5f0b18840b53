/*
 * api.c - the public functions declared in hprof.h.
 */
#include "config.h"
#include "hprof.h"
#include "hp_event.h"

const char *hprof_version(void)
{
    return PACKAGE_VERSION;
}

void hprof_collect(int on)
{
    hp_collecting = on != 0;
    if (!on)
        hp_fast_disarm_all();
}

void hprof_reset(void)
{
    hp_records_reset();
}
