/*
 * vtime_coll.c - virtual time in collectives (hp_vtime.h, DESIGN.md
 * "Virtual time"): a blocking collective on a controlled communicator
 * runs as its nonblocking counterpart (the generated wrapper starts it)
 * and a loop of MPI_Test that answers the other processes' clock
 * requests meanwhile, saying "in the collective number n of this
 * communicator, which cannot complete here before these members enter
 * it".  A wildcard receiver that such a member needs is sure the process
 * sends nothing before its receive completes: it is settled at once,
 * where a process blocked inside MPI's own collective would not answer
 * and the receiver would wait out its time bound.  A communicator
 * constructor over its parent's members meets them first in such a
 * barrier (MPI's constructor, which answers nothing, then waits for no
 * one).
 */
#include <stdint.h>
#include "hp_mpi.h"
#include "hp_vtime.h"
#include "hp_vtime_int.h"

MPI_Request hp_vt_coll_req = MPI_REQUEST_NULL;
hp_vt_in_coll hp_vt_coll_now = {.id = UINT64_MAX};

void hp_vt_coll_started(MPI_Comm comm)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    if (s)
        s->colls++;
}

/* The members this process's part of a collective waits for, as the
 * comm-rank range [*lo, *hi] (empty: lo > hi). */
static void needed_members(const hp_vt_shadow *s, int needs, int root, int *lo, int *hi)
{
    *lo = 0;
    *hi = -1;
    if (needs == HP_VT_NEEDS_ALL || (needs == HP_VT_NEEDS_ALL_AT_ROOT && s->rank == root))
        *hi = s->size - 1;
    else if (needs == HP_VT_NEEDS_ROOT && s->rank != root)
        *lo = *hi = root;
    else if (needs == HP_VT_NEEDS_BELOW)
        *hi = s->rank - 1;
}

int hp_vt_coll_wait(int rc, MPI_Comm comm, int needs, int root)
{
    hp_vt_shadow *s = hp_vt_shadow_of(comm);
    MPI_Request *req = &hp_vt_coll_req;
    int flag = 0;
    if (rc != MPI_SUCCESS)
        return rc;
    if (s) {
        hp_vt_coll_now = (hp_vt_in_coll){.id = s->id, .seq = s->colls++};
        needed_members(s, needs, root, &hp_vt_coll_now.lo, &hp_vt_coll_now.hi);
    }
    uint64_t since = hp_ticks();
    while ((rc = PMPI_Test(req, &flag, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !flag)
        hp_vt_idle(since);
    hp_vt_coll_now.id = UINT64_MAX;
    return rc;
}

void hp_vt_comm_entered(MPI_Comm comm)
{
    /* also on an intercommunicator (no shadow): the process answers its
     * clock meanwhile, which passes a waiting receiver's candidate */
    hp_vt_coll_wait(PMPI_Ibarrier(comm, &hp_vt_coll_req), comm, HP_VT_NEEDS_ALL, 0);
}

int hp_vt_coll_settles(const hp_vt_peer *p)
{
    if (!p->in_coll)
        return 0;
    const hp_vt_shadow *s = hp_vt_shadow_by_id(p->coll.id);
    /* a member it waits for that has not entered that collective yet */
    return s && s->rank >= p->coll.lo && s->rank <= p->coll.hi && s->colls <= p->coll.seq;
}
