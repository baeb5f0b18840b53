/*
 * dbcomp.h - intrusion compensation in the database (docs/compensation.md):
 * at merge time every rank's node times are compensated with the costs
 * its profile recorded (hp_compensate.h) into stat.time, min and max; the
 * raw times stay beside them (stat.raw_time, raw_min, raw_max), the costs
 * in rank_cost and the estimate of each rank's overhead in rank.  A query
 * with --raw sees the raw times under the usual names.
 */
#ifndef HPF_DBCOMP_H
#define HPF_DBCOMP_H

#include <sqlite3.h>
#include "hp_compensate.h"
#include "read/hpf_read.h"

/* Compensated times of the ranks of p: values[r] holds 3 x nnodes values
 * (time, min, max) once hpf_comp_rank(p, r) has run; stats[r] what
 * compensating rank r did.  Both return 0, or -1 without memory
 * (hpf_comp_free frees what there is). */
typedef struct hpf_comp {
    uint32_t nranks;
    double **values;
    hp_comp_stats *stats;
} hpf_comp;
int hpf_comp_start(const hpf_profile *p, hpf_comp *c);
int hpf_comp_rank(const hpf_profile *p, uint32_t r, hpf_comp *c);
void hpf_comp_free(hpf_comp *c);

/* Makes this connection's queries see the raw times: a temporary `stat`
 * view with the raw columns under the names time, min and max, and the
 * database's views again as temporary ones over it (view_sql: the
 * database's view definitions).  0, or -1 with the message in err. */
int hpq_use_raw_times(sqlite3 *db, const char *view_sql, char *err, size_t errlen);

/* Runs sql (statements separated by ';'); 0, or -1 with err "sqlite: MESSAGE". */
int hpf_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

#endif
