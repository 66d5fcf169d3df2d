"""JSON-RPC 2.0 as sqlgym speaks it: encoding a request, and reading a
reply's result or raising its error as :class:`~sqlgym.errors.RPCError`."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Optional, Tuple, Union

from .errors import INTERNAL_ERROR, RPCError, TransportError


def encode_request(req_id: int, method: str, params: Optional[Dict[str, Any]]) -> bytes:
    """One request, encoded as UTF-8.

    Raises ValueError when JSON cannot carry params: NaN and Infinity are
    not JSON, and a lone surrogate is not UTF-8. The server could only
    answer such a frame with a parse error of id null, which matches no
    call, so the call fails here instead of waiting for a reply that
    cannot come.
    """
    body = {"jsonrpc": "2.0", "id": req_id, "method": method, "params": {} if params is None else params}
    try:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError as e:
        bad = e.object[e.start:e.end]
        raise ValueError(f"{method}: params hold a lone surrogate {bad!r}, which UTF-8 cannot carry") from None
    except ValueError as e:
        raise ValueError(f"{method}: params cannot be sent as JSON: {e} (NaN and Infinity are not JSON)") from None


def result_of(reply: Any, method: str) -> Any:
    """The result of a JSON-RPC reply, or its error raised as RPCError."""
    if not isinstance(reply, dict):
        raise TransportError(f"{method}: reply is not a JSON-RPC object")
    err = reply.get("error")
    if err:
        err = err if isinstance(err, dict) else {"message": str(err)}
        code = err.get("code")
        code = code if isinstance(code, int) else INTERNAL_ERROR
        raise RPCError(code, str(err.get("message", "")), err.get("data"), method)
    return reply.get("result")


def drop_none(**kwargs: Any) -> Dict[str, Any]:
    """kwargs without the ones that are None: the params a call leaves out."""
    return {k: v for k, v in kwargs.items() if v is not None}


def reset_params(task_id: Optional[str] = None, dataset: Optional[str] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None, action_format: Optional[str] = None,
                 reward: Optional[Union[str, Dict[str, Any]]] = None, tags: Optional[Dict[str, Any]] = None, *,
                 prompt_style: Optional[str] = None) -> Dict[str, Any]:
    """The params of ``episode.reset``; ``prompt_style`` is ``"text"`` or
    ``"native"`` (the server refuses another)."""
    return drop_none(task_id=task_id, dataset=dataset, seed=seed, max_turns=max_turns,
                     action_format=action_format, reward=reward, tags=tags, prompt_style=prompt_style)


def step_params(episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
                arguments: Optional[Dict[str, Any]] = None,
                completion_tokens: Optional[int] = None, *, message: Any = None,
                prompt_tokens: Optional[int] = None, finish_reason: Optional[str] = None) -> Dict[str, Any]:
    """The params of ``episode.step``: exactly one of ``text`` (a completion),
    ``tool`` (a parsed call, with ``arguments``) or ``message`` (the model's
    reply as an assistant message, see :func:`assistant_message`); the
    completion's token counts as ``usage`` when given (recorded, and
    ``completion_tokens`` paid by the reward's length term), and the
    completion's ``finish_reason`` (recorded)."""
    if sum(a is not None for a in (text, tool, message)) != 1:
        raise ValueError("step: give exactly one of text (a completion), tool (a parsed call) "
                         "or message (an assistant message)")
    if message is not None:
        action: Dict[str, Any] = {"message": assistant_message(message)}
    elif text is not None:
        action = {"text": text}
    else:
        action = {"tool": tool, "arguments": arguments or {}}
    params: Dict[str, Any] = {"episode_id": episode_id, "action": action}
    usage = drop_none(completion_tokens=completion_tokens, prompt_tokens=prompt_tokens)
    if usage:
        usage.setdefault("completion_tokens", 0)
        params["usage"] = usage
    if finish_reason is not None:
        params["finish_reason"] = finish_reason
    return params


MESSAGE_KEYS = ("role", "content", "reasoning_content", "tool_calls")
"""The members of an assistant message that ``episode.step`` takes."""


def assistant_message(message: Any) -> Dict[str, Any]:
    """An assistant message as ``episode.step`` takes it, from a chat
    endpoint's: a dict, or an object with ``model_dump()`` (the ``openai``
    package's ``ChatCompletionMessage``). It keeps ``role`` (default
    ``"assistant"``), ``content`` (a string or None), ``reasoning_content``
    (or ``reasoning``, as newer servers name it) and ``tool_calls``, each
    call as ``{id, type, function: {name, arguments}}`` with its arguments
    as given (a JSON string, or an object); members the protocol does not
    take (``refusal``, ``audio``, ``annotations``, a call's ``index``, ...)
    are dropped, since the server refuses unknown members."""
    if hasattr(message, "model_dump"):
        message = message.model_dump()
    if not isinstance(message, dict):
        raise TypeError(f"message: want a dict (an assistant message), not {type(message).__name__}")
    out: Dict[str, Any] = {"role": message.get("role") or "assistant", "content": message.get("content")}
    reasoning = message.get("reasoning_content")
    if reasoning is None:
        reasoning = message.get("reasoning")
    if reasoning is not None:
        out["reasoning_content"] = reasoning
    calls = message.get("tool_calls")
    if calls:
        out["tool_calls"] = [_tool_call(c) for c in calls]
    return out


def _tool_call(call: Any) -> Dict[str, Any]:
    """One call of an assistant message, with the members the protocol takes."""
    if not isinstance(call, dict):
        raise TypeError(f"message: a tool call is a dict, not {type(call).__name__}")
    fn = call.get("function") or {}
    out: Dict[str, Any] = drop_none(id=call.get("id"), type=call.get("type"))
    out["function"] = drop_none(name=fn.get("name", ""), arguments=fn.get("arguments"))
    return out


def replies(msg: str) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """The (id, reply) pairs of a frame holding a reply or a batch of
    them; what is not JSON, or has no integer id, matches no call."""
    try:
        reply = json.loads(msg)
    except ValueError:
        return
    for item in reply if isinstance(reply, list) else [reply]:
        if isinstance(item, dict) and isinstance(item.get("id"), int):
            yield item["id"], item
