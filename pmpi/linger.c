/*
 * linger.c - the ranks of one node that write their records alone leave
 * together (hp_mpi.h).  Once a rank of a job has ended without
 * MPI_Finalize, Open MPI's launcher sends the node's other ranks SIGCONT,
 * SIGTERM at the next rank that ends and SIGKILL at the one after
 * (measured with strace on mpirun 4.1: 15 ms, then 5 ms, its sleep(1) cut
 * short by SIGCHLD each time): a rank that has written its records and
 * ends gets the ones still writing killed.  So each rank that writes
 * alone adds one byte to a file of its node's ranks of the run (in
 * /dev/shm, else /tmp) and, when it is not MPI_Abort's, waits until the
 * file holds a byte of every rank of the node, at most HP_LINGER_MAX_MS
 * (the others may be computing: then they are killed after it, their
 * records written in their turn).  The last one removes the file.  A
 * file a killed job left (its node's ranks never all ended) is removed by
 * the next run's node leader on that node: its name ends in the pid of
 * its own node leader, which is then gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "hp_mpi.h"
#include "hp_process.h"

#define HP_LINGER_MAX_MS 2000
#define HP_LINGER_POLL_MS 5

static char ended_path[256];
static int node_ranks;

/* Removes dir's hprof-HOST-*-PID.ended files whose PID, a node leader of
 * an earlier run on this host, no longer exists. */
static void remove_stale(const char *dir, const char *host)
{
    char prefix[80], path[512];
    size_t plen = (size_t)snprintf(prefix, sizeof prefix, "hprof-%s-", host);
    DIR *d = opendir(dir);
    if (!d || plen >= sizeof prefix) {
        if (d)
            closedir(d);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *name = e->d_name, *dash = strrchr(name, '-');
        size_t len = strlen(name);
        if (strncmp(name, prefix, plen) != 0 || len < 6 || strcmp(name + len - 6, ".ended") != 0 ||
            !dash)
            continue;
        char *end;
        long pid = strtol(dash + 1, &end, 10);
        if (pid <= 0 || strcmp(end, ".ended") != 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) < sizeof path)
            unlink(path);
    }
    closedir(d);
}

void hp_linger_init(void)
{
    MPI_Comm node;
    long leader = (long)getpid();
    char stamp[48], host[64] = "";
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return;
    PMPI_Comm_size(node, &node_ranks);
    PMPI_Bcast(&leader, 1, MPI_LONG, 0, node);
    PMPI_Comm_free(&node);
    hp_process_run_word(stamp, sizeof stamp);   /* rank 0's, shared at MPI_Init */
    gethostname(host, sizeof host - 1);
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(ended_path, sizeof ended_path, "%s/hprof-%s-%s-%ld.ended", dir, host, stamp,
             leader);
    if (leader == (long)getpid())
        remove_stale(dir, host);
}

static long ended_ranks(void)
{
    struct stat st;
    return stat(ended_path, &st) == 0 ? (long)st.st_size : -1;
}

void hp_linger_mark_ended(void)
{
    if (!ended_path[0] || node_ranks <= 1)
        return;
    int fd = open(ended_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    char one = 1;
    while (write(fd, &one, 1) < 0 && errno == EINTR)
        ;
    close(fd);
}

void hp_linger_until_node_ended(void)
{
    struct timespec poll = {0, HP_LINGER_POLL_MS * 1000000L};
    if (!ended_path[0] || node_ranks <= 1)
        return;
    for (int waited = 0;; waited += HP_LINGER_POLL_MS) {
        long n = ended_ranks();
        if (n < 0 || n >= node_ranks)
            break; /* all ended (a rank that saw it first removed the file) */
        if (waited >= HP_LINGER_MAX_MS)
            return;
        nanosleep(&poll, NULL);
    }
    unlink(ended_path);
}
