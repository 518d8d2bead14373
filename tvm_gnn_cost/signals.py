"""Ctrl-C and SIGTERM as one request to stop, however many copies of it arrive; TVM-free.

A terminal's Ctrl-C reaches every process of a job, a batch scheduler or service manager
may send SIGTERM to all of them, and ``compare`` forwards the signal it gets to its ``tune``
child: a process can get the same request twice within microseconds. A second copy must not
turn a clean stop into a crash, so a repeat within :data:`SAME_REQUEST_S` of the first is
ignored; a later one is a new request (the user insists).
"""
from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import Callable, Iterator

#: The signals that ask a command to stop.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: A repeat of a stop signal within this many seconds is a copy of the same request.
SAME_REQUEST_S = 1.0


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it ends as after Ctrl-C: clean-ups run
    (a child process is stopped and waited for) and one line says what was kept."""

    signum = signal.SIGTERM


def stopping(signum: int) -> KeyboardInterrupt:
    """The exception a stop signal raises: ``KeyboardInterrupt`` for Ctrl-C, else
    :class:`Terminated`. Read the signal back with ``getattr(err, "signum", SIGINT)``."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def signal_name(signum: int) -> str:
    """``Ctrl-C`` for SIGINT, the signal's name (``SIGTERM``) otherwise."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


class RepeatFilter:
    """Tells a new stop request from a copy of the last one (:data:`SAME_REQUEST_S`)."""

    def __init__(self):
        self._at = None

    def is_copy(self) -> bool:
        """Whether a signal arriving now repeats the request taken last; if not, it is taken."""
        now = time.monotonic()
        if self._at is not None and now - self._at < SAME_REQUEST_S:
            return True
        self._at = now
        return False


@contextlib.contextmanager
def handle_stop_signals(handler: Callable) -> Iterator[None]:
    """Route SIGINT and SIGTERM to ``handler(signum, frame)`` while the block runs (main
    thread only; elsewhere Python delivers no signal and nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, handler) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


@contextlib.contextmanager
def stop_signals_raise() -> Iterator[None]:
    """In the block, Ctrl-C raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, a
    copy arriving within :data:`SAME_REQUEST_S` of the first raising nothing."""
    repeats = RepeatFilter()

    def handler(signum, frame):
        if not repeats.is_copy():
            raise stopping(signum)

    with handle_stop_signals(handler):
        yield


__all__ = ["STOP_SIGNALS", "SAME_REQUEST_S", "Terminated", "stopping", "signal_name",
           "RepeatFilter", "handle_stop_signals", "stop_signals_raise"]
