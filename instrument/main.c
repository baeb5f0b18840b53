/*
 * main.c - the hprof-instrument command line:
 *
 *   hprof-instrument [-o OUT] [--list] [--filter FILE] [--comm-func NAME]...
 *                    [--omp | --no-omp] [--loops=all] [--procedures=all]
 *                    [--tier=1] [--] FILE.c [compiler flags...]
 *
 * Parses FILE.c with libclang using the compiler flags (-I -D -U -std
 * -include ...; the rest are ignored) and writes FILE.inst.c (or OUT) with
 * probes for procedures, loops, call and communication statements; --list
 * prints the site table instead ("KIND LINE END_LINE NAME PARENT", then
 * "# skipped ..." lines; a site the policy (policy.c) leaves without a
 * probe is listed "unprobed KIND ...: why", and a last line states the
 * policy).  --loops=all and --procedures=all probe every loop and every
 * procedure and call.  HPROF_FILTER and HPROF_COMM_FUNCS (a,b,c) are
 * read from the environment too.  On any failure: one line
 * "hprof-instrument: FILE: REASON", exit status 1, nothing written.
 * --omp (the default when the file has "#pragma omp" lines) also rewrites
 * the OpenMP constructs into POMP2 calls as OPARI2 does (see omp.c);
 * --list then prints "omp LINE END_LINE TYPE INDEX" per POMP2 region and
 * "# omp LINE: why" for the omp pragmas left as they were.
 * --tier=1 writes no probes but the policy's choice for gcc's and clang's
 * -finstrument-functions hooks (tier1.c): the same text with the
 * definitions of the procedures left unprobed (tiny ones, those the filter
 * excludes) marked no_instrument_function; --list then prints
 * "hooked|unhooked procedure LINE NAME[: why]" per procedure.
 * C++ (by the suffix: .cpp .cc .cxx .C .c++) is parsed as C++ (cxx.c).
 * With --tier=1 a C++ unit's tiny functions of the program's own headers
 * are judged too (cxx_headers.c): --exclude-out FILE writes their names
 * for gcc's -finstrument-functions-exclude-function-list, --list adds
 * "unhooked|hooked header procedure FILE:LINE NAME: why".
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>

#include "hpi.h"

static void hpi_usage(FILE *fp)
{
    fputs("Usage: hprof-instrument [OPTION]... [--] FILE.c|FILE.cpp [COMPILER FLAG]...\n"
          "Write a copy of a C or C++ source with hprof's probes (tier 2) for procedures,\n"
          "loops, call and communication statements, and the OpenMP constructs rewritten\n"
          "into POMP2 calls; or, with --tier=1, the same source with the procedures the\n"
          "policy leaves unprobed marked no_instrument_function.  The compiler flags\n"
          "-I -D -U -std -include ... are used to parse FILE (libclang); the others are\n"
          "ignored.  hprof-cc runs it for each source it compiles.\n"
          "\n"
          "Options:\n"
          "  -o OUT              write the copy to OUT (default FILE.inst.c, FILE.inst.cpp)\n"
          "  --list              print the site table instead of a copy: KIND LINE\n"
          "                      END_LINE NAME PARENT per site, unprobed sites with why,\n"
          "                      OpenMP regions, and the policy\n"
          "  --filter FILE       include/exclude rules for procedures, files and loops\n"
          "  --comm-func NAME    treat calls of NAME as communication (a,b,c: several;\n"
          "                      repeatable)\n"
          "  --omp               rewrite OpenMP constructs into POMP2 calls (the default\n"
          "                      when FILE has #pragma omp lines)\n"
          "  --no-omp            leave OpenMP pragmas as they are\n"
          "  --loops=all         probe every loop (default: nested call-free loops get\n"
          "                      no probe)\n"
          "  --procedures=all    probe every procedure and call (default: tiny procedures\n"
          "                      get no probe)\n"
          "  --tier=1            no probes: mark the unprobed procedures\n"
          "                      no_instrument_function for -finstrument-functions\n"
          "  --tier=2            probes (the default)\n"
          "  --exclude-out FILE  with --tier=1 and C++: write the names of the tiny\n"
          "                      functions of the program's headers to FILE (for gcc's\n"
          "                      -finstrument-functions-exclude-function-list)\n"
          "  --                  end of options: FILE follows\n"
          "  -h, --help          print this help and exit\n"
          "  --version           print the version and exit\n"
          "\n"
          "Environment: HPROF_FILTER=FILE as --filter, HPROF_COMM_FUNCS=a,b as --comm-func.\n"
          "On failure: one line \"hprof-instrument: FILE: REASON\", exit status 1, nothing\n"
          "written.\n", fp);
}

static int hpi_fail(const char *file, const char *why)
{
    fprintf(stderr, "hprof-instrument: %s: %s\n", file ? file : "-", why);
    return 1;
}

/* One warning per OpenMP construct the POMP2 rewriting left as it was
 * (the notes --list prints): the runtime gives OpenMP to POMP2 when a
 * unit is rewritten, so GOMP/OMPT do not record that construct either. */
