/*
 * hp_pomp2_ctc.h - the POMP2 "CTC string" that describes a region to
 * POMP2_Assign_handle ("LEN*regionType=for*sscl=f.c:3:3*escl=f.c:9:9**"),
 * parsed into the fields the POMP2 source keys its sites by.
 */
#ifndef HP_POMP2_CTC_H
#define HP_POMP2_CTC_H

#include <stdint.h>

typedef struct hp_ctc {
    char *file;           /* the region's source file (malloc'd), or NULL */
    uint32_t line;        /* its first line (sscl) */
    uint32_t end_line;    /* its last line (escl), 0 if none */
    char *type;           /* regionType (malloc'd), or NULL */
    char *user_name;      /* userRegionName of a user region (malloc'd), or NULL */
} hp_ctc;

/* Fills *out (zeroed first) from ctc; fields it lacks stay NULL or 0. */
void hp_ctc_parse(const char *ctc, hp_ctc *out);

#endif
