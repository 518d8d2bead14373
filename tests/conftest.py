"""Shared fixtures: real Ansor tasks, sampled states and measured programs."""
import os

os.environ.setdefault("TOPHUB_LOCATION", "NONE")
os.environ.setdefault("DGLBACKEND", "pytorch")

import pytest  # noqa: E402

try:  # model and trainer tests run without TVM; the fixtures below need it
    from tvm import auto_scheduler

    import tvm_gnn_cost.workloads.operators  # noqa: F401 - registers the tasks' workloads
    from tvm_gnn_cost.ansor.sampling import measure_states, sample_states
    from tvm_gnn_cost.workloads.targets import host_target
except ImportError:  # pragma: no cover
    auto_scheduler = None

CUDA_PARAMS = dict(num_cores=-1, vector_unit_bytes=16, cache_line_bytes=64,
                   max_shared_memory_per_block=49152, max_local_memory_per_block=2147483647,
                   max_threads_per_block=1024, max_vthread_extent=8, warp_size=32)


@pytest.fixture(scope="session")
def target():
    if auto_scheduler is None:
        pytest.skip("TVM is not installed")
    return host_target()


@pytest.fixture(scope="session")
def matmul_task(target):
    return auto_scheduler.SearchTask(func="tvm_gnn_cost.matmul", args=(256, 256, 256),
                                     target=target)


@pytest.fixture(scope="session")
def conv_task(target):
    return auto_scheduler.SearchTask(func="tvm_gnn_cost.conv2d_bias_relu",
                                     args=(1, 14, 14, 64, 64, 3), target=target)


@pytest.fixture(scope="session")
def cuda_task(target):
    return auto_scheduler.SearchTask(
        func="tvm_gnn_cost.conv2d_bias_relu", args=(1, 14, 14, 64, 64, 3), target="cuda",
        hardware_params=auto_scheduler.HardwareParams(**CUDA_PARAMS))


@pytest.fixture(scope="session")
def resnet_tasks(target):
    """Tasks of resnet-18 (NHWC, batch 1) as Ansor extracts them."""
    from tvm.relay import testing

    mod, params = testing.resnet.get_workload(num_layers=18, batch_size=1, layout="NHWC",
                                              image_shape=(224, 224, 3))
    tasks, weights = auto_scheduler.extract_tasks(mod["main"], params, target)
    return tasks, weights


@pytest.fixture(scope="session")
def measured_conv(conv_task, tmp_path_factory):
    """96 distinct random programs of the conv2d task, measured on this CPU, as a log."""
    log = str(tmp_path_factory.mktemp("records") / "conv.json")
    states = sample_states(conv_task, 96, seed=1)
    inputs, results = measure_states(conv_task, states, log)
    return log, inputs, results
