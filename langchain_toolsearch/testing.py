"""Offline chat models for testing agents that use tool search: `ScriptedToolSearchModel`.

The model plays a script of steps, binds tools like a real chat model and records what
was bound; a scripted call to a tool not bound raises :class:`UnboundToolCallError`.
The script restarts at every user message, so one instance serves any threads::

    model = ScriptedToolSearchModel.search_load_call(
        query="weather", tool="get_weather", args={"city": "Paris"}
    )
    agent = create_agent(model, tools=[], middleware=[ToolSearchMiddleware(tools=library)])
    result = agent.invoke({"messages": [{"role": "user", "content": "Weather in Paris?"}]})
    assert model.bound[-1] == ["search_tools", "load_tool", "get_weather"]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, field_validator

from langchain_toolsearch._prompts import LOAD_TOOL_NAME, SEARCH_TOOL_NAME
from langchain_toolsearch.errors import (
    ToolSearchConfigError,
    ToolSearchTypeError,
    UnboundToolCallError,
)

__all__ = [
    "Answer",
    "Call",
    "Load",
    "ScriptStep",
    "ScriptedToolSearchModel",
    "Search",
    "UnboundToolCallError",
]


@dataclass(frozen=True, init=False)
class _OneOrSeveral:
    """A meta-tool call with one value (``single`` argument) or several (``several``)."""

    items: tuple[str, ...]
    single: ClassVar[str]
    several: ClassVar[str]
    noun: ClassVar[str]

    def __init_subclass__(cls, *, single: str, several: str, noun: str) -> None:
        """Name the meta tool's two arguments and what an item is (for the error)."""
        super().__init_subclass__()
        cls.single, cls.several, cls.noun = single, several, noun

    def __init__(self, *items: str) -> None:
        """Keep ``items``.

        Raises:
            ValueError: None is given.
        """
        if not items:
            raise ToolSearchConfigError(f"{type(self).__name__} needs at least one {self.noun}")
        object.__setattr__(self, "items", tuple(items))

    def tool_args(self) -> dict[str, Any]:
        """The meta tool's arguments: ``{single: item}`` or ``{several: [items]}``."""
        if len(self.items) == 1:
            return {self.single: self.items[0]}
        return {self.several: list(self.items)}


@dataclass(frozen=True, init=False)
class Search(_OneOrSeveral, single="query", several="queries", noun="query"):
    """Call ``search_tools``: ``Search("weather")``, ``Search("find a route", "book a table")``."""

    @property
    def queries(self) -> tuple[str, ...]:
        """The queries, in order."""
        return self.items

    @property
    def query(self) -> str:
        """The first query."""
        return self.items[0]


@dataclass(frozen=True, init=False)
class Load(_OneOrSeveral, single="tool_name", several="tool_names", noun="tool name"):
    """Call ``load_tool`` with one name (``tool_name``) or several (``tool_names``)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The tool names, in order."""
        return self.items


