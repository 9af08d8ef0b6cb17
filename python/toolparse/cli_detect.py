"""``toolparse detect``: the format a model writes, found from its chat template
(:func:`toolparse.detect_format`). A subcommand of :mod:`toolparse.cli`, kept in its own module."""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, Optional, TextIO, Tuple

__all__ = [
    "add_detect_parser",
    "add_infer_parser",
    "cmd_detect",
    "cmd_infer",
    "template_from_config",
]


class DetectError(Exception):
    """A problem with the command's input, reported as one line by the CLI."""


def template_from_config(
    config: Dict[str, Any], name: Optional[str] = None
) -> Tuple[str, Any, Any]:
    """(chat template, bos_token, eos_token) from a tokenizer_config.json's contents.

    ``chat_template`` is a string, or a list of ``{"name", "template"}`` entries: ``name`` picks
    one, else the one named "default" (else "tool_use" when there is no default). The tokens may be
    strings or AddedToken dicts; absent ones are "".
    """
    raw = config.get("chat_template")
    if isinstance(raw, str):
        if name not in (None, "default"):
            raise DetectError(f"the config has a single chat template, not one named {name!r}")
        template = raw
    elif isinstance(raw, list):
        named = {e.get("name"): e.get("template") for e in raw if isinstance(e, dict)}
        want = name or ("default" if "default" in named else "tool_use")
        found = named.get(want)
        if not isinstance(found, str):
            raise DetectError(
                f"no chat template named {want!r} in the config (it has: "
                f"{', '.join(str(n) for n in named)})"
            )
        template = found
    else:
        raise DetectError("the config has no chat_template (pass --template FILE instead)")
    return template, config.get("bos_token") or "", config.get("eos_token") or ""


def add_detect_parser(sub: Any) -> None:
    detect = sub.add_parser(
        "detect", help="which format a model writes, found by rendering its chat template"
    )
    src = detect.add_mutually_exclusive_group(required=True)
    src.add_argument("--template", metavar="FILE", help="a chat template (chat_template.jinja)")
    src.add_argument(
        "--tokenizer-config", metavar="FILE", help="a tokenizer_config.json with a chat_template"
    )
    detect.add_argument("--name", metavar="NAME", help="which of the config's named templates")
    detect.add_argument("--model", metavar="ID", help="the model id: breaks ties, or the fallback")
    detect.add_argument("--bos-token", metavar="TEXT", help="the BOS token (with --template)")
    detect.add_argument("--eos-token", metavar="TEXT", help="the EOS token (with --template)")
    detect.add_argument("--seed", type=int, default=None, help="repeatable probe names")
    detect.add_argument("--json", action="store_true", help="print the detection as JSON")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise DetectError(f"cannot read {path}: {e}") from None


def _source(args: argparse.Namespace) -> Tuple[str, Any, Any]:
    """(template, bos_token, eos_token) from --template or --tokenizer-config."""
    bos: Any = args.bos_token or ""
    eos: Any = args.eos_token or ""
    if args.template:
        return _read(args.template), bos, eos
    try:
        config = json.loads(_read(args.tokenizer_config))
    except ValueError as e:
        raise DetectError(f"{args.tokenizer_config} is not JSON: {e}") from None
    if not isinstance(config, dict):
        raise DetectError(f"{args.tokenizer_config} is not a JSON object")
    template, cbos, ceos = template_from_config(config, args.name)
    return template, args.bos_token or cbos, args.eos_token or ceos


def add_infer_parser(sub: Any) -> None:
    infer = sub.add_parser(
        "infer",
        help="infer a format file from a chat template's renders (printed as JSON)",
    )
    src = infer.add_mutually_exclusive_group(required=True)
    src.add_argument("--template", metavar="FILE", help="a chat template (chat_template.jinja)")
    src.add_argument(
        "--tokenizer-config", metavar="FILE", help="a tokenizer_config.json with a chat_template"
    )
    infer.add_argument("--name", metavar="NAME", help="which of the config's named templates")
    infer.add_argument(
        "--format-name",
        metavar="NAME",
        default="inferred",
        help="the name of the inferred format (default: inferred)",
    )
    infer.add_argument("--bos-token", metavar="TEXT", help="the BOS token (with --template)")
    infer.add_argument("--eos-token", metavar="TEXT", help="the EOS token (with --template)")
    infer.add_argument("--seed", type=int, default=None, help="repeatable probe names")


def cmd_infer(args: argparse.Namespace, out: TextIO) -> int:
    """Prints the inferred format file; exit status 0, or 3 when no family reproduces the
    template's calls (input problems are DetectError: exit 2)."""
    from .infer import infer_format

    template, bos, eos = _source(args)
    try:
        doc = infer_format(
            template, name=args.format_name, bos_token=bos, eos_token=eos, seed=args.seed
        )
    except ValueError as e:
        if str(e).startswith(("cannot infer", "no family")):
            raise InferRefused(str(e)) from None
        raise DetectError(str(e)) from None
    out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return 0


class InferRefused(Exception):
    """No family reproduces the template's calls (exit status 3)."""


def cmd_detect(args: argparse.Namespace, out: TextIO) -> int:
    """Prints the detection; exit status 0 when a format was found, 3 when none was."""
    from .detect import detect_format

    template, bos, eos = _source(args)
    try:
        d = detect_format(template, bos_token=bos, eos_token=eos, model=args.model, seed=args.seed)
    except ValueError as e:
        raise DetectError(str(e)) from None
    if args.json:
        fields = ["format", "reasoning", "reasoning_started", "candidates", "reason"]
        fields.append("token_suffix")
        doc: Dict[str, Any] = {k: getattr(d, k) for k in fields}
        doc["evidence"] = dict(d.evidence)
        doc["skipped"] = dict(d.skipped)
        doc["lost"] = dict(d.lost)
        out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(f"format: {d.format or '-'}\n")
        out.write(f"reasoning: {d.reasoning or '-'}\n")
        opened = {True: "yes", False: "no", None: "-"}[d.reasoning_started]
        out.write(f"think block opened by the prompt: {opened}\n")
        out.write(f"candidates: {', '.join(d.candidates) or '-'}\n")
        if d.token_suffix:
            out.write(f"token suffix: {d.token_suffix}\n")
        if d.reason:
            out.write(f"reason: {d.reason}\n")
    return 0 if d.format else 3
