/* r_link_b.c - the second instrumented C unit of r_link_main.cc (see
 * r_link_a.c for the ground truth): scale(55) returns 110. */

int scale(int v)
{
    return 2 * v;
}
