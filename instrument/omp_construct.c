/*
 * omp_construct.c - the POMP2 rewriting of each OpenMP construct (the
 * table at the top of omp.c): from the parsed pragma and its statement,
 * the text that replaces the pragma (pre) and the text that goes after
 * the statement (post), and the construct's POMP2 region.
 */
#include <stdlib.h>
#include <string.h>

#include "hpi.h"
#include "hpi_omp.h"

#define H(i) "__hprof_pr(%d)"

static void hpi_ibar(hpi_buf *b, const hpi_unit *u, int r, unsigned line)
{
    hpi_bput(b, " { POMP2_Task_handle pomp2_old_task; POMP2_Implicit_barrier_enter(" H(r)
                ", &pomp2_old_task);", r);
    hpi_bline(b, u, line);
    hpi_bput(b, "#pragma omp barrier");
    hpi_bline(b, u, line);
    hpi_bput(b, " POMP2_Implicit_barrier_exit(" H(r) ", pomp2_old_task); }", r);
}

static int hpi_count_sections(hpi_plan *pl, const hpi_stmt *st)
{
    size_t i;
    int n = 0;

    for (i = 0; i < pl->nprags; i++) {
        const hpi_prag *d = &pl->prags[i];
        hpi_omp o;
        if (d->start < st->s || d->end > st->e)
            continue;
        if (hpi_omp_parse(d->text, &o) == 0 && o.nwords == 1 && strcmp(o.words[0], "section") == 0)
            n++;
        hpi_omp_clear(&o);
    }
    return n;
}

const char hpi_oom[] = "out of memory";

/* A region of type for the pragma; -1 when out of memory. */
static int hpi_new_region(hpi_ctx *c, const char *type)
{
    int r = hpi_add_region(c->u, type, c->l1, c->l2, c->e1, c->ex.p);

    if (r < 0)
        c->pl->oom = 1;
    return r;
}

static void hpi_add_secs(hpi_ctx *c, int r)
{
    if (*c->nsecs < 64) {
        c->secs[*c->nsecs].s = c->st->s;
        c->secs[*c->nsecs].e = c->st->e;
        c->secs[(*c->nsecs)++].region = r;
    }
}

#define HPI_SIMD_CL "safelen", "simdlen", "aligned", "nontemporal", "order"

/* A combined parallel construct that is not split, kept whole: a user
 * region named after it (hprof_region_begin/end, the pragma's line)
 * around it, on the encountering thread; no POMP2 call, so its team
 * records nothing of it. */
static const char *hpi_plan_whole(hpi_ctx *c, const char *why)
{
    char name[64], note[256];

    snprintf(name, sizeof name, "omp %s%s%s%s%s", c->o->words[0], c->o->nwords > 1 ? " " : "",
             c->o->words[1], c->o->nwords > 2 ? " " : "", c->o->words[2]);
    snprintf(note, sizeof note, "%s: kept whole, measured as one region", why);
    if (hpi_omp_note(c->u, c->l1, note) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ hprof_region_begin(\"%s\");", name);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bput(&c->pre, "%s", c->d->text);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " hprof_region_end(\"%s\"); }", name);
    return NULL;
}

/* parallel, parallel for [simd], parallel sections: fork/join around,
 * begin/end inside; a combined construct is split (omp_split.c) and its
 * worksharing part gets enter/exit and the implicit barrier. */
