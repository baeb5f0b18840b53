/*
 * emit.c - writes the instrumented unit: the probe header, the original
 * text with the probes inserted (on the lines they belong to, so every
 * original line keeps its number; the one insertion that needs a line of
 * its own is followed by a #line directive), and the unit's static site
 * table with the constructor that registers it.  Also prints the table
 * for --list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpi.h"
#include "hprof_probe.h"

typedef struct hpi_ins {
    size_t off, end; /* an edit replaces [off, end) */
    size_t key;      /* where the construct opens: nesting at one offset */
    int open;        /* 0 closer, 1 opener */
    int prio;        /* 0 probe, 1 POMP2 edit (inside a probe opened at the same offset) */
    int idx;         /* emitted site index */
    const hpi_site *site;   /* NULL for an edit */
    const char *text;       /* the edit's text */
} hpi_ins;

static void hpi_put_pomp_funcs(FILE *fp, const hpi_unit *u);

/* Emitted index of each site (-1: not in the table, skipped) and its
 * emitted parent; a site the policy left unprobed is in the table. */
static int *hpi_number(const hpi_unit *u, int **parents, int *count)
{
    int *map = malloc((u->nsites + 1) * sizeof *map);
    int *par = malloc((u->nsites + 1) * sizeof *par);
    size_t i;
    int n = 0;

    if (!map || !par) {
        free(map);
        free(par);
        return NULL;
    }
    for (i = 0; i < u->nsites; i++) {
        int p = u->sites[i].parent;
        while (p >= 0 && u->sites[p].skip)
            p = u->sites[p].parent;
        map[i] = u->sites[i].skip ? -1 : n++;
        par[i] = p >= 0 ? map[p] : -1;
    }
    *parents = par;
    *count = n;
    return map;
}

static int hpi_ins_cmp(const void *a, const void *b)
{
    const hpi_ins *x = a, *y = b;

    int c;

    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    if (x->open != y->open)
        return x->open - y->open;          /* closers first */
    /* outer opens first, inner closes first */
    if (x->key != y->key)
        c = x->key < y->key ? -1 : 1;
    else if (x->prio != y->prio)
        c = x->prio - y->prio;
    else
        c = x->idx - y->idx;
    return x->open ? c : -c;
}

void hpi_put_cstr(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        if (*s == '\n')
            fputs("\\n", fp);
        else
            fputc(*s, fp);
    }
    fputc('"', fp);
}

/* 1 when site t lies inside a loop of its procedure: its probes run many
 * times per activation and are inlined (hprof_probe_enter_in); the
 * others run once per activation and are called (hprof_probe_enter_once),
 * which leaves the procedure's own code as the compiler makes it. */
static int hpi_in_loop(const hpi_unit *u, const hpi_site *t)
{
    int p;

    for (p = t->parent; p >= 0 && u->sites[p].kind != HPROF_SITE_PROCEDURE; p = u->sites[p].parent)
        if (u->sites[p].kind == HPROF_SITE_LOOP)
            return 1;
    return 0;
}

static void hpi_put_open(FILE *fp, const hpi_unit *u, const hpi_ins *in)
{
    int k = in->idx;
    const char *how = hpi_in_loop(u, in->site) ? "in" : "once";
    const char *exit = hpi_in_loop(u, in->site) ? "hprof_probe_exit" : "hprof_probe_exit_once";

    switch (in->site->wrap) {
    case HPI_WRAP_PROC:
        fprintf(fp, " hprof_frame __hprof_pf __attribute__((cleanup(%s))); "
                    "int __hprof_pe __attribute__((unused)) = "
                    "(hprof_probe_enter_%s(&__hprof_pf, __hprof_u(), __hprof_i(), %d), 0);", exit, how, k);
        break;
    case HPI_WRAP_BLOCK:
        fprintf(fp, "{ hprof_frame __hprof_lf%d __attribute__((cleanup(%s))); "
                    "int __hprof_le%d __attribute__((unused)) = "
                    "(hprof_probe_enter_%s(&__hprof_lf%d, __hprof_u(), __hprof_i(), %d), 0); ", k, exit, k, how, k, k);
        if (in->site->open_line) {
            fprintf(fp, "\n#line %u ", in->site->open_line);
            hpi_put_cstr(fp, u->src.path);
            fputc('\n', fp);
        }
        break;
    default:
        fprintf(fp, "(__extension__ ({ hprof_frame __hprof_cf%d __attribute__((cleanup(%s))); "
                    "hprof_probe_enter_%s(&__hprof_cf%d, __hprof_u(), __hprof_i(), %d); ", k, exit, how, k, k);
        break;
    }
}

static void hpi_put_close(FILE *fp, const hpi_ins *in)
{
    if (in->site->wrap == HPI_WRAP_BLOCK)
        fputs(" }", fp);
    else
        fputs(in->site->semi ? "; }));" : "; }))", fp);
}

