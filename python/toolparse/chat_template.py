"""Chat templates rendered the way transformers' ``apply_chat_template`` renders them, and the text
an assistant turn adds to a conversation.

The Jinja environment follows transformers 5 (``transformers/utils/chat_template_utils.py``):
``trim_blocks`` and ``lstrip_blocks``, the loop-controls extension (``{% break %}``,
``{% continue %}``), a ``{% generation %}`` block tag (rendered as its body), ``tojson`` as
``json.dumps`` with its keyword arguments (``ensure_ascii=False`` by default, ``indent``,
``separators``, ``sort_keys``; iterators such as ``map`` and ``select`` results become lists), the
globals ``raise_exception(message)`` and ``strftime_now(format)``, and a ``namespace`` that refuses
attribute names starting with ``_``. One difference: the sandbox is Jinja's mutable
``SandboxedEnvironment``, not the immutable one, because templates append to and pop from lists they
build (Kimi-K2's tool-call id queue); what the template sees is a fresh copy of the caller's data in
plain JSON types, so it can change nothing of the caller's.

Jinja has no time limit and its sandbox does not stop ``'x' * 10**9``, so :func:`render_bounded`
renders in a child process with a time limit (the render's CPU time, where POSIX gives a
profiling timer, so a loaded machine does not time a template out; a wall-clock backstop ten times
as long kills a render stuck inside one C call), a memory limit (POSIX ``RLIMIT_AS``; where the
platform has no ``resource`` module only the time limit applies) and an output cap. Every problem
with the template, bounded or not, is a ``ValueError`` naming it: invalid Jinja, a template that
raises (``raise_exception`` or an error in an expression), a timeout, too much memory, too much
output. Bad arguments from the caller are a ``TypeError`` or ``ValueError`` naming the argument.

:func:`assistant_text` gives the text an assistant turn adds (what the model writes): the
conversation rendered with the turn, less the same conversation rendered up to its generation
prompt, less the end-of-turn tokens (see its documentation for how they are found).

jinja2 (>= 3.1.6, the first without the known sandbox escapes) is imported by this module only, and
is an optional dependency: ``pip install 'toolparse[templates]'``. ``import toolparse`` never
needs it.
"""

from __future__ import annotations

import atexit
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.sandbox
import jinja2.utils

__all__ = [
    "DEFAULT_END_TOKENS",
    "MAX_OUTPUT",
    "MAX_MEMORY",
    "TIMEOUT",
    "RenderedTurn",
    "assistant_text",
    "render",
    "render_assistant",
    "render_bounded",
    "stop_token",
    "token_text",
]

#: The longest output a render may write, in characters (1 MB of ASCII).
MAX_OUTPUT = 1_000_000
#: The memory a bounded render may take beyond what its process starts with, in bytes.
MAX_MEMORY = 256 * 1024 * 1024
#: The time a bounded render may take, in seconds of CPU time where the platform has
#: ``signal.setitimer`` (else of wall-clock time; process start-up not counted).
TIMEOUT = 1.0
#: The wall-clock time a bounded render may take, as a multiple of its CPU-time limit: the backstop
#: for a render stuck in one C call, which the CPU-time signal cannot interrupt.
_WALL_FACTOR = 10.0
#: End-of-turn tokens that :func:`assistant_text` cuts from the end of a turn besides the template's
#: own turn end and ``eos_token``: the model stops at them, so they are not text it writes.
DEFAULT_END_TOKENS: Tuple[str, ...] = (
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<end_of_turn>",
    "<turn|>",
    "<｜end▁of▁sentence｜>",
    "<|end_of_sentence|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|im_end_of_turn|>",
    "<|return|>",
    "<|tool_response>",  # Gemma 4 stops a turn with calls at it
    "</s>",
)

TokenLike = Union[str, Mapping[str, Any], None]

# ------------------------------------------------------------------------------------------------
# The environment
# ------------------------------------------------------------------------------------------------


class _GenerationTag(jinja2.ext.Extension):
    """``{% generation %}...{% endgeneration %}``: marks what the assistant writes (transformers
    uses it for its assistant-token mask); here it renders its body unchanged."""

    tags = {"generation"}

    def parse(self, parser: Any) -> Any:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_body")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return str(caller())