@dataclass(frozen=True)
class Call:
    """Call the tool ``name`` with ``args`` (``unbound=True``: call it even when not bound)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)
    unbound: bool = False


@dataclass(frozen=True)
class Answer:
    """Answer without tool calls: ``text``, or by default the last tool output quoted."""

    text: str | None = None


ScriptStep = Search | Load | Call | Answer | AIMessage | Callable[[list[BaseMessage]], AIMessage]
"""One step: a `Search`/`Load`/`Call`/`Answer`, an ``AIMessage``, or messages -> ``AIMessage``."""


class ScriptedToolSearchModel(BaseChatModel):
    """A chat model that plays scripted steps; after the last, `Answer()`.

    Attributes:
        steps: The script, played from the start at each user message.
        scripts: Scripts by the exact text of the last user message (else ``steps``).
        bound: For each ``bind_tools`` call, the names bound, in order.
        seen: For each model call, the messages it was given.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    steps: list[Any] = Field(default_factory=list)
    scripts: dict[str, list[Any]] = Field(default_factory=dict)
    bound: list[list[str]] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    @field_validator("steps")
    @classmethod
    def _check_steps(cls, steps: list[Any]) -> list[Any]:
        _check_script("steps", steps)
        return steps

    @field_validator("scripts")
    @classmethod
    def _check_scripts(cls, scripts: dict[str, list[Any]]) -> dict[str, list[Any]]:
        for text, steps in scripts.items():
            _check_script(f"scripts[{text!r}]", steps)
        return scripts

    @classmethod
    def search_load_call(
        cls,
        *,
        query: str,
        tool: str,
        args: Mapping[str, Any] | None = None,
        answer: str | None = None,
    ) -> ScriptedToolSearchModel:
        """The usual turn: ``search_tools(query)``, ``load_tool(tool)``, ``tool(**args)``, answer.

        Args:
            query: What the model searches for.
            tool: The tool it loads and then calls.
            args: The call's arguments (``{}`` by default).
            answer: The final text; by default the tool's output, quoted.

        Returns:
            A model playing those four steps at every user message.
        """
        return cls(steps=[Search(query), Load(tool), Call(tool, dict(args or {})), Answer(answer)])

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-search"

    def bind_tools(  # type: ignore[override]
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[Any, BaseMessage]:
        """Record the names of ``tools`` in `bound`; return this model bound to them only.

        Raises:
            ValueError: A tool cannot be converted to a function schema.
        """
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        self.bound.append(names)
        return self.bind(**{_BOUND_KWARG: tuple(names)})

    def step_for(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """The message this model sends after ``messages`` (no side effect)."""
        return self._play(messages)[1]

    def _play(self, messages: Sequence[BaseMessage]) -> tuple[Any, AIMessage]:
        """(the step played after ``messages``, the message it sends)."""
        last_human = max(
            (i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1
        )
        position = sum(isinstance(m, AIMessage) for m in messages[last_human + 1 :])
        steps = self.steps
        if last_human >= 0 and messages[last_human].text in self.scripts:
            steps = self.scripts[messages[last_human].text]
        step = steps[position] if position < len(steps) else Answer()
        call_id = f"scripted_{len(messages)}"
        if isinstance(step, AIMessage):
            return step, step.model_copy(deep=True)
        if isinstance(step, Search):
            return step, _tool_call(SEARCH_TOOL_NAME, step.tool_args(), call_id)
        if isinstance(step, Load):
            return step, _tool_call(LOAD_TOOL_NAME, step.tool_args(), call_id)
        if isinstance(step, Call):
            return step, _tool_call(step.name, dict(step.args), call_id)
        if isinstance(step, Answer):
            text = step.text if step.text is not None else _quote(messages)
            return step, AIMessage(content=text)
        message: AIMessage = step(list(messages))
        return step, message

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen.append(list(messages))
        step, message = self._play(messages)
        bound: tuple[str, ...] = kwargs.get(_BOUND_KWARG, ())
        unbound = [c["name"] for c in message.tool_calls if c["name"] not in bound]
        if unbound and not (isinstance(step, Call) and step.unbound):
            raise UnboundToolCallError(
                f"ScriptedToolSearchModel: the script calls {unbound} after "
                f"{len(messages)} message(s), but the tools bound for this step are "
                f"{list(bound)}; a provider's model could not call "
                f"{'them' if len(unbound) > 1 else 'it'} (is the tool loaded and bound, "
                "e.g. does the graph state keep toolsearch_tools? A call meant to name an "
                "unbound tool is Call(name, args, unbound=True))"
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


_BOUND_KWARG = "toolsearch_scripted_bound"
"""The keyword ``bind_tools`` binds: the names of the tools bound for the model call."""
_STEP_KINDS = (Search, Load, Call, Answer, AIMessage)


def _check_script(where: str, steps: Sequence[Any]) -> None:
    """Refuse a step the model could not play, at construction.

    Raises:
        TypeError: A step is not a `ScriptStep`, or a `Call`'s ``args`` not a mapping.
    """
    for i, step in enumerate(steps):
        if isinstance(step, Call) and not isinstance(step.args, Mapping):
            raise ToolSearchTypeError(
                f"{where}[{i}]: Call({step.name!r}, ...) needs args as a mapping of argument "
                f"name -> value, got {type(step.args).__name__}"
            )
        if not isinstance(step, _STEP_KINDS) and not callable(step):
            raise ToolSearchTypeError(
                f"{where}[{i}] is not a script step (got {type(step).__name__} {step!r:.60}); "
                "a step is "
                "Search(query), Load(*names), Call(name, args), Answer(text=None), an "
                "AIMessage, or a function of the messages returning the AIMessage to send"
            )


def _tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}]
    )


def _quote(messages: Sequence[BaseMessage]) -> str:
    last = messages[-1] if messages else None
    if isinstance(last, ToolMessage):
        return f"{last.name} returned: {last.text}"
    return "Done."
