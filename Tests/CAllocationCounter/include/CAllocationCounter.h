#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

/// Counts heap allocations (malloc, calloc, realloc, the aligned ones) made by one thread
/// while counting is on. Linked into the test executable, it replaces the C allocator's
/// entry points for the whole process and forwards every call to glibc's own.

/// Starts (or resumes) counting the calling thread's allocations.
void allocation_counter_resume(void);
/// Stops counting; the total so far is kept.
void allocation_counter_pause(void);
/// The allocations counted since the last reset.
long allocation_counter_total(void);
/// Stops counting and sets the total to zero.
void allocation_counter_reset(void);

#endif
