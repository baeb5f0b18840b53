/*
 * summary_counters.c - the counters of the end-of-run summary
 * (HPROF_COUNTERS): each summary row's sum of its nodes' counter values,
 * merged over ranks with the rest of the row, and one block listing them
 * for the top records.
 */
#include <stdio.h>
#include <string.h>
#include "hp_counters.h"
#include "hp_summary.h"

/* The first of rd's counter records of node, or rd->ncounters; the
 * snapshot writes them in node order. */
static uint32_t first_of_node(const hp_rank_data *rd, uint32_t node)
{
    uint32_t lo = 0, hi = rd->ncounters;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rd->counters[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void hp_agg_add_counters(hp_agg_row *r, const hp_rank_data *rd, uint32_t node)
{
    if (!rd->nevents)
        return;
    r->ncounters = rd->nevents < HP_COUNTERS_MAX ? rd->nevents : HP_COUNTERS_MAX;
    for (uint32_t i = first_of_node(rd, node); i < rd->ncounters && rd->counters[i].node == node;
         i++)
        if (rd->counters[i].event < r->ncounters)
            r->counters[rd->counters[i].event] += rd->counters[i].value;
}

void hp_agg_merge_counters(hp_agg_row *into, const hp_agg_row *from)
{
    if (from->ncounters > into->ncounters)
        into->ncounters = from->ncounters;
    for (uint32_t k = 0; k < from->ncounters && k < HP_COUNTERS_MAX; k++)
        into->counters[k] += from->counters[k];
}

static int has_counts(const hp_agg_row *r)
{
    for (uint32_t k = 0; k < r->ncounters; k++)
        if (r->counters[k])
            return 1;
    return 0;
}

/* The event index of `name`, -1 if it is not counted. */
static int event_of(const char *name)
{
    for (uint32_t k = 0; k < hp_counters_count(); k++)
        if (strcmp(hp_counters_name(k), name) == 0)
            return (int)k;
    return -1;
}

void hp_summary_print_counters(FILE *out, const hp_agg_row *rows, uint32_t nrows, uint32_t top)
{
    uint32_t ne = hp_counters_count(), shown = 0;
    int ins = event_of("PAPI_TOT_INS"), cyc = event_of("PAPI_TOT_CYC");
    for (uint32_t i = 0; i < nrows && shown < top; i++) {
        const hp_agg_row *r = &rows[i];
        if (r->kind == HP_KIND_ROOT || r->kind == HP_KIND_OVERFLOW || !has_counts(r))
            continue;
        if (!shown++) {
            fprintf(out, "hprof: counters of the top records (sum over ranks):\n");
            fprintf(out, "hprof: ");
            for (uint32_t k = 0; k < ne; k++)
                fprintf(out, " %18s", hp_counters_name(k));
            fprintf(out, "%s  site\n", ins >= 0 && cyc >= 0 ? "    IPC" : "");
        }
        fprintf(out, "hprof: ");
        for (uint32_t k = 0; k < ne; k++)
            fprintf(out, " %18llu", (unsigned long long)r->counters[k]);
        if (ins >= 0 && cyc >= 0)
            fprintf(out, " %6.2f", r->counters[cyc] ? (double)r->counters[ins] / r->counters[cyc]
                                                     : 0.0);
        fprintf(out, "  %s\n", r->label);
    }
}
