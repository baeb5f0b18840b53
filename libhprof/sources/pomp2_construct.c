/*
 * pomp2_construct.c - the POMP2 source's constructs with a body, and user
 * regions:
 *  - Critical_enter..begin: "critical wait"; begin..end: "critical".
 *  - For_enter/exit, Sections_enter/exit, Workshare_enter/exit: "loop",
 *    the thread's time in the construct less its implicit barrier.
 *  - Single_begin/end: one "single" execution; Master_begin/end: one
 *    "master" execution on the thread that runs it.
 *  - Ordered_enter..begin: "ordered wait"; begin..end: "ordered";
 *    Atomic_enter..exit: "atomic"; Flush_enter..exit: "flush".
 *  - POMP2_Begin/End (user regions): a node of kind region named by the
 *    ctc's userRegionName.
 * Not recorded: single sections' own section begin/end.
 */
#include "hp_pomp2.h"

/* ------------------------------------------------------------- critical */

API void POMP2_Critical_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_CRITICAL_WAIT);
}

API void POMP2_Critical_begin(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_CRITICAL_WAIT);
    hp_p2_timed_enter(h, NULL, HP_OMP_CRITICAL);
}

API void POMP2_Critical_end(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_CRITICAL);
}

API void POMP2_Critical_exit(POMP2_Region_handle *h)
{
    (void)h;
}

/* ---------------------------------------------------------- worksharing */

API void POMP2_For_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_For_exit(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Sections_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_Sections_exit(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Section_begin(POMP2_Region_handle *h, const char ctc_string[])
{
    (void)region_of(h, ctc_string);
}

API void POMP2_Section_end(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Workshare_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_LOOP);
}

API void POMP2_Workshare_exit(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_LOOP);
}

API void POMP2_Single_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    (void)region_of(h, ctc_string);
}

API void POMP2_Single_begin(POMP2_Region_handle *h)
{
    hp_p2_timed_enter(h, NULL, HP_OMP_SINGLE);
}

API void POMP2_Single_end(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_SINGLE);
}

API void POMP2_Single_exit(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Master_begin(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_MASTER);
}

API void POMP2_Master_end(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_MASTER);
}

/* ------------------------------------------- atomic, flush, ordered */

API void POMP2_Atomic_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_ATOMIC);
}

API void POMP2_Atomic_exit(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_ATOMIC);
}

API void POMP2_Flush_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_FLUSH);
}

API void POMP2_Flush_exit(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_FLUSH);
}

/* Like a critical section: enter..begin waits for the iteration's turn,
 * begin..end holds the ordered block. */
API void POMP2_Ordered_enter(POMP2_Region_handle *h, const char ctc_string[])
{
    hp_p2_timed_enter(h, ctc_string, HP_OMP_ORDERED_WAIT);
}

API void POMP2_Ordered_exit(POMP2_Region_handle *h)
{
    (void)h;
}

API void POMP2_Ordered_begin(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_ORDERED_WAIT);
    hp_p2_timed_enter(h, NULL, HP_OMP_ORDERED);
}

API void POMP2_Ordered_end(POMP2_Region_handle *h)
{
    hp_p2_timed_exit(h, HP_OMP_ORDERED);
}

/* -------------------------------------------------------- user regions */

API void POMP2_Begin(POMP2_Region_handle *h, const char ctc_string[])
{
    p2_region *r = region_of(h, ctc_string);
    p2_scope *s = r ? hp_p2_scope_push(r, -1, 0) : NULL;
    if (!s)
        return;
    s->f.node = HP_FRAME_OFF;
    if (s->t)
        hp_event_enter(s->t, &s->f, hp_p2_user_site(r), 0);
}

API void POMP2_End(POMP2_Region_handle *h)
{
    p2_region *r = region_of(h, NULL);
    p2_scope s;
    if (!r || !hp_p2_scope_pop(r, -1, &s))
        return;
    if (s.t && s.t == hp_tls_self)
        hp_event_exit(s.t, &s.f);
}
