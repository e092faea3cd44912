/* cycle.h - one scheduling cycle (cycle.c), what the line (scheduler.c)
 * runs; the state the cycle's files share is in entry.h. */
#ifndef ORDO_CYCLE_H
#define ORDO_CYCLE_H

struct scheduler;

/* One scheduling cycle: heads, nomination, order, then each entry's quota
 * re-check, preemption, placement and commit. Returns the admissions
 * made, or a negative errno. */
int cycle_run(struct scheduler *s);

#endif
