/* A QEMU TCG plugin (plugin API v1) for tinyaot's firmware profiles: counts
   how often each guest instruction below `limit` executes and writes
   "address count" lines (hex, decimal) for every executed one at exit.
   The profile binary maps addresses to functions with llvm-nm.
   Build: gcc -O2 -shared -fPIC -fvisibility=hidden -o libprofile.so qemu_profile.c
   Use: qemu-system-arm ... -plugin ./libprofile.so,limit=0x400000,out=profile.txt */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *, enum qemu_plugin_op, void *, uint64_t);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One counter per halfword address (Thumb instructions are 2 or 4 bytes). */
static uint64_t *counts;
static uint64_t limit = 0x400000;
static char *out_path;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    for (size_t i = 0, n = qemu_plugin_tb_n_insns(tb); i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        if (pc < limit) qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &counts[pc >> 1], 1);
    }
}

static void at_exit(qemu_plugin_id_t id, void *u) {
    (void)id;
    (void)u;
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) return;
    for (uint64_t k = 0; k < (limit >> 1); k++)
        if (counts[k]) fprintf(f, "%llx %llu\n", (unsigned long long)(k << 1), (unsigned long long)counts[k]);
    if (f != stdout) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "limit=", 6)) limit = strtoull(argv[i] + 6, NULL, 0);
        else if (!strncmp(argv[i], "out=", 4)) out_path = strdup(argv[i] + 4);
        else {
            fprintf(stderr, "qemu_profile: unknown arg %s\n", argv[i]);
            return -1;
        }
    }
    counts = calloc(limit >> 1, sizeof *counts);
    if (!counts) return -1;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
