/*
 * pomp2_ctc.c - parsing of POMP2 CTC strings (hp_pomp2_ctc.h).
 */
#include <stdlib.h>
#include <string.h>
#include "hp_pomp2_ctc.h"

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* "FILE:FIRST:LAST" */
static void parse_scl(const char *v, size_t n, char **file, uint32_t *first,
                      uint32_t *last)
{
    const char *c2 = NULL, *c1 = NULL;
    for (size_t i = n; i-- > 0;)
        if (v[i] == ':') {
            if (!c2)
                c2 = v + i;
            else {
                c1 = v + i;
                break;
            }
        }
    if (!c1) {
        if (file && !*file)
            *file = dup_n(v, n);
        return;
    }
    if (file && !*file)
        *file = dup_n(v, (size_t)(c1 - v));
    *first = (uint32_t)strtoul(c1 + 1, NULL, 10);
    if (last)
        *last = (uint32_t)strtoul(c2 + 1, NULL, 10);
}

void hp_ctc_parse(const char *ctc, hp_ctc *out)
{
    *out = (hp_ctc){0};
    const char *p = ctc;
    while (*p >= '0' && *p <= '9')   /* the string's length */
        p++;
    while (*p) {
        while (*p == '*')
            p++;
        const char *e = strchr(p, '*');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (eq) {
            size_t kn = (size_t)(eq - p), vn = n - kn - 1;
            const char *v = eq + 1;
            if (kn == 10 && !memcmp(p, "regionType", kn))
                out->type = dup_n(v, vn);
            else if (kn == 4 && !memcmp(p, "sscl", kn))
                parse_scl(v, vn, &out->file, &out->line, NULL);
            else if (kn == 4 && !memcmp(p, "escl", kn)) {
                uint32_t first = 0, last = 0;
                parse_scl(v, vn, NULL, &first, &last);
                out->end_line = last ? last : first;
            } else if (kn == 14 && !memcmp(p, "userRegionName", kn))
                out->user_name = dup_n(v, vn);
        }
        if (!e)
            break;
        p = e;
    }
}
