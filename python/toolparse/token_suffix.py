"""Special tokens with a per-checkpoint suffix.

Some checkpoints write every structural special token of their format with a suffix of their
own before the closing ``>``: Tencent's shipping Hy3 tokenizer has ``<tool_calls:opensource>``,
``<arg_key:opensource>``, ``<think:opensource>`` where the format (and the preview checkpoint)
has ``<tool_calls>``, ``<arg_key>``, ``<think>``; Hy4 checkpoints a hash (``:6124c78e``). A format
(or reasoning format) whose spec says ``"token_suffix": true`` lists the bare tokens;
:func:`with_token_suffix` derives the variant for one suffix, every ``<x>``/``</x>`` tag of the
format's markup written ``<x{suffix}>``/``</x{suffix}>`` throughout its spec, samples and cases,
and registers it (:func:`toolparse.register_format`: both backends, the structural tags, the kit,
the servers' plugins) under a derived name. :func:`token_suffix_from_vocab` finds the suffix in a
tokenizer's vocabulary; the servers' integrations use :func:`variant_for_tokenizer`.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import threading
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from . import spec as _spec

__all__ = [
    "SUFFIX",
    "token_suffix_from_text",
    "token_suffix_from_vocab",
    "variant_base",
    "variant_for_tokenizer",
    "with_token_suffix",
]

logger = logging.getLogger("toolparse")

#: A token suffix: ``:`` then one or more characters that are neither whitespace nor ``>``.
SUFFIX = re.compile(r":[^\s>]+")

# a tag of a format's markup: <x> or </x>, x a word (the tokens a suffix goes into)
_TAG = re.compile(r"</?([A-Za-z_][A-Za-z0-9_]*)>")
_NAME_CHARS = re.compile(r"[^a-z0-9_.-]")

_lock = threading.RLock()
# variant name -> (base name, suffix)
_VARIANTS: Dict[str, Tuple[str, str]] = {}
# (id of a tokenizer, format, reasoning) -> (the tokenizer, the variant's name)
_BY_TOKENIZER: Dict[Tuple[int, Optional[str], bool], Tuple[Any, Optional[str]]] = {}


def _format_strings(s: Any) -> List[str]:
    """The strings of format spec ``s`` that hold its markup, the special tokens first."""
    return [
        *s.special_tokens,
        *s.markers.values(),
        *([s.grammar.trigger] if s.grammar.trigger else []),
        *([s.turn_end] if s.turn_end else []),
        *s.dropped,
    ]


def _reasoning_strings(r: Any) -> List[str]:
    """The strings of reasoning spec ``r`` that hold its markup."""
    return [
        *r.starts,
        *r.ends,
        *r.call_starts,
        r.end_token,
        *([r.content_end] if r.content_end else []),
        *r.dropped,
    ]


def _tags(strings: Iterable[str]) -> List[str]:
    """The names of the ``<x>``/``</x>`` tags in ``strings``, in order, once each."""
    out: List[str] = []
    for s in strings:
        for name in _TAG.findall(s):
            if name not in out:
                out.append(name)
    return out


def _specs(name: str, reasoning: bool) -> Tuple[str, Any, Any]:
    """(canonical name, tool format spec or None, reasoning spec or None) of ``name``: the
    format (or, with ``reasoning``, the reasoning format) and its namesake of the other kind when
    that one may carry a suffix too. A ValueError names a format without ``token_suffix``."""
    if reasoning:
        canon = _spec.reasoning_canonical(name)
        f, r = _spec.SPECS.get(canon), _spec.REASONING.get(canon)
        what, marked = "reasoning format", r is not None and r.token_suffix
    else:
        canon = _spec.canonical(name)
        f, r = _spec.SPECS[canon], _spec.REASONING.get(canon)
        what, marked = "format", f.token_suffix
    if not marked:
        raise ValueError(
            f'{what} {canon!r}: its markers carry no token suffix (no "token_suffix": true in '
            "its spec)"
        )
    if f is None or not f.token_suffix:
        raise ValueError(
            f"reasoning format {canon!r}: no tool format of the same name with "
            '"token_suffix": true to register its variant with'
        )
    return canon, f, (r if r is not None and r.token_suffix else None)


def _variant_name(base: str, suffix: str) -> str:
    """``<base>-<suffix without ':'>`` in the name alphabet; a suffix that does not spell a name
    as it is (upper case, other characters) gets a hash of it too, so that two suffixes never
    share a name."""
    import hashlib  # here: OpenSSL's module costs milliseconds at import

    raw = suffix[1:]
    slug = _NAME_CHARS.sub("-", raw.lower())
    if slug != raw:
        slug += "-" + hashlib.sha256(suffix.encode()).hexdigest()[:8]
    return f"{base}-{slug}"


def _suffixed(value: Any, tag: re.Pattern[str], suffix: str) -> Any:
    """``value`` (JSON data) with every tag ``tag`` matches written with ``suffix``."""
    if isinstance(value, str):
        return tag.sub(lambda m: f"<{m[1]}{m[2]}{suffix}>", value)
    if isinstance(value, list):
        return [_suffixed(v, tag, suffix) for v in value]
    if isinstance(value, dict):
        return {k: _suffixed(v, tag, suffix) for k, v in value.items()}
    return value


def _file_of(name: str) -> Dict[str, Any]:
    """The format file of registered format ``name`` (a built-in file, or what
    ``register_format`` was given)."""
    from . import register

    doc = register._DOCS.get(name)
    if doc is not None:
        return copy.deepcopy(doc)
    with (_spec.FOLDER / f"{name}.json").open(encoding="utf-8") as f:
        return dict(json.load(f))


def _reasoning_entry_of(name: str) -> Dict[str, Any]:
    """The ``_reasoning.json`` entry (or the registered file's ``reasoning``) of ``name``."""
    from . import register

    for doc in register._DOCS.values():
        r = doc.get("reasoning")
        if isinstance(r, dict) and r.get("name") == name:
            return copy.deepcopy(r)
    with (_spec.FOLDER / _spec.REASONING_FILE).open(encoding="utf-8") as f:
        entries = json.load(f)
    return next(dict(e) for e in entries if e.get("name") == name)


def _variant_doc(canon: str, f: Any, r: Any, suffix: str, vname: str) -> Dict[str, Any]:
    """The format file of the variant: the base's, suffixed, under ``vname`` (with its
    reasoning entry when the base has one that may carry a suffix)."""
    names = _tags([*_format_strings(f), *(_reasoning_strings(r) if r is not None else [])])
    tag = re.compile("<(/?)(" + "|".join(re.escape(n) for n in names) + ")>")
    base = _file_of(canon)
    base.pop("reasoning", None)
    doc: Dict[str, Any] = _suffixed(base, tag, suffix)
    entry = doc["spec"]
    entry.update(name=vname, aliases=[], models=[])
    entry.pop("token_suffix", None)
    if r is not None and entry.get("default_reasoning") == canon:
        entry["default_reasoning"] = vname
    doc["model_ids"] = []
    doc["notes"] = f"{canon} with every special token written with the suffix {suffix!r}"
    if r is not None:
        rentry = _suffixed(_reasoning_entry_of(canon), tag, suffix)
        rentry.update(name=vname, aliases=[])
        rentry.pop("token_suffix", None)
        doc["reasoning"] = rentry
    return doc


def with_token_suffix(name: str, suffix: str, *, reasoning: bool = False) -> str:
    """The name of the variant of format ``name`` whose special tokens carry ``suffix``
    (``":opensource"``): every ``<x>``/``</x>`` tag of the format's markup becomes
    ``<x{suffix}>``/``</x{suffix}>`` in its markers, special tokens, grammar, samples and cases.
    The variant is registered (:func:`toolparse.register_format`, both backends) on the first call,
    as ``<name>-<suffix>`` (lower case; a suffix that is not a name's characters gets a hash of
    itself as well); a later call with the same arguments returns the same name. Where the
    reasoning format of the same name may carry a suffix too, its variant is registered with the
    format, under the same name.

    ``reasoning=True``: ``name`` is a reasoning format (with a tool format of the same name
    whose tokens may carry a suffix), and the reasoning variant's name is returned.

    An empty ``suffix`` returns ``name`` unchanged. A ValueError names the format when it has no
    ``"token_suffix": true`` in its spec, or when ``suffix`` is not ``:`` followed by characters
    that are neither whitespace nor ``>``; an unknown name is a ValueError listing the known."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    if not isinstance(suffix, str):
        raise TypeError(f"suffix must be a str, not {type(suffix).__name__}")
    if not isinstance(reasoning, bool):
        raise TypeError(f"reasoning must be True or False, not {type(reasoning).__name__}")
    if reasoning:
        _spec.reasoning_canonical(name)
    else:
        _spec.canonical(name)
    if suffix == "":
        return name
    canon, f, r = _specs(name, reasoning)
    if not SUFFIX.fullmatch(suffix):
        raise ValueError(
            f"format {canon!r}: token suffix {suffix!r} is not ':' followed by characters that "
            "are neither whitespace nor '>'"
        )
    vname = _variant_name(canon, suffix)
    with _lock:
        if _VARIANTS.get(vname) == (canon, suffix) and vname in _spec.SPECS:
            return vname
        from .register import register_format

        register_format(_variant_doc(canon, f, r, suffix, vname))
        _VARIANTS[vname] = (canon, suffix)
    return vname


def variant_base(name: str) -> Optional[Tuple[str, str]]:
    """(base format, suffix) when ``name`` is a variant :func:`with_token_suffix` registered."""
    return _VARIANTS.get(name)


def token_suffix_from_vocab(
    name: str, vocab_keys: Iterable[str], *, reasoning: bool = False
) -> str:
    """The token suffix of format ``name`` (with ``reasoning``: reasoning format ``name``) in a
    tokenizer's vocabulary (``vocab_keys``: the token strings, e.g. ``tokenizer.get_vocab()``):
    the suffix of the first of the format's special tokens (in the spec's order) the vocabulary
    holds with one, as ``<tool_calls:opensource>``; "" when it holds only bare tokens, and for a
    format whose spec has no ``"token_suffix": true``."""
    if reasoning:
        r = _spec.REASONING[_spec.reasoning_canonical(name)]
        f = _spec.SPECS.get(r.name)
        if not r.token_suffix:
            return ""
        strings = [*_reasoning_strings(r), *(_format_strings(f) if f is not None else [])]
    else:
        fmt = _spec.get_spec(name)
        if not fmt.token_suffix:
            return ""
        own = _spec.REASONING.get(fmt.name)
        strings = [*_format_strings(fmt), *(_reasoning_strings(own) if own is not None else [])]
    return _first_suffix(_tags(strings), vocab_keys)


def _first_suffix(names: List[str], keys: Iterable[str]) -> str:
    if not names:
        return ""
    pattern = re.compile("</?(" + "|".join(re.escape(n) for n in names) + r")(:[^\s>]+)>")
    found: Dict[str, str] = {}
    for key in keys:
        if isinstance(key, str) and key.startswith("<"):
            m = pattern.fullmatch(key)
            if m is not None:
                found.setdefault(m[1], m[2])
    return next((found[n] for n in names if n in found), "")


def token_suffix_from_text(name: str, text: str) -> str:
    """The suffix the first suffixed special token of format ``name`` has in ``text`` (a
    template's render), as :func:`token_suffix_from_vocab` finds it in a vocabulary; ""."""
    f = _spec.get_spec(name)
    if not f.token_suffix:
        return ""
    r = _spec.REASONING.get(f.name)
    names = _tags([*_format_strings(f), *(_reasoning_strings(r) if r is not None else [])])
    if not names:
        return ""
    pattern = re.compile("</?(?:" + "|".join(re.escape(n) for n in names) + r")(:[^\s>]+)>")
    m = pattern.search(text)
    return m[1] if m is not None else ""


def _vocab_keys(tokenizer: Any) -> Iterable[str]:
    for t in (tokenizer, getattr(tokenizer, "tokenizer", None)):
        get = getattr(t, "get_vocab", None)
        if get is None:
            continue
        try:
            vocab = get()
        except Exception as e:  # noqa: BLE001 - a tokenizer without a vocabulary: no suffix
            logger.debug("toolparse: cannot read the tokenizer's vocabulary: %s", e)
            continue
        if isinstance(vocab, Mapping):
            return vocab.keys()
    return ()


def _declared_suffix(tokenizer: Any) -> str:
    """The suffix a tokenizer's config declares (``token_suffix`` in its init kwargs, as Hy3's
    tokenizer_config.json does), else ""."""
    kwargs = getattr(tokenizer, "init_kwargs", None)
    value = kwargs.get("token_suffix") if isinstance(kwargs, Mapping) else None
    return value if isinstance(value, str) and SUFFIX.fullmatch(value) else ""


def variant_for_tokenizer(
    name: Optional[str], tokenizer: Any, *, reasoning: bool = False
) -> Optional[str]:
    """The format the servers' parsers run for ``name`` with ``tokenizer``: the variant for the
    suffix the tokenizer declares (``init_kwargs["token_suffix"]``) or its vocabulary holds,
    when ``name``'s spec has ``"token_suffix": true``; else ``name``. Cached per tokenizer."""
    if name is None or tokenizer is None:
        return name
    try:
        if reasoning:
            r = _spec.REASONING.get(_spec.reasoning_canonical(name))
            if r is None or not r.token_suffix:
                return name
        elif not _spec.get_spec(name).token_suffix:
            return name
    except ValueError:
        return name
    key = (id(tokenizer), name, reasoning)
    with _lock:
        hit = _BY_TOKENIZER.get(key)
    if hit is not None and hit[0] is tokenizer:
        return hit[1]
    suffix = _declared_suffix(tokenizer) or token_suffix_from_vocab(
        name, _vocab_keys(tokenizer), reasoning=reasoning
    )
    try:
        found: Optional[str] = with_token_suffix(name, suffix, reasoning=reasoning)
    except ValueError as e:  # a reasoning format with no namesake tool format: the bare one
        logger.warning("toolparse: %s; the bare tokens are read", e)
        found = name
    with _lock:
        _BY_TOKENIZER[key] = (tokenizer, found)
    return found
