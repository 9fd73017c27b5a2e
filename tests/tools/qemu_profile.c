/* A QEMU TCG plugin (plugin API v1) for tinyaot's firmware profiles: counts
   how often each guest instruction in [`base`, `base + limit`) executes and writes
   "address count cycles" lines (hex, decimal, decimal) for every executed
   one at exit. The profile binary maps addresses to functions with
   llvm-nm.
   The cycles are an estimate of a Cortex-M4's, from the instruction
   timings of its Technical Reference Manual (zero wait states): 1 for most
   instructions (the multiplies and DSP ones too); a single load or store 2,
   or 1 right after another (pipelined); LDRD/STRD 3; LDM/STM/PUSH/POP 1
   plus a cycle per register; SDIV/UDIV 7; VFP multiply-accumulates 3,
   VDIV/VSQRT 14; a branch (or a write to pc) 2 more when it is taken. The
   estimate leaves out what the shared qemu-m4cycles plugin adds for
   unaligned accesses, so its totals are a little lower than that one's.
   With mark=ADDR, each execution of the instruction at ADDR (the entry of
   the firmware's `tinyaot_op_mark`, which a hook calls before and after
   every op) also records the cycles so far: "mark N" lines follow the
   others, in order, so op k took the difference of marks 2k and 2k+1.
   Build: gcc -O2 -shared -fPIC -fvisibility=hidden -o libprofile.so qemu_profile.c
   Use: qemu-system-arm ... -plugin ./libprofile.so,limit=0x400000,out=profile.txt[,base=0xADDR][,mark=0xADDR]
   (base: where the code starts, 0 unless given: the M33's and M55's
   boards run it from 0x1000_0000 and 0x2100_0000). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"

/* One counter per halfword address (Thumb instructions are 2 or 4 bytes),
   and the cycles charged there. */
static uint64_t *counts, *cycles;
static uint64_t limit = 0x400000, base;
/* Whether `pc` is counted, and its counter. */
#define COUNTED(pc) ((pc) >= base && (pc) - base < limit)
#define SLOT(pc) (((pc) - base) >> 1)
/* The mark address (0: none), the cycles charged so far, and the totals
   at each mark. */
static uint64_t mark, total, *marks;
static size_t n_marks, cap_marks;

/* How an instruction is charged. */
enum kind { PLAIN, SINGLE_MEM, FLOW };
struct insn { uint64_t pc, next; unsigned cost; enum kind kind; };
/* The instruction executed last (for pipelined loads and taken branches). */
static struct insn *last;

/* Registers in a "{r0, r4-r7, pc}" list; *pc set when pc is among them. */
static unsigned reglist(const char *s, int *pc) {
    const char *open = strchr(s, '{');
    unsigned n = 0;
    if (!open) return 1;
    for (const char *p = open + 1; *p && *p != '}';) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == '}' || !*p) break;
        const char *start = p;
        while (*p && *p != ',' && *p != '}') p++;
        const char *dash = memchr(start, '-', (size_t)(p - start));
        if (!strncmp(start, "pc", 2)) *pc = 1;
        if (dash) {
            long a = strtol(start + 1, NULL, 10), b = strtol(dash + 2, NULL, 10);
            n += b >= a ? (unsigned)(b - a + 1) : 1;
        } else {
            n++;
        }
    }
    return n ? n : 1;
}

