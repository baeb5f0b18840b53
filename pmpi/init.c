/*
 * init.c - the hand-written life-cycle wrappers: MPI_Init(_thread) starts
 * measuring, MPI_Pcontrol switches it, MPI_Finalize runs the end-of-run
 * pipeline (hp_finish.h) with its MPI stages - the summary reduced over
 * ranks, the profile written collectively - before the real MPI_Finalize;
 * MPI_Abort writes the aborting rank's records on their own, as no other
 * rank will take part, and so does a rank that a signal ends or that
 * exits without MPI_Finalize (hp_crash.h).  Their Fortran bindings are
 * at the end.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_calibrate.h"
#include "hp_crash.h"
#include "hp_finish.h"
#include "hp_format.h"
#include "hp_live.h"
#include "hp_log.h"
#include "hp_process.h"
#include "hp_runtime.h"
#include "hp_vtime.h"

volatile int hp_mpi_active;
int hp_world_rank, hp_world_size;
static hp_run_info run;

static void before_init(void)
{
    hp_runtime_init();
    hp_process_mpi_started();
    hp_records_defer_overflow_warning();
    hp_process_command_line(&run);
    hp_crash_disarm(); /* the MPI library installs its crash report as without hprof */
}

static void write_dying_rank(uint32_t flags);

/* Rank 0's time stamp names every rank's files (a dying run's ranks
 * each write their own, and hprof-query merges them by name). */
static void share_run_stamp(void)
{
    char stamp[32] = "";
    if (hp_world_rank == 0)
        hp_process_run_stamp(stamp, sizeof stamp);
    if (PMPI_Bcast(stamp, sizeof stamp, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
        hp_process_set_run_stamp(stamp);
}

static void after_init(int thread_level)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &hp_world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &hp_world_size);
    if (hp_world_rank)
        hp_log_set_rank(hp_world_rank);
    hp_thread_self();
    share_run_stamp();
    hp_linger_init();
    hp_crash_set_writer(write_dying_rank);
    hp_crash_arm(); /* over the handlers the MPI library installed */
    hp_vt_init(thread_level);
    hp_mpi_active = 1;
    hp_live_start((uint32_t)hp_world_rank, (uint32_t)hp_world_size);
}

/* MPI_Init's own time (the rank's wall window starts with the process, so
 * it lies inside): a call site named after it, like a local MPI call. */
static void record_init(uintptr_t ra, int id, uint64_t ticks)
{
    hp_thread *t = hp_mpi_begin();
    if (t)
        hp_mpi_local_time(t, hp_mpi_local_node(t, ra, id), ticks);
}

static int init_at(uintptr_t ra, int *argc, char ***argv)
{
    before_init();
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        after_init(MPI_THREAD_SINGLE); /* its broadcast is part of the call, as the program sees it */
        record_init(ra, HP_MPI_Init, hp_ticks() - t0);
    }
    return rc;
}

HP_MPI_API int MPI_Init(int *argc, char ***argv)
{
    return init_at((uintptr_t)__builtin_return_address(0), argc, argv);
}

static int init_thread_at(uintptr_t ra, int *argc, char ***argv, int required, int *provided)
{
    before_init();
    uint64_t t0 = hp_ticks();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        hp_reqmap_set_threaded(*provided == MPI_THREAD_MULTIPLE);
        after_init(*provided);
        record_init(ra, HP_MPI_Init_thread, hp_ticks() - t0);
    }
    return rc;
}

HP_MPI_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    return init_thread_at((uintptr_t)__builtin_return_address(0), argc, argv, required,
                          provided);
}

static void pcontrol(int level)
{
    if (level == 0) {
        hp_collecting = 0;
        hp_fast_disarm_all();
    } else if (level == 1)
        hp_collecting = 1;
    else if (level == 2)
        hp_records_reset();
}

HP_MPI_API int MPI_Pcontrol(const int level, ...)
{
    pcontrol(level);
    return PMPI_Pcontrol(level);
}

/* This rank's records and the run's description, at the end of its run. */
static void take_rank_data(hp_rank_data *rd)
{
    if (hp_finish_take(rd, &run, (uint32_t)hp_world_rank, (uint32_t)hp_world_size) != 0)
        hp_warn("out of memory while collecting records; this rank's data is incomplete");
    if (hp_vt_ran())
        rd->info.flags |= HP_RANKF_VIRTUAL_TIME;
}

/* The end of the run: 0 when the profile (or this rank's file of it)
 * was written. */
