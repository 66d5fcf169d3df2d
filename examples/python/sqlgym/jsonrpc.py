"""JSON-RPC 2.0 as sqlgym speaks it: encoding a request, and reading a
reply's result or raising its error as :class:`~sqlgym.errors.RPCError`."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Optional, Tuple

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
                 reward: Optional[Dict[str, Any]] = None, tags: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The params of ``episode.reset``."""
    return drop_none(task_id=task_id, dataset=dataset, seed=seed, max_turns=max_turns,
                     action_format=action_format, reward=reward, tags=tags)


def step_params(episode_id: str, text: Optional[str] = None, tool: Optional[str] = None,
                arguments: Optional[Dict[str, Any]] = None,
                completion_tokens: Optional[int] = None) -> Dict[str, Any]:
    """The params of ``episode.step``: exactly one of ``text`` (a completion)
    or ``tool`` (a parsed call, with ``arguments``), and the completion's
    token count as ``usage`` when given (recorded, and paid by the reward's
    length term)."""
    if (text is None) == (tool is None):
        raise ValueError("step: give exactly one of text (a completion) or tool (a parsed call)")
    action: Dict[str, Any] = {"text": text} if text is not None else {"tool": tool, "arguments": arguments or {}}
    params: Dict[str, Any] = {"episode_id": episode_id, "action": action}
    if completion_tokens is not None:
        params["usage"] = {"completion_tokens": completion_tokens}
    return params


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
