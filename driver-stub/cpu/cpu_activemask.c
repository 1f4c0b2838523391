/* cpu_activemask.c — completing a warp's activemask waiters (the CPU backend's grid execution: see cpu_exec.h).
 *
 * Its own file, below cpu_sync.c and cpu_warp.c: both settle a warp after a lane suspends (a barrier, an exit, a
 * collective), and a call from cpu_warp.c into cpu_sync.c while cpu_sync.c calls cpu_warp.c made the two files a
 * ring (driver-stub/README.md, "Layers"). This file calls nothing of the backend but cpu_exec.h's inline helpers. */
#include "cpu_exec.h"

/* Completes the activemask waiters of a warp once every live lane is suspended. Returns true when `self`
 * (may be NULL) was among the completed lanes (it is not woken; its result is in res). */
bool cpu_am_check(worker *w, warpstate *ws, fiber *self) {
    uint32_t live = ws->exists & ~ws->exited;
    for (uint32_t m = live; m; m &= m - 1) {
        fiber *g = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        if (g->index >= w->next_unstarted || (g->state != F_BLOCKED && g->state != F_YIELDED))
            return false;
    }
    uint32_t rem = ws->am_waiting;
    while (rem) {
        uintptr_t site = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(rem))->site;
        uint32_t group = 0;
        for (uint32_t m = rem; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            if (cpu_lane_fiber(w, ws, l)->site == site)
                group |= 1u << l;
        }
        for (uint32_t m = group; m; m &= m - 1)
            cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m))->res = group;
        rem &= ~group;
    }
    bool self_done = false;
    for (uint32_t m = ws->am_waiting; m; m &= m - 1) {
        fiber *g = cpu_lane_fiber(w, ws, (uint32_t)__builtin_ctz(m));
        if (g == self) {
            self_done = true;
            g->state = F_RUNNING;
            g->wait = W_NONE;
        } else {
            cpu_wake(w, g);
        }
    }
    ws->am_waiting = 0;
    return self_done;
}
