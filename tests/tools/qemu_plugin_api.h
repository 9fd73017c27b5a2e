/* The QEMU TCG plugin API (v1, QEMU 7.2) as the project's plugins use it: the few declarations of
   qemu-plugin.h they call, so they build with the C compiler alone (no QEMU headers installed).
   Included by qemu_profile.c and qemu_m55cycles.c. */
#ifndef TINYAOT_QEMU_PLUGIN_API_H
#define TINYAOT_QEMU_PLUGIN_API_H
#include <stddef.h>
#include <stdint.h>
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *);
char *qemu_plugin_insn_disas(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, vcpu_udata_cb, enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
__attribute__((visibility("default"))) int qemu_plugin_version = 1;
#endif
