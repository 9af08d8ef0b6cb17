"""Registry by name, in vLLM's style: ``ToolParserManager.get_tool_parser(name)`` gives a parser
class; ``@ToolParserManager.register_module("name")`` adds one."""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Type, TypeVar, Union

from . import reference
from .parser import ToolParser

T = TypeVar("T", bound=type)


def _builtin(name: str) -> Type[ToolParser]:
    cls_name = "".join(part.capitalize() for part in name.split("_")) + "ToolParser"
    return type(cls_name, (ToolParser,), {"format_name": name, "__module__": __name__})


class ToolParserManager:
    """Maps names to parser classes. Built-in formats are registered under their format names."""

    tool_parsers: Dict[str, type] = {name: _builtin(name) for name in reference.list_formats()}

    @classmethod
    def get_tool_parser(cls, name: str) -> type:
        try:
            return cls.tool_parsers[name]
        except KeyError:
            raise ValueError(
                f"unknown tool parser {name!r}; known: {', '.join(sorted(cls.tool_parsers))}"
            ) from None

    @classmethod
    def list_registered(cls) -> List[str]:
        return sorted(cls.tool_parsers)

    @classmethod
    def register_module(
        cls,
        name: Union[str, List[str], None] = None,
        force: bool = True,
        module: Optional[type] = None,
    ) -> Union[type, Callable[[T], T]]:
        """Registers ``module`` under ``name`` (or its class name); usable as a decorator."""

        def register(klass: T) -> T:
            names = [name] if isinstance(name, str) else (name or [klass.__name__])
            for n in names:
                if not force and n in cls.tool_parsers:
                    raise KeyError(f"{n!r} is already registered")
                cls.tool_parsers[n] = klass
            return klass

        if module is not None:
            return register(module)
        return register
