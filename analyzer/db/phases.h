/*
 * phases.h - hprof-merge's phase times, printed on stderr when the
 * environment variable HPROF_MERGE_PHASES is set (to find where a large
 * merge spends its time and memory): per phase the elapsed and CPU
 * seconds since the previous mark, the resident and peak memory.
 */
#ifndef HPF_PHASES_H
#define HPF_PHASES_H

/* Ends the phase `name` (started at the previous mark or at the first). */
void hpf_phase_mark(const char *name);

#endif
