"""vLLM's and SGLang's own parsers for the formats the peers harness does not know.

The peers harness (``peers.py``) drives a fixed table of about a dozen parsers. Both servers
register many more: every toolparse format whose name or alias a server registers is timed here
with that server's parser, on the bench's own renderings and deltas (``outputs.py``), driven the
way the server's streaming path drives it:

* vLLM (0.33): per response ``ParserManager.get_parser(tool_parser_name=NAME, ...)`` composes a
  ``Parser``; one is built per request as ``parser_cls(tokenizer, request.tools, ...)`` and
  wrapped in a ``ChatStreamProcessor``, whose ``step(delta_text, delta_token_ids, finish_reason,
  prompt_token_ids)`` runs per engine chunk (``Parser.parse_delta`` keeps previous/current text
  and token ids and calls the tool parser's ``extract_tool_calls_streaming``); the last chunk
  carries the finish reason, which runs the end-of-stream step.
* SGLang (0.5): per request ``FunctionCallParser(tools, NAME, tokenizer=...)``;
  ``parse_stream_chunk(delta)`` per chunk, ``parse_stream_end()`` with the last one, then the
  unstreamed-arguments check of ``serving_chat._check_for_unstreamed_tool_args``.

Deltas are merged the way an OpenAI client merges them (per call index: the name once, the
arguments appended). No model weights: ``BenchTokenizer`` gives every marker string and special
token of the format an id of its own and every other delta an id interned on first sight, one id
per delta.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..spec import SPECS, get_spec
from . import outputs

__all__ = [
    "SERVERS",
    "BenchTokenizer",
    "format_of",
    "peer_name",
    "registered",
    "server_streams",
    "sglang_stream",
    "vllm_stream",
]

Result = Tuple[str, List[Tuple[str, str]]]
Stream = Callable[[List[str]], Result]

SERVERS = ("vllm", "sglang")

# A server's parser name that is a toolparse name for another format: SGLang's `muse` reads the
# wire format vLLM calls `muse_glimmer` (toolparse follows vLLM's names; docs/formats.md, aliases).
CLASHES: Dict[str, Dict[str, str]] = {"sglang": {"muse": "muse_glimmer"}}
# toolparse's own plugins register under this prefix in both servers; they are not peers
PLUGIN_PREFIX = "toolparse_"
# Names that are no fixed wire format: the response-template parsers read the format the model's
# tokenizer configuration describes (vLLM's `hf`, SGLang's `response_template`).
GENERIC = {"vllm": frozenset({"hf"}), "sglang": frozenset({"response_template"})}

_STRIPS = (
    " strips the whitespace around a parameter value (the 16 KB content ends with a space, which"
    " toolparse keeps: it strips only the one newline a template writes)"
)
# Peers (vLLM 0.33.0, SGLang 0.5.23) that do not return the bench's call, and why; checked by
# tests/integrations/test_bench_peers.py. "unavailable": the parser is not built here.
MISREADS: Dict[str, str] = {
    "vllm:hunyuan_a13b": "streams the `<tool_calls>` start marker as content when it arrives as"
    " a delta of its own (as the model's special token does), then the call",
    "vllm:phi4_mini_json": "its extract_tool_calls_streaming returns None: it streams nothing",
    "sglang:spark25": "streams the call with no arguments (`{}`) when each `<arg_key>` stands on"
    " a line of its own, as the template lays a call out (it reads the inline layout)",
    "vllm:xlam": "(peers harness) the streamed arguments start with a doubled `{`",
    "vllm:functiongemma": "the streamed arguments are not JSON: a `}` after the first argument",
    "vllm:inkling": "keeps the call's header (the function name before"
    " `<|content_invoke_tool_json|>`) as content: it drops a header only after a"
    " `<|message_model|>` in the output, which the prompt ends with (docs/formats.md, inkling)",
    "sglang:inkling": "as vLLM's inkling: the header is content without `<|message_model|>`",
    "sglang:interns1": "starts a call only at `<|action_start|> <|plugin|>` (a space between,"
    " Intern-S1's form); the bench writes InternLM2's `<|action_start|><|plugin|>`",
    "sglang:trinity": "starts a call only at `<tool_call>` and a newline (Qwen 2.5's form, the"
    " Qwen25Detector it extends); the bench writes `<tool_call>{...}</tool_call>`",
    "sglang:beam": "returns the call but gives the analysis message (reasoning, which SGLang's"
    " reasoning parser would take first) and `<|start|>assistant` as content",
    "vllm:jamba": "the streamed arguments garble a quoted word: `'id'` streams as `''id`",
    "sglang:step3": "drops a parameter whose value holds a `<` (the content's `<li ...>`), and"
    + _STRIPS,
}
MISREADS.update(
    (label, _STRIPS.strip())
    for label in (
        "vllm:step3", "vllm:dots", "vllm:minicpm5", "sglang:dots", "sglang:minicpm5",
        "sglang:deepseekv32", "sglang:deepseekv4", "sglang:deepseekv41",
    )
)  # fmt: skip
UNAVAILABLE: Dict[str, str] = {
    "vllm:cohere_command3": "needs the cohere_melody package",
    "vllm:cohere_command4": "needs the cohere_melody package",
    "vllm:beam": "needs response_template metadata in a real tokenizer configuration",
    "vllm:openai": "(peers harness) openai_harmony downloads its vocabulary file: no network",
}


def _quiet() -> None:
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.disable(logging.WARNING)


def _vllm_first() -> None:
    """Imports vLLM's parsers where vLLM is installed: SGLang's import needs them first under the
    peers' torch stand-in."""
    try:
        import vllm.tool_parsers  # noqa: F401
    except Exception:  # no vLLM, or one that does not import here: SGLang may still
        pass


