"""The plugin contracts name the real classes of what a plugin is handed (the model client, the
sandbox, the memory), imported for type checkers only (`if TYPE_CHECKING:`, so a contract loads
none of them): every annotation resolves, and none of those is `Any`."""

from __future__ import annotations

import ast
import inspect
import typing
from types import ModuleType

import pytest

from arcmemo.llm.client import LLM
from arcmemo.memory.store.memory import Memory
from arcmemo.methods import contract as methods_contract
from arcmemo.sandbox import Sandbox
from arcmemo.solverkit import contract as solver_contract
from arcmemo.solverkit import conversation, programs


def type_checking_names(module: ModuleType) -> dict[str, object]:
    """What the module's `if TYPE_CHECKING:` block imports, imported."""
    names: dict[str, object] = {}
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            exec(compile(ast.Module(body=node.body, type_ignores=[]), module.__name__, "exec"), names)
    return names


def hints(module: ModuleType, target: object) -> dict[str, object]:
    return typing.get_type_hints(target, globalns={**vars(module), **type_checking_names(module)})


@pytest.mark.parametrize("module, target, expected", [
    (solver_contract, solver_contract.SolveContext, {"llm": LLM, "sandbox": Sandbox}),
    (methods_contract, methods_contract.MemoryMethod.read, {"memory": Memory, "llm": LLM}),
    (methods_contract, methods_contract.MemoryMethod.write, {"memory": Memory, "llm": LLM}),
    (methods_contract, methods_contract.MemoryMethod.check, {"memory": Memory}),
    (methods_contract, methods_contract.guarded, {"memory": Memory}),
], ids=["SolveContext", "MemoryMethod.read", "MemoryMethod.write", "MemoryMethod.check", "guarded"])
def test_what_a_plugin_is_handed_is_typed_by_its_real_class(module, target, expected):
    found = hints(module, target)
    assert {name: found[name] for name in expected} == expected


@pytest.mark.parametrize("module", [solver_contract, methods_contract, conversation, programs],
                         ids=["solverkit", "methods", "conversation", "programs"])
def test_every_annotation_of_a_contract_resolves(module):
    """A misspelt or moved class would otherwise go unnoticed (annotations are only strings at run time)."""
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module.__name__:
            hints(module, value)
            for member in vars(value).values():
                if inspect.isfunction(member):
                    hints(module, member)
        elif inspect.isfunction(value) and value.__module__ == module.__name__:
            hints(module, value)
