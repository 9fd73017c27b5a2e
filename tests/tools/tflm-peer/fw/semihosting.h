/* ARM / RISC-V semihosting: the two calls the harness makes (write a string, exit with a code). */
#include <stdint.h>

static inline int sh_call(int op, const void *arg) {
  register int r0 __asm__(SH_R0) = op;
  register const void *r1 __asm__(SH_R1) = arg;
  __asm__ volatile(SH_TRAP : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}
void sh_puts(const char *s) { sh_call(0x04 /* SYS_WRITE0 */, s); }
__attribute__((noreturn)) void sh_exit(int code) {
  uint32_t blk[2] = {0x20026u /* ADP_Stopped_ApplicationExit */, (uint32_t)code};
  sh_call(0x20 /* SYS_EXIT_EXTENDED */, blk);
  for (;;) {}
}
/* C library hooks that may be referenced; never reached in the measured path. */
void _exit(int code) { sh_exit(code); }
void abort(void) { sh_puts("abort\n"); sh_exit(4); }
