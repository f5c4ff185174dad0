"""A function run in a forked child process, bounded in time, for the tests of what a process
forked after OpenMP ran may do (OpenMP's threads do not survive fork(): a parallel region there
would hang). A child that hangs is killed, by its own process, and the test fails."""

import multiprocessing


def run_forked(target, *args, timeout=60):
    """Run ``target(*args, queue)`` in a forked child; return what it put on the queue."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    child.join(timeout)
    alive = child.is_alive()
    if alive:
        child.kill()
        child.join(5)
    assert not alive, "the forked child hung"
    assert child.exitcode == 0, f"the forked child exited with {child.exitcode}"
    return queue.get(timeout=5)
