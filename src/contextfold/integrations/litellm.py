"""LiteLLM: compact `messages` for any of its providers, in the SDK or in the proxy.

    fold = ContextFold(8000, recall=True)
    response = fold.completion(model="openai/qwen3", messages=history, tools=tools)
    litellm.callbacks = [fold]           # or: every `litellm.acompletion` call compacts
    # proxy config.yaml: litellm_settings: {callbacks: my_module.fold}

Rules:
1. LiteLLM messages are OpenAI chat dicts (or LiteLLM's own pydantic messages, which the
   manager reads as plain data), so they go straight to the openai-chat adapter.
2. A conversation is named by `metadata["contextfold_session"]`, else LiteLLM's
   `litellm_session_id`, else the fingerprint of its system prompt and first user
   message; one `cf.ContextManager` per conversation, fed only the new messages. A
   request offering other tools than the conversation's manager counts starts it again
   (`_threads` rule 6).
3. Three entry points, one behaviour: `completion` / `acompletion` wrap the SDK calls;
   `async_pre_call_deployment_hook` compacts every `litellm.acompletion` once registered
   in `litellm.callbacks`; `async_pre_call_hook` does it inside the LiteLLM proxy. Use one
   of them per call, not two (a compacted view is not the history it came from).
4. With `recall=True` the recall tool is added to the request's tools; the caller runs
   the model's calls to it with `answer(tool_call)`, as it runs its own tools. Summaries
   and markers name it only when the request offers it.
5. Responses that report usage calibrate the conversation's counter (the wrappers).
   A structured output's schema (`response_format`: a JSON schema, or a pydantic model
   LiteLLM turns into one) is counted as one more tool definition, as the model sees it.
6. A request whose messages are the latest view this object made for its conversation
   (the proxy runs the pre-call hook, then the deployment hook, on the same request)
   passes unchanged. The latest view of each conversation is kept, least recently used
   first out, for as many conversations as `max_sessions` (default 1,024): a list of
   references to the wire messages its manager holds anyway, so about 8 bytes a message.
   Under load from more conversations than that, a view evicted between the two hooks is
   compacted again as if it were a history, and its conversation starts cold: raise
   `max_sessions` above the conversations in flight at once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import contextfold as cf

try:
    import litellm
    from litellm.integrations.custom_logger import CustomLogger
    from litellm.utils import (  # type: ignore[attr-defined]  # a public helper, not re-exported
        type_to_response_format_param,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.litellm needs LiteLLM: pip install 'contextfold[litellm]'"
    ) from exc

from ._factory import offers_recall
from ._threads import Threads, Wire

__all__ = ["ContextFold"]

_CHAT_CALLS = frozenset({"completion", "acompletion"})


def _plain(message: object) -> Wire:
    if isinstance(message, dict):
        return message
    dump = getattr(message, "model_dump", None)
    if callable(dump):
        data = dump(exclude_none=True)
        if isinstance(data, dict):
            return data
    raise cf.InvalidConversation(
        f"a LiteLLM message must be a dict or a pydantic message, not {type(message).__name__}"
    )


def _to_wire(message: object) -> list[Wire]:
    return [_plain(message)]


def session_key(kwargs: Mapping[str, object]) -> Hashable:
    """The conversation a request belongs to (rule 2)."""
    named = _named(kwargs)
    return _fingerprint(kwargs.get("messages")) if named is None else named


def _named(kwargs: Mapping[str, object]) -> str | None:
    """The conversation's name the request gives, if it gives one (rule 2)."""
    for holder in ("metadata", "litellm_metadata"):
        meta = kwargs.get(holder)
        if isinstance(meta, Mapping) and meta.get("contextfold_session") is not None:
            return str(meta["contextfold_session"])
    if kwargs.get("litellm_session_id") is not None:
        return str(kwargs["litellm_session_id"])
    return None


