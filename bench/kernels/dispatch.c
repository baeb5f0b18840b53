/*
 * dispatch.c - a bench kernel shaped like an interpreter's main loop (Lua's
 * luaV_execute running its test suite): a bytecode array, a fetch-decode
 * loop with a switch, and small handler functions for most opcodes
 * (several distinct tiny procedures, each called millions of times).  Serial, no
 * MPI, like the Lua test suite.  It stresses the per-call cost of probes
 * on tiny procedures and a loop entered once but iterated ~10^8 times.
 *
 * The bytecode computes, for i = N down to 1,
 *     acc = (acc * 31 + i * i) % 1000003
 * and, every 8th i, acc = acc ^ i (a "native" call): 22 dispatches per
 * iteration (23 every 8th), ~1.1 * 10^8 in all by default.
 *
 * Output: "kernel dispatch SECONDS" (the interpreter's run), "dispatches
 * dispatch D" and "checksum dispatch ACC" (identical plain and
 * instrumented).
 * usage: dispatch [N]   (default 5000000 iterations)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum op { OP_PUSHK, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_MOD, OP_AND, OP_JZ, OP_JMP, OP_NATIVE, OP_HALT };

typedef struct {
    unsigned char op;
    int arg;
} insn;

typedef struct {
    long stack[16];
    int sp;
    long reg[4];
    long dispatches;
} vm;

/* Registers: 0 = i, 1 = acc. */
static const insn program[] = {
    /* 0 loop: if i == 0 goto end */
    {OP_LOAD, 0}, {OP_JZ, 21},
    /* acc = (acc * 31 + i * i) % 1000003 */
    {OP_LOAD, 1}, {OP_PUSHK, 31}, {OP_MUL, 0}, {OP_LOAD, 0}, {OP_LOAD, 0}, {OP_MUL, 0},
    {OP_ADD, 0}, {OP_PUSHK, 1000003}, {OP_MOD, 0}, {OP_STORE, 1},
    /* 12: if (i & 7) == 0: acc = native(acc, i) */
    {OP_LOAD, 0}, {OP_PUSHK, 7}, {OP_AND, 0}, {OP_JZ, 20},
    /* 16: i = i - 1; goto loop */
    {OP_LOAD, 0}, {OP_PUSHK, 1}, {OP_SUB, 0}, {OP_JMP, 22},
    /* 20 */ {OP_NATIVE, 0},
    /* 21 */ {OP_HALT, 0},
    /* 22 */ {OP_STORE, 0}, {OP_JMP, 0},
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The handlers work on the stack directly, as Lua's do (its stack
 * accesses are macros, its handlers' helpers functions). */
static void op_load(vm *m, int r)
{
    m->stack[m->sp++] = m->reg[r];
}

static void op_store(vm *m, int r)
{
    m->reg[r] = m->stack[--m->sp];
}

static void op_arith(vm *m, enum op op)
{
    long b = m->stack[--m->sp], a = m->stack[m->sp - 1], v;
    switch (op) {
    case OP_ADD: v = a + b; break;
    case OP_SUB: v = a - b; break;
    case OP_MUL: v = a * b; break;
    case OP_MOD: v = a % b; break;
    default: v = a & b; break;
    }
    m->stack[m->sp - 1] = v;
}

/* op_native - the "library call": acc ^= i, then 16 = i - 1 and back. */
static int op_native(vm *m)
{
    m->reg[1] ^= m->reg[0];
    return 16;
}

static long run(vm *m)
{
    int pc = 0;
    for (;;) {
        const insn in = program[pc++];
        m->dispatches++;
        switch (in.op) {
        case OP_PUSHK: m->stack[m->sp++] = in.arg; break;
        case OP_LOAD: op_load(m, in.arg); break;
        case OP_STORE: op_store(m, in.arg); break;
        case OP_ADD:
        case OP_SUB:
        case OP_MUL:
        case OP_MOD:
        case OP_AND: op_arith(m, (enum op)in.op); break;
        case OP_JZ:
            if (m->stack[--m->sp] == 0)
                pc = in.arg;
            break;
        case OP_JMP: pc = in.arg; break;
        case OP_NATIVE: pc = op_native(m); break;
        case OP_HALT: return m->reg[1];
        }
    }
}

int main(int argc, char **argv)
{
    vm m = {.sp = 0, .dispatches = 0};
    m.reg[0] = argc > 1 ? atol(argv[1]) : 5000000;
    m.reg[1] = 1;
    double t0 = now();
    long acc = run(&m);
    double t = now() - t0;
    printf("kernel dispatch %.6f\n", t);
    printf("dispatches dispatch %ld\n", m.dispatches);
    printf("checksum dispatch %ld\n", acc);
    return 0;
}
