/*
 * hp_vtime.h - virtual time (HPROF_VIRTUAL_TIME=1, docs/virtual-time.md):
 * a receive that several senders could match (MPI_ANY_SOURCE) is given
 * the message that the run without monitoring would have matched, the one
 * of the earliest virtual send time.  Each process's virtual clock is its
 * real time less the calibrated cost of the monitoring events it took;
 * every point-to-point message is preceded by a small header on a shadow
 * communicator carrying its virtual send time (vtime.c: the choice;
 * vtime_clock.c, vtime_shadow.c, vtime_defer.c: hp_vtime_int.h).  The
 * generated wrappers and record.c call the hooks below, only when
 * hp_vt_on is set.
 */
#ifndef HP_VTIME_H
#define HP_VTIME_H

#include <mpi.h>
#include <stdint.h>

/* Non-zero when the mode is on (after MPI_Init, until MPI_Finalize). */
extern int hp_vt_on __attribute__((visibility("hidden")));

/* After MPI_Init(_thread) succeeded (collective over MPI_COMM_WORLD):
 * turns the mode on when HPROF_VIRTUAL_TIME=1 and the thread level is
 * below MPI_THREAD_MULTIPLE (else one warning and it stays off). */
void hp_vt_init(int thread_level);
/* At MPI_Finalize, before hprof's own collectives: tells every process
 * that this one will send nothing more, and turns the mode off. */
void hp_vt_finalize(void);

/* Non-zero when the mode ran in this process (after hp_vt_finalize too). */
int hp_vt_ran(void);

/* A communicator created (collective over it; MPI_COMM_NULL ignored) and
 * one about to be freed: its shadow is made and freed with it. */
void hp_vt_comm_created(MPI_Comm comm);
void hp_vt_comm_freed(MPI_Comm comm);

/* Before a point-to-point send of the user's (standard, buffered,
 * synchronous, ready; blocking or not): the header to dest. */
void hp_vt_send_header(MPI_Comm comm, int dest, int tag);
/* Before a communicator constructor over all of comm's members
 * (MPI_Comm_dup, split, create, the topology calls; vtime_coll.c): a
 * barrier with them that answers clock requests while it waits. */
void hp_vt_comm_entered(MPI_Comm comm);
/* MPI_Send_init and kin (send 1), MPI_Recv_init (send 0) returned rc
 * (vtime_persist.c): a persistent request on a controlled communicator is
 * remembered; rc is returned. */
int hp_vt_persistent(int rc, const MPI_Request *request, MPI_Comm comm, int peer, int tag,
                     int send);
/* Before MPI_Start/MPI_Startall: each remembered send sends its header,
 * each remembered receive posts its header's receive. */
void hp_vt_started(const MPI_Request *reqs, int n);
/* Before MPI_Request_free: a remembered request is forgotten. */
void hp_vt_request_freed(const MPI_Request *request);
/* Before a nonblocking receive of a specific source is posted: its
 * header's receive is posted alongside (so MPI matches the two in the
 * same order). */
void hp_vt_recv_posted(MPI_Comm comm, int source, int tag);
/* The sender a wildcard receive of tag on comm (controlled) takes its
 * message from; since 0: waits until decided; else one look, which gives
 * MPI_ANY_SOURCE while undecided (since: when the caller began to wait). */
int hp_vt_choose(int tag, MPI_Comm comm, uint64_t since);
/* MPI_Probe and MPI_Iprobe (vtime_defer.c): with MPI_ANY_SOURCE on a
 * controlled communicator they report the message the sender chosen so
 * would give; Iprobe reports none while undecided. */
int hp_vt_probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int hp_vt_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
/* MPI_Mprobe and MPI_Improbe (vtime_defer.c): a wildcard one chooses
 * as a receive does; every matched message's header is taken with it. */
int hp_vt_user_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *status);
int hp_vt_user_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                       MPI_Status *status);
/* A message of comm matched outside hp_vt_mprobe (status st): its header. */
void hp_vt_message_matched(MPI_Comm comm, const MPI_Status *st);
/* Blocking collectives (vtime_coll.c): on a controlled communicator the
 * generated wrapper starts the nonblocking counterpart with
 * &hp_vt_coll_req as its request and gives hp_vt_coll_wait the start's
 * return code; it waits for the request, answering clock requests as
 * blocked in a collective that needs (HP_VT_NEEDS_*) the members that
 * must enter it before it can complete here.  Nonblocking collectives
 * the program starts are counted (hp_vt_coll_started), as MPI orders
 * all collectives of a communicator. */
enum { HP_VT_NEEDS_NONE, HP_VT_NEEDS_ALL, HP_VT_NEEDS_ALL_AT_ROOT, HP_VT_NEEDS_ROOT,
       HP_VT_NEEDS_BELOW };
extern MPI_Request hp_vt_coll_req __attribute__((visibility("hidden")));
int hp_vt_coll_wait(int rc, MPI_Comm comm, int needs, int root);
void hp_vt_coll_started(MPI_Comm comm);

/* Answers the clock requests that have come (a blocked call's loop). */
void hp_vt_serve(void);
/* The same in a loop that began at `since` (hp_ticks) and waits for MPI:
 * after a short spin it also sleeps a little each time. */
void hp_vt_idle(uint64_t since);
/* Does the mode control the receives of comm (it has a shadow)? */
int hp_vt_controls(MPI_Comm comm);

/* MPI_Irecv (vtime_defer.c): one with MPI_ANY_SOURCE on a controlled
 * communicator is deferred: the program gets a generalized request that
 * the Wait/Test call completing it resolves (hp_vt_resolve: the sender
 * chosen as for MPI_Recv, then the message received); any other is
 * posted, with its header's receive. */
int hp_vt_irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Request *request);
/* Before a Wait/Test call on reqs[0..n): their deferred receives are
 * resolved, in array order (the order MPI matches posted receives in
 * when they were posted in that order); blocking 0 (Test): only those
 * decided at once, or waited for longer than the decision bound. */
void hp_vt_resolve(MPI_Request *reqs, int n, int blocking);
/* MPI_Mprobe for the receives hprof splits (MPI_Recv, MPI_Sendrecv): with
 * MPI_ANY_SOURCE it picks the sender first; it serves other processes'
 * clock requests while it waits, and takes the header of the message. */
int hp_vt_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st);
/* The same without waiting (Test): 0 and *flag 0 when the sender of a
 * wildcard receive is not decided yet and `since` (hp_ticks when the
 * receive began waiting) is within the decision bound. */
int hp_vt_improbe(int tag, MPI_Comm comm, uint64_t since, int *flag, MPI_Message *msg,
                  MPI_Status *st);
/* The synchronization time to record for the receive hp_vt_mprobe just
 * made, in ticks: its virtual wait (how long after its start, in virtual
 * time, the message was sent), at most the `real` wait measured plus what
 * earlier receives recorded less than theirs (the recorded waits never
 * sum to more than the real ones); `real` when unknown.  Once per receive. */
uint64_t hp_vt_wait_ticks(uint64_t real);
/* MPI_Recv when nothing is recorded (MPI_Pcontrol(0)): the same choice. */
int hp_vt_recv_plain(void *buf, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Status *status);

#endif
