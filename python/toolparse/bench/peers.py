"""vLLM's and SGLang's parsers for ``toolparse bench``, driven through the peers harness.

The harness (``peers.py`` + ``corpus.py`` + ``faketorch/``, see the project's peers notes) is a
dependency, not part of toolparse: it is used where ``import peers`` finds it, or from the folder
given by ``--peers-dir`` / ``$TOOLPARSE_PEERS_DIR``. Its ``Peer.stream(deltas)`` runs a parser the
way that server's streaming path does (a fresh parser, every delta, the end of the stream).
A format the harness has no parser for (or every format, when there is no harness) is timed with
the server's own parser for it, if the server registers one, by ``servers.py``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..spec import get_spec
from . import servers as servers_mod

__all__ = ["load_harness", "peer_streams"]

Result = Tuple[str, List[Tuple[str, str]]]
Stream = Callable[[List[str]], Result]


def _load_path(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _is_harness(module: Any) -> bool:
    return all(hasattr(module, a) for a in ("make_vllm_peer", "make_sglang_peer", "VLLM_PEERS"))


def _counted(harness: ModuleType) -> ModuleType:
    """The harness with its client-side merge of tool-call deltas counting the arguments pieces
    into ``servers.PIECES`` (its streams look the function up as a module global per call)."""
    merge = getattr(harness, "merge_tool_deltas", None)
    if merge is None or getattr(merge, "_toolparse_counted", False):
        return harness

    def counted(acc: Any, index: int, name: Optional[str], args: Optional[str]) -> None:
        if args:
            servers_mod.PIECES[0] += 1
        merge(acc, index, name, args)

    counted._toolparse_counted = True  # type: ignore[attr-defined]
    harness.merge_tool_deltas = counted  # type: ignore[attr-defined]
    return harness


def load_harness(peers_dir: Optional[str] = None) -> Tuple[Optional[ModuleType], str]:
    """(the harness's ``peers`` module, "") or (None, why not)."""
    folder = peers_dir or os.environ.get("TOOLPARSE_PEERS_DIR")
    if folder is None:
        try:
            module = importlib.import_module("peers")
        except ImportError:
            return None, "no peers harness (put it on PYTHONPATH, or use --peers-dir)"
        except Exception as e:  # the harness's own imports failing
            return None, f"the peers harness does not load ({type(e).__name__}: {e})"
        if not _is_harness(module):
            return None, "the importable 'peers' module is not the peers harness"
        return _counted(module), ""
    d = Path(folder)
    if not (d / "peers.py").is_file():
        return None, f"no peers harness in {d} (no peers.py)"
    # the harness's stand-in for torch, unless a real torch (or the stand-in) is already there
    fake = d / "faketorch" / "sitecustomize.py"
    if "torch" not in sys.modules and importlib.util.find_spec("torch") is None and fake.is_file():
        _load_path("toolparse_bench_faketorch", fake)
    # peers.py imports its neighbour as `corpus`; another `corpus` module (toolparse's own tests
    # have one) is set aside while it loads and put back afterwards
    saved = sys.modules.pop("corpus", None)
    try:
        _load_path("corpus", d / "corpus.py")
        module = _load_path("toolparse_bench_peers_harness", d / "peers.py")
    except Exception as e:  # the harness's own imports (regex, ...) failing
        return None, f"the peers harness in {d} does not load ({type(e).__name__}: {e})"
    finally:
        if saved is not None:
            sys.modules["corpus"] = saved
        else:
            sys.modules.pop("corpus", None)
    return _counted(module), ""


def _installed(module: str) -> Optional[str]:
    """The version of an installed distribution, or None."""
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:
        return None


def versions() -> Dict[str, Optional[str]]:
    return {"vllm": _installed("vllm"), "sglang": _installed("sglang")}


def _names(table: Dict[str, str], format: str) -> List[str]:
    """The harness's parser names for ``format``: those it maps to the format's corpus key, the
    format's own name (or an alias of it) first."""
    key = "harmony" if format == "openai" else format
    names = [n for n, k in table.items() if k == key]
    own = {format, *get_spec(format).aliases}
    return sorted(names, key=lambda n: (n != format, n not in own))


def peer_streams(
    harness: Optional[ModuleType], format: str, why: str = ""
) -> Tuple[Dict[str, Stream], Dict[str, str]]:
    """({"vllm:hermes": stream, ...}, {"sglang:...": why it is not available}) for ``format``:
    one parser per server, vLLM first (SGLang's import needs vLLM's first under the torch
    stand-in)."""
    found: Dict[str, Stream] = {}
    missing: Dict[str, str] = {}
    servers = (
        ("vllm", "VLLM_PEERS", "make_vllm_peer"),
        ("sglang", "SGLANG_PEERS", "make_sglang_peer"),
    )
    for server, table, make in servers:
        if versions()[server] is None:
            missing[server] = why if harness is None else f"{server} is not installed"
            continue
        names = [] if harness is None else _names(getattr(harness, table), format)
        if not names:
            # the server's own parser for the format, driven by servers.py
            gap = why or f"the peers harness has no {server} parser for {format}"
            more, lost = servers_mod.server_streams(format, [server])
            found.update(more)
            missing.update({k: f"{gap}; {v}" if k == server else v for k, v in lost.items()})
            continue
        label = f"{server}:{names[0]}"
        key = "harmony" if format == "openai" else format
        try:
            found[label] = getattr(harness, make)(names[0], key).stream
        except Exception as e:  # a peer that does not run here (e.g. needs a real vocabulary)
            missing[label] = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return found, missing
