"""The SDK conversions without the SDKs: a clear ImportError naming the extra, and the
conversions that need no SDK type (dicts in, dicts out) still work."""

from __future__ import annotations

import sys

import pytest
from toolparse import DeltaMessage, DeltaToolCall, Message, Tool, ToolCall

CALL = ToolCall.create("f", {"a": 1}, id="call_1")


@pytest.fixture
def no_sdks(monkeypatch):
    """As if neither SDK were installed."""
    for name in list(sys.modules):
        if name.split(".")[0] in ("openai", "anthropic"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setitem(sys.modules, "anthropic", None)


@pytest.mark.parametrize(
    "convert",
    [
        lambda: CALL.to_openai(),
        lambda: Message.assistant("x").to_openai(),
        lambda: DeltaMessage(content="x").to_openai(),
        lambda: DeltaToolCall(index=0).to_openai(),
    ],
)
def test_openai_missing_names_the_extra(no_sdks, convert):
    with pytest.raises(ImportError, match=r"pip install 'toolparse\[openai\]'"):
        convert()


def test_anthropic_missing_names_the_extra(no_sdks):
    with pytest.raises(ImportError, match=r"pip install 'toolparse\[anthropic\]'"):
        CALL.to_anthropic()


def test_dict_conversions_need_no_sdk(no_sdks):
    assert ToolCall.from_openai(CALL.to_openai(param=True)) == CALL
    assert ToolCall.from_anthropic(CALL.to_anthropic(param=True)) == CALL
    tool = Tool.from_function(
        "f", "d", {"type": "object", "properties": {"a": {"type": "integer"}}}
    )
    assert Tool.from_openai(tool.to_openai()) == tool
    assert Tool.from_anthropic(tool.to_anthropic()) == tool
    for m in (
        Message.user("u"),
        Message.assistant_with_tools([CALL]),
        Message.tool_result("c", "r"),
    ):
        assert Message.from_openai(m.to_openai(param=True)) == m
        assert Message.from_anthropic(m.to_anthropic()) == m
    assert DeltaMessage.from_openai({"content": "x", "tool_calls": []}) == DeltaMessage(content="x")
