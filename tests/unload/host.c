/*
 * host.c - loads plug.so with dlopen, calls plug_work(PLUG_N), unloads it
 * with dlclose; loads other.so (which the loader may place where plug.so
 * was), calls other_work(OTHER_N), unloads it; loads plug.so again, calls
 * plug_work(PLUG_N), unloads it.  Prints each result; the ground truth is
 * in plug.c and other.c.  usage: host DIR (where plug.so and other.so are)
 */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PLUG_N 1000
#define OTHER_N 500

/* Loads DIR/name, calls fn(n), unloads: the result, or exits 2. */
static long call_module(const char *dir, const char *name, const char *fn, long n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "host: %s\n", dlerror());
        exit(2);
    }
    long (*work)(long) = (long (*)(long))dlsym(h, fn);
    if (!work) {
        fprintf(stderr, "host: %s\n", dlerror());
        exit(2);
    }
    long r = work(n);
    if (dlclose(h) != 0) {
        fprintf(stderr, "host: %s\n", dlerror());
        exit(2);
    }
    return r;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    /* a use of libgomp keeps it linked (--as-needed) and so loaded while
     * the plugins' OpenMP threads live: unloaded with plug.so, it took
     * the code of its idle threads with it (the plain host's SIGSEGV) */
    if (omp_get_max_threads() < 1)
        return 3;
    printf("plug %ld\n", call_module(dir, "plug.so", "plug_work", PLUG_N));
    printf("other %ld\n", call_module(dir, "other.so", "other_work", OTHER_N));
    printf("plug %ld\n", call_module(dir, "plug.so", "plug_work", PLUG_N));
    return 0;
}
