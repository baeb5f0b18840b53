/*
 * hprof.h - the public C API of hprof for code that wants to steer the
 * profiler directly (MPI programs can also use MPI_Pcontrol).
 */
#ifndef HPROF_H
#define HPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#define HPROF_API __attribute__((visibility("default")))

/* Version of the library, e.g. "0.1.0". */
HPROF_API const char *hprof_version(void);
/* on = 0 stops recording, on = 1 resumes (as MPI_Pcontrol(0) / (1)). */
HPROF_API void hprof_collect(int on);
/* Zeroes every record gathered so far (as MPI_Pcontrol(2)). */
HPROF_API void hprof_reset(void);
/* A user region: a node named `name` under the current calling context
 * (site: the name at the caller's file:line).  Regions nest; each thread
 * has its own stack of open regions, and hprof_region_end must name the
 * innermost one of its thread (otherwise it is ignored, after one
 * warning).  Regions may be opened while collection is off: they then
 * record nothing but still pair with their end. */
HPROF_API void hprof_region_begin(const char *name);
HPROF_API void hprof_region_end(const char *name);

#ifdef __cplusplus
}
#endif

#endif