def _raise_exception(message: Any) -> None:
    raise jinja2.exceptions.TemplateError(str(message))


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _json_default(value: Any) -> Any:
    if isinstance(value, jinja2.Undefined):
        raise TypeError("tojson of an undefined value")
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Iterator):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: Optional[Union[int, str]] = None,
    separators: Optional[Tuple[str, str]] = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value,
        ensure_ascii=ensure_ascii,
        indent=indent,
        separators=(separators[0], separators[1]) if separators is not None else None,
        sort_keys=sort_keys,
        default=_json_default,
    )


def _check_attribute_name(name: Any) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(
            f"a namespace attribute may not start with '_': {name!r}"
        )


class _Namespace(jinja2.utils.Namespace):
    """Jinja's ``namespace`` that refuses attribute names starting with ``_``."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 (Jinja's own signature)
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name in attrs:
            _check_attribute_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_attribute_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)


def _make_dict(*args: Any, **kwargs: Any) -> Dict[Any, Any]:
    return dict(*args, **kwargs)


@lru_cache(maxsize=1)
def _environment() -> jinja2.sandbox.SandboxedEnvironment:
    env = jinja2.sandbox.SandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_GenerationTag, jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["namespace"] = _Namespace
    env.globals["dict"] = _make_dict
    return env


@lru_cache(maxsize=64)
def _compile(template: str) -> jinja2.Template:
    try:
        return _environment().from_string(template)
    except jinja2.TemplateSyntaxError as e:
        raise ValueError(f"invalid chat template: line {e.lineno}: {e.message}") from None
    except MemoryError:
        raise ValueError("the chat template took too much memory") from None
    except Exception as e:  # what Jinja leaves to Python's compiler ('break' outside a loop)
        raise ValueError(f"invalid chat template: {type(e).__name__}: {e}") from None


@lru_cache(maxsize=64)
def _check_syntax(template: str) -> None:
    """Parse without compiling: compiling folds constant expressions, which for ``'x' * 10**9``
    means building the string here, outside the bounded process. A template that parsed is kept
    (detection and inference render one template some forty times; parsing it was two thirds of
    their time); one that raised is parsed again."""
    try:
        _environment().parse(template)
    except jinja2.TemplateSyntaxError as e:
        raise ValueError(f"invalid chat template: line {e.lineno}: {e.message}") from None


# ------------------------------------------------------------------------------------------------
# What the template sees
# ------------------------------------------------------------------------------------------------


def token_text(token: TokenLike, *, name: str = "token") -> str:
    """The text of a special token as tokenizer_config.json gives it: a string, an ``AddedToken``
    written as a dict (``{"__type": "AddedToken", "content": "<s>", ...}``), an object with a
    ``content`` attribute (``tokenizers.AddedToken``), or None (the empty string)."""
    if token is None:
        return ""
    if isinstance(token, str):
        return token
    if isinstance(token, Mapping):
        content = token.get("content")
    else:
        content = getattr(token, "content", None)
    if not isinstance(content, str):
        raise TypeError(f"{name} must be a string or an AddedToken with a string 'content'")
    return content


def _plain(value: Any, where: str) -> Any:
    """A fresh copy of ``value`` in plain JSON types (pydantic models dumped, tuples as lists)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: keys must be strings, got {type(k).__name__}")
            out[str.__str__(k)] = _plain(v, where)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return _plain(dump(exclude_none=True), where)
    raise TypeError(f"{where}: {type(value).__name__} is not JSON data")


_REASONING_KEYS = ("reasoning_content", "thinking", "reasoning")


def _message(message: Any, i: int) -> Dict[str, Any]:
    m = _plain(message, f"messages[{i}]")
    if not isinstance(m, dict) or not isinstance(m.get("role"), str):
        raise TypeError(f"messages[{i}] must be a mapping with a string 'role'")
    # keys whose value is None are left out, as transformers' apply_chat_template leaves them out:
    # templates test whether a key is there, and render a None as "None"
    m = {k: v for k, v in m.items() if v is not None}
    reasoning = next((m[k] for k in _REASONING_KEYS if k in m), None)
    if reasoning is not None:
        for k in _REASONING_KEYS:
            m[k] = reasoning
    return m