/* Cost and kind of one instruction from its disassembly. */
static void classify(const char *disas, struct insn *in) {
    char m[32] = {0};
    size_t k = 0;
    while (disas[k] && !isspace((unsigned char)disas[k]) && k < sizeof m - 1) { m[k] = (char)tolower((unsigned char)disas[k]); k++; }
    const char *ops = disas + k;
    int pc = strstr(ops, "pc") != NULL && (strncmp(m, "ldr", 3) == 0 || strncmp(m, "mov", 3) == 0 || !strncmp(m, "add", 3));
    in->cost = 1;
    in->kind = PLAIN;
    if (!strncmp(m, "ldm", 3) || !strncmp(m, "stm", 3) || !strncmp(m, "push", 4) || !strncmp(m, "pop", 3)) {
        int to_pc = 0;
        in->cost = 1 + reglist(ops, &to_pc);
        if (to_pc && m[0] != 's' && strncmp(m, "push", 4)) in->kind = FLOW;
    } else if (!strncmp(m, "vldm", 4) || !strncmp(m, "vstm", 4) || !strncmp(m, "vpush", 5) || !strncmp(m, "vpop", 4)) {
        int to_pc = 0;
        in->cost = 1 + reglist(ops, &to_pc);
    } else if (!strncmp(m, "ldrd", 4) || !strncmp(m, "strd", 4)) {
        in->cost = 3;
    } else if (!strncmp(m, "ldr", 3) || !strncmp(m, "str", 3) || !strncmp(m, "vldr", 4) || !strncmp(m, "vstr", 4)) {
        in->cost = 2;
        in->kind = pc && m[0] == 'l' ? FLOW : SINGLE_MEM;
    } else if (!strncmp(m, "sdiv", 4) || !strncmp(m, "udiv", 4)) {
        in->cost = 7;
    } else if (!strncmp(m, "vdiv", 4) || !strncmp(m, "vsqrt", 5)) {
        in->cost = 14;
    } else if (!strncmp(m, "vmla", 4) || !strncmp(m, "vmls", 4) || !strncmp(m, "vfma", 4) || !strncmp(m, "vfms", 4) ||
               !strncmp(m, "vnmla", 5) || !strncmp(m, "vnmls", 5)) {
        in->cost = 3;
    } else if (m[0] == 'b' || !strncmp(m, "cbz", 3) || !strncmp(m, "cbnz", 4) || pc) {
        /* b, bl, bx, blx, b<cond>; not bic/bfi/bfc/bkpt. */
        if (strncmp(m, "bic", 3) && strncmp(m, "bfi", 3) && strncmp(m, "bfc", 3) && strncmp(m, "bkpt", 4))
            in->kind = FLOW;
    }
}

static void on_exec(unsigned int cpu, void *u) {
    (void)cpu;
    struct insn *in = u;
    if (last && last->kind == FLOW && in->pc != last->next && COUNTED(last->pc)) {
        cycles[SLOT(last->pc)] += 2;
        total += 2;
    }
    unsigned cost = in->cost;
    if (in->kind == SINGLE_MEM && last && last->kind == SINGLE_MEM) cost = 1;
    if (mark && in->pc == mark) {
        if (n_marks == cap_marks) {
            size_t cap = cap_marks ? 2 * cap_marks : 1024;
            uint64_t *grown = realloc(marks, cap * sizeof *marks);
            if (grown) { marks = grown; cap_marks = cap; }
        }
        if (n_marks < cap_marks) marks[n_marks++] = total;
    }
    if (COUNTED(in->pc)) {
        total += cost;
        counts[SLOT(in->pc)]++;
        cycles[SLOT(in->pc)] += cost;
    }
    last = in;
}
static char *out_path;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        /* One record per translation (kept: the callbacks point at it). */
        struct insn *in = calloc(1, sizeof *in);
        if (!in) return;
        in->pc = qemu_plugin_insn_vaddr(insn);
        in->next = in->pc + qemu_plugin_insn_size(insn);
        char *d = qemu_plugin_insn_disas(insn);
        classify(d ? d : "", in);
        free(d);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, in);
    }
}

static void at_exit(qemu_plugin_id_t id, void *u) {
    (void)id;
    (void)u;
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) return;
    for (uint64_t k = 0; k < (limit >> 1); k++)
        if (counts[k])
            fprintf(f, "%llx %llu %llu\n", (unsigned long long)(base + (k << 1)), (unsigned long long)counts[k],
                    (unsigned long long)cycles[k]);
    for (size_t k = 0; k < n_marks; k++) fprintf(f, "mark %llu\n", (unsigned long long)marks[k]);
    if (f != stdout) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "limit=", 6)) limit = strtoull(argv[i] + 6, NULL, 0);
        else if (!strncmp(argv[i], "base=", 5)) base = strtoull(argv[i] + 5, NULL, 0);
        else if (!strncmp(argv[i], "out=", 4)) out_path = strdup(argv[i] + 4);
        else if (!strncmp(argv[i], "mark=", 5)) mark = strtoull(argv[i] + 5, NULL, 0);
        else {
            fprintf(stderr, "qemu_profile: unknown arg %s\n", argv[i]);
            return -1;
        }
    }
    counts = calloc(limit >> 1, sizeof *counts);
    cycles = calloc(limit >> 1, sizeof *cycles);
    if (!counts || !cycles) return -1;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
