"""Registry by name, in vLLM's style: ``ToolParserManager.get_tool_parser(name)`` gives a parser
class; ``@ToolParserManager.register_module("name")`` adds one."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Type, TypeVar, Union

from .parser import ToolParser
from .spec import SPECS

T = TypeVar("T", bound=type)


def _builtin(name: str) -> Type[ToolParser]:
    cls_name = "".join(part.capitalize() for part in name.split("_")) + "ToolParser"
    return type(cls_name, (ToolParser,), {"format_name": name, "__module__": __name__})


# One class per format, also a module attribute under its class name: pickle finds a class by its
# module and name, so these parsers pickle as the class they are.
_BUILTINS: Dict[str, Type[ToolParser]] = {name: _builtin(name) for name in SPECS}
globals().update({cls.__name__: cls for cls in _BUILTINS.values()})


class UnknownToolParserError(KeyError, ValueError):
    """An unknown parser name: a KeyError as in vLLM's registry, and a ValueError as for
    ``toolparse.get_parser``."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ToolParserManager:
    """Maps names to parser classes. Built-in formats are registered under their names and
    their aliases (one class per format)."""

    tool_parsers: Dict[str, type] = {
        n: _BUILTINS[name] for name, spec in SPECS.items() for n in (spec.name, *spec.aliases)
    }

    @classmethod
    def get_tool_parser(cls, name: str) -> type:
        try:
            return cls.tool_parsers[name]
        except KeyError:
            raise UnknownToolParserError(
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
        """Registers ``module`` under ``name`` (a str, a list of str, or None for its class
        name); usable as a decorator. As in vLLM: ``force=True`` overwrites a registered name,
        ``force=False`` raises KeyError for one; a non-bool ``force``, a ``name`` that is not a
        str/list of str/None, or a module that is not a ToolParser subclass raise TypeError."""
        if not isinstance(force, bool):
            raise TypeError(f"force must be a boolean, but got {type(force)}")
        if not (
            name is None
            or isinstance(name, str)
            or (isinstance(name, list) and all(isinstance(n, str) for n in name))
        ):
            raise TypeError("module_name must be str, list[str], or None.")

        def register(klass: T) -> T:
            if not (isinstance(klass, type) and issubclass(klass, ToolParser)):
                raise TypeError(f"module must be subclass of ToolParser, but got {type(klass)}")
            names = [name] if isinstance(name, str) else (name or [klass.__name__])
            for n in names:
                if not force and n in cls.tool_parsers:
                    existed = cls.tool_parsers[n]
                    raise KeyError(f"{n} is already registered at {existed.__module__}")
            for n in names:
                cls.tool_parsers[n] = klass
            return klass

        if module is not None:
            return register(module)
        return register


def _registered(fmt: Any, _reasoning: Any) -> None:
    """A format registered at run time (``toolparse.register_format``): its class, under its
    name and aliases (a replaced format's old aliases go)."""
    old = _BUILTINS.get(fmt.name)
    cls = old if old is not None else _builtin(fmt.name)
    _BUILTINS[fmt.name] = cls
    globals()[cls.__name__] = cls
    for n in [n for n, c in ToolParserManager.tool_parsers.items() if c is old]:
        del ToolParserManager.tool_parsers[n]
    for n in (fmt.name, *fmt.aliases):
        ToolParserManager.tool_parsers[n] = cls