def _fingerprint(messages: object) -> str:
    """A conversation named by its system prompt and first user message (rule 2)."""
    head: list[Wire] = []
    if isinstance(messages, Sequence):
        plain = [_plain(m) for m in messages[:4]]
        head = [m for m in plain if m.get("role") == "system"][:1]
        head += [m for m in plain if m.get("role") == "user"][:1]
    text = json.dumps(head, sort_keys=True, default=str)
    return "fingerprint:" + hashlib.sha256(text.encode()).hexdigest()[:16]


class ContextFold(CustomLogger):
    """Keeps every LiteLLM conversation within `budget` tokens."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        recall: bool = False,
        max_sessions: int = 1024,
    ) -> None:
        super().__init__()
        cf.ContextManager(budget, model, policy=policy, counter=counter)  # fail early
        self.budget = budget
        self.model = model
        self.policy = policy
        self.summarizer = summarizer
        self.counter = counter
        self.recall = recall
        self._threads: Threads[object] = Threads(_to_wire, archive=archive, limit=max_sessions)
        self._views: OrderedDict[Hashable, list[Wire]] = OrderedDict()
        """The latest view of each conversation, by the key a request carrying it has."""
        self._views_limit = max_sessions
        self._views_lock = threading.Lock()

    # --- the library side ------------------------------------------------------------

    @property
    def archive(self) -> cf.Archive:
        """Where every folded original is kept (shared by all sessions)."""
        return self._threads.archive

    @property
    def recall_tool(self) -> Wire:
        """The recall tool definition (OpenAI chat shape, which LiteLLM speaks)."""
        tool: Wire = cf.recall_tool("openai-chat")
        return tool

    def manager(self, session: Hashable) -> cf.ContextManager | None:
        """The ContextManager of a session (None before its first call)."""
        return self._threads.manager(session)

    def report(self, session: Hashable) -> cf.Report | None:
        """What the last compaction of a session did (None if it never compacted)."""
        manager = self.manager(session)
        return None if manager is None else manager.last_report

    def compact(self, kwargs: Mapping[str, object]) -> dict[str, Any]:
        """The request `kwargs` with its messages compacted (and the recall tool added)."""
        messages, key = self._messages(kwargs)
        if self._made_here(key, messages):
            return dict(kwargs)
        specs = self._specs(kwargs)
        pairs = self._threads.view(key, messages, self._maker(specs), specs)
        return self._request(kwargs, [wire for wire, _ in pairs])

    async def acompact(self, kwargs: Mapping[str, object]) -> dict[str, Any]:
        """Awaitable `compact` (LLM summarizers are awaited)."""
        messages, key = self._messages(kwargs)
        if self._made_here(key, messages):
            return dict(kwargs)
        specs = self._specs(kwargs)
        pairs = await self._threads.aview(key, messages, self._maker(specs), specs)
        return self._request(kwargs, [wire for wire, _ in pairs])

    def answer(self, tool_call: object) -> Wire | None:
        """The tool message answering a recall call; None for any other tool's call."""
        call = _plain(tool_call)
        function = call.get("function")
        if not isinstance(function, Mapping) or function.get("name") != cf.RECALL_TOOL_NAME:
            return None
        arguments = function.get("arguments")
        text, _ = cf.answer_recall(self.archive, arguments if isinstance(arguments, str) else "")
        return {"role": "tool", "tool_call_id": call.get("id"), "content": text}

    # --- SDK wrappers ----------------------------------------------------------------

    def completion(self, **kwargs: Any) -> Any:
        """`litellm.completion` on the compacted request."""
        response = litellm.completion(**self.compact(kwargs))
        self._observe(session_key(kwargs), response)
        return response

    async def acompletion(self, **kwargs: Any) -> Any:
        """`litellm.acompletion` on the compacted request."""
        response = await litellm.acompletion(**(await self.acompact(kwargs)))
        self._observe(session_key(kwargs), response)
        return response

    # --- LiteLLM callback hooks ----------------------------------------------------

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """SDK: compacts every chat call once this logger is in `litellm.callbacks`."""
        if _call_name(call_type) not in _CHAT_CALLS or not isinstance(kwargs.get("messages"), list):
            return None
        return await self.acompact(kwargs)

    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """Proxy: compacts each chat request before LiteLLM routes it."""
        if _call_name(call_type) not in _CHAT_CALLS or not isinstance(data.get("messages"), list):
            return data
        return await self.acompact(data)

    # --- internals -------------------------------------------------------------------

    def _messages(self, kwargs: Mapping[str, object]) -> tuple[list[object], Hashable]:
        messages = kwargs.get("messages")
        if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
            raise cf.InvalidConversation("the request has no list of messages", field="messages")
        return list(messages), session_key(kwargs)

    def _specs(self, kwargs: Mapping[str, object]) -> list[Wire]:
        """The tools the request sends, the recall tool included (rule 4)."""
        given = [_plain(t) for t in _tools(kwargs)]
        if self.recall and not offers_recall(given):
            given = [*given, self.recall_tool]
        return [*given, *_output_schema(kwargs)]

    def _maker(self, specs: list[Wire]) -> Any:
        def make(archive: cf.Archive) -> cf.ContextManager:
            return cf.ContextManager(
                self.budget,
                self.model,
                tools=specs,
                policy=self.policy,
                summarizer=self.summarizer,
                counter=self.counter,
                archive=archive,
                recall_hints=offers_recall(specs),
            )

        return make

    def _made_here(self, key: Hashable, messages: list[object]) -> bool:
        """Whether `messages` is the latest view made for conversation `key`, passed
        through a second hook (in the proxy both the pre-call and the deployment hook
        run): rule 6. The same objects or equal copies."""
        with self._views_lock:
            view = self._views.get(key)
        return view is not None and view == messages

    def _request(self, kwargs: Mapping[str, object], view: list[Wire]) -> dict[str, Any]:
        named = _named(kwargs)
        view_key = _fingerprint(view) if named is None else named  # a request carrying it
        with self._views_lock:
            self._views[view_key] = view
            self._views.move_to_end(view_key)
            while len(self._views) > self._views_limit:
                self._views.popitem(last=False)
        request = {**kwargs, "messages": view}
        if self.recall:
            given = _tools(kwargs)
            names = {_name(t) for t in given}
            if cf.RECALL_TOOL_NAME not in names:
                request["tools"] = [*given, self.recall_tool]
        return request

    def _observe(self, key: Hashable, response: object) -> None:
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None)
        manager = self._threads.manager(key)
        if isinstance(tokens, int) and tokens > 0 and manager is not None:
            manager.observe_usage(tokens)


