"""A tool-search agent served by LangGraph's API server (``langgraph dev`` / ``langgraph up``).

The graph is built the way the server expects: no ``checkpointer=`` and no
``store=`` (the server brings its own and refuses a graph compiled with them).
``storage="store"`` keeps each thread's loads in the server's store, under
``("toolsearch", "loaded", <thread_id>)``; ``langgraph.json`` gives those items
a TTL. The assistant's ``configurable.plan`` decides who may find and load the
admin tool.

The model is the package's offline ``ScriptedToolSearchModel`` so that the
example runs without an API key; replace it with ``init_chat_model("...")``.
"""

from __future__ import annotations

from langchain.agents import create_agent
from langchain_core.tools import tool

from langchain_toolsearch import ToolSearchFilterArgs, ToolSearchMiddleware
from langchain_toolsearch.testing import Answer, Call, Load, ScriptedToolSearchModel, Search


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"sunny in {city}"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email message to someone."""
    return f"sent to {to}"


@tool
def admin_delete_user(user_id: str) -> str:
    """Delete a user account and all its data (administrators only)."""
    return f"user {user_id} deleted"


def by_plan(args: ToolSearchFilterArgs) -> bool:
    """Only assistants configured with ``plan: pro`` may find, load and run admin_* tools."""
    plan = args.config.get("configurable", {}).get("plan")
    return plan == "pro" or not args.tool_name.startswith("admin_")


SCRIPTS = {
    "What is the weather in Paris?": [
        Search("weather"),
        Load("get_weather"),
        Call("get_weather", {"city": "Paris"}),
        Answer(),
    ],
    # calls the tool without loading it: runs only on a thread that loaded it before
    "Weather in Oslo, please.": [Call("get_weather", {"city": "Oslo"}, unbound=True), Answer()],
    "Delete user 42.": [
        Load("admin_delete_user"),
        Call("admin_delete_user", {"user_id": "42"}, unbound=True),  # refused unless loaded
        Answer(),
    ],
}

model = ScriptedToolSearchModel(scripts=SCRIPTS)

agent = create_agent(
    model,
    tools=[],
    middleware=[
        ToolSearchMiddleware(
            tools=[get_weather, send_email, admin_delete_user], storage="store", filter=by_plan
        )
    ],
)