static void hpi_put_table(FILE *fp, const hpi_unit *u, const int *map, const int *par, int n)
{
    size_t i;

    fputs("\nstatic const hprof_site_info __hprof_sites[] = {\n", fp);
    for (i = 0; i < u->nsites; i++) {
        const hpi_site *t = &u->sites[i];
        if (map[i] < 0)
            continue;
        fprintf(fp, "  {%d, ", t->kind);
        hpi_put_cstr(fp, t->name);
        fputs(", ", fp);
        hpi_put_cstr(fp, t->func);
        fprintf(fp, ", %u, %u, %d, %uu},\n", t->line, t->end_line, par[i],
                (t->unprobed ? HPROF_SITEINFO_UNPROBED : 0u) | (t->leaf ? HPROF_SITEINFO_LEAF : 0u));
    }
    if (n == 0)
        fputs("  {0, \"\", \"\", 0, 0, -1, 0u}\n", fp);
    fprintf(fp, "};\nstatic unsigned __hprof_ids[%d];\n"
                "static hprof_unit __hprof_unit = {", n ? n : 1);
    hpi_put_cstr(fp, u->src.path);
    /* the two functions go on the last original line: debug line info
     * never names a line the source does not have */
    fprintf(fp, ", %d, __hprof_sites, __hprof_ids, 0};\n#line %u ", n,
            hpi_src_line(&u->src, u->src.len ? u->src.len - 1 : 0));
    hpi_put_cstr(fp, u->src.path);
    /* never hooked: -finstrument-functions (tier 1) must not see them */
    fputs("\n__attribute__((no_instrument_function)) static hprof_unit *__hprof_u(void) "
          "{ return &__hprof_unit; } "
          "__attribute__((no_instrument_function)) static const unsigned *__hprof_i(void) "
          "{ return __hprof_ids; } "
          "__attribute__((constructor, no_instrument_function)) static void __hprof_register(void) "
          "{ hprof_probe_register(&__hprof_unit); }", fp);
    hpi_put_pomp_funcs(fp, u);
    fputc('\n', fp);
}

/* The POMP2 declarations and the ctc strings of the unit's regions
 * (no code: the preamble has no lines of the source). */
