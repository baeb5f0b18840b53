/*
 * typesize.c - the bytes of count elements of a datatype (hp_mpi_bytes),
 * with the sizes of the predefined datatypes kept in a table: they cannot
 * be freed, so a handle of one always has its size, while a derived type
 * freed and created again may reuse a handle with another size (asked of
 * MPI every time).  PMPI_Type_size costs about 30 instructions a call
 * with Open MPI, the table's look-up a few (bench/msgrate.c, callgrind).
 * A type in its home slot is answered inline (hp_mpi.h: hp_mpi_bytes).
 */
#include <pthread.h>
#include <stdint.h>
#include "hp_mpi.h"

/* Written by fill_table only, before hp_type_table_ready is released. */
hp_type_size hp_type_table[HP_TYPE_SLOTS];
int hp_type_table_ready;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static uintptr_t handle_of(MPI_Datatype type)
{
    return (uintptr_t)type;
}

static size_t slot_of(uintptr_t h)
{
    return hp_type_slot(h);
}

static void keep(MPI_Datatype type)
{
    int size = 0;
    uintptr_t h = handle_of(type);
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return;
    for (size_t i = slot_of(h), k = 0; k < HP_TYPE_SLOTS; k++, i = (i + 1) & (HP_TYPE_SLOTS - 1)) {
        if (hp_type_table[i].handle == h)
            return;
        if (!hp_type_table[i].handle) {
            hp_type_table[i].size = size;
            hp_type_table[i].handle = h;
            return;
        }
    }
}

/* The predefined datatypes of C and Fortran that codes send. */
static void fill_table(void)
{
    const MPI_Datatype types[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
        MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
        MPI_2INT, MPI_SHORT_INT, MPI_PACKED, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
        MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_2INTEGER,
        MPI_2REAL, MPI_2DOUBLE_PRECISION,
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        keep(types[i]);
    __atomic_store_n(&hp_type_table_ready, 1, __ATOMIC_RELEASE);
}

/* The size of a predefined type from the table, 0 if it is not there. */
static int known_size(MPI_Datatype type)
{
    uintptr_t h = handle_of(type);
    for (size_t i = slot_of(h), k = 0; k < HP_TYPE_SLOTS; k++, i = (i + 1) & (HP_TYPE_SLOTS - 1)) {
        if (hp_type_table[i].handle == h)
            return hp_type_table[i].size;
        if (!hp_type_table[i].handle)
            return 0;
    }
    return 0;
}

uint64_t hp_mpi_bytes_slow(int count, MPI_Datatype type)
{
    int size;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    if (!__atomic_load_n(&hp_type_table_ready, __ATOMIC_ACQUIRE))
        pthread_once(&table_once, fill_table);
    size = known_size(type);
    if (!size && PMPI_Type_size(type, &size) != MPI_SUCCESS)
        size = 0;
    return (uint64_t)count * (uint64_t)(size > 0 ? size : 0);
}
