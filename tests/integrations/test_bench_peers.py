"""``toolparse bench`` with the real peers: vLLM's and SGLang's parsers run through the peers
harness beside toolparse on a tiny output, and give the call (what the bench times is real work).

Skipped when vLLM is not installed or $TOOLPARSE_PEERS_DIR (the peers harness folder) is not set;
.ci/integrations sets it and puts the harness's torch stand-in on PYTHONPATH.
"""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("vllm.tool_parsers")  # vLLM before SGLang under the torch stand-in

from toolparse import bench  # noqa: E402


@pytest.fixture(scope="module")
def report():
    d = os.environ.get("TOOLPARSE_PEERS_DIR")
    if not d:
        pytest.skip(
            "TOOLPARSE_PEERS_DIR is not set (the peers harness folder; .ci/integrations sets it)"
        )
    saved = sys.modules.get("corpus")
    r = bench.run(["hermes", "qwen3_coder"], [256], repeat=1, peers_dir=d)
    assert sys.modules.get("corpus") is saved  # tests/corpus.py is still `corpus`
    return r


@pytest.mark.parametrize("fmt", ["hermes", "qwen3_coder"])
def test_both_servers_run_beside_toolparse(report, fmt: str) -> None:
    rows = {r["parser"]: r for r in report["results"] if r["format"] == fmt}
    assert list(rows) == [
        "toolparse:rust",
        "toolparse:python",
        f"vllm:{fmt}",
        f"sglang:{fmt}",
    ], report["unavailable"]
    for name, r in rows.items():
        assert r["correct"] is True, (name, r)
        assert r["seconds"] is not None and r["skipped"] is None, (name, r)
    assert report["servers"]["vllm"] and report["servers"]["sglang"]


# ------------------------------------------------------------------------------------------------
# the servers' own parsers for every format they register (toolparse.bench.servers)
# ------------------------------------------------------------------------------------------------
from toolparse import list_formats  # noqa: E402
from toolparse.bench import outputs, servers  # noqa: E402

# characters of content: a small case whose content holds a `<li ...>` element and a quoted
# word, and ends with a space (as the 16 KB one does), which some peers strip
SMALL = 381
SIZES = (SMALL, 1024)  # vLLM's jamba garbles the quoted word of the second at 1 KB


@pytest.mark.parametrize("server", servers.SERVERS)
def test_every_registered_name_maps_to_a_format(server: str) -> None:
    names, why = servers.registered(server)
    assert names is not None, why
    unmapped = {n for n in names if servers.format_of(server, n) is None}
    assert unmapped == servers.GENERIC[server]  # the response-template parsers only


@pytest.fixture(scope="module")
def driven():
    """{label: (format, stream or why it is not built)} for every format both servers name."""
    out = {}
    for fmt in list_formats():
        found, missing = servers.server_streams(fmt)
        out.update({label: (fmt, s) for label, s in found.items()})
        out.update({label: (fmt, why) for label, why in missing.items() if ":" in label})
    return out


def test_every_peer_is_built_or_documented(driven) -> None:
    not_built = {label: why for label, (_, why) in driven.items() if isinstance(why, str)}
    assert set(not_built) <= set(servers.UNAVAILABLE), not_built
    for server in servers.SERVERS:
        names, _ = servers.registered(server)
        formats = {servers.format_of(server, n) for n in names or []} - {None}
        # every format the server names has one parser here (its other names are aliases)
        ours = [lab.split(":", 1)[1] for lab in driven if lab.startswith(f"{server}:")]
        assert sorted(servers.format_of(server, n) for n in ours) == sorted(formats)


def test_the_small_case_is_what_the_notes_describe() -> None:
    text = outputs.argument_text(SMALL)
    assert text.endswith(" ") and "<li" in text and "'id'" in text
    assert outputs.argument_text(16 * 1024).endswith(" ")


def test_a_small_case_parses_or_fails_as_documented(driven) -> None:
    documented = {**servers.MISREADS, **servers.UNAVAILABLE}
    wrong = {}
    for label, (fmt, stream) in driven.items():
        if isinstance(stream, str):
            continue
        ok = True
        for size in SIZES:
            deltas = outputs.chunk(fmt, outputs.model_output(fmt, size))
            try:
                ok = ok and bench._correct(stream(deltas), size)
            except Exception as e:  # a peer raising is its result
                ok, wrong[label] = False, f"raised {type(e).__name__}"
        if ok:
            assert label not in servers.MISREADS, f"{label} now parses: drop its MISREADS note"
        else:
            wrong.setdefault(label, "wrong call")
    assert {k: v for k, v in wrong.items() if k not in documented} == {}
