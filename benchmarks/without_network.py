"""Copy training logs without any record of one network's tasks (for transfer runs).

``python benchmarks/without_network.py OUT data/train/resnet-18.tasks.json.gz LOG...`` writes
each LOG to OUT with the records of the given task file's workloads left out (resnet-50
shares seven of resnet-18's tasks, for example), and copies the task files beside them, so
that a model pretrained on OUT has never seen a program of that network's tasks.
"""
import gzip
import json
import os
import shutil
import sys

from tvm_gnn_cost.ansor.taskfile import read_task_file, tasks_path


def main(out: str, task_file: str, logs: list) -> None:
    excluded = {t.workload_key for t in read_task_file(task_file)[0]}
    os.makedirs(out, exist_ok=True)
    for log in logs:
        dest = os.path.join(out, os.path.basename(log))
        kept = dropped = 0
        with gzip.open(log, "rt") as src, gzip.open(dest, "wt") as dst:
            for line in src:
                if json.loads(line)["i"][0][0] in excluded:
                    dropped += 1
                else:
                    dst.write(line)
                    kept += 1
        tasks = tasks_path(log) + ".gz"
        shutil.copy(tasks, os.path.join(out, os.path.basename(tasks)))
        print(f"{log}: kept {kept}, left out {dropped}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