def _tools(kwargs: Mapping[str, object]) -> list[object]:
    """The request's tools (any sequence of them, as LiteLLM takes)."""
    tools = kwargs.get("tools")
    if isinstance(tools, Sequence) and not isinstance(tools, str | bytes):
        return list(tools)
    return []


def _output_schema(kwargs: Mapping[str, object]) -> list[Wire]:
    """A structured output's schema as the tool definition it is counted as (rule 5)."""
    form = kwargs.get("response_format")
    if form is None:
        return []
    try:
        form = type_to_response_format_param(form)  # type: ignore[arg-type]
    except Exception:  # not a format LiteLLM can send either: it fails the call itself
        return []
    spec = form.get("json_schema") if isinstance(form, Mapping) else None
    if form is None or form.get("type") != "json_schema" or not isinstance(spec, Mapping):
        return []
    function = {
        "name": spec.get("name", "response"),
        "description": spec.get("description", ""),
        "parameters": spec.get("schema", {}),
    }
    return [{"type": "function", "function": function}]


def _name(tool: object) -> object:
    function = _plain(tool).get("function")
    return function.get("name") if isinstance(function, Mapping) else None


def _call_name(call_type: object) -> str:
    value = getattr(call_type, "value", call_type)
    return value if isinstance(value, str) else ""
