"""The package's layers import one way only, and no modules import each other in a circle.

Read from the source (every import statement, those under ``TYPE_CHECKING`` too): the
bottom modules (``_notset``, ``_vocabulary``, ``errors``...) import nothing above them;
``apis`` (the public interfaces and value types) imports neither ``core`` nor ``stores``;
``stores`` (the backends) never imports ``core``; and there is no import cycle anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "oracleagentmemory"


def _module_name(path: Path) -> str:
    parts = ["oracleagentmemory", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module -> the package modules it imports (a package import counts as its __init__)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                base = node.module
                for alias in node.names:
                    child = f"{base}.{alias.name}"
                    targets.add(child if child in modules else base)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


GRAPH = _imports()


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "package"


def test_the_layers_import_downwards_only():
    forbidden = {"apis": {"core", "stores", "integrations", "cli", "devtools"},
                 "stores": {"core", "integrations", "cli"},
                 "_notset": {"apis", "core", "stores"}, "errors": {"apis", "core", "stores"},
                 "_vocabulary": {"apis", "core", "stores"}}
    wrong = sorted((module, target) for module, targets in GRAPH.items()
                   for target in targets
                   if _layer(target) in forbidden.get(_layer(module), set()))
    assert wrong == []


def test_no_modules_import_each_other_in_a_circle():
    cycles = []
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(GRAPH[module]):
            if state.get(target) == "open":
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    # A package's __init__ importing its own submodules is how it exports names, not a
    # circle between concepts: leave out cycles that only pass through an __init__.
    real = [cycle for cycle in cycles
            if not any((PACKAGE / Path(*m.split(".")[1:]) / "__init__.py").exists()
                       for m in cycle)]
    assert real == []


_STORE_A_MESSAGE = (
    "from oracleagentmemory.core import OracleAgentMemory\n"
    "client = OracleAgentMemory(connection=':memory:', embedder=None)\n"
    "thread = client.create_thread(user_id='u1')\n"
    "thread.add_messages([{'role': 'user', 'content': 'I like trains.'}])\n")
"""A new process's client storing a message (searches follow in each test's code)."""


def _printed_by_a_new_process(code: str) -> list[str]:
    """The words ``code`` prints, run by a new interpreter on this one's path."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_the_client_imports_neither_http_nor_templates_until_used() -> None:
    """``httpx`` (a model server's client) and ``jinja2`` (prompts, formatted results) load
    on first use: a process that only stores and searches does not pay their import."""
    code = (
        "import sys\n"
        + _STORE_A_MESSAGE +
        "found = thread.search('trains')\n"
        "early = [m for m in ('httpx', 'certifi', 'jinja2') if m in sys.modules]\n"
        "found[0].format_content()\n"
        "print(early, 'jinja2' in sys.modules)\n"
    )
    assert _printed_by_a_new_process(code) == ["[]", "True"]


def test_the_event_classes_are_built_only_once_somebody_listens() -> None:
    """The event classes are pydantic models (a third of the client's import): a process
    that stores and searches with no listener imports neither them nor pydantic, and one
    that registers a listener later gets every event, of the documented classes."""
    code = (
        "import pickle, sys\n"
        + _STORE_A_MESSAGE +
        "thread.search('trains')\n"
        "from oracleagentmemory.observability import OperationKind as kinds\n"
        "early = [m for m in ('pydantic', 'oracleagentmemory.observability.event')\n"
        "         if m in sys.modules]\n"
        "from oracleagentmemory.observability import (\n"
        "    GenericEventListener, OperationKind, ThreadCompletedEvent,\n"
        "    register_event_listeners)\n"
        "from oracleagentmemory.observability import event\n"
        "seen = []\n"
        "with register_event_listeners([GenericEventListener(ThreadCompletedEvent,\n"
        "                                                    seen.append)]):\n"
        "    thread.search('trains')\n"
        "kind = seen[0].operation_kind\n"
        "print(early, [type(e).__name__ for e in seen], kind is OperationKind.READ,\n"
        "      event.OperationKind is OperationKind, OperationKind.__module__,\n"
        "      pickle.loads(pickle.dumps(kind)) is kind)\n"
    )
    assert _printed_by_a_new_process(code) == ["[]", "['ThreadCompletedEvent']", "True", "True",
                                     "oracleagentmemory.observability.event", "True"]


def test_the_observability_package_still_reaches_its_event_modules_as_attributes() -> None:
    """Importing the package used to import ``event`` and ``eventlistener``, so
    ``observability.event.X`` worked after a bare ``import``; it still does (importing
    them then), and ``dir`` lists them. Other submodules (``otel``) stay as they were."""
    code = (
        "import sys\n"
        "import oracleagentmemory.observability as o\n"
        "print(sorted({'event', 'eventlistener'} - set(dir(o))),\n"
        "      o.event.ThreadStartedEvent.__name__, o.event.OperationKind is o.OperationKind,\n"
        "      o.eventlistener.emit_event is o.emit_event, hasattr(o, 'otel'),\n"
        "      hasattr(o, 'nope'))\n"
    )
    assert _printed_by_a_new_process(code) == ["[]", "ThreadStartedEvent", "True", "True", "False",
                                     "False"]


def test_answers_are_unescaped_as_the_prompts_escape_them() -> None:
    from xml.sax.saxutils import unescape

    from oracleagentmemory.core.extractors.prompts import unescape_answer

    for text in ["a &amp;lt; b", "&lt;tag&gt; &amp; &amp;amp; &quot;", "plain", "&&lt;;",
                 "&amp;gt;&gt;&lt;&amp;", "台北&lt;101&gt;&amp;高雄", "서울 &amp;lt; 부산 &gt;"]:
        assert unescape_answer(text) == unescape(text), text
