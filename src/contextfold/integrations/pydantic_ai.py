"""contextfold for pydantic-ai: a history processor and the recall tool.

Rules:
1. `ContextFoldProcessor` is a pydantic-ai history processor, added with
   `Agent(capabilities=[fold.capability()])` (pydantic-ai 2 dropped `history_processors=`
   for the `ProcessHistory` capability, which this wraps). Before every model request it
   hands the history to one `cf.ContextManager` (OpenAI chat wire format) and returns the
   manager's view as pydantic-ai messages; pydantic-ai keeps that view as the history.
2. A call costs O(new messages): the next call's history starts with the very messages
   the previous call returned, their parts equal to the copies taken then (`_threads`
   rule 2: a part edited in place is seen), so only what follows them is added. Any other
   history (another conversation, an edited one) starts the manager again from the whole
   history; the archive is kept, so references shown earlier still recall.
3. The mapping to the wire is the one pydantic-ai's OpenAI chat model makes (see
   `_pydantic_ai_wire`): each request part is one message, each response one assistant
   message with its thinking, text and tool calls. Images and text files count as the
   images and text they are sent as (a tool's files go in its tool message, not in the
   trailing user message pydantic-ai moves them to). Parts without an OpenAI chat form
   (other files, native tools) count as their text; they travel only inside messages
   that come back unchanged. The capability also hands over the request's tools (function
   tools, output tools, a native output's schema), counted as that model sends them; a
   request offering other tools than the last starts the manager again. Called as a bare
   processor (no capability) it sees no tools and counts the last it was given.
   Summaries and markers name the recall tool only when the request offers it.
   The request's instructions (`instructions=`, `@agent.instructions`, a toolset's) are
   not in the history: the capability hands them over too and the manager holds them as
   the leading system messages, counted as sent and never handed back as history. Other
   instructions than the last start the manager again (from the history it returned).
4. Messages that come back unchanged are the original objects (timestamps, usage and
   provider details kept), found by the identity of the neutral message the manager keeps
   for each; a request whose parts all come back together stays one request.
   Compaction artifacts become new parts: a summary a `CompactionPart` (pydantic-ai sends
   it as a summary in the user's voice), the user's rules and markers user and tool text.
   The frame pydantic-ai sends a summary in is held out of the managers' budget, so a
   request with a summary is within `budget` as sent (`_pydantic_ai_wire` rule 4).
5. The provider's reported input tokens on each response calibrate the manager's counts.
"""

from __future__ import annotations

import operator
import threading
from dataclasses import dataclass
from typing import Any, TypeAlias

import contextfold as cf

from ._factory import manager_factory, offers_recall
from ._locks import holding
from ._threads import snapshot

try:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.messages import ModelMessage, ModelRequestPart, ModelResponse
    from pydantic_ai.models import ModelRequestContext
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "contextfold.integrations.pydantic_ai needs pydantic-ai 1.87 or later: "
        "pip install 'contextfold[pydantic-ai]' --upgrade"
    ) from exc

from ._pydantic_ai_wire import (
    Request,
    Source,
    Wire,
    instruction_wires,
    message_wires,
    new_request_part,
    new_response,
    sent_parts,
    summary_frame,
    tool_names,
    tool_wires,
)

__all__ = ["ContextFoldProcessor", "recall_tool"]

_FORMAT = "openai-chat"
Origin: TypeAlias = tuple[cf.Message, ModelRequestPart | ModelResponse, ModelMessage]
"""A message the manager holds, and the part (or whole response) it came from with its
pydantic-ai message. Keyed by the neutral message's identity, which the manager keeps for
messages a compaction leaves unchanged; the entry holds the message so the id stays its."""


def recall_tool(archive: cf.Archive) -> Tool[Any]:
    """The recall tool as a pydantic-ai `Tool` answering from `archive`."""
    spec = cf.recall_tool(_FORMAT)
    function = spec["function"]
    assert isinstance(function, dict)

    def contextfold_recall(ref: str, offset: int | None = None, limit: int | None = None) -> str:
        text, _is_error = cf.answer_recall(archive, {"ref": ref, "offset": offset, "limit": limit})
        return text

    return Tool.from_schema(
        contextfold_recall,
        name=cf.RECALL_TOOL_NAME,
        description=str(function["description"]),
        json_schema=function["parameters"],
    )