static void hpi_put_pomp_decls(FILE *fp, const hpi_unit *u)
{
    static const char *const decls =
        "#ifdef __cplusplus\n"     /* C++: the POMP2 functions are C's */
        "extern \"C\" {\n"
        "#endif\n"
        "typedef void *POMP2_Region_handle;\n"
        "typedef __INT64_TYPE__ POMP2_Task_handle;\n"
        "extern void POMP2_Init(void);\n"
        "extern void POMP2_Assign_handle(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Parallel_fork(POMP2_Region_handle *, int, int, POMP2_Task_handle *, const char []);\n"
        "extern void POMP2_Parallel_join(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Parallel_begin(POMP2_Region_handle *);\n"
        "extern void POMP2_Parallel_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Implicit_barrier_enter(POMP2_Region_handle *, POMP2_Task_handle *);\n"
        "extern void POMP2_Implicit_barrier_exit(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Barrier_enter(POMP2_Region_handle *, POMP2_Task_handle *, const char []);\n"
        "extern void POMP2_Barrier_exit(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Taskwait_begin(POMP2_Region_handle *, POMP2_Task_handle *, const char []);\n"
        "extern void POMP2_Taskwait_end(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_For_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_For_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Sections_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Sections_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Section_begin(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Section_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Single_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Single_begin(POMP2_Region_handle *);\n"
        "extern void POMP2_Single_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Single_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Master_begin(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Master_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Critical_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Critical_begin(POMP2_Region_handle *);\n"
        "extern void POMP2_Critical_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Critical_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Ordered_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Ordered_begin(POMP2_Region_handle *);\n"
        "extern void POMP2_Ordered_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Ordered_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Atomic_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Atomic_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Flush_enter(POMP2_Region_handle *, const char []);\n"
        "extern void POMP2_Flush_exit(POMP2_Region_handle *);\n"
        "extern void POMP2_Task_create_begin(POMP2_Region_handle *, POMP2_Task_handle *, POMP2_Task_handle *, int, const char []);\n"
        "extern void POMP2_Task_create_end(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Task_begin(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Task_end(POMP2_Region_handle *);\n"
        "extern void POMP2_Untied_task_create_begin(POMP2_Region_handle *, POMP2_Task_handle *, POMP2_Task_handle *, int, const char []);\n"
        "extern void POMP2_Untied_task_create_end(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Untied_task_begin(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "extern void POMP2_Untied_task_end(POMP2_Region_handle *);\n"
        "extern void hprof_pomp2_taskgroup_wait_begin(POMP2_Region_handle *, POMP2_Task_handle *, const char []);\n"
        "extern void hprof_pomp2_taskgroup_wait_end(POMP2_Region_handle *, POMP2_Task_handle);\n"
        "#ifdef _OPENMP\n"
        "#ifdef __cplusplus\n"      /* C++'s omp.h declares it noexcept */
        "#include <omp.h>\n"
        "#else\n"
        "extern int omp_get_max_threads(void);\n"
        "#endif\n"
        "#define __hprof_omp_max_threads() omp_get_max_threads()\n"
        "#else\n"
        "#define __hprof_omp_max_threads() 1\n"
        "#endif\n"
        "#ifdef __cplusplus\n"
        "}\n"
        "#endif\n"
        "static POMP2_Region_handle *__hprof_pr(int);\n"
        "static const char *__hprof_ctc(int);\n";
    static const char *const locks =
        "#ifdef _OPENMP\n"
        "#include <omp.h>\n"
        "#ifdef __cplusplus\n"
        "extern \"C\" {\n"
        "#endif\n"
        "extern void POMP2_Init_lock(omp_lock_t *);\n"
        "extern void POMP2_Destroy_lock(omp_lock_t *);\n"
        "extern void POMP2_Set_lock(omp_lock_t *);\n"
        "extern void POMP2_Unset_lock(omp_lock_t *);\n"
        "extern int POMP2_Test_lock(omp_lock_t *);\n"
        "extern void POMP2_Init_nest_lock(omp_nest_lock_t *);\n"
        "extern void POMP2_Destroy_nest_lock(omp_nest_lock_t *);\n"
        "extern void POMP2_Set_nest_lock(omp_nest_lock_t *);\n"
        "extern void POMP2_Unset_nest_lock(omp_nest_lock_t *);\n"
        "extern int POMP2_Test_nest_lock(omp_nest_lock_t *);\n"
        "#ifdef __cplusplus\n"
        "}\n"
        "#endif\n"
        "#endif\n";
    size_t i;

    if (u->nregions) {
        fputs(decls, fp);
        fprintf(fp, "static POMP2_Region_handle __hprof_pomp_h[%lu];\n"
                    "static const char *const __hprof_pomp_ctc[%lu] = {\n",
                (unsigned long)u->nregions, (unsigned long)u->nregions);
        for (i = 0; i < u->nregions; i++) {
            char num[32];
            char *full;
            size_t n = strlen(u->regions[i].ctc);
            snprintf(num, sizeof num, "%lu", (unsigned long)n);
            full = malloc(strlen(num) + n + 1);
            if (!full)
                continue;
            strcpy(full, num);
            strcat(full, u->regions[i].ctc);
            fputs("  ", fp);
            hpi_put_cstr(fp, full);
            fputs(",\n", fp);
            free(full);
        }
        fputs("};\n", fp);
    }
    if (u->omp_locks)
        fputs(locks, fp);
}

/* The functions of the POMP2 regions, on the last line (as the table);
 * the constructor starts POMP2 at once, so the GOMP and OMPT sources stand
 * down before the first OpenMP event and a construct left as it is (one
 * made by a macro) is never recorded by them for a part of the run. */
static void hpi_put_pomp_funcs(FILE *fp, const hpi_unit *u)
{
    if (!u->nregions)
        return;
    fprintf(fp, " __attribute__((no_instrument_function)) static POMP2_Region_handle *__hprof_pr(int i) "
                "{ return &__hprof_pomp_h[i]; } "
                "__attribute__((no_instrument_function)) static const char *__hprof_ctc(int i) "
                "{ return __hprof_pomp_ctc[i]; } "
                "__attribute__((constructor, no_instrument_function)) static void __hprof_pomp_register(void) "
                "{ int i; POMP2_Init(); for (i = 0; i < %lu; i++) POMP2_Assign_handle(&__hprof_pomp_h[i], __hprof_pomp_ctc[i]); }",
            (unsigned long)u->nregions);
}