_REGISTERED: Dict[str, Tuple[Optional[List[str]], str]] = {}


def _load_registered(server: str) -> Tuple[Optional[List[str]], str]:
    _quiet()
    if server == "sglang":
        _vllm_first()
    try:
        if server == "vllm":
            from vllm.tool_parsers import ToolParserManager

            names = list(ToolParserManager.list_registered())
        else:
            from sglang.srt.function_call.function_call_parser import FunctionCallParser

            names = list(FunctionCallParser.ToolCallParserEnum)
    except ImportError as e:
        if (getattr(e, "name", None) or "").split(".")[0] == server:
            return None, f"{server} is not installed"
        return None, f"{server} does not import here ({type(e).__name__}: {e})"
    except Exception as e:  # a server whose import fails for another reason (no torch, ...)
        return None, f"{server} does not import here ({type(e).__name__}: {e})"
    return sorted(n for n in names if not n.startswith(PLUGIN_PREFIX)), ""


def registered(server: str) -> Tuple[Optional[List[str]], str]:
    """(the tool-parser names ``server`` registers, "") or (None, why they are not known)."""
    if server not in SERVERS:
        raise ValueError(f"server must be one of {', '.join(SERVERS)}, not {server!r}")
    if server not in _REGISTERED:
        _REGISTERED[server] = _load_registered(server)
    return _REGISTERED[server]


def format_of(server: str, name: str) -> Optional[str]:
    """The toolparse format a ``server`` parser name reads (its name or an alias of it), or
    None."""
    clash = CLASHES.get(server, {}).get(name)
    if clash is not None:
        return clash
    for spec in SPECS.values():
        if name == spec.name or name in spec.aliases:
            return spec.name
    return None


def peer_name(server: str, format: str, names: Sequence[str]) -> Optional[str]:
    """Which of ``names`` (a server's registered parsers) reads ``format``: the format's own name
    first, then its aliases in the spec's order."""
    spec = get_spec(format)
    ours = [n for n in names if format_of(server, n) == spec.name]
    order = [spec.name, *spec.aliases]
    ours.sort(key=lambda n: order.index(n) if n in order else len(order))
    return ours[0] if ours else None


