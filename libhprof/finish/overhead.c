/*
 * overhead.c - the summary's compensated view of a rank (hp_overhead.h).
 */
#include <stdlib.h>
#include <string.h>
#include "hp_config.h"
#include "hp_overhead.h"
#include "hp_snapshot.h"

int hp_overhead_view(const hp_rank_data *rd, hp_rank_data *shown, hp_comp_stats *st)
{
    *shown = *rd;
    memset(st, 0, sizeof *st);
    hp_rank_data copy = *rd;
    copy.nodes = malloc(sizeof *copy.nodes * (rd->nnodes ? rd->nnodes : 1));
    if (!copy.nodes)
        return -1;
    memcpy(copy.nodes, rd->nodes, sizeof *copy.nodes * rd->nnodes);
    if (hp_compensate_in_place(&copy, st) != 0) {
        free(copy.nodes);
        return -1;
    }
    if (!hp_cfg.compensate) {
        free(copy.nodes);
        return 0;
    }
    copy.info.mpi_time = hp_rank_mpi_time(&copy);
    *shown = copy;
    return 0;
}

void hp_overhead_view_free(const hp_rank_data *rd, hp_rank_data *shown)
{
    if (shown->nodes != rd->nodes)
        free(shown->nodes);
    shown->nodes = NULL;
}
