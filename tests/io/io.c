/*
 * io.c - hprof integration test (tests/io/run.sh): MPI-IO bytes per call
 * site.  Needs exactly 3 ranks; argv[1] is the directory for its files.
 * Every call is on its own line marked MARK:io-NAME and made once per rank.
 *
 * File A, explicit offsets, four regions one after the other, rank r
 * writing its part of each at the offset of the parts of ranks < r:
 *   io-write-at          MPI_File_write_at            N1(r) = 1000 + 100 r
 *   io-write-at-all      MPI_File_write_at_all        N2(r) = 200 (r + 1)
 *   io-iwrite-at         MPI_File_iwrite_at + io-wait-w (MPI_Wait)
 *                                                     N3(r) = 50 + r
 *   io-write-all-begin   MPI_File_seek + MPI_File_write_all_begin,
 *                        io-write-all-end             N4(r) = 300 + 7 r
 * File A is 3300 + 1200 + 153 + 921 = 5574 bytes.  Read back with
 * io-read-at, io-read-at-all, io-iread-at + io-wait-r, io-seek-r +
 * io-read-all-begin/io-read-all-end: the same N1..N4.  Then io-read-eof
 * (MPI_File_read_at) asks for 4096 bytes at offset 5574 - 10 (r + 1) and
 * gets 10 (r + 1).
 * File B, shared file pointer: io-write-shared (MPI_File_write_shared,
 * ranks in turn, a barrier between turns) N5(r) = 64 (r + 1), then
 * io-write-ordered (MPI_File_write_ordered) N6(r) = 32 (r + 2); 672 bytes.
 * Read back after MPI_File_seek_shared to 0 with io-read-shared (in turn)
 * N5(r), and after seeking to 384 with io-read-ordered N6(r).
 *
 * Ground truth per rank r: every write site has one record with peer -2
 * ("file"), count 1 and bytes_sent = its N, every read site one with
 * bytes_recv = its N (io-read-eof: 10 (r + 1)); the split collectives'
 * records are at their _begin lines, the _end lines have none; the Wait
 * lines have none; every marked site has node count 1.  Each byte of a
 * file is a function of its offset (file A) or of its writer (file B); the
 * program checks all it reads and rank 0 prints one verdict line.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EOF_ASK 4096

static int N1(int r) { return 1000 + 100 * r; }
static int N2(int r) { return 200 * (r + 1); }
static int N3(int r) { return 50 + r; }
static int N4(int r) { return 300 + 7 * r; }
static int N5(int r) { return 64 * (r + 1); }
static int N6(int r) { return 32 * (r + 2); }

static unsigned char byte_at(MPI_Offset off) { return (unsigned char)(off * 7 + 3); }
static unsigned char byte_of(int r, int part) { return (unsigned char)(16 * part + r + 1); }

/* Offset of rank r's part in a region of parts n(0), n(1), n(2) at base. */
static MPI_Offset part_at(MPI_Offset base, int (*n)(int), int r)
{
    MPI_Offset off = base;
    for (int q = 0; q < r; q++)
        off += n(q);
    return off;
}

static MPI_Offset region_end(MPI_Offset base, int (*n)(int))
{
    return part_at(base, n, 3);
}

static void fill_at(unsigned char *buf, int len, MPI_Offset off)
{
    for (int i = 0; i < len; i++)
        buf[i] = byte_at(off + i);
}

static int bad_at(const unsigned char *buf, int len, MPI_Offset off)
{
    for (int i = 0; i < len; i++)
        if (buf[i] != byte_at(off + i))
            return 1;
    return 0;
}

static int bad_fill(const unsigned char *buf, int len, unsigned char v)
{
    for (int i = 0; i < len; i++)
        if (buf[i] != v)
            return 1;
    return 0;
}

static int got(const MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    return n;
}

