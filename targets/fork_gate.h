/* fork_gate.h — keeps fork() away from the moments when another thread is inside the compiler.
 *
 * Why: SPIR-V code generation runs in a forked child (spirv/spirv_codegen_child.c). A child of a threaded process
 * inherits every lock exactly as the other threads held it at the fork; one that some other thread held (an
 * allocator's size-class lock, a function-local static's init guard in libLLVM) stays held forever in the child,
 * which then hangs. glibc's malloc locks its arenas around fork, but AddressSanitizer's allocator (GCC 12's
 * libasan) does not: CI's sanitizer run hung in driver.spirv_recompile.threads with the child waiting on an
 * allocator lock. So every thread of ours holds the gate (shared) while it compiles, and a fork takes it
 * exclusively: at the fork no other thread of ours is between the gate's enter and leave. Children run without
 * it, so compiles on other threads go on while a child generates code.
 * Holds nest per thread (counted). A thread must not wait for another thread's fork while it holds the gate
 * (joining workers that compile SPIR-V, say); p2n_compile holds it only for its own duration. Threads that are
 * not compiling (an application's own, the fatbin tool's cache lookups) are not held back: glibc's malloc is
 * fork-safe, so that gap matters only for sanitizer builds, where our tests compile on every thread they start.
 */
#ifndef P2N_FORK_GATE_H
#define P2N_FORK_GATE_H

#include <sys/types.h>

void p2n_fork_gate_enter(void);
void p2n_fork_gate_leave(void);

/* Releases every hold this thread has, waits until no thread holds the gate, forks, and (in the parent) lets the
 * gate go again. Returns fork()'s result with errno kept; in the parent the caller calls p2n_fork_gate_resume
 * (with the value *held got) once it no longer needs to run without the gate, e.g. after reaping the child. */
pid_t p2n_fork_gate_fork(unsigned *held);
void p2n_fork_gate_resume(unsigned held);

#endif
