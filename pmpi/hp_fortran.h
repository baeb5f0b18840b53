/*
 * hp_fortran.h - what the generated Fortran wrappers (wrappers.c, from
 * mpi_spec.txt) need to turn the arguments of a Fortran MPI call into the
 * C call the C wrapper records: Fortran's sentinels (MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE), copies of handle and status
 * arrays, and character arguments with their hidden lengths (fortran.c).
 *
 * A Fortran program calls mpi_send_ (or MPI_SEND, mpi_send, mpi_send__,
 * mpi_send_f08_: Open MPI's mpif.h, `use mpi` and `use mpi_f08`
 * bindings share one argument layout, the f08 one with an optional
 * ierror); Open MPI's own Fortran binding would call PMPI_Send and never
 * reach the C wrapper, so each binding is interposed as well.  Every
 * argument is passed by reference; handles are MPI_Fint indices.
 */
#ifndef HP_FORTRAN_H
#define HP_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

/* Open MPI's Fortran status: MPI_STATUS_SIZE integers. */
#define HP_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
/* Handle and status arrays up to this length are copied on the stack. */
#define HP_F_STACK 32
/* A character output gets at least this much room: more than any
 * MPI_MAX_* string length of Open MPI. */
#define HP_F_STR_ROOM 4096

/* Fortran's MPI_BOTTOM and MPI_IN_PLACE are common blocks, named in
 * gfortran's mangling by Open MPI (its libraries and a program that
 * includes mpif.h all define them; the dynamic linker picks one). */
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));

/* The C address a Fortran buffer argument stands for: MPI_BOTTOM and
 * MPI_IN_PLACE are constants in C. */
static inline void *hp_f_buf(const void *fbuf)
{
    if (!fbuf)
        return (void *)fbuf;
    if (fbuf == (const void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (fbuf == (const void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    return (void *)fbuf;
}

static inline int hp_f_status_ignored(const MPI_Fint *f)
{
    return f == MPI_F_STATUS_IGNORE;
}

/* A copy of a Fortran array of handles as C handles (requests,
 * datatypes).  _in returns -1 without memory (nothing to free then). */
typedef struct hp_f_reqs {
    MPI_Request stack[HP_F_STACK];
    MPI_Request *c;
} hp_f_reqs;
int hp_f_reqs_in(hp_f_reqs *r, int n, const MPI_Fint *f);
void hp_f_reqs_out(const hp_f_reqs *r, int n, MPI_Fint *f);
void hp_f_reqs_free(hp_f_reqs *r);

typedef struct hp_f_types {
    MPI_Datatype stack[HP_F_STACK];
    MPI_Datatype *c;
} hp_f_types;
int hp_f_types_in(hp_f_types *t, int n, const MPI_Fint *f);
void hp_f_types_free(hp_f_types *t);
/* How many datatypes an (I)(neighbor_)alltoallw takes on comm: its size
 * (remote size of an intercommunicator), or for a neighbourhood
 * collective the topology's in-degree (recv != 0) or out-degree. */
int hp_f_alltoallw_types(MPI_Comm comm, int neighbor, int recv);

/* Statuses of a Wait/Test call: c is MPI_STATUSES_IGNORE when the
 * Fortran array is MPI_STATUSES_IGNORE. */
typedef struct hp_f_statuses {
    MPI_Status stack[HP_F_STACK];
    MPI_Status *c;
} hp_f_statuses;
int hp_f_statuses_in(hp_f_statuses *s, int n, MPI_Fint *f);
void hp_f_statuses_out(const hp_f_statuses *s, int n, MPI_Fint *f);
void hp_f_statuses_free(hp_f_statuses *s);

/* A character argument of Fortran length len as a C string: leading and
 * trailing blanks dropped, as Open MPI's binding does (malloc'ed; NULL without memory). */
char *hp_f_str_in(const char *f, size_t len);
/* Room for a character output of Fortran length len (malloc'ed). */
char *hp_f_str_room(size_t len);
/* The C string s into the Fortran character f of length len, padded
 * with blanks. */
void hp_f_str_out(const char *s, char *f, size_t len);

/* 1-based Fortran index of a 0-based C one (MPI_UNDEFINED stays). */
static inline MPI_Fint hp_f_index(int c)
{
    return c == MPI_UNDEFINED ? c : c + 1;
}

/* A LOGICAL result (gfortran: .TRUE. is 1). */
static inline MPI_Fint hp_f_logical(int c)
{
    return c != 0;
}

#endif