static int finish_run(void)
{
    hp_rank_data rd;
    hp_agg agg;
    char path[PATH_MAX] = "";

    take_rank_data(&rd);
    hp_calibrate_hooks(rd.info.cost);
    int agg_ok = hp_reduce_summary(&rd, &agg) == 0;
    int mode = hp_aggregate_mode(hp_world_size);
    int wrote = mode == 1 ? hp_write_aggregate(&rd, &run, NULL, path, sizeof path)
                          : hp_write_profile(&rd, &run, path, sizeof path);
    char agg_path[PATH_MAX] = "";
    int agg_wrote = mode == 2 && hp_write_aggregate(&rd, &run, "agg", agg_path,
                                                    sizeof agg_path) == 0;
    int written = wrote == 0;

    if (hp_world_rank == 0 && agg.overflow_ranks)
        hp_warn("HPROF_MAX_NODES=%llu reached on %u of %u ranks: %llu calls were "
                "counted in one <overflow> node", (unsigned long long)hp_cfg.max_nodes,
                agg.overflow_ranks, agg.nranks, (unsigned long long)agg.overflow_events);
    if (hp_world_rank == 0) {
        if (!agg_ok && hp_cfg.summary != HP_SUMMARY_OFF)
            hp_warn("the summary is incomplete (a rank ran out of memory)");
        if (hp_vt_ran() && hp_cfg.summary != HP_SUMMARY_OFF)
            fprintf(stderr, "hprof: virtual time on (HPROF_VIRTUAL_TIME=1): wildcard receives "
                    "matched by virtual send time (docs/virtual-time.md)\n");
        hp_finish_print(&agg, &run, written ? path : NULL);
        if (agg_wrote)
            fprintf(stderr, "hprof: aggregated profile written to %s\n", agg_path);
        if (wrote == 1) { /* the summary named no file: the per-rank ones */
            char stem[PATH_MAX], quoted[4 * PATH_MAX + 8];
            size_t n = strlen(path);
            int ext = n > 4 && strcmp(path + n - 4, ".hpf") == 0;
            snprintf(stem, sizeof stem, "%.*s", (int)(ext ? n - 4 : n), path);
            hp_process_shell_quote(stem, quoted, sizeof quoted);
            fprintf(stderr, "hprof: drill down with: hprof-query %s.rank*.hpf\n", quoted);
        }
    }
    hp_agg_free(&agg);
    hp_rank_data_free(&rd);
    return wrote >= 0 ? 0 : -1;
}

static void finalize(void)
{
    if (hp_mpi_active && hp_crash_claim()) {
        hp_vt_finalize(); /* before the collectives of the end of the run */
        hp_mpi_active = 0;
        hp_live_stop();
        if (finish_run() == 0)
            hp_live_remove(); /* the profile replaces the live snapshot */
        hp_process_mpi_finished();
        hp_run_info_free(&run);
        hp_reqmap_free_all();
        hp_rankmap_free_all();
        hp_crash_release(0);
    }
}

HP_MPI_API int MPI_Finalize(void)
{
    finalize();
    return PMPI_Finalize();
}

/* A profile of the whole run that holds this rank's records only, the
 * others marked missing, written without any communication: by a rank
 * that calls MPI_Abort (flags HP_RANKF_ABORTED, code its error code), that
 * a signal ends or that exits without MPI_Finalize (hp_crash.h).  One
 * line replaces the summary, which would need the other ranks. */
/* The node of an MPI call under way on t (hp_event_calls_under_way):
 * under t's current context, without a call path (the stack at hand is
 * not the one that made the call, or is a signal handler's). */
static uint32_t node_under_way(hp_thread *t, uintptr_t ra, uint32_t id)
{
    uint32_t statement = hp_event_comm_statement(t);
    if (statement != HP_NO_NODE)
        return statement;
    return hp_event_site_node(t, ra, HP_KIND_COMM, hp_mpi_names[id], hp_mpi_site_flags[id]);
}

static void write_rank_alone(uint32_t flags, int code)
{
    hp_rank_data rd;
    char path[PATH_MAX] = "", tag[32], who[32], how[160];
    int status;

    /* where the rank's threads wait when it ends: an MPI_Recv that no
     * message will match, a barrier a dead rank never reaches */
    hp_event_calls_under_way(hp_ticks(), node_under_way);
    hp_live_stop();
    take_rank_data(&rd);
    rd.info.flags |= flags;
    snprintf(tag, sizeof tag, "rank%d", hp_world_rank);
    snprintf(who, sizeof who, "rank %d", hp_world_rank);
    if (flags & HP_RANKF_ABORTED)
        snprintf(how, sizeof how, "MPI_Abort (error code %d) on rank %d", code, hp_world_rank);
    else if (hp_exit_called(&status))
        snprintf(how, sizeof how, "rank %d ended without MPI_Finalize (_exit, status %d: the MPI "
                 "library ends a rank so on an MPI error)", hp_world_rank, status);
    else
        hp_finish_ending(flags, who, how, sizeof how);
    int written = hp_finish_write_local(&rd, &run, tag, path, sizeof path) == 0;
    if (written)
        hp_live_remove(); /* its file replaces its live snapshot */
    if (written)
        hp_warn("%s: its records up to then are in %s (hprof-query merges the run's "
                ".rank<N>.hpf files)", how, path);
    else if (!path[0])
        hp_warn("%s: its records are lost", how);
    else if (errno == ENOMEM)
        hp_warn("%s: out of memory, this rank's records are lost", how);
    else
        hp_warn("%s: cannot write this rank's records to %s: %s", how, path, strerror(errno));
    hp_rank_data_free(&rd);
    hp_linger_mark_ended();
}

