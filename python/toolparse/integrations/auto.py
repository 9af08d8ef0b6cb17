"""``toolparse_auto``: the format (and reasoning format) found from the served model's own chat
template by :func:`toolparse.detect_format`, shared by the vLLM and SGLang integrations.

:func:`resolve` detects once per template (cached by a hash of the template and its BOS/EOS
tokens) and logs one line::

    toolparse: <model> writes <format> (+ <reasoning>; think block opened by the prompt: yes/no)

When the template renders calls no registered format reads, it infers a format from the template
(:func:`toolparse.infer_format`, proved on the template's renders) and registers it, as
``inferred-<hash of the template>``; the log line says "inferred". When neither works, or the
tokenizer has no Jinja template, it falls back to :func:`toolparse.format_for_model` for the
model's id; when that is unknown too it raises a ValueError naming what to pass instead. It never
picks a parser silently.

This module imports nothing from the servers.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from typing import Any, Dict, Optional, Tuple

from toolparse import spec as _spec

__all__ = ["AUTO", "Resolved", "resolve", "resolve_tokenizer", "template_of"]

logger = logging.getLogger("toolparse")

AUTO = "auto"

_lock = threading.Lock()
_CACHE: Dict[str, Resolved] = {}


class Resolved:
    """What ``toolparse_auto`` stands for: ``format`` (None: no tool format found, with
    ``error`` saying what to pass), ``reasoning`` and ``reasoning_started`` (from the detection),
    ``line`` (the log line) and ``detection`` (None after a fallback without a template)."""

    def __init__(
        self,
        model: str,
        format: Optional[str],
        reasoning: Optional[str],
        reasoning_started: Optional[bool],
        how: str,
        detection: Any = None,
        token_suffix: str = "",
    ) -> None:
        self.model = model
        # the suffix the template writes the special tokens with (Detection.token_suffix): the
        # servers' parsers run the variant (toolparse.with_token_suffix)
        self.token_suffix = token_suffix
        self.format = format
        self.reasoning = reasoning
        self.reasoning_started = reasoning_started
        self.how = how
        self.detection = detection

    @property
    def line(self) -> str:
        opened = {True: "yes", False: "no", None: "unknown"}[self.reasoning_started]
        extra = f" (+ {self.reasoning}; think block opened by the prompt: {opened})"
        suffixed = f" with the token suffix {self.token_suffix!r}" if self.token_suffix else ""
        return (
            f"toolparse: {self.model} writes {self.format or 'no format toolparse reads'}"
            f"{suffixed}{extra if self.reasoning else ''} [{self.how}]"
        )

    def variant(self, reasoning: bool = False) -> Optional[str]:
        """The format (``reasoning``: the reasoning format) a parser runs: the suffixed variant
        (:func:`toolparse.with_token_suffix`, registered here) when the template writes the
        special tokens with a suffix, else the detected name."""
        name = self.reasoning if reasoning else self.format
        if name is None or not self.token_suffix:
            return name
        from toolparse.token_suffix import with_token_suffix

        try:
            return with_token_suffix(name, self.token_suffix, reasoning=reasoning)
        except ValueError:  # a reasoning format whose markers carry no suffix
            return name


def template_of(tokenizer: Any) -> Tuple[Optional[str], Any, Any]:
    """(chat template, bos_token, eos_token) of a Hugging Face tokenizer: its ``chat_template``,
    or from a dict of named ones the "tool_use" one, else "default"; None when it has none."""
    raw = getattr(tokenizer, "chat_template", None)
    if raw is None:
        inner = getattr(tokenizer, "tokenizer", None)  # wrappers around an HF tokenizer
        raw = getattr(inner, "chat_template", None) if inner is not None else None
    if isinstance(raw, dict):
        raw = raw.get("tool_use") or raw.get("default")
    if isinstance(raw, list):
        named = {e.get("name"): e.get("template") for e in raw if isinstance(e, dict)}
        raw = named.get("tool_use") or named.get("default")
    template = raw if isinstance(raw, str) and raw.strip() else None
    bos = getattr(tokenizer, "bos_token", None) or ""
    eos = getattr(tokenizer, "eos_token", None) or ""
    return template, bos, eos


def _key(template: Optional[str], bos: Any, eos: Any, model: str) -> str:
    data = json.dumps([template, str(bos), str(eos), model if template is None else ""])
    return hashlib.sha256(data.encode()).hexdigest()


def resolve(
    template: Optional[str],
    *,
    bos_token: Any = "",
    eos_token: Any = "",
    model: str = "",
    where: str = "",
) -> Resolved:
    """The format ``toolparse_auto`` stands for with this template (cached; logged once).
    ``where`` is appended to the log line (what the server does not show the parser)."""
    key = _key(template, bos_token, eos_token, model)
    with _lock:
        found = _CACHE.get(key)
    if found is not None:
        return found
    found = _detect(template, bos_token, eos_token, model)
    with _lock:
        _CACHE.setdefault(key, found)
        found = _CACHE[key]
    logger.warning("%s%s", found.line, f"; {where}" if where else "")
    return found


def _detect(template: Optional[str], bos: Any, eos: Any, model: str) -> Resolved:
    why = "the tokenizer has no Jinja chat template"
    detection = None
    if template is not None:
        from toolparse.detect import detect_format

        try:
            detection = detect_format(template, bos_token=bos, eos_token=eos, model=model or None)
        except (ValueError, TypeError, ImportError) as e:
            why = f"detection failed: {e}"
        else:
            if detection.format is not None and detection.reason is None:
                return Resolved(
                    model or "the model",
                    detection.format,
                    detection.reasoning,
                    detection.reasoning_started,
                    "detected from its chat template",
                    detection,
                    detection.token_suffix,
                )
            why = detection.reason or "no format found"
            if detection.reason == _UNREAD:
                inferred = _infer(template, bos, eos, model)
                if isinstance(inferred, Resolved):
                    return inferred
                why = f"{why}; {inferred}"
    fallback = _spec.format_for_model(model) if model else None
    how = f"{why}; " + (
        f"format_for_model({model!r})"
        if fallback
        else "pass --tool-call-parser toolparse_<format> (see `toolparse formats`)"
    )
    return Resolved(model or "the model", fallback, None, None, how, detection)


_UNREAD = "no registered format reads the rendered calls back"


def _infer(template: str, bos: Any, eos: Any, model: str) -> Any:
    """The inferred format, registered (a :class:`Resolved`), or why inference failed."""
    from toolparse.infer import infer_format
    from toolparse.register import register_format

    name = "inferred-" + hashlib.sha256(template.encode()).hexdigest()[:12]
    try:
        doc = infer_format(template, name=name, bos_token=bos, eos_token=eos)
        register_format(doc, replace=True)
    except (ValueError, TypeError) as e:
        return f"inference failed: {e}"
    r = doc.get("reasoning")
    return Resolved(
        model or "the model",
        name,
        name if r else None,
        bool(r["started"]) if r else None,
        f"inferred from its chat template ({doc['spec']['family']} family)",
    )


def resolve_tokenizer(tokenizer: Any, where: str = "") -> Resolved:
    """:func:`resolve` for a Hugging Face tokenizer (its template, tokens and ``name_or_path``)."""
    template, bos, eos = template_of(tokenizer)
    model = str(getattr(tokenizer, "name_or_path", "") or "")
    return resolve(template, bos_token=bos, eos_token=eos, model=model, where=where)


def clear_cache() -> None:
    """Forgets every detection (tests)."""
    with _lock:
        _CACHE.clear()
