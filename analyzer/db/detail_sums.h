/*
 * detail_sums.h - the table-valued function hprof_comm_sums(what, nodes)
 * of a database merged without per-rank rows (detail_sums.c): the comm
 * rows of some nodes summed in C, read where the virtual table `comm`
 * reads them (detail_src.h), for the per-rank views of one site
 * (--comm SITE --by-rank, --matrix SITE), which SQLite took 0.3-0.6 s to
 * group at 1024 ranks.  The numbers are the SQL's over `comm`: each
 * group's rows added in the order that SQL added them.
 *
 * `nodes` is a list of merged node ids ("3,7,12", as hpq_sel has them);
 * `what` says how the rows are grouped, and what the columns k1, k2,
 * n1..n4 (integers) and t1..t4 (reals) hold:
 *   'peers'   a row per (rank, peer), as GROUP BY comm.rank, comm.peer:
 *             k1 rank, k2 peer, n1..n3 SUM(count), SUM(bytes_sent),
 *             SUM(bytes_recv), t1..t4 SUM(tran), SUM(sync), MIN(min),
 *             MAX(max);
 *   'matrix'  a row per cell of hpf_matrix_cells_fmt (db_agg.h) before
 *             its filter: k1 sender, k2 receiver, n1 bytes, n2 messages,
 *             t1 tran, t2 sync;
 *   'leftout' one row, hpf_matrix_leftout_fmt's: n1 coll_bytes,
 *             n2 coll_calls, n3 file_bytes, n4 p2p_bytes, t1 coll_time.
 * Rows come in (k1, k2) order.
 */
#ifndef HPF_DETAIL_SUMS_H
#define HPF_DETAIL_SUMS_H

#include <sqlite3.h>
#include "detail_src.h"

#define HPF_SUMS_FN "hprof_comm_sums"

/* Makes the function known to connection db, reading through s (the
 * connection's source of the `comm` rows, owned by its caller).  An
 * SQLite result code. */
int hpf_detail_sums_register(sqlite3 *db, hpf_detail_src *s);

#endif
