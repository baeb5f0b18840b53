/*
 * fortran.c - the argument conversions of the generated Fortran wrappers
 * (hp_fortran.h): arrays of handles and statuses copied to C and back,
 * on the stack when short, and Fortran character arguments as C strings.
 */
#include <stdlib.h>
#include <string.h>
#include "hp_fortran.h"

/* n elements of size sz: the stack array when they fit, else the heap. */
static void *room(void *stack, int n, size_t sz)
{
    if (n <= HP_F_STACK)
        return stack;
    return malloc((size_t)n * sz);
}

int hp_f_reqs_in(hp_f_reqs *r, int n, const MPI_Fint *f)
{
    r->c = room(r->stack, n, sizeof *r->c);
    if (!r->c)
        return -1;
    for (int i = 0; i < n; i++)
        r->c[i] = PMPI_Request_f2c(f[i]);
    return 0;
}

void hp_f_reqs_out(const hp_f_reqs *r, int n, MPI_Fint *f)
{
    for (int i = 0; i < n; i++)
        f[i] = PMPI_Request_c2f(r->c[i]);
}

void hp_f_reqs_free(hp_f_reqs *r)
{
    if (r->c != r->stack)
        free(r->c);
}

int hp_f_types_in(hp_f_types *t, int n, const MPI_Fint *f)
{
    t->c = room(t->stack, n, sizeof *t->c);
    if (!t->c)
        return -1;
    for (int i = 0; i < n; i++)
        t->c[i] = PMPI_Type_f2c(f[i]);
    return 0;
}

void hp_f_types_free(hp_f_types *t)
{
    if (t->c != t->stack)
        free(t->c);
}

static int neighbor_degree(MPI_Comm comm, int recv)
{
    int topo = MPI_UNDEFINED, n = 0, in = 0, out = 0, weighted = 0;
    PMPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
        return recv ? in : out;
    }
    return 0;
}

int hp_f_alltoallw_types(MPI_Comm comm, int neighbor, int recv)
{
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL)
        return 0;
    if (neighbor)
        return neighbor_degree(comm, recv);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

int hp_f_statuses_in(hp_f_statuses *s, int n, MPI_Fint *f)
{
    if (f == MPI_F_STATUSES_IGNORE) {
        s->c = MPI_STATUSES_IGNORE;
        return 0;
    }
    s->c = room(s->stack, n, sizeof *s->c);
    return s->c ? 0 : -1;
}

void hp_f_statuses_out(const hp_f_statuses *s, int n, MPI_Fint *f)
{
    if (s->c == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        PMPI_Status_c2f(&s->c[i], f + (size_t)i * HP_F_STATUS_SIZE);
}

void hp_f_statuses_free(hp_f_statuses *s)
{
    if (s->c != s->stack && s->c != MPI_STATUSES_IGNORE)
        free(s->c);
}

char *hp_f_str_in(const char *f, size_t len)
{
    while (len > 0 && f[0] == ' ') {
        f++;
        len--;
    }
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, f, len);
        s[len] = '\0';
    }
    return s;
}

char *hp_f_str_room(size_t len)
{
    size_t n = len > HP_F_STR_ROOM ? len : HP_F_STR_ROOM;
    return calloc(n + 1, 1);
}

void hp_f_str_out(const char *s, char *f, size_t len)
{
    size_t n = strlen(s);
    if (n > len)
        n = len;
    memcpy(f, s, n);
    memset(f + n, ' ', len - n);
}
