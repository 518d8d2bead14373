"""The package's floors: no module imports one of a higher floor, and no imports run in a
circle, function-level imports included (read from the source, nothing imported)."""
import ast
import os

import tvm_gnn_cost

ROOT = os.path.dirname(os.path.abspath(tvm_gnn_cost.__file__))

#: Floor of each top-level room, lowest first: a module may import its own floor and below.
FLOORS = {
    # TVM-free: the GNN, its training; stop requests; TVM's thread count
    "core": 0, "signals": 0, "threads": 0,
    "curves": 1, "progress": 1, "tir": 1,  # curves, heavy tasks' progress (TVM-free); TVM's IR
    "workloads": 2,  # networks, models, targets, inputs, the check-and-time harness
    "ansor": 3, "metaschedule": 3,  # one adapter per TVM search
    "offline": 4,  # pretraining and evaluation on logs
    "experiments": 5, "report": 5,  # models x seeds, and what is written of them
    "cli": 6,
    "__main__": 7,
}


def _modules():
    out = {}
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
                out[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return out


def _imports(module: str, path: str, known) -> set:
    """Modules of the package that ``module`` imports, anywhere in its source."""
    package = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(open(path).read())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in known else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in known and m != module}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_room_has_a_floor():
    rooms = {_room(m) for m in _modules()} - {""}
    assert rooms <= set(FLOORS), f"rooms without a floor: {sorted(rooms - set(FLOORS))}"


def test_no_module_imports_a_higher_floor():
    modules = _modules()
    upward = []
    for module, path in modules.items():
        if module == "tvm_gnn_cost":  # the package's facade loads the adapters on demand
            continue
        for other in _imports(module, path, modules):
            if _room(other) and FLOORS[_room(other)] > FLOORS[_room(module)]:
                upward.append(f"{module} -> {other}")
    assert not upward, "imports that run back up:\n" + "\n".join(sorted(upward))


def test_imports_form_no_circle():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items() if m != "tvm_gnn_cost"}
    graph = {m: {o for o in deps if o in graph} for m, deps in graph.items()}
    state: dict = {}
    circles = []

    def visit(m, stack):
        state[m] = "open"
        for o in graph[m]:
            if state.get(o) == "open":
                circles.append(stack[stack.index(o):] + [o])
            elif o not in state:
                visit(o, stack + [o])
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m, [m])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)