/* hp_crash.h's writer for a rank that a signal, exit or _exit ends.  A
 * launcher ends the other processes of a job as soon as one of them
 * ends, so the rank lingers after writing until the node's other ranks
 * have written theirs (linger.c). */
static void write_dying_rank(uint32_t flags)
{
    hp_mpi_active = 0;
    write_rank_alone(flags, 0);
    hp_process_mpi_finished();
    hp_linger_until_node_ended();
}

static void before_abort(int errorcode)
{
    if (hp_mpi_active && hp_crash_claim()) {
        hp_mpi_active = 0;
        write_rank_alone(HP_RANKF_ABORTED, errorcode);
        hp_process_mpi_finished();
        hp_crash_release(0);
    }
}

HP_MPI_API int MPI_Abort(MPI_Comm comm, int errorcode)
{
    before_abort(errorcode);
    return PMPI_Abort(comm, errorcode);
}

/* ---- the same, called from Fortran (hp_fortran.h): Open MPI's Fortran
 * MPI_INIT passes no command line, as here. */

static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror)  /* optional in mpi_f08 */
        *ierror = rc;
}

void hp_f_MPI_Init(MPI_Fint *ierror)
{
    int argc = 0;
    char **argv = NULL;
    set_ierror(ierror, init_at((uintptr_t)__builtin_return_address(0), &argc, &argv));
}

void hp_f_MPI_Init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    int argc = 0, c_provided = MPI_THREAD_SINGLE;
    char **argv = NULL;
    int rc = init_thread_at((uintptr_t)__builtin_return_address(0), &argc, &argv, *required,
                            &c_provided);
    if (rc == MPI_SUCCESS)
        *provided = c_provided;
    set_ierror(ierror, rc);
}

void hp_f_MPI_Pcontrol(MPI_Fint *level)
{
    pcontrol(*level);
    PMPI_Pcontrol(*level);
}

void hp_f_MPI_Finalize(MPI_Fint *ierror)
{
    finalize();
    set_ierror(ierror, PMPI_Finalize());
}

void hp_f_MPI_Abort(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierror)
{
    before_abort(*errorcode);
    set_ierror(ierror, PMPI_Abort(PMPI_Comm_f2c(*comm), *errorcode));
}

/* Open MPI's names of each: mpif.h and `use mpi` in four manglings, and
 * `use mpi_f08` (gen_fortran.py names the generated ones alike). */
#define HP_F_ALIAS(fn, name) \
    extern __typeof__(fn) name __attribute__((alias(#fn), visibility("default")))
HP_F_ALIAS(hp_f_MPI_Init, MPI_INIT);
HP_F_ALIAS(hp_f_MPI_Init, mpi_init);
HP_F_ALIAS(hp_f_MPI_Init, mpi_init_);
HP_F_ALIAS(hp_f_MPI_Init, mpi_init__);
HP_F_ALIAS(hp_f_MPI_Init, mpi_init_f08_);
HP_F_ALIAS(hp_f_MPI_Init_thread, MPI_INIT_THREAD);
HP_F_ALIAS(hp_f_MPI_Init_thread, mpi_init_thread);
HP_F_ALIAS(hp_f_MPI_Init_thread, mpi_init_thread_);
HP_F_ALIAS(hp_f_MPI_Init_thread, mpi_init_thread__);
HP_F_ALIAS(hp_f_MPI_Init_thread, mpi_init_thread_f08_);
HP_F_ALIAS(hp_f_MPI_Pcontrol, MPI_PCONTROL);
HP_F_ALIAS(hp_f_MPI_Pcontrol, mpi_pcontrol);
HP_F_ALIAS(hp_f_MPI_Pcontrol, mpi_pcontrol_);
HP_F_ALIAS(hp_f_MPI_Pcontrol, mpi_pcontrol__);
HP_F_ALIAS(hp_f_MPI_Pcontrol, mpi_pcontrol_f08_);
HP_F_ALIAS(hp_f_MPI_Finalize, MPI_FINALIZE);
HP_F_ALIAS(hp_f_MPI_Finalize, mpi_finalize);
HP_F_ALIAS(hp_f_MPI_Finalize, mpi_finalize_);
HP_F_ALIAS(hp_f_MPI_Finalize, mpi_finalize__);
HP_F_ALIAS(hp_f_MPI_Finalize, mpi_finalize_f08_);
HP_F_ALIAS(hp_f_MPI_Abort, MPI_ABORT);
HP_F_ALIAS(hp_f_MPI_Abort, mpi_abort);
HP_F_ALIAS(hp_f_MPI_Abort, mpi_abort_);
HP_F_ALIAS(hp_f_MPI_Abort, mpi_abort__);
HP_F_ALIAS(hp_f_MPI_Abort, mpi_abort_f08_);