def _render_context(template: str, ctx: Dict[str, Any], max_output: int) -> str:
    compiled = _compile(template)
    parts: List[str] = []
    size = 0
    try:
        for chunk in compiled.generate(ctx):
            size += len(chunk)
            if size > max_output:
                raise ValueError(f"the chat template wrote more than {max_output} characters")
            parts.append(chunk)
    except ValueError:
        raise
    except MemoryError:
        raise ValueError("the chat template took too much memory") from None
    except RecursionError:
        raise ValueError("the chat template recursed too deeply") from None
    except jinja2.TemplateError as e:
        raise ValueError(f"the chat template raised: {e.message or type(e).__name__}") from None
    except Exception as e:
        raise ValueError(f"the chat template failed: {type(e).__name__}: {e}") from None
    return "".join(parts)


# ------------------------------------------------------------------------------------------------
# Rendering
# ------------------------------------------------------------------------------------------------


def render(
    template: str,
    messages: Sequence[Any],
    *,
    tools: Optional[Sequence[Any]] = None,
    add_generation_prompt: bool = False,
    bos_token: TokenLike = "",
    eos_token: TokenLike = "",
    max_output: int = MAX_OUTPUT,
    **kwargs: Any,
) -> str:
    """Render a chat template in this process, as ``apply_chat_template(..., tokenize=False)``.

    ``messages`` are OpenAI-style message mappings (or pydantic models, dumped without None
    fields); a key whose value is None is left out, and reasoning given as ``reasoning_content``,
    ``thinking`` or ``reasoning`` is passed under all three names. ``tools`` are OpenAI tool dicts.
    ``bos_token``/``eos_token`` are strings or tokenizer_config ``AddedToken`` dicts. Other keyword
    arguments (``enable_thinking``, ``thinking``, ``reasoning_effort``, ...) are template variables.

    The output is capped at ``max_output`` characters, but time and memory are not bounded: use
    :func:`render_bounded` for a template you do not trust.

    Raises ValueError for invalid Jinja, a template that raises or fails, or too much output.
    """
    ctx = _checked_context(
        template, messages, tools, add_generation_prompt, bos_token, eos_token, kwargs
    )
    return _render_context(template, ctx, max_output)


def _checked_context(
    template: Any,
    messages: Sequence[Any],
    tools: Optional[Sequence[Any]],
    add_generation_prompt: bool,
    bos_token: TokenLike,
    eos_token: TokenLike,
    kwargs: Mapping[str, Any],
) -> Dict[str, Any]:
    """The argument handling :func:`render` and :func:`render_bounded` share: the template must
    be a string, the messages and tools lists; the rest becomes the template's context."""
    if not isinstance(template, str):
        raise TypeError("template must be a string")
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TypeError("messages must be a list of message mappings")
    if tools is not None and (isinstance(tools, (str, bytes)) or not isinstance(tools, Sequence)):
        raise TypeError("tools must be a list of OpenAI tool dicts or None")
    ctx: Dict[str, Any] = {k: _plain(v, k) for k, v in kwargs.items()}
    ctx.update(
        messages=[_message(m, i) for i, m in enumerate(messages)],
        tools=_plain(list(tools), "tools") if tools is not None else None,
        add_generation_prompt=bool(add_generation_prompt),
        bos_token=token_text(bos_token, name="bos_token"),
        eos_token=token_text(eos_token, name="eos_token"),
    )
    return ctx


def _limit_memory(max_memory: int) -> None:
    """Let this process take ``max_memory`` bytes more address space than it has now (POSIX)."""
    try:
        import resource
    except ImportError:  # not POSIX: the time limit still applies
        return
    try:
        with open("/proc/self/statm") as f:
            in_use = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        in_use = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    limit = in_use + max_memory
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # some platforms (macOS) do not enforce RLIMIT_AS
        pass


def _read_frame(stream: Any) -> Optional[bytes]:
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "big")
    body = stream.read(size)
    return body if len(body) == size else None


def _write_frame(stream: Any, data: bytes) -> None:
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


class _CpuTimeUp(BaseException):
    """Raised in the worker when a render has used its CPU time (a BaseException, so the
    renderer's own ``except Exception`` does not turn it into a template error)."""


def _time_up(signum: int, frame: Any) -> None:
    raise _CpuTimeUp