static void hpi_warn_unrecorded(const hpi_unit *u, const char *file)
{
    size_t i;

    for (i = 0; i < u->nnotes; i++) {
        const char *note = u->omp_notes[i];
        unsigned line = (unsigned)strtoul(note, NULL, 10);
        const char *why = strstr(note, ": ");
        const char *end;
        why = why ? why + 2 : note;
        if (strstr(why, ": kept whole, measured as one region"))
            continue;   /* recorded (a region), not left as is */
        end = strstr(why, ": left as is");
        fprintf(stderr, "hprof-instrument: %s:%u: warning: OpenMP construct left as is, not recorded "
                        "(%.*s); hprof-cc --no-omp leaves all OpenMP to the runtime\n",
                file, line, (int)(end ? (size_t)(end - why) : strlen(why)), why);
    }
}

/* Adds the names of a comma list to o->comm. */
static int hpi_add_comm(hpi_opts *o, const char *list)
{
    char *dup = strdup(list), *tok, *save = NULL;

    if (!dup)
        return -1;
    for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char **p = realloc(o->comm, (o->ncomm + 1) * sizeof *p);
        if (!p || !(p[o->ncomm] = strdup(tok))) {
            free(dup);
            return -1;
        }
        o->comm = p;
        o->ncomm++;
    }
    free(dup);
    return 0;
}

/* Collects the sites.  In tier 1 every procedure is collected: the
 * filter's verdict on a name is applied to the hooks by tier1.c. */
static int hpi_collect_for(hpi_unit *u, const hpi_opts *o, char *err, size_t errlen)
{
    hpi_opts all = *o;

    if (o->tier1)
        all.filter = NULL;
    return hpi_collect(u, &all, err, errlen);
}

static char *hpi_default_out(const char *file)
{
    size_t n = strlen(file);
    char *out = malloc(n + 8);

    if (!out)
        return NULL;
    memcpy(out, file, n + 1);
    if (n > 2 && strcmp(file + n - 2, ".c") == 0)
        out[n - 2] = 0;
    if (hpi_cxx_file(file)) {   /* x.cpp: x.inst.cpp */
        const char *dot = strrchr(file, '.');
        out[dot - file] = 0;
        strcat(out, ".inst");
        strcat(out, dot);
        return out;
    }
    strcat(out, ".inst.c");
    return out;
}

