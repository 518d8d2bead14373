"""Stop signals: SIGTERM ends a command as Ctrl-C does, and a copy of a request is one request."""
import os
import signal
import time

import pytest

from tvm_gnn_cost.signals import SAME_REQUEST_S, Terminated, stop_signals_raise


def _signal_self(signum):
    os.kill(os.getpid(), signum)
    time.sleep(0.05)  # Python runs the handler between bytecodes of the main thread


def test_sigterm_raises_terminated_and_its_copy_is_ignored():
    """A process group's SIGTERM and the copy a parent forwards arrive together: the second
    must not raise again while the first is being handled."""
    with stop_signals_raise():
        with pytest.raises(Terminated) as err:
            _signal_self(signal.SIGTERM)
        assert err.value.signum == signal.SIGTERM
        _signal_self(signal.SIGTERM)  # a copy: nothing raised
        time.sleep(SAME_REQUEST_S)
        with pytest.raises(KeyboardInterrupt) as err:  # later, a new request
            _signal_self(signal.SIGINT)
        assert not isinstance(err.value, Terminated)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # put back
