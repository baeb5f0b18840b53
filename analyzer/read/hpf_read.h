/*
 * hpf_read.h - decoding and validating a profile file (.hpf, see
 * hp_format.h) into the in-memory model of hp_profile.h.
 */
#ifndef HPF_READ_H
#define HPF_READ_H

#include <stddef.h>
#include "hp_profile.h"

typedef struct hpf_profile {
    uint32_t version;      /* format version of the file */
    uint64_t file_len;
    hp_run_info run;
    uint32_t nranks;       /* == run.nranks */
    hp_rank_data *ranks;   /* ranks[i].info.rank == i */
    /* Of a file hpf_read mapped: the mapping, kept until hpf_free, and
     * where each rank's comm records start in it.  Their count is in
     * ranks[r].ncomms, but ranks[r].comms stays NULL until
     * hpf_load_comms: they are checked, not held (most of a large
     * profile). */
    const unsigned char *map;
    size_t map_len;
    int map_fd;            /* the file, open while map is: records are read
                              with pread (hpf_load_comms, hpf_load_nodes) */
    size_t *comm_at;
    char *map_path;        /* the file's name, for messages */
    /* Of a file hpf_read_lazy mapped: where each rank's node records
     * start in it; ranks[r].nodes is NULL (nnodes counts them) except
     * between hpf_load_nodes and hpf_drop_nodes.  NULL otherwise. */
    size_t *node_at;
} hpf_profile;

/* Reads and fully validates the profile at `path`.  Returns 0 on success.
 * On failure returns -1, leaves `out` empty and writes one line (no
 * newline) to `err`: "PATH: offset N: what is wrong".  The comm records of
 * a regular file are left in its mapping: see hpf_load_comms. */
int hpf_read(const char *path, hpf_profile *out, char *err, size_t errlen);

/* With known set, the files hpf_read reads from now on were read whole
 * before and still have the identity they had then (the sizes and the
 * checksums their section headers hold: hpf_file_identity): their
 * payloads' checksums are not computed again (a third of the time of
 * reading a large profile).  Every other check is made.  For one thread
 * at a time: the detail rows of a database (db/detail_src.c). */
void hpf_read_known(int known);

/* As hpf_read, the node records (checked) left in the file's mapping as
 * well, so that a large profile's records are never all in memory: each
 * rank's are decoded by hpf_load_nodes when used and freed by
 * hpf_drop_nodes (a file that cannot be mapped is read whole). */
int hpf_read_lazy(const char *path, hpf_profile *out, char *err, size_t errlen);

/* Makes p->ranks[r].nodes hold the rank's node records (nothing to do
 * when they are held): 0, or -1 with err (out of memory, the file cut
 * short since).  hpf_drop_nodes frees them again if they came from the
 * file (p->node_at), and does nothing otherwise. */
int hpf_load_nodes(hpf_profile *p, uint32_t r, char *err, size_t errlen);
void hpf_drop_nodes(hpf_profile *p, uint32_t r);

/* Makes p->ranks[r].comms hold the rank's comm records (decoded from the
 * mapping, whose pages are then given back; nothing to do when they are
 * held already).  0, or -1 with err: out of memory, or the file was cut
 * short since it was read. */
int hpf_load_comms(hpf_profile *p, uint32_t r, char *err, size_t errlen);

/* The whole of [at, at + len) of the file open on fd (pread, retried when
 * interrupted or short): 0, or -1 (an I/O error, or the file ends first). */
int hpf_pread_all(int fd, void *buf, size_t len, uint64_t at);

/* As hpf_decode, data being a read-only file mapping (hpf_file.c): the
 * whole pages already decoded are released (MADV_DONTNEED) rank by rank. */
int hpf_decode_mapped(const unsigned char *data, size_t len, const char *name,
                      hpf_profile *out, char *err, size_t errlen);
/* The same, the node records left in the mapping (hpf_read_lazy). */
int hpf_decode_mapped_lazy(const unsigned char *data, size_t len, const char *name,
                           hpf_profile *out, char *err, size_t errlen);

/* As hpf_decode_mapped (lazy: hpf_decode_mapped_lazy), and if the file is cut short while it is decoded
 * (its missing pages raise SIGBUS) returns -1 with the one-line err
 * "PATH: the file was cut short while it was being read". */
int hpf_decode_file_mapping(const unsigned char *data, size_t len, const char *path,
                            hpf_profile *out, int lazy, char *err, size_t errlen);

/* Decodes a profile already in memory; `name` is used in messages. */
int hpf_decode(const unsigned char *data, size_t len, const char *name,
               hpf_profile *out, char *err, size_t errlen);

void hpf_free(hpf_profile *p);

#endif