static int file_a(const char *path, int r, unsigned char *buf)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request req;
    int bad = 0;
    MPI_Offset b1 = 0, b2 = region_end(b1, N1), b3 = region_end(b2, N2),
               b4 = region_end(b3, N3), size = region_end(b4, N4);

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh); /* MARK:io-open-a */
    fill_at(buf, N1(r), part_at(b1, N1, r));
    MPI_File_write_at(fh, part_at(b1, N1, r), buf, N1(r), MPI_BYTE, &st); /* MARK:io-write-at */
    bad |= got(&st) != N1(r);
    fill_at(buf, N2(r), part_at(b2, N2, r));
    MPI_File_write_at_all(fh, part_at(b2, N2, r), buf, N2(r), MPI_BYTE, MPI_STATUS_IGNORE); /* MARK:io-write-at-all */
    fill_at(buf, N3(r), part_at(b3, N3, r));
    MPI_File_iwrite_at(fh, part_at(b3, N3, r), buf, N3(r), MPI_BYTE, &req); /* MARK:io-iwrite-at */
    MPI_Wait(&req, &st); /* MARK:io-wait-w */
    bad |= got(&st) != N3(r);
    fill_at(buf, N4(r), part_at(b4, N4, r));
    MPI_File_seek(fh, part_at(b4, N4, r), MPI_SEEK_SET); /* MARK:io-seek-w */
    MPI_File_write_all_begin(fh, buf, N4(r), MPI_BYTE); /* MARK:io-write-all-begin */
    MPI_File_write_all_end(fh, buf, &st); /* MARK:io-write-all-end */
    bad |= got(&st) != N4(r);
    MPI_File_sync(fh); /* MARK:io-sync */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh); /* MARK:io-sync2 */

    memset(buf, 0, EOF_ASK);
    MPI_File_read_at(fh, part_at(b1, N1, r), buf, N1(r), MPI_BYTE, &st); /* MARK:io-read-at */
    bad |= got(&st) != N1(r) || bad_at(buf, N1(r), part_at(b1, N1, r));
    MPI_File_read_at_all(fh, part_at(b2, N2, r), buf, N2(r), MPI_BYTE, &st); /* MARK:io-read-at-all */
    bad |= got(&st) != N2(r) || bad_at(buf, N2(r), part_at(b2, N2, r));
    MPI_File_iread_at(fh, part_at(b3, N3, r), buf, N3(r), MPI_BYTE, &req); /* MARK:io-iread-at */
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* MARK:io-wait-r */
    bad |= bad_at(buf, N3(r), part_at(b3, N3, r));
    MPI_File_seek(fh, part_at(b4, N4, r), MPI_SEEK_SET); /* MARK:io-seek-r */
    MPI_File_read_all_begin(fh, buf, N4(r), MPI_BYTE); /* MARK:io-read-all-begin */
    MPI_File_read_all_end(fh, buf, MPI_STATUS_IGNORE); /* MARK:io-read-all-end */
    bad |= bad_at(buf, N4(r), part_at(b4, N4, r));
    int tail = 10 * (r + 1);
    MPI_File_read_at(fh, size - tail, buf, EOF_ASK, MPI_BYTE, &st); /* MARK:io-read-eof */
    bad |= got(&st) != tail || bad_at(buf, tail, size - tail);
    MPI_Offset fsize = 0;
    MPI_File_get_size(fh, &fsize); /* MARK:io-get-size */
    bad |= fsize != size;
    MPI_File_close(&fh); /* MARK:io-close-a */
    return bad;
}

static int file_b(const char *path, int r, unsigned char *buf)
{
    MPI_File fh;
    MPI_Status st;
    int bad = 0;

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh); /* MARK:io-open-b */
    for (int turn = 0; turn < 3; turn++) {
        if (turn == r) {
            memset(buf, byte_of(r, 5), (size_t)N5(r));
            MPI_File_write_shared(fh, buf, N5(r), MPI_BYTE, &st); /* MARK:io-write-shared */
            bad |= got(&st) != N5(r);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    memset(buf, byte_of(r, 6), (size_t)N6(r));
    MPI_File_write_ordered(fh, buf, N6(r), MPI_BYTE, MPI_STATUS_IGNORE); /* MARK:io-write-ordered */
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);

    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET); /* MARK:io-seek-shared */
    for (int turn = 0; turn < 3; turn++) {
        if (turn == r) {
            MPI_File_read_shared(fh, buf, N5(r), MPI_BYTE, &st); /* MARK:io-read-shared */
            bad |= got(&st) != N5(r) || bad_fill(buf, N5(r), byte_of(r, 5));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_File_seek_shared(fh, region_end(0, N5), MPI_SEEK_SET);
    MPI_File_read_ordered(fh, buf, N6(r), MPI_BYTE, &st); /* MARK:io-read-ordered */
    bad |= got(&st) != N6(r) || bad_fill(buf, N6(r), byte_of(r, 6));
    MPI_File_close(&fh); /* MARK:io-close-b */
    return bad;
}

int main(int argc, char **argv)
{
    int r, size, bad, anybad = 0;
    char a[4096], b[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3 || argc != 2) {
        if (r == 0)
            fprintf(stderr, "io: needs 3 ranks and a directory argument\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    snprintf(a, sizeof a, "%s/io_a.dat", argv[1]);
    snprintf(b, sizeof b, "%s/io_b.dat", argv[1]);
    unsigned char *buf = malloc(EOF_ASK);
    bad = file_a(a, r, buf) | file_b(b, r, buf);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("io: file contents and byte counts %s\n", anybad ? "WRONG" : "correct");
    free(buf);
    MPI_Finalize();
    return 0;
}