const char *hpi_plan_parallel(hpi_ctx *c)
{
    hpi_omp *o = c->o;
    int k, r, split = o->nwords >= 2, is_for = split && strcmp(o->words[1], "for") == 0;
    const char *type = is_for ? "parallelfor" : split ? "parallelsections" : "parallel";
    const char *why;

    if ((why = hpi_split_why(o)) != NULL)
        return split ? hpi_plan_whole(c, why) : why;
    if (split && !is_for)
        hpi_bput(&c->ex, "*numSections=%d", hpi_count_sections(c->pl, c->st));
    if ((r = hpi_new_region(c, type)) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ int pomp2_num_threads = ");
    if ((k = hpi_has(o, "num_threads")) >= 0 && o->cl[k].arg)
        hpi_bput(&c->pre, "(%s);", o->cl[k].arg);
    else
        hpi_bput(&c->pre, "__hprof_omp_max_threads();");
    hpi_bput(&c->pre, " int pomp2_if = ");
    if ((k = hpi_has(o, "if")) >= 0)
        hpi_bput(&c->pre, "(int)(%s);", o->cl[k].arg);
    else
        hpi_bput(&c->pre, "1;");
    hpi_bput(&c->pre, " POMP2_Task_handle pomp2_old_task; POMP2_Parallel_fork(" H(r)
                      ", pomp2_if, pomp2_num_threads, &pomp2_old_task, __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_split_parallel_pragma(&c->pre, o, 1);
    hpi_bput(&c->pre, "\n{ POMP2_Parallel_begin(" H(r) ");", r);
    if (split) {
        /* a split construct's barrier is the worksharing part's (as opari2) */
        hpi_bput(&c->wpre, " { POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
        hpi_bline(&c->wpre, c->u, c->l1);
        hpi_split_ws_pragma(&c->wpre, o);
        if (!is_for)
            hpi_add_secs(c, r);
        hpi_bline(&c->wpre, c->u, c->lr);
        hpi_ibar(&c->wpost, c->u, r, c->e1);
        hpi_bput(&c->wpost, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
    } else {
        hpi_bline(&c->pre, c->u, c->lr);
        hpi_ibar(&c->post, c->u, r, c->e1);
    }
    hpi_bput(&c->post, " POMP2_Parallel_end(" H(r) "); } POMP2_Parallel_join(" H(r)
                       ", pomp2_old_task); }", r, r);
    return NULL;
}

/* for, for simd, sections: enter/exit around, the implicit barrier made
 * explicit after a nowait. */
const char *hpi_plan_for(hpi_ctx *c)
{
    static const char *const ok_for[] = {
        "private", "firstprivate", "lastprivate", "reduction", "schedule", "ordered",
        "collapse", "linear", "nowait", "allocate", "order", NULL
    };
    static const char *const ok_simd[] = {
        "private", "firstprivate", "lastprivate", "reduction", "schedule", "ordered",
        "collapse", "linear", "nowait", "allocate", "if", HPI_SIMD_CL, NULL
    };
    static const char *const ok_sec[] = {
        "private", "firstprivate", "lastprivate", "reduction", "nowait", "allocate", NULL
    };
    hpi_omp *o = c->o;
    int r, is_for = o->words[0][0] == 'f', simd = o->nwords == 2;

    if (!hpi_only(o, simd ? ok_simd : is_for ? ok_for : ok_sec))
        return "clauses not rewritten";
    if (!is_for)
        hpi_bput(&c->ex, "*numSections=%d", hpi_count_sections(c->pl, c->st));
    if ((r = hpi_new_region(c, o->words[0])) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", is_for ? "For" : "Sections", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, simd ? "for simd" : o->words[0], o, NULL, c->nowait ? "" : " nowait");
    hpi_bline(&c->pre, c->u, c->lr);
    if (!c->nowait)
        hpi_ibar(&c->post, c->u, r, c->e1);
    hpi_bput(&c->post, " POMP2_%s_exit(" H(r) "); }", is_for ? "For" : "Sections", r);
    if (!is_for)
        hpi_add_secs(c, r);
    return NULL;
}

const char *hpi_plan_section(hpi_ctx *c)
{
    size_t i, best = HPI_NONE;
    int r;

    for (i = 0; i < *c->nsecs; i++)
        if (c->secs[i].s < c->d->start && c->d->end < c->secs[i].e &&
            (best == HPI_NONE || c->secs[i].s > c->secs[best].s))
            best = i;
    if (c->o->ncl)
        return "clauses not rewritten";
    if (best == HPI_NONE)
        return "its sections construct is not rewritten";
    r = c->secs[best].region;
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bput(&c->pre, "#pragma omp section\n{ POMP2_Section_begin(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Section_end(" H(r) "); }", r);
    return NULL;
}

const char *hpi_plan_single(hpi_ctx *c)
{
    static const char *const ok[] = { "private", "firstprivate", "nowait", "allocate", NULL };
    int r;

    if (!hpi_only(c->o, ok))
        return "clauses not rewritten (copyprivate cannot take nowait)";
    if ((r = hpi_new_region(c, "single")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Single_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "single", c->o, NULL, c->nowait ? "" : " nowait");
    hpi_bput(&c->pre, "\n{ POMP2_Single_begin(" H(r) ");", r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Single_end(" H(r) "); }", r);
    if (!c->nowait)
        hpi_ibar(&c->post, c->u, r, c->e1);
    hpi_bput(&c->post, " POMP2_Single_exit(" H(r) "); }", r);
    return NULL;
}

/* master, and masked [filter(...)] as a master of the filtered thread. */
const char *hpi_plan_master(hpi_ctx *c)
{
    static const char *const ok[] = { "filter", NULL };
    const char *w = c->o->words[0];
    int r;

    if (strcmp(w, "master") == 0 ? c->o->ncl != 0 : !hpi_only(c->o, ok))
        return "clauses not rewritten";
    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{ POMP2_Master_begin(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Master_end(" H(r) "); }", r);
    return NULL;
}

const char *hpi_plan_critical(hpi_ctx *c)
{
    const char *w = c->o->words[0], *W = w[0] == 'c' ? "Critical" : "Ordered";
    int r;

    if (c->o->ncl && !(w[0] == 'c' && c->o->ncl == 1 && strcmp(c->o->cl[0].name, "hint") == 0))
        return w[0] == 'o' ? "ordered with clauses not rewritten" : "clauses not rewritten";
    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_%s_enter(" H(r) ", __hprof_ctc(%d));", W, r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{ POMP2_%s_begin(" H(r) ");", W, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_%s_end(" H(r) "); } POMP2_%s_exit(" H(r) "); }", W, r, W, r);
    return NULL;
}

const char *hpi_plan_atomic(hpi_ctx *c)
{
    int r;

    if ((r = hpi_new_region(c, "atomic")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Atomic_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "atomic", c->o, NULL, NULL);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_Atomic_exit(" H(r) "); }", r);
    return NULL;
}

/* task: create begin/end around, begin/end inside.  opari2 puts them all
 * under if (pomp2_if), so that an if(false) task is the encountering
 * task's; here an if(false) task is a task, run at once, as GOMP and OMPT
 * record it (the same metrics whichever way the program was built). */
const char *hpi_plan_task(hpi_ctx *c)
{
    static const char *const ok[] = {
        "if", "final", "untied", "default", "mergeable", "private", "firstprivate",
        "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
    };
    static const char *const keep[] = {
        "final", "untied", "default", "mergeable", "private", "firstprivate",
        "shared", "depend", "priority", "in_reduction", "allocate", "detach", "affinity", NULL
    };
    hpi_omp *o = c->o;
    int r, k = hpi_has(o, "if");
    const char *U = hpi_has(o, "untied") >= 0 ? "Untied_task" : "Task";
    const char *arg = k >= 0 ? o->cl[k].arg : NULL;

    if (!hpi_only(o, ok))
        return "clauses not rewritten";
    if (k >= 0 && !arg)
        return "if clause not rewritten";
    if (arg && strchr(arg, ':')) {   /* if(task: expr) */
        if (strncmp(hpi_skipsp(arg), "task", 4) != 0)
            return "if clause with a modifier not rewritten";
        arg = strchr(arg, ':') + 1;
    }
    if ((r = hpi_new_region(c, "task")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ int pomp2_if = ");
    if (arg)
        hpi_bput(&c->pre, "(int)(%s);", arg);
    else
        hpi_bput(&c->pre, "1;");
    hpi_bput(&c->pre, " { POMP2_Task_handle pomp2_old_task = 0; POMP2_Task_handle pomp2_new_task = 0;"
                      " POMP2_%s_create_begin(" H(r) ", &pomp2_new_task, &pomp2_old_task,"
                      " pomp2_if, __hprof_ctc(%d));", U, r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "task", o, keep, " if(pomp2_if) firstprivate(pomp2_new_task, pomp2_if)");
    hpi_bput(&c->pre, "\n{ POMP2_%s_begin(" H(r) ", pomp2_new_task);", U, r);
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " POMP2_%s_end(" H(r) "); }"
                       " POMP2_%s_create_end(" H(r) ", pomp2_old_task); } }", U, r, U, r);
    return NULL;
}

/* taskgroup: opari2 2.0.7 has no POMP2 call for it; hprof's own pair
 * (libhprof/pomp2.c) times the wait at its end, from the block's last
 * statement until the construct is left. */
const char *hpi_plan_taskgroup(hpi_ctx *c)
{
    int r;

    if ((r = hpi_new_region(c, "taskgroup")) < 0)
        return hpi_oom;
    hpi_bput(&c->pre, "{ POMP2_Task_handle pomp2_old_task = 0;");
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, "taskgroup", c->o, NULL, NULL);
    hpi_bput(&c->pre, "\n{");
    hpi_bline(&c->pre, c->u, c->lr);
    hpi_bput(&c->post, " hprof_pomp2_taskgroup_wait_begin(" H(r) ", &pomp2_old_task, __hprof_ctc(%d)); }"
                       " hprof_pomp2_taskgroup_wait_end(" H(r) ", pomp2_old_task); }", r, r, r);
    return NULL;
}

/* barrier, taskwait, flush */
const char *hpi_plan_standalone(hpi_ctx *c)
{
    const char *w = c->o->words[0];
    const char *W = w[0] == 'b' ? "Barrier" : w[1] == 'a' ? "Taskwait" : "Flush";
    const char *X = w[0] == 't' ? "end" : "exit";
    int r;

    if ((r = hpi_new_region(c, w)) < 0)
        return hpi_oom;
    if (w[0] == 'f')
        hpi_bput(&c->pre, "{ POMP2_Flush_enter(" H(r) ", __hprof_ctc(%d));", r, r);
    else
        hpi_bput(&c->pre, "{ POMP2_Task_handle pomp2_old_task; POMP2_%s_%s(" H(r)
                          ", &pomp2_old_task, __hprof_ctc(%d));", W, w[0] == 'b' ? "enter" : "begin", r, r);
    hpi_bline(&c->pre, c->u, c->l1);
    hpi_bpragma(&c->pre, w, c->o, NULL, NULL);
    if (w[0] == 'f')
        hpi_bput(&c->pre, "\n POMP2_Flush_exit(" H(r) "); }", r);
    else
        hpi_bput(&c->pre, "\n POMP2_%s_%s(" H(r) ", pomp2_old_task); }", W, X, r);
    hpi_bline(&c->pre, c->u, c->lr);
    return NULL;
}