class ContextFoldProcessor:
    """A pydantic-ai history processor keeping every model request within `budget` tokens."""

    def __init__(
        self,
        budget: int,
        model: str | None = None,
        *,
        policy: cf.Policy | None = None,
        summarizer: cf.Summarizer | None = None,
        counter: cf.TokenCounter | None = None,
        archive: cf.Archive | None = None,
        **options: object,
    ) -> None:
        self.budget = budget
        self.model = model
        self.archive = archive if archive is not None else cf.Archive()
        self._make = manager_factory(
            budget - summary_frame(model, counter),  # rule 4: the frame a summary goes in
            model,
            format=_FORMAT,
            archive=self.archive,
            policy=policy,
            summarizer=summarizer,
            counter=counter,
            options=options,
        )
        self._make()  # bad settings fail here, not at the first model request
        self.manager: cf.ContextManager | None = None
        """The manager behind the latest request (None before the first)."""
        self.restarts = 0
        """Times a history did not extend the previous view and the manager started again."""
        self._sent: list[ModelMessage] = []
        self._parts: list[object] = []
        """A copy of each sent message's parts, taken when it was sent (rule 2)."""
        self._copied: list[ModelMessage] = []
        """The messages `_parts` copied (kept, so their ids stay theirs)."""
        self._origins: dict[int, Origin] = {}
        self._sent_view: list[cf.Message] = []
        """The manager's messages behind the view returned last."""
        self._tools: list[Wire] = []
        """The tools of the latest request, as sent (rule 3)."""
        self._instructions: list[Wire] = []
        """The instructions of the latest request, as sent (rule 3)."""
        self._held_instructions: list[cf.Message] = []
        """The manager's messages for them, never handed back as history."""
        self._lock = threading.Lock()

    @property
    def report(self) -> cf.Report | None:
        """The report of the latest compaction (None until one ran)."""
        return None if self.manager is None else self.manager.last_report

    def recall_tool(self) -> Tool[Any]:
        """The recall tool answering from this processor's archive; add it to the agent."""
        return recall_tool(self.archive)

    def capability(self) -> ProcessHistory[Any]:
        """This processor as the `ProcessHistory` capability an `Agent` takes; it hands
        the processor each request's tools too (rule 3)."""
        return _FoldHistory(self)

    async def __call__(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The history to send: the manager's view of `messages` (rules 1-4)."""
        return await self.process(messages, None)

    async def process(
        self,
        messages: list[ModelMessage],
        tools: list[Wire] | None,
        instructions: list[Wire] | None = None,
    ) -> list[ModelMessage]:
        """The history to send for a request offering `tools` (OpenAI chat tool
        definitions) with `instructions` (the system messages sent for them); None: the
        same as the last request's."""
        async with holding(self._lock):
            tools = self._tools if tools is None else tools
            instructions = self._instructions if instructions is None else instructions
            manager = self._manager_for(messages, tools, instructions)
            new = messages[len(self._sent) :]
            self._observe(manager, new)
            self._add(manager, [w for message in new for w in message_wires(message)])
            view = await manager.aview()
            self._sent = self._messages(manager, view)
            self._parts = self._copies(self._sent)
            return list(self._sent)

    def _manager_for(
        self, messages: list[ModelMessage], tools: list[Wire], instructions: list[Wire]
    ) -> cf.ContextManager:
        sent = self._sent
        extends = (
            self.manager is not None
            and tools == self._tools
            and instructions == self._instructions
            and len(messages) >= len(sent)
            and all(map(operator.is_, messages, sent))
            and list(map(sent_parts, messages[: len(sent)])) == self._parts
        )
        if not extends:
            self.restarts += self.manager is not None
            self.manager = manager = self._make(tools=tools, recall_hints=offers_recall(tools))
            manager.extend(instructions)
            self._tools, self._instructions = tools, instructions
            self._held_instructions = manager.messages()
            self._sent, self._origins, self._sent_view = [], {}, list(self._held_instructions)
            self._copied, self._parts = [], []  # an edited message is copied again
        assert self.manager is not None
        return self.manager

    def _copies(self, sent: list[ModelMessage]) -> list[object]:
        """The parts of `sent` as they are now; copied once per message (rule 2)."""
        taken = {id(m): parts for m, parts in zip(self._copied, self._parts, strict=True)}
        self._copied = list(sent)
        return [taken[id(m)] if id(m) in taken else snapshot(sent_parts(m)) for m in sent]

    def _observe(self, manager: cf.ContextManager, new: list[ModelMessage]) -> None:
        """Calibrate with the input tokens the provider reported for the view sent last."""
        if not self._sent or not new or not isinstance(new[0], ModelResponse):
            return
        tokens = new[0].usage.input_tokens
        if tokens > 0:
            manager.observe_usage(tokens)

    def _add(self, manager: cf.ContextManager, wires: list[tuple[Wire, Source]]) -> None:
        """Add the new wires, remembering which neutral message each became."""
        before = len(self._sent_view)
        for wire, _ in wires:
            manager.add(wire)
        held = manager.messages()
        added = held[before:]
        if len(added) == len(wires):  # one message per chat wire, as the adapter reads them
            for message, (_, (part, owner)) in zip(added, wires, strict=True):
                self._origins[id(message)] = (message, part, owner)

    def _messages(self, manager: cf.ContextManager, view: list[object]) -> list[ModelMessage]:
        """The view as pydantic-ai messages (rule 4); forgets origins no longer in view."""
        wires: list[Wire] = [w for w in view if isinstance(w, dict)]
        names = tool_names(wires)
        origins: dict[int, Origin] = {}
        out: list[ModelMessage] = []
        request = Request()
        held = manager.messages()
        instructions = set(map(id, self._held_instructions))
        for wire, message in zip(wires, held, strict=True):
            if id(message) in instructions:
                continue  # sent as the request's instructions, not as history (rule 3)
            origin = self._origins.get(id(message))
            if origin is not None and origin[0] is message:
                origins[id(message)] = origin
                found: ModelRequestPart | ModelResponse | None = origin[1]
            else:
                found = None
            if wire["role"] == "assistant":
                request.flush(out)
                out.append(found if isinstance(found, ModelResponse) else new_response(wire))
            elif found is not None and not isinstance(found, ModelResponse):
                request.add(found, origin[2] if origin is not None else None)
            else:
                request.add(new_request_part(wire, message, names), None)
        request.flush(out)
        self._origins = origins
        self._sent_view = held
        return out


@dataclass
class _FoldHistory(ProcessHistory[Any]):
    """`ProcessHistory` that also hands the processor the request's tools (rule 3)."""

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        fold = self.processor
        assert isinstance(fold, ContextFoldProcessor)
        # as the model will send them: its profile's schema changes applied (strict schemas)
        parameters = request_context.model.customize_request_parameters(
            request_context.model_request_parameters
        )
        tools, instructions = tool_wires(parameters), instruction_wires(parameters)
        messages = await fold.process(list(request_context.messages), tools, instructions)
        request_context.messages = messages.copy()
        ctx.messages[:] = messages
        return request_context
