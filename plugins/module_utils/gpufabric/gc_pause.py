"""Planning and rendering allocate millions of small objects that all stay reachable until the plan is
dropped. Python's cyclic collector walks the whole growing heap again and again while they are made
(at 100k GPUs it cost about 40% of the planner's time, measured with `make bench`); pausing it for the
duration changes no result: whatever cycles remain are collected once it runs again."""
import functools
import gc


def allocation_heavy(fn):
    """Run ``fn`` with the cyclic garbage collector paused (restored as it was, also on error)."""
    @functools.wraps(fn)
    def paused(*args, **kwargs):
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()
    return paused
