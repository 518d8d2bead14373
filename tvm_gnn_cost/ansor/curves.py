"""Search curves rebuilt from Ansor logs, round by round, as ``TaskScheduler`` measured them."""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..core.labels import FAILED_COST
from ..curves import INF, Curve
from .logs import iter_log
from .records import measured_cost


class Measured(NamedTuple):
    """What a curve needs of one record of an Ansor log."""

    key: str  # the task's workload key
    cost: float  # seconds; FAILED_COST for a failed measurement
    timestamp: float


def read_measured(log_file: str) -> List[Measured]:
    """The records of an Ansor log in its order, read once for :func:`weights_measured`,
    :func:`curve_from_log` and :func:`task_costs`."""
    return [Measured(inp.task.workload_key, measured_cost(res), float(res.timestamp))
            for inp, res in iter_log(log_file)]


Log = Union[str, Sequence[Measured]]  # an Ansor log's path, or its records read_measured


def _measured(log: Log) -> Sequence[Measured]:
    return read_measured(log) if isinstance(log, str) else log


def curve_from_log(log: Log, weights: Dict[str, float], model: str, seed: int,
                   start_time: Optional[float] = None, round_size: int = 16,
                   max_gap: Optional[float] = None, first_round: Optional[int] = None) -> Curve:
    """Rebuild a curve from an Ansor log, one point per round.

    A round is a run of consecutive records of one task (how ``TaskScheduler`` measures),
    at most ``round_size`` long, and at most ``first_round`` (default ``round_size``) for a
    task's first round (``tune --first-round``). Records of tasks not in ``weights`` are
    skipped; a task of weight 0 counts towards the trials but not towards the latency. Time
    is taken from the records' timestamps, from ``start_time`` if given, else from the first
    record's.
    A gap longer than ``max_gap`` seconds between two records is taken as time the job was
    not running (a crash, then a resume later) and left out.
    """
    best = {k: INF for k in weights}
    rounds = {k: 0 for k in weights}  # rounds of each task begun
    curve = Curve(model, seed)
    prev_key, ts0, n, in_round = None, start_time, 0, 0
    last_ts, paused = 0.0, 0.0
    for key, cost, ts in _measured(log):
        if key not in best:
            continue
        size = round_size if rounds[key] > 1 or first_round is None else first_round
        if prev_key is not None and (key != prev_key or in_round == size):
            _add_point(curve, n, last_ts - ts0 - paused, best, weights)
            in_round = 0
        if not in_round:
            rounds[key] += 1
        n += 1
        in_round += 1
        ts0 = ts if ts0 is None else ts0
        if n > 1 and max_gap is not None and ts - last_ts > max_gap:
            paused += ts - last_ts
        last_ts = ts
        if cost < FAILED_COST:
            best[key] = min(best[key], cost)
        prev_key = key
    if n:
        _add_point(curve, n, last_ts - ts0 - paused, best, weights)
    return curve


def _add_point(curve: Curve, trials: int, seconds: float, best: Dict[str, float],
               weights: Dict[str, float]) -> None:
    curve.add(trials, seconds, sum(weights[k] * best[k] for k in weights if weights[k] > 0))


def task_costs(log: Log, keys) -> Dict[str, List[float]]:
    """The measured costs (seconds, ``inf`` for a failure) of each task in ``keys`` (workload
    keys), in the log's order."""
    costs: Dict[str, List[float]] = {k: [] for k in keys}
    for key, cost, _ in _measured(log):
        if key in costs:
            costs[key].append(cost if cost < FAILED_COST else INF)
    return costs


def weights_measured(tasks, weights, logs: Sequence[Log]) -> Tuple[Dict[str, float], List[str]]:
    """Task weights by workload key, 0 for tasks no log measured successfully.

    A task that no run could measure (a TVM build error, say) would make every estimate
    infinite; with weight 0 its trials still count but it is left out of the latency.
    Returns the weights and the descriptions of the tasks left out.
    """
    ok = {key for log in logs for key, cost, _ in _measured(log) if cost < FAILED_COST}
    out = {t.workload_key: (w if t.workload_key in ok else 0) for t, w in zip(tasks, weights)}
    return out, [t.desc or t.workload_key for t in tasks if t.workload_key not in ok]


__all__ = ["Measured", "curve_from_log", "read_measured", "task_costs", "weights_measured"]