static int hpi_write(FILE *fp, const hpi_unit *u, const int *map, const int *par, int n)
{
    hpi_ins *ins = calloc(2 * u->nsites + u->nedits + 1, sizeof *ins);
    size_t i, m = 0, at = 0;

    if (!ins)
        return -1;
    for (i = 0; i < u->nsites; i++) {
        const hpi_site *t = &u->sites[i];
        if (map[i] < 0 || t->unprobed)
            continue;
        ins[m].off = ins[m].end = t->open_off;
        ins[m].key = t->nest_key ? t->nest_key : t->open_off;
        ins[m].open = 1;
        ins[m].idx = map[i];
        ins[m++].site = t;
        if (t->wrap == HPI_WRAP_PROC)
            continue;
        ins[m].off = ins[m].end = t->close_off;
        ins[m].key = t->nest_key ? t->nest_key : t->open_off;
        ins[m].open = 0;
        ins[m].idx = map[i];
        ins[m++].site = t;
    }
    for (i = 0; i < u->nedits; i++) {
        ins[m].off = u->edits[i].off;
        ins[m].end = u->edits[i].end;
        ins[m].key = u->edits[i].key;
        ins[m].open = u->edits[i].open;
        ins[m].prio = 1;
        ins[m].idx = (int)i;
        ins[m++].text = u->edits[i].text;
    }
    qsort(ins, m, sizeof *ins, hpi_ins_cmp);
    fputs("#pragma GCC diagnostic push\n"
          "#pragma GCC diagnostic ignored \"-Wlong-long\"\n"
          "#define HPROF_PROBE_WEAK 1\n"
          "#include \"hprof_probe.h\"\n", fp);
    hpi_put_pomp_decls(fp, u);
    fputs("#pragma GCC diagnostic pop\n"
          "static hprof_unit *__hprof_u(void) __attribute__((unused));\n"
          "static const unsigned *__hprof_i(void) __attribute__((unused));\n#line 1 ", fp);
    hpi_put_cstr(fp, u->src.path);
    fputc('\n', fp);
    for (i = 0; i < m; i++) {
        if (ins[i].off > at) {
            fwrite(u->src.text + at, 1, ins[i].off - at, fp);
            at = ins[i].off;
        }
        if (!ins[i].site) {
            fputs(ins[i].text, fp);
            if (ins[i].end > at)
                at = ins[i].end;
        } else if (ins[i].open) {
            hpi_put_open(fp, u, &ins[i]);
        } else {
            hpi_put_close(fp, &ins[i]);
        }
    }
    fwrite(u->src.text + at, 1, u->src.len - at, fp);
    free(ins);
    hpi_put_table(fp, u, map, par, n);
    return ferror(fp) ? -1 : 0;
}

int hpi_emit_file(const char *out, int (*write)(FILE *fp, const void *arg), const void *arg,
                  char *err, size_t errlen)
{
    char tmp[4096];
    FILE *fp;
    int rc;

    snprintf(tmp, sizeof tmp, "%s.tmp%ld", out, (long)getpid());
    if (!(fp = fopen(tmp, "w"))) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    rc = write(fp, arg);
    if (fclose(fp) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, out) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
        unlink(tmp);
    }
    return rc;
}

/* What hpi_write needs, for hpi_emit_file. */
typedef struct hpi_emit_arg {
    const hpi_unit *u;
    const int *map, *par;
    int n;
} hpi_emit_arg;

static int hpi_write_unit(FILE *fp, const void *arg)
{
    const hpi_emit_arg *a = arg;
    return hpi_write(fp, a->u, a->map, a->par, a->n);
}

int hpi_emit(const hpi_unit *u, const char *out, char *err, size_t errlen)
{
    hpi_emit_arg a;
    int *par = NULL, n = 0, rc;
    int *map = hpi_number(u, &par, &n);

    if (!map) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    a.u = u;
    a.map = map;
    a.par = par;
    a.n = n;
    rc = hpi_emit_file(out, hpi_write_unit, &a, err, errlen);
    free(map);
    free(par);
    return rc;
}

static const char *hpi_kind_name(int kind)
{
    switch (kind) {
    case HPROF_SITE_PROCEDURE: return "procedure";
    case HPROF_SITE_LOOP: return "loop";
    case HPROF_SITE_CALL: return "call";
    case HPROF_SITE_COMM: return "comm";
    default: return "?";
    }
}

void hpi_list(const hpi_unit *u, FILE *fp)
{
    int *par = NULL, n = 0;
    int *map = hpi_number(u, &par, &n);
    size_t i;

    if (!map)
        return;
    for (i = 0; i < u->nsites; i++) {
        const hpi_site *t = &u->sites[i];
        if (map[i] < 0)
            continue;
        fprintf(fp, "%s%s %u %u %s %d", t->unprobed ? "unprobed " : "", hpi_kind_name(t->kind),
                t->line, t->end_line, t->name, par[i]);
        if (t->unprobed)
            fprintf(fp, ": %s", t->unprobed);
        else if (t->leaf)
            fputs(": leaf", fp);
        fputc('\n', fp);
    }
    for (i = 0; i < u->nsites; i++)
        if (map[i] < 0)
            fprintf(fp, "# skipped %s %u %s: %s\n", hpi_kind_name(u->sites[i].kind),
                    u->sites[i].line, u->sites[i].name, u->sites[i].skip);
    for (i = 0; i < u->nregions; i++)
        fprintf(fp, "omp %u %u %s %lu\n", u->regions[i].line, u->regions[i].end_line,
                u->regions[i].type, (unsigned long)i);
    for (i = 0; i < u->nnotes; i++)
        fprintf(fp, "# omp %s\n", u->omp_notes[i]);
    free(map);
    free(par);
}