class _cpu_limit:
    """Within the block, SIGPROF raises :class:`_CpuTimeUp` after ``seconds`` of CPU time
    (nothing where the platform has no ``setitimer``: the caller's wall clock bounds it)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.on = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")

    def __enter__(self) -> None:
        if self.on:
            signal.signal(signal.SIGPROF, _time_up)
            signal.setitimer(signal.ITIMER_PROF, self.seconds)

    def __exit__(self, *exc: Any) -> None:
        if self.on:
            signal.setitimer(signal.ITIMER_PROF, 0)


def _worker_main(max_memory: int) -> None:
    """The bounded renderer's worker process: limits its memory, then renders requests (JSON frames
    on stdin: template, context, output cap) and answers each ({"ok": text} or {"error": why})."""
    _limit_memory(max_memory)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        frame = _read_frame(stdin)
        if frame is None:
            return
        try:
            template, ctx, max_output, cpu_seconds = json.loads(frame)
            with _cpu_limit(cpu_seconds):
                answer: Dict[str, str] = {"ok": _render_context(template, ctx, max_output)}
        except _CpuTimeUp:
            answer = {"error": f"the chat template took more than {cpu_seconds:g} s to render"}
        except ValueError as e:
            answer = {"error": str(e)}
        except MemoryError:
            answer = {"error": "the chat template took too much memory"}
        except Exception as e:  # a bad request: answer it, stay up
            answer = {"error": f"the render process failed: {type(e).__name__}: {e}"}
        try:
            _write_frame(stdout, json.dumps(answer).encode())
        except MemoryError:
            _write_frame(stdout, b'{"error": "the chat template took too much memory"}')


# runs this file as a script, without the working directory on sys.path
_WORKER_BOOT = (
    "import runpy, sys; sys.path[:] = [p for p in sys.path if p]; "
    "runpy.run_path(sys.argv[1], run_name='__main__')"
)


class _Worker:
    """A Python process that renders for :func:`render_bounded`, started on first use, killed
    when a render runs out of time, started again after it dies. It runs this file as a script
    (jinja2 and the standard library only), so nothing of the caller's program is imported again
    and no threaded process is forked."""

    def __init__(self, max_memory: int) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.max_memory = max_memory
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_BOOT, os.path.abspath(__file__), str(max_memory)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    def ask(self, request: bytes, timeout: float) -> Optional[bytes]:
        """The answer to ``request``, or None if the worker died; raises TimeoutError (after
        killing the worker) when none comes in ``timeout`` seconds."""
        answer: List[Optional[bytes]] = []
        reader = threading.Thread(
            target=lambda: answer.append(_read_frame(self.proc.stdout)), daemon=True
        )
        try:
            _write_frame(self.proc.stdin, request)
        except OSError:
            return None
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            self.kill()
            reader.join()
            raise TimeoutError
        return answer[0] if answer else None


_worker: Optional[_Worker] = None
_worker_lock = threading.Lock()
# a fresh worker's first answer waits for it to start (import jinja2): not counted in the timeout
_STARTUP_ALLOWANCE = 30.0


def _bounded(request: bytes, timeout: float, max_memory: int) -> Dict[str, str]:
    global _worker
    with _worker_lock:
        fresh = False
        if _worker is None or _worker.proc.poll() is not None or _worker.max_memory != max_memory:
            if _worker is not None:
                _worker.kill()
            _worker = _Worker(max_memory)
            fresh = True
        worker = _worker
        wall = timeout * (_WALL_FACTOR if _cpu_limit(timeout).on else 1.0)
        try:
            raw = worker.ask(request, wall + (_STARTUP_ALLOWANCE if fresh else 0.0))
        except TimeoutError:
            _worker = None
            raise ValueError(f"the chat template took more than {timeout:g} s to render") from None
        if raw is None:
            worker.kill()
            _worker = None
            raise ValueError(
                "the chat template's render process died; most likely it took too much memory"
            )
    answer = json.loads(raw)
    return answer if isinstance(answer, dict) else {"error": "bad answer from the render process"}


@atexit.register
def _stop_worker() -> None:
    if _worker is not None:
        _worker.kill()


def render_bounded(
    template: str,
    messages: Sequence[Any],
    *,
    tools: Optional[Sequence[Any]] = None,
    add_generation_prompt: bool = False,
    bos_token: TokenLike = "",
    eos_token: TokenLike = "",
    timeout: float = TIMEOUT,
    max_output: int = MAX_OUTPUT,
    max_memory: int = MAX_MEMORY,
    **kwargs: Any,
) -> str:
    """:func:`render` in a separate process that may take ``timeout`` seconds of CPU time
    (POSIX; elsewhere, of wall-clock time), ``max_memory`` bytes more than it starts with (POSIX)
    and write ``max_output`` characters.

    The process is started on first use (its start-up is not counted in the timeout) and kept for
    the next renders; it is killed when a render runs out of time. Invalid Jinja is found in this
    process, before anything is sent.

    Raises ValueError for invalid Jinja, a template that raises or fails, a timeout, too much
    memory, or too much output.
    """
    ctx = _checked_context(
        template, messages, tools, add_generation_prompt, bos_token, eos_token, kwargs
    )
    if not (isinstance(timeout, (int, float)) and timeout > 0 and math.isfinite(timeout)):
        raise ValueError("timeout must be a positive number of seconds")
    if not (isinstance(max_memory, int) and max_memory > 0):
        raise ValueError("max_memory must be a positive number of bytes")
    if not (isinstance(max_output, int) and max_output >= 0):
        raise ValueError("max_output must be a number of characters")
    _check_syntax(template)
    try:
        request = json.dumps([template, ctx, max_output, timeout], allow_nan=False).encode()
    except ValueError:
        raise ValueError("messages, tools and template variables must be finite JSON") from None
    answer = _bounded(request, float(timeout), max_memory)
    if "ok" not in answer:
        raise ValueError(answer.get("error", "the chat template failed"))
    return answer["ok"]


# ------------------------------------------------------------------------------------------------
# The text an assistant turn adds
# ------------------------------------------------------------------------------------------------

_SENTINEL = "Zq7Xk2Vw9Lm4"
_DEFAULT_HISTORY: Tuple[Dict[str, Any], ...] = (
    {"role": "user", "content": "What is the weather in Paris?"},
)
_NEXT_USER: Tuple[Dict[str, Any], ...] = ({"role": "user", "content": "And in Rome?"},)


@dataclass(frozen=True)
class RenderedTurn:
    """An assistant turn as a template renders it.

    ``text`` is what the model writes for the turn (end-of-turn tokens cut off); ``prompt`` is
    the conversation up to the generation prompt (what the model is given); ``shared`` how much of
    it the render with the turn begins with (``len(prompt)`` unless a prefix mode other than
    "strict" found less); ``turn_end`` the template's end of a plain turn (what follows
    a turn's content, less a generation prompt the template writes whatever it is asked);
    ``arguments`` says how the calls' arguments were given to the template ("dict", or "json"
    strings when dicts made it raise or leak a Python repr) and ``content`` how a turn with calls
    and no content was given (None: no content key; or "").
    """

    text: str
    prompt: str
    turn_end: str
    arguments: str
    content: Optional[str]
    shared: int = 0


def _with_descriptions(tools: Optional[Sequence[Any]]) -> Optional[List[Dict[str, Any]]]:
    """The tools as plain dicts with a description on every tool and property (some templates
    print or trim one without checking it is there)."""
    if tools is None:
        return None
    out = _plain(list(tools), "tools")
    for i, tool in enumerate(out):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise TypeError(f"tools[{i}] must be an OpenAI tool dict with function.name")
        fn.setdefault("description", f"The {fn['name']} function.")
        params = fn.setdefault("parameters", {"type": "object", "properties": {}})
        props = params.get("properties") if isinstance(params, dict) else None
        if isinstance(props, dict):
            for key, prop in props.items():
                if isinstance(prop, dict):
                    prop.setdefault("description", f"The {key}.")
    return out


def _call_id(i: int) -> str:
    # 9 letters and digits: Mistral's templates refuse any other id
    return f"call{i:05d}"


def _tool_calls(tool_calls: Sequence[Any], as_json: bool) -> List[Dict[str, Any]]:
    out = []
    for i, call in enumerate(tool_calls):
        c = _plain(call, f"tool_calls[{i}]")
        if not isinstance(c, dict):
            raise TypeError(f"tool_calls[{i}] must be an OpenAI tool call mapping")
        fn = c.get("function", c)
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise TypeError(f"tool_calls[{i}] must have a function name")
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                raise ValueError(f"tool_calls[{i}]: arguments are not JSON") from None
        if not isinstance(args, dict):
            raise ValueError(f"tool_calls[{i}]: arguments must be a JSON object")
        out.append(
            {
                "id": c.get("id") or _call_id(i),
                "type": "function",
                "function": {
                    "name": fn["name"],
                    "arguments": json.dumps(args, ensure_ascii=False) if as_json else args,
                },
            }
        )
    return out


def _leaks_repr(text: str, calls: List[Dict[str, Any]]) -> bool:
    """Whether a call's arguments dict shows in ``text`` as Python writes it (a template that
    expected a JSON string and printed the dict)."""
    for call in calls:
        args = call["function"]["arguments"]
        if isinstance(args, dict) and args and repr(args) != json.dumps(args):
            if repr(args) in text:
                return True
    return False


def stop_token(turn_end: str) -> str:
    """The token the model stops at, from the end of a plain turn as the template writes it: its
    last special token (``<|im_end|>`` of ``<|im_end|>\\n``, ``<|end_of_msg|>`` of Kimi-K3's
    ``<|close|>response<|sep|><|close|>message<|sep|><|end_of_msg|>``), or its last word where it
    has no ``<...>`` or ``[...]`` token (MiniMax's ``[e~[``); "" where it is only whitespace."""
    end = turn_end.rstrip()
    for close, opening in ((">", "<"), ("]", "[")):
        if end.endswith(close) and opening in end:
            return end[end.rindex(opening) :]
    return end.split()[-1] if end else ""


def _inner_stop_token(
    run: Callable[[List[Any], bool], str], history: List[Any], prompt: str
) -> str:
    """The stop token of a template that writes none after the conversation's last turn (Hy3
    writes its ``<｜hy_eos:opensource｜>`` after every other plain turn and after every turn with
    calls): the ``<...>`` token right after a plain turn a user turn follows, unless the prompt
    already holds it (then it is the user turn's header); "" when there is none."""
    try:
        text = run([*history, {"role": "assistant", "content": _SENTINEL}, *_NEXT_USER], False)
    except ValueError:
        return ""
    at = text.rfind(_SENTINEL)
    after = text[at + len(_SENTINEL) :].lstrip() if at >= 0 else ""
    m = re.match(r"<[^<>\s]+>", after)
    return m.group(0) if m and m.group(0) not in prompt else ""


def _cut_turn_end(text: str, stop: str, end_tokens: Sequence[str]) -> str:
    """``text`` without the stop token and end-of-turn tokens at its end (and the whitespace
    after them), cut as long as one is there."""
    tokens = [t for t in (stop, *end_tokens) if t]
    changed = True
    while changed:
        changed = False
        stripped = text.rstrip()
        for token in tokens:
            if stripped.endswith(token):
                text = stripped[: len(stripped) - len(token)]
                changed = True
                break
    return text


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``, backed off to the start of a
    ``<...>`` token it would cut (``<think>`` against ``</think>`` share ``<``, no token)."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    opening = b.rfind("<", 0, at)
    if opening >= 0 and b.find(">", opening, at) < 0:
        at = opening
    return at


def _opens(text: str, start: str, end: str) -> bool:
    """Whether ``text`` ends inside a block opened by ``start`` and closed by ``end``."""
    at = text.rfind(start)
    return at >= 0 and (not end or text.rfind(end) < at)


def _boundary(prompt: str, at: int, blocks: Sequence[Tuple[str, str]]) -> int:
    """Where a turn starts in a render that shares ``prompt[:at]`` with the prompt: the prompt's
    last line end or ``>`` before ``at``, or the start of a block the shared part opens and the
    whole prompt closes."""
    start = max(prompt.rfind(">", 0, at), prompt.rfind("\n", 0, at)) + 1
    for block_start, block_end in blocks:
        if block_start and _opens(prompt[:at], block_start, block_end):
            if not _opens(prompt, block_start, block_end):
                start = min(start, prompt.rfind(block_start, 0, at))
    return start


def _next_prompt(prompt: str, plain: str) -> str:
    """What a template that ignores add_generation_prompt writes after every conversation: the
    longest common end of the conversation and the conversation with a plain turn, from the
    first ``<`` in it (a token's start)."""
    n = 0
    while n < min(len(prompt), len(plain)) and prompt[-1 - n] == plain[-1 - n]:
        n += 1
    tail = plain[len(plain) - n :]
    start = tail.find("<")
    return tail[start:] if start >= 0 else ""


def _trailer(bare: str, gen: str, plain: str) -> int:
    """Where the text a template writes after every conversation, before its generation prompt,
    starts in ``bare`` (the conversation rendered without the generation prompt; ``gen`` is what
    the generation prompt adds to it), or ``len(bare)`` where it writes none. Command R+ ends
    every conversation with a system turn of instructions, so the conversation with a turn after
    it (``plain``) is not the prompt followed by the turn: it is ``bare``'s head, the turn (which
    begins with ``gen``) and the same trailer. The split is the latest that reads ``plain`` so,
    and the trailer starts at a token (``<``)."""
    if plain.startswith(bare + gen):
        return len(bare)
    n = len(bare)
    head = 0  # the common prefix of bare and plain
    while head < min(n, len(plain)) and bare[head] == plain[head]:
        head += 1
    tail = 0  # the common end of bare and plain
    while tail < min(n, len(plain)) and bare[-1 - tail] == plain[-1 - tail]:
        tail += 1
    for k in range(min(head, n - 1), n - tail - 1, -1):
        # (k >= n - tail: plain ends with the trailer bare[k:])
        if bare[k] == "<" and plain.startswith(gen, k) and len(plain) - (n - k) >= k + len(gen):
            return k
    return n


def render_assistant(
    template: str,
    *,
    content: Optional[str] = None,
    reasoning: Optional[str] = None,
    tool_calls: Sequence[Any] = (),
    tools: Optional[Sequence[Any]] = None,
    messages: Optional[Sequence[Any]] = None,
    bos_token: TokenLike = "",
    eos_token: TokenLike = "",
    end_tokens: Sequence[str] = DEFAULT_END_TOKENS,
    arguments: str = "auto",
    prefix: str = "strict",
    blocks: Sequence[Tuple[str, str]] = (),
    bounded: bool = True,
    timeout: float = TIMEOUT,
    max_output: int = MAX_OUTPUT,
    **kwargs: Any,
) -> RenderedTurn:
    """The text an assistant turn adds to a conversation, as the template writes it.

    The turn (``content``, ``reasoning``, ``tool_calls`` as OpenAI tool-call mappings whose
    arguments are dicts or JSON strings) follows ``messages`` (default: one user message). The
    conversation is rendered up to its generation prompt (``add_generation_prompt=True``) and again
    with the turn; the turn's text is the second render past the first, which must be a prefix of
    it (else ValueError); with ``prefix="common"`` (or "auto" when it is not a prefix) it is the
    second render past the longest prefix the two share (not cutting a ``<...>`` token), for a
    template whose generation prompt pre-fills text it does not write for the turn (Gemma 4's
    empty thought channel with thinking off, a ``<think>`` the turn without reasoning lacks).
    ``prefix="boundary"`` is "auto" with the turn's start, where the prompt is not a prefix, moved
    back to the prompt's last line end or ``>`` before the shared part, so the turn never starts
    inside a marker the prompt shares with it (``<think>`` and ``<tool_call>`` share ``<t``); and
    where the shared part opens a block (``blocks``: (start, end) marker pairs, such as the
    reasoning formats' think markers) that the prompt closes after it (thinking off: the prompt
    closes an empty block the turn fills), back to that block's start marker.
    A template that writes the generation prompt whatever ``add_generation_prompt`` says also
    writes it after the turn: it is cut. Calls without an id get one of 9 letters and digits.
    Tools get a description on every tool and property that has none.
    Reasoning is passed as ``reasoning_content``, ``thinking`` and ``reasoning``.

    ``arguments``: "dict" passes the calls' arguments as dicts, "json" as JSON strings, "auto"
    (the default) as dicts unless that makes the template raise or print a dict as Python writes
    it, then as JSON strings. A turn with calls and no content is given without a content key, or
    with content "" if the template raises without one.

    End of turn: the model stops at its end-of-turn token, so that token is not text it writes.
    It is found without a token list of the template's own: the template renders the conversation
    with a plain turn whose content is a sentinel; what follows the sentinel is the template's turn
    end (``<|im_end|>\\n``), and its last token is where the model stops (:func:`stop_token`).
    Only that token is cut, not the whole turn end: what comes before it (Cohere's
    ``<|END_TEXT|>``, Kimi-K3's ``<|close|>message<|sep|>``) the model writes, and a turn with calls
    ends otherwise. Then ``eos_token`` and each of ``end_tokens`` (default
    :data:`DEFAULT_END_TOKENS`, for a turn with calls that ends with another token, as Llama
    3.1's ``<|eom_id|>``) are cut from the end, with the whitespace after them, while one is there.

    ``bounded`` renders with :func:`render_bounded` (``timeout``, ``max_output``); otherwise in
    this process with :func:`render`. Other keyword arguments are template variables
    (``enable_thinking``, ``thinking``, ...). Template problems raise ValueError.
    """
    if prefix not in ("strict", "common", "auto", "boundary"):
        raise ValueError("prefix must be 'strict', 'common', 'auto' or 'boundary'")
    if arguments not in ("auto", "dict", "json"):
        raise ValueError("arguments must be 'auto', 'dict' or 'json'")
    if content is not None and not isinstance(content, str):
        raise TypeError("content must be a string or None")
    if reasoning is not None and not isinstance(reasoning, str):
        raise TypeError("reasoning must be a string or None")
    history = list(messages) if messages is not None else list(_DEFAULT_HISTORY)
    common: Dict[str, Any] = dict(
        tools=_with_descriptions(tools), bos_token=bos_token, eos_token=eos_token, **kwargs
    )

    def run(msgs: List[Any], gen: bool) -> str:
        if bounded:
            return render_bounded(
                template,
                msgs,
                add_generation_prompt=gen,
                timeout=timeout,
                max_output=max_output,
                **common,
            )
        return render(template, msgs, add_generation_prompt=gen, max_output=max_output, **common)

    prompt = run(history, True)
    plain = run([*history, {"role": "assistant", "content": _SENTINEL}], False)
    # a template that writes the generation prompt whatever add_generation_prompt says writes it
    # after the turn too: it is not the turn's
    bare = run(history, False)
    next_prompt = _next_prompt(prompt, plain) if bare == prompt else ""
    # a template that writes text after every conversation (Command R+'s instructions), before
    # the generation prompt: the turn comes before that text
    head = len(bare)
    if not next_prompt and prompt.startswith(bare) and bare != prompt:
        head = _trailer(bare, prompt[len(bare) :], plain)
    trailer = bare[head:]
    at = plain.rfind(_SENTINEL)
    turn_end = plain[at + len(_SENTINEL) : len(plain) - len(next_prompt or trailer)]
    turn_end = turn_end if at >= 0 else ""
    stop = stop_token(turn_end) or _inner_stop_token(run, history, prompt)

    def split(turn: Dict[str, Any]) -> Tuple[str, str]:
        full = run([*history, turn], False)
        if next_prompt and full.endswith(next_prompt):
            full = full[: len(full) - len(next_prompt)]
        opened = bare[:head] + prompt[len(bare) :]  # the conversation's head, then the prompt
        if trailer and full.startswith(opened) and full.endswith(trailer):
            return full[: len(opened)], full[len(opened) : len(full) - len(trailer)]
        at = len(prompt) if full.startswith(prompt) else _common_prefix(prompt, full)
        if prefix == "boundary" and at != len(prompt):
            at = _boundary(prompt, at, blocks)
        if prefix == "strict" and at != len(prompt):
            raise ValueError(
                "the conversation with the assistant turn does not begin with its generation "
                f"prompt (they differ at character {at}: {prompt[at : at + 40]!r} vs "
                f"{full[at : at + 40]!r})"
            )
        return full[:at], full[at:]

    modes = ["dict", "json"] if arguments == "auto" else [arguments]
    contents: List[Optional[str]] = [content] if content or not tool_calls else [None, ""]
    error: Optional[ValueError] = None
    for mode in modes:
        calls = _tool_calls(tool_calls, mode == "json")
        for body in contents:
            turn: Dict[str, Any] = {"role": "assistant", "content": body}
            if reasoning is not None:
                turn["reasoning_content"] = reasoning
            if calls:
                turn["tool_calls"] = calls
            try:
                before, raw = split(turn)
            except ValueError as e:
                error = error or e  # the first problem is the one to report
                continue
            if mode == "dict" and arguments == "auto" and _leaks_repr(raw, calls):
                error = error or ValueError("the template prints arguments dicts as Python does")
                break
            ends = [token_text(eos_token, name="eos_token"), *end_tokens]
            text = _cut_turn_end(raw, stop, ends)
            return RenderedTurn(text, prompt, turn_end, mode, body, len(before))
    assert error is not None
    raise error


def assistant_text(template: str, **kwargs: Any) -> str:
    """The text an assistant turn adds to a conversation: :func:`render_assistant`'s ``text``
    (same keyword arguments)."""
    return render_assistant(template, **kwargs).text


if __name__ == "__main__":  # the bounded renderer's worker (see _Worker)
    _worker_main(int(sys.argv[-1]))