/* A Fortran source, by its suffix: libclang cannot parse it. */
static int hpi_is_fortran(const char *file)
{
    static const char *const suffixes[] = {".f", ".F", ".for", ".FOR", ".ftn", ".FTN",
                                           ".f90", ".F90", ".f95", ".F95", ".f03", ".F03",
                                           ".f08", ".F08", NULL};
    const char *dot = strrchr(file, '.');
    for (int i = 0; dot && suffixes[i]; i++)
        if (strcmp(dot, suffixes[i]) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    hpi_opts o;
    hpi_unit u;
    char err[1024], *out = NULL;
    const char *env;
    int i, rc;

    memset(&o, 0, sizeof o);
    memset(&u, 0, sizeof u);
    o.omp = -1;
    for (i = 1; i < argc && !o.file; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc)
            o.out = argv[++i];
        else if (strcmp(a, "--list") == 0)
            o.list = 1;
        else if (strcmp(a, "--omp") == 0)
            o.omp = 1;
        else if (strcmp(a, "--no-omp") == 0)
            o.omp = 0;
        else if (strcmp(a, "--loops=all") == 0)
            o.all_loops = 1;
        else if (strcmp(a, "--procedures=all") == 0)
            o.all_procs = 1;
        else if (strcmp(a, "--tier=1") == 0)
            o.tier1 = 1;
        else if (strcmp(a, "--tier=2") == 0)
            o.tier1 = 0;
        else if (strcmp(a, "--filter") == 0 && i + 1 < argc)
            o.filter = argv[++i];
        else if (strcmp(a, "--exclude-out") == 0 && i + 1 < argc)
            o.exclude_out = argv[++i];
        else if (strcmp(a, "--comm-func") == 0 && i + 1 < argc) {
            if (hpi_add_comm(&o, argv[++i]) < 0)
                return hpi_fail(NULL, "out of memory");
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            hpi_usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            puts("hprof-instrument (hprof) " PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            if (i + 1 < argc)
                o.file = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "hprof-instrument: unknown option '%s' (try --help)\n", a);
            return 1;
        } else {
            o.file = a;
        }
    }
    if (!o.file) {
        fputs("hprof-instrument: no source file given (try --help)\n", stderr);
        return 1;
    }
    if (hpi_is_fortran(o.file))
        return hpi_fail(o.file, "a Fortran source: hprof-instrument parses C only; hprof-cc "
                        "instruments Fortran (procedure hooks, OpenMP through opari2; loops and "
                        "call statements are not probed: no Fortran parser), see hprof-cc --list");
    o.cxx = hpi_cxx_file(o.file);
    o.cflags = argv + i;
    o.ncflags = argc - i;
    if (!o.filter && (env = getenv("HPROF_FILTER")) && *env)
        o.filter = env;
    if ((env = getenv("HPROF_COMM_FUNCS")) && *env && hpi_add_comm(&o, env) < 0)
        return hpi_fail(o.file, "out of memory");
    if (!o.out && !o.list && !(out = hpi_default_out(o.file)))
        return hpi_fail(o.file, "out of memory");
    if (hpi_src_load(&u.src, o.file, err, sizeof err) < 0) {
        free(out);
        return hpi_fail(o.file, err);
    }
    if (o.tier1)
        o.omp = 0;   /* GOMP or OMPT record OpenMP at run time */
    if (o.omp < 0)
        o.omp = hpi_omp_has_pragmas(&u.src);
    rc = hpi_collect_for(&u, &o, err, sizeof err);
    if (rc == 0 && hpi_control(&u) < 0) {
        snprintf(err, sizeof err, "out of memory");
        rc = -1;
    }
    if (rc == 0)
        rc = hpi_policy(&u, &o, err, sizeof err);
    if (rc == 0 && o.tier1) {
        hpi_cxx_headers_decide(&u);
        rc = hpi_tier1(&u, &o, o.out ? o.out : out, err, sizeof err);
        if (rc == 0 && o.list)
            hpi_cxx_headers_list(&u, stdout);
        else if (rc == 0 && o.exclude_out)
            rc = hpi_cxx_headers_write(&u, o.exclude_out, err, sizeof err);
    }
    else if (rc == 0 && o.list) {
        hpi_list(&u, stdout);
        hpi_policy_describe(&o, stdout);
    }
    else if (rc == 0)
        rc = hpi_emit(&u, o.out ? o.out : out, err, sizeof err);
    if (rc == 0 && !o.list && !o.tier1)
        hpi_warn_unrecorded(&u, o.file);
    if (rc != 0)
        hpi_fail(o.file, err);
    for (i = 0; i < (int)u.nsites; i++) {
        free(u.sites[i].name);
        free(u.sites[i].func);
    }
    free(u.sites);
    hpi_cxx_headers_free(&u);
    hpi_header_free(&u);
    hpi_omp_free(&u);
    hpi_src_free(&u.src);
    for (i = 0; i < (int)o.ncomm; i++)
        free(o.comm[i]);
    free(o.comm);
    free(out);
    return rc ? 1 : 0;
}
