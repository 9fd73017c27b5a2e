/* A QEMU TCG plugin (plugin API v1, QEMU 7.2): an estimate of Cortex-M55 cycles, in total and
   between two marker addresses, for the project's firmware and the TFLM peer's alike (the same
   output line as ../shared/tools/qemu-m4cycles, which this follows for the scalar core).

   The model (in-order, one instruction issued per cycle at most, zero-wait-state memory):
   - Scalar instructions: 1 cycle (ALU, MUL/MLA/SMLAL, the DSP extension's), loads and stores 1
     (pipelined, on the load/store unit), LDRD/STRD 1 (the M55's 64-bit data path), LDM/STM/PUSH/
     POP and VLDM/VSTM/VPUSH/VPOP one cycle per two words, SDIV/UDIV 7, VDIV/VSQRT 14, other
     scalar floating point 1; a taken branch (or a load or move into pc) 2 more, except the
     low-overhead loop's LE/LETP, which the loop buffer makes free.
   - Helium (MVE): the M55 executes two of a vector instruction's four beats per cycle, so each
     occupies its unit two cycles: the load/store unit (VLDR/VSTR, VLD2/VLD4, VST2/VST4, gathers
     and scatters: the coprocessor-space loads and stores), the integer unit, or the multiply
     unit (VMUL, VMULL, VMULH, VQDMULH/VQRDMULH, VMLA, VMLADAV/VMLALDAV and the other
     multiply-accumulates). The next instruction issues a cycle later if its unit is free, so a
     load and a multiply-accumulate overlap (one cycle each, the dual-beat overlap), while two
     instructions on one unit take two cycles each. VPST takes 1 cycle and no unit.
   Facts: Arm's Cortex-M55 Technical Reference Manual (dual-beat MVE, 64-bit memory interface) and
   the public Cortex-M55 model of the SLOTHY superoptimizer (execution units LOAD/STORE, VEC_INT,
   VEC_MUL; inverse throughput 2 for vector instructions, 1 for scalar ones).
   Limits: no register dependencies are tracked (a vector result read by the next instruction,
   a VMLADAV sum read at once by scalar code, load-use stalls: all free here), so the estimate is
   a lower bound for code that does not hide its latencies; the vector unit of an instruction is
   found from its encoding group (QEMU 7.2's disassembler does not know MVE): a few integer
   instructions of the multiply groups (VADD/VSUB/VQADD with a scalar operand excepted) count on
   the multiply unit, which changes only what overlaps. Not checked against silicon: it is for
   ratios between two programs measured by it in one run, ours and TFLM + CMSIS-NN's.
   Build: gcc -O2 -shared -fPIC -fvisibility=hidden -o libm55cycles.so qemu_m55cycles.c
   Use:   qemu-system-arm -M mps3-an547 ... -plugin ./libm55cycles.so,start=0xADDR,stop=0xADDR,out=cycles.txt[,hist=1]
   Prints: cycles total=N region=N insns_region=N regions=N; with hist=1 also the executed count
   and cycles of each instruction class inside the region; with profile=1 also "address count
   cycles" lines (hex, decimal, decimal) of every instruction executed inside it (a translated
   instruction per line: an address may repeat), as tests/tools/qemu_profile.c writes them. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_api.h"

/* Units an instruction occupies: none, the load/store unit, the vector integer and multiply units. */
enum unit { NONE, LSU, VINT, VMUL, UNITS };
/* FLOW: may change the pc (a taken one costs the refill); LOOP_END: LE/LETP, free when taken. */
enum kind { PLAIN, FLOW, LOOP_END };
/* How an instruction is charged: `issue` cycles before the next may issue, its unit busy `busy`. */
struct insn {
    uint64_t pc, next;
    unsigned issue, busy;
    enum unit unit;
    enum kind kind;
    int marker, cls;
    uint64_t count, cyc;
};
/* Instruction classes, for hist=1. */
static const char *class_names[] = {"scalar", "scalar load/store", "scalar multiple", "scalar fp", "branch",
                                    "mve load/store", "mve integer", "mve multiply", "vpst", "loop end"};
enum { C_SCALAR, C_MEM, C_MULTI, C_FP, C_BRANCH, C_VLSU, C_VINT, C_VMUL, C_VPST, C_LE, N_CLASSES };

static uint64_t now, busy_until[UNITS], insns, region_c0, region_i0, region_c, region_i, regions;
static int in_region, hist, per_insn;
static uint64_t start_pc = UINT64_MAX, stop_pc = UINT64_MAX;
static char *out_path;
#define MAX_SEEN (1 << 20)
static struct insn *seen[MAX_SEEN];
static size_t n_seen;
static const struct insn *prev;

static int starts(const char *m, const char *p) { return !strncmp(m, p, strlen(p)); }