class BenchTokenizer:
    """The part of a Hugging Face tokenizer the parsers use: a vocabulary holding the format's
    marker strings and special tokens, and ids for the bench's deltas (one per delta)."""

    def __init__(self, format: str) -> None:
        self.name_or_path = f"toolparse-bench/{format}"
        self.format = format
        self._ids: Dict[str, int] = {}
        self._texts: List[str] = []
        self.bos_token, self.eos_token, self.unk_token = "<s>", "</s>", "<unk>"
        for t in (self.unk_token, self.bos_token, self.eos_token):
            self.id_of(t)
        self.unk_token_id, self.bos_token_id, self.eos_token_id = 0, 1, 2
        self.pad_token: Optional[str] = None
        self.pad_token_id: Optional[int] = None
        marks = outputs.markers(format)
        self.added_tokens_encoder = {m: self.id_of(m) for m in marks}
        self.added_tokens_decoder = {i: m for m, i in self.added_tokens_encoder.items()}
        self._vocab = dict(self._ids)
        # nothing is special: markers arrive as text (skip_special_tokens=False, as these parsers
        # need), so no parser treats one as dropped by the detokenizer
        self.all_special_tokens: List[str] = []
        self.all_special_ids: List[int] = []
        self.chat_template = None
        self.is_fast = True

    def id_of(self, text: str) -> int:
        found = self._ids.get(text)
        if found is None:
            found = self._ids[text] = len(self._texts)
            self._texts.append(text)
        return found

    def get_vocab(self) -> Dict[str, int]:
        return dict(self._vocab)

    @property
    def vocab(self) -> Dict[str, int]:
        return self.get_vocab()

    @property
    def vocab_size(self) -> int:
        return len(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def get_added_vocab(self) -> Dict[str, int]:
        return dict(self.added_tokens_encoder)

    def tokenize(self, text: str, **_: Any) -> List[str]:
        return outputs.chunk(self.format, text)

    def encode(self, text: str, add_special_tokens: bool = False, **_: Any) -> List[int]:
        return [self.id_of(t) for t in self.tokenize(text)]

    def __call__(self, text: str, **kw: Any) -> Dict[str, List[int]]:
        return {"input_ids": self.encode(text)}

    def decode(self, ids: Any, skip_special_tokens: bool = False, **_: Any) -> str:
        return "".join(self._texts[i] for i in ([ids] if isinstance(ids, int) else ids))

    def convert_ids_to_tokens(self, ids: Any, skip_special_tokens: bool = False) -> Any:
        return self._texts[ids] if isinstance(ids, int) else [self._texts[i] for i in ids]

    def convert_tokens_to_ids(self, tokens: Any) -> Any:
        if isinstance(tokens, str):
            return self._ids.get(tokens, self.unk_token_id)
        return [self._ids.get(t, self.unk_token_id) for t in tokens]

    def convert_tokens_to_string(self, tokens: List[str]) -> str:
        return "".join(tokens)


# Arguments fragments merged since the bench last reset it (``PIECES[0] = 0``): how many pieces a
# parser sent the arguments in. A streaming parser sends about one per delta; a parser that holds
# a value until it ends sends a few. The peers harness's merge is counted here too (peers.py).
PIECES = [0]


def _merge(acc: Dict[int, List[str]], index: int, name: Optional[str], args: Optional[str]) -> None:
    """An OpenAI client's merge of a tool-call delta: the name once, the arguments appended."""
    if args:
        PIECES[0] += 1
    slot = acc.setdefault(index, ["", ""])
    if name and not slot[0]:
        slot[0] = name
    if args:
        slot[1] += args


def _calls(acc: Dict[int, List[str]]) -> List[Tuple[str, str]]:
    return [(acc[i][0], acc[i][1]) for i in sorted(acc)]


def vllm_stream(name: str, format: str) -> Stream:
    """vLLM's parser ``name`` on ``format``'s deltas, through ``ChatStreamProcessor.step`` (a
    fresh parser per stream). Raises what vLLM raises when the parser cannot be built here."""
    _quiet()
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
    from vllm.parser.parser_manager import ParserManager

    tok = BenchTokenizer(format)
    parser_cls = ParserManager.get_parser(
        tool_parser_name=name,
        enable_auto_tools=True,
        model_name=f"toolparse-bench/{format}",
        is_harmony=name == "openai",
    )
    if parser_cls is None:
        raise LookupError(f"vLLM composes no parser for {name!r}")

    def request() -> Any:
        return ChatCompletionRequest(
            model="toolparse-bench",
            messages=[{"role": "user", "content": "write the file"}],
            tools=outputs.TOOLS,
            tool_choice="auto",
        )

    def parser(req: Any) -> Any:
        return parser_cls(tok, req.tools, chat_template_kwargs=None, model_config=None)

    parser(request())  # a parser that cannot be built here fails now, not in the timing
    prompt = [tok.bos_token_id]

    def stream(deltas: List[str]) -> Result:
        req = request()
        proc = ChatStreamProcessor(req, parser(req), enable_auto_tools=True, parser_cls=parser_cls)
        ids = [tok.id_of(d) for d in deltas]
        content: List[str] = []
        acc: Dict[int, List[str]] = {}
        last = len(deltas) - 1
        for i, (d, tid) in enumerate(zip(deltas, ids)):
            msg = proc.step(d, [tid], "stop" if i == last else None, prompt).delta
            if msg is None:
                continue
            if msg.content:
                content.append(msg.content)
            for tc in msg.tool_calls or []:
                fn = tc.function
                _merge(acc, tc.index, fn and fn.name, fn and fn.arguments)
        return "".join(content), _calls(acc)

    return stream


def sglang_stream(name: str, format: str) -> Stream:
    """SGLang's parser ``name`` on ``format``'s deltas, as ``serving_chat`` streams (a fresh
    ``FunctionCallParser`` per stream)."""
    _quiet()
    _vllm_first()
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = [Tool.model_validate(t) for t in outputs.TOOLS]
    tok = BenchTokenizer(format)

    def parser() -> Any:
        return FunctionCallParser(tools=tools, tool_call_parser=name, tokenizer=tok)

    parser()

    def stream(deltas: List[str]) -> Result:
        p = parser()
        content: List[str] = []
        acc: Dict[int, List[str]] = {}
        last = len(deltas) - 1
        for i, d in enumerate(deltas):
            normal, items = p.parse_stream_chunk(d)
            if i == last:
                end_text, end_items = p.parse_stream_end()
                normal = (normal or "") + end_text
                items = [*items, *end_items]
            if normal:
                content.append(normal)
            for it in items:
                _merge(acc, it.tool_index, it.name, it.parameters)
        # serving_chat._check_for_unstreamed_tool_args, at the finish
        det = p.detector
        prev = getattr(det, "prev_tool_call_arr", None)
        sent = getattr(det, "streamed_args_for_tool", None)
        if prev and sent and len(prev) - 1 < len(sent):
            k = len(prev) - 1
            want = prev[k].get("arguments", {})
            want = want if isinstance(want, str) else json.dumps(want, ensure_ascii=False)
            if want.startswith(sent[k]) and want != sent[k]:
                _merge(acc, k, None, want[len(sent[k]) :])
        return "".join(content), _calls(acc)

    return stream


_MAKERS: Dict[str, Callable[[str, str], Stream]] = {"vllm": vllm_stream, "sglang": sglang_stream}


def server_streams(
    format: str, servers: Sequence[str] = SERVERS
) -> Tuple[Dict[str, Stream], Dict[str, str]]:
    """({"vllm:NAME": stream, ...}, {"server or server:NAME": why not}) for ``format``: each of
    ``servers``'s own parser for it, when the server registers the format's name or an alias."""
    found: Dict[str, Stream] = {}
    missing: Dict[str, str] = {}
    for server in servers:
        names, why = registered(server)
        if names is None:
            missing[server] = why
            continue
        name = peer_name(server, format, names)
        if name is None:
            missing[server] = f"{server} registers no parser named {format} or an alias of it"
            continue
        label = f"{server}:{name}"
        try:
            found[label] = _MAKERS[server](name, format)
        except Exception as e:  # a parser that cannot be built here (a vocabulary it needs, ...)
            missing[label] = f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return found, missing
