/* Minimal bare-metal startup for QEMU's RISC-V `virt` board (-bios none), semihosting I/O. */
#include <stdint.h>
#define SH_R0 "a0"
#define SH_R1 "a1"
/* the sequence the debugger recognizes: uncompressed, in one 16-byte block */
#define SH_TRAP ".option push\n .option norvc\n .balign 16\n slli zero, zero, 0x1f\n ebreak\n srai zero, zero, 0x7\n .option pop"
#include "semihosting.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss;
extern int main(void);
extern void __libc_init_array(void);

/* gp, sp and tp (picolibc's errno is thread-local: tp points at the one TLS block) */
__asm__(".section .text.start\n .global _start\n_start:\n"
        " .option push\n .option norelax\n la gp, __global_pointer$\n .option pop\n"
        " la sp, _estack\n la tp, __tls_base\n j start_c\n .text\n");

__attribute__((noreturn, used)) void start_c(void) {
  uint32_t *src = &_sidata, *dst = &_sdata;
  while (dst < &_edata) *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  __libc_init_array();
  sh_exit(main());
}