/* Words moved by a register {list}: r4-r7 counts 4, d8 counts 2, s0-s3 counts 4. */
static unsigned list_words(const char *d) {
    const char *b = strchr(d, '{'), *e = b ? strchr(b, '}') : NULL;
    if (!b || !e) return 1;
    unsigned n = 0;
    for (const char *p = b + 1; p < e;) {
        while (p < e && !isalpha((unsigned char)*p)) p++;
        if (p >= e) break;
        char cls = *p;
        int lo = atoi(p + 1), hi = lo;
        while (p < e && *p != ',' && *p != '-') p++;
        if (p < e && *p == '-') {
            p++;
            while (p < e && !isdigit((unsigned char)*p)) p++;
            hi = atoi(p);
            while (p < e && *p != ',') p++;
        }
        unsigned regs = hi >= lo ? (unsigned)(hi - lo + 1) : 1;
        n += cls == 'd' ? 2 * regs : regs;
    }
    return n ? n : 1;
}

static void set(struct insn *in, int cls, enum unit unit, unsigned issue, unsigned busy) {
    in->cls = cls;
    in->unit = unit;
    in->issue = issue;
    in->busy = busy;
}

/* MVE by encoding: 32-bit instructions in the coprocessor space (first halfword 111x 11xx)
   whose coprocessor field is not 10 or 11 (the scalar floating point's). */
static int classify_mve(uint16_t hw1, uint16_t hw2, struct insn *in) {
    if ((hw1 & 0xEC00) != 0xEC00) return 0;
    unsigned cp = (hw2 >> 8) & 0xF;
    if (cp == 10 || cp == 11) return 0;
    if ((hw1 & 0xEE00) == 0xEC00) {
        set(in, C_VLSU, LSU, 1, 2);
        return 1;
    }
    if ((hw1 & 0xFFBF) == 0xFE31 && (hw2 & 0x1FFF) == 0x0F4D) {
        set(in, C_VPST, NONE, 1, 0);
        return 1;
    }
    int mul;
    if ((hw1 & 0xEF00) == 0xEF00) {
        /* Vector 2-op group: VMUL (1001) and VQDMULH/VQRDMULH (1011) multiply. */
        mul = cp == 0x9 || cp == 0xB;
    } else {
        /* 1110/1111 groups: the multiply-accumulates, VMULL/VMULH, scalar multiplies; the
           scalar-operand adds (bits 6:4 100) and saturating adds (1111, 110) are integer. */
        unsigned op = (hw2 >> 4) & 7;
        mul = (cp == 0xE || cp == 0xF) && op != 4 && !(cp == 0xF && op == 6);
    }
    if (mul) set(in, C_VMUL, VMUL, 1, 2);
    else set(in, C_VINT, VINT, 1, 2);
    return 1;
}

static void classify(const uint8_t *bytes, size_t size, const char *d, struct insn *in) {
    set(in, C_SCALAR, NONE, 1, 0);
    in->kind = PLAIN;
    if (size == 4 && bytes) {
        uint16_t hw1 = (uint16_t)(bytes[0] | bytes[1] << 8), hw2 = (uint16_t)(bytes[2] | bytes[3] << 8);
        if ((hw1 & 0xFFCF) == 0xF00F && (hw2 & 0xD001) == 0xC001) {
            set(in, C_LE, NONE, 1, 0);
            in->kind = LOOP_END;
            return;
        }
        if (classify_mve(hw1, hw2, in)) return;
    }
    char m[32];
    size_t i = 0;
    while (d[i] && !isspace((unsigned char)d[i]) && i + 1 < sizeof m) {
        m[i] = (char)tolower((unsigned char)d[i]);
        i++;
    }
    m[i] = 0;
    const char *ops = d + i;
    char *dot = strstr(m, ".w");
    if (!dot) dot = strstr(m, ".n");
    if (dot && dot[2] == 0) *dot = 0;
    int into_pc = strncmp(ops, " pc", 3) == 0 || strncmp(ops, "\tpc", 3) == 0;
    if (starts(m, "push") || starts(m, "pop") || starts(m, "ldm") || starts(m, "stm") || starts(m, "vpush") ||
        starts(m, "vpop") || starts(m, "vldm") || starts(m, "vstm")) {
        unsigned c = (list_words(ops) + 1) / 2;
        set(in, C_MULTI, LSU, c, c);
        if ((starts(m, "pop") || starts(m, "ldm")) && strstr(ops, "pc")) in->kind = FLOW;
        return;
    }
    if (starts(m, "ldr") || starts(m, "str") || starts(m, "vldr") || starts(m, "vstr")) {
        set(in, C_MEM, LSU, 1, 1);
        if (m[0] == 'l' && into_pc) in->kind = FLOW;
        return;
    }
    if (starts(m, "sdiv") || starts(m, "udiv")) {
        set(in, C_SCALAR, NONE, 7, 0);
        return;
    }
    if (starts(m, "vdiv") || starts(m, "vsqrt")) {
        set(in, C_FP, NONE, 14, 0);
        return;
    }
    if (m[0] == 'v') {
        set(in, C_FP, NONE, 1, 0);
        return;
    }
    if (!strcmp(m, "b") || starts(m, "b.") || starts(m, "bl") || starts(m, "bx") || starts(m, "cbz") ||
        starts(m, "cbnz") || starts(m, "tbb") || starts(m, "tbh") ||
        (m[0] == 'b' && strlen(m) >= 3 && strlen(m) <= 5 && !starts(m, "bic") && !starts(m, "bfi") &&
         !starts(m, "bfc") && !starts(m, "bkpt"))) {
        in->cls = C_BRANCH;
        in->kind = FLOW;
        if (starts(m, "tbb") || starts(m, "tbh")) in->issue = 2;
        return;
    }
    if ((starts(m, "mov") || starts(m, "add")) && into_pc) {
        in->cls = C_BRANCH;
        in->kind = FLOW;
    }
}

