"""Random programs from Ansor's sketch space, and measuring them into a log."""
from __future__ import annotations

import logging
from typing import List, Optional, Tuple

from tvm import auto_scheduler

from .measure import LABELS

logger = logging.getLogger("tvm_gnn_cost")


def sample_states(task: auto_scheduler.SearchTask, n: int, seed: int = 0,
                  params: Optional[dict] = None, max_rounds: int = 20) -> List:
    """Up to ``n`` distinct random bound-inferred states of ``task`` (TenSet's sampling).

    Parameters
    ----------
    task : SearchTask
    n : int
        How many states to return.
    seed : int
        Seeds the sketch policy.
    params : dict, optional
        ``SketchPolicy`` parameters; ``sample_init_min_population`` sets the
        valid states a round returns at least, ``evolutionary_search_population``
        the states drawn at a time. Both default to sizes near ``n``.
    max_rounds : int
        Sampling rounds before giving up on finding ``n`` distinct states.
    """
    # TVM draws a whole search population (2,048) a round whatever is asked: a few
    # seconds a task to keep a handful. The draws are independent, so fewer are as random.
    params = {"sample_init_min_population": max(1, min(n, 50)),
              "evolutionary_search_population": min(2048, max(32, 2 * n)), **(params or {})}
    policy = auto_scheduler.SketchPolicy(task, params=params, seed=seed, verbose=0)
    seen = set()
    out: List = []
    for _ in range(max_rounds):
        for state in policy.sample_initial_population():
            text = str(state)
            if text not in seen:
                seen.add(text)
                out.append(state)
                if len(out) == n:
                    return out
    logger.info("sample_states: found %d distinct states of %d asked", len(out), n)
    return out


def measure_states(task: auto_scheduler.SearchTask, states, log_file: Optional[str] = None,
                   builder=None, runner=None) -> Tuple[list, list]:
    """Build and run ``states``; append the records to ``log_file`` if given.

    Returns the ``MeasureInput`` and ``MeasureResult`` lists. The default runner times them
    as a dataset's labels are (:data:`.measure.LABELS`).
    """
    builder = builder or auto_scheduler.LocalBuilder()
    runner = runner or LABELS.runner()
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    build_results = builder.build(inputs, verbose=0)
    results = runner.run(inputs, build_results, verbose=0)
    if log_file:
        auto_scheduler.save_records(log_file, inputs, results)
    return list(inputs), list(results)
