/*
 * counters_codec.c - decoding and checking the CNTR section of a rank
 * (hp_format.h, version 5): the names of the counted events, then one
 * record per (node, event) whose value is not 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include "hp_profile.h"

static int bad_at(size_t *bad, size_t at, char *why, size_t whylen, const char *what)
{
    *bad = at;
    snprintf(why, whylen, "%s", what);
    return -1;
}

/* The event names: u32 count then count strings, from *pos. */
static int decode_events(const unsigned char *p, size_t len, size_t *pos, hp_rank_data *rd,
                         size_t *bad, char *why, size_t whylen)
{
    if (len - *pos < 4)
        return bad_at(bad, *pos, why, whylen, "event count runs past the payload");
    uint32_t n = hp_get_u32(p + *pos);
    *pos += 4;
    if (n > (len - *pos) / 4)
        return bad_at(bad, *pos - 4, why, whylen, "more event names than the payload holds");
    rd->events = calloc(n ? n : 1, sizeof *rd->events);
    if (!rd->events)
        return bad_at(bad, *pos, why, whylen, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        if (len - *pos < 4 || hp_get_u32(p + *pos) > len - *pos - 4)
            return bad_at(bad, *pos, why, whylen, "event name runs past the payload");
        uint32_t sl = hp_get_u32(p + *pos);
        rd->events[i] = malloc((size_t)sl + 1);
        if (!rd->events[i])
            return bad_at(bad, *pos, why, whylen, "out of memory");
        memcpy(rd->events[i], p + *pos + 4, sl);
        rd->events[i][sl] = '\0';
        rd->nevents = i + 1;
        *pos += 4 + (size_t)sl;
    }
    return 0;
}

int hp_counters_decode(const unsigned char *p, size_t len, hp_rank_data *rd, size_t *bad,
                       char *why, size_t whylen)
{
    size_t pos = 0;
    if (decode_events(p, len, &pos, rd, bad, why, whylen))
        return -1;
    if ((len - pos) % HP_COUNTER_REC_LEN)
        return bad_at(bad, pos, why, whylen, "counter records do not fill the payload");
    size_t n = (len - pos) / HP_COUNTER_REC_LEN;
    rd->counters = calloc(n ? n : 1, sizeof *rd->counters);
    if (!rd->counters)
        return bad_at(bad, pos, why, whylen, "out of memory");
    for (size_t i = 0; i < n; i++, pos += HP_COUNTER_REC_LEN) {
        hp_counter_rec *c = &rd->counters[i];
        hp_counter_rec_get(p + pos, c);
        if (c->node >= rd->nnodes)
            return bad_at(bad, pos, why, whylen, "counter record: node out of range");
        if (c->event >= rd->nevents)
            return bad_at(bad, pos + 4, why, whylen, "counter record: event out of range");
        rd->ncounters = (uint32_t)i + 1;
    }
    return 0;
}