static void on_exec(unsigned int v, void *u) {
    (void)v;
    struct insn *in = u;
    /* The previous instruction's taken branch: the pipeline refill. */
    if (prev && prev->kind == FLOW && in->pc != prev->next) {
        now += 2;
        if (in_region) ((struct insn *)prev)->cyc += 2;
    }
    if (in->marker == 1 && !in_region) {
        in_region = 1;
        region_c0 = now;
        region_i0 = insns;
    }
    if (in->marker == 2 && in_region) {
        in_region = 0;
        region_c += now - region_c0;
        region_i += insns - region_i0;
        regions++;
    }
    uint64_t start = now;
    if (in->unit != NONE && busy_until[in->unit] > start) start = busy_until[in->unit];
    if (in->unit != NONE) busy_until[in->unit] = start + in->busy;
    uint64_t done = start + in->issue;
    if (in_region) {
        in->count++;
        in->cyc += done - now;
    }
    now = done;
    insns++;
    prev = in;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        struct insn *in = calloc(1, sizeof *in); /* kept for the run: TBs may be retranslated */
        if (!in) return;
        in->pc = qemu_plugin_insn_vaddr(qi);
        size_t size = qemu_plugin_insn_size(qi);
        in->next = in->pc + size;
        char *d = qemu_plugin_insn_disas(qi);
        classify(qemu_plugin_insn_data(qi), size, d ? d : "", in);
        free(d);
        in->marker = in->pc == start_pc ? 1 : in->pc == stop_pc ? 2 : 0;
        if (n_seen < MAX_SEEN) seen[n_seen++] = in;
        qemu_plugin_register_vcpu_insn_exec_cb(qi, on_exec, QEMU_PLUGIN_CB_NO_REGS, in);
    }
}

static void at_exit(qemu_plugin_id_t id, void *u) {
    (void)id;
    (void)u;
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) return;
    fprintf(f, "cycles total=%llu region=%llu insns_region=%llu regions=%llu\n", (unsigned long long)now,
            (unsigned long long)region_c, (unsigned long long)region_i, (unsigned long long)regions);
    if (hist) {
        uint64_t cnt[N_CLASSES] = {0}, cyc[N_CLASSES] = {0};
        for (size_t i = 0; i < n_seen; i++) {
            cnt[seen[i]->cls] += seen[i]->count;
            cyc[seen[i]->cls] += seen[i]->cyc;
        }
        for (int c = 0; c < N_CLASSES; c++)
            if (cnt[c])
                fprintf(f, "%-18s %12llu insns %12llu cycles\n", class_names[c], (unsigned long long)cnt[c],
                        (unsigned long long)cyc[c]);
    }
    if (per_insn)
        for (size_t i = 0; i < n_seen; i++)
            if (seen[i]->count)
                fprintf(f, "%llx %llu %llu\n", (unsigned long long)seen[i]->pc, (unsigned long long)seen[i]->count,
                        (unsigned long long)seen[i]->cyc);
    if (out_path) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "start=", 6)) start_pc = strtoull(argv[i] + 6, NULL, 0) & ~1ull; /* Thumb bit */
        else if (!strncmp(argv[i], "stop=", 5)) stop_pc = strtoull(argv[i] + 5, NULL, 0) & ~1ull;
        else if (!strncmp(argv[i], "out=", 4)) out_path = strdup(argv[i] + 4);
        else if (!strcmp(argv[i], "hist=1")) hist = 1;
        else if (!strcmp(argv[i], "profile=1")) per_insn = 1;
        else {
            fprintf(stderr, "m55cycles: unknown arg %s\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
