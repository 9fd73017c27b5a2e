/* Minimal bare-metal startup for the MPS2/MPS3 Cortex-M boards under QEMU, semihosting I/O. */
#include <stdint.h>
#define SH_R0 "r0"
#define SH_R1 "r1"
#define SH_TRAP "bkpt 0xAB"
#include "semihosting.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern int main(void);
extern void __libc_init_array(void);

__attribute__((noreturn)) void Fault_Handler(void) { sh_puts("FAULT\n"); sh_exit(3); }

__attribute__((noreturn)) void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  /* enable CP10/CP11 (FPU, and MVE on the M55) before any floating-point or vector instruction */
  *(volatile uint32_t *)0xE000ED88 |= (0xFu << 20);
  __asm__ volatile("dsb\n isb");
#endif
  uint32_t *src = &_sidata, *dst = &_sdata;
  while (dst < &_edata) *dst++ = *src++;
  for (dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  __libc_init_array();
  sh_exit(main());
}

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16])(void) = {
  (void (*)(void))(&_estack), Reset_Handler,
  Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
  0, 0, 0, 0, Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,
};

/* -nostartfiles drops crti/crtn; __libc_init_array still calls these. */
void _init(void) {}
void _fini(void) {}
