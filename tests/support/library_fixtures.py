"""The shared test library (shared/cases/field-reports.md) as real LangChain tools."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool, tool

CALLS: list[tuple[str, Any]] = []


@tool
def get_weather(city: str) -> str:
    """Get current weather for a city"""
    CALLS.append(("get_weather", city))
    return f"Sunny in {city}"


@tool
def send_email(to: str, body: str) -> str:
    """Send an email to a recipient"""
    CALLS.append(("send_email", to))
    return f"sent to {to}"


@tool
def slack_post_message(channel: str, text: str) -> str:
    """Post a message to a Slack channel"""
    CALLS.append(("slack_post_message", channel))
    return "posted"


@tool
def github_create_issue(repo: str, title: str) -> str:
    """Create an issue in a GitHub repository"""
    CALLS.append(("github_create_issue", title))
    return "issue #1"


@tool
def github_get_me() -> str:
    """Get the authenticated user's GitHub profile"""
    CALLS.append(("github_get_me", None))
    return "octocat"


@tool
def github_list_repos(owner: str) -> str:
    """List repositories of a GitHub user or organisation"""
    CALLS.append(("github_list_repos", owner))
    return "repo1, repo2"


@tool
def github_add_comment_to_pending_review(pull_number: int, body: str) -> str:
    """Add a review comment to the requester's latest pending pull request review"""
    CALLS.append(("github_add_comment_to_pending_review", pull_number))
    return "commented"


@tool
def admin_delete_user(id: str) -> str:
    """Delete a user account permanently (admin only)"""
    CALLS.append(("admin_delete_user", id))
    return f"deleted {id}"


@tool
def whoami(config: RunnableConfig) -> str:
    """Return the user id of the caller from the run configuration"""
    user = (config.get("configurable") or {}).get("user_id")
    CALLS.append(("whoami", user))
    return f"user={user}"


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression"""
    CALLS.append(("calculator", expression))
    return "4"


def library() -> list[BaseTool]:
    return [
        get_weather,
        send_email,
        slack_post_message,
        github_create_issue,
        github_get_me,
        github_list_repos,
        github_add_comment_to_pending_review,
        admin_delete_user,
        whoami,
    ]


def plan_filter(args: Any) -> bool:
    """Allow unless plan != "pro" and the name starts with admin_."""
    plan = (args.config.get("configurable") or {}).get("plan")
    return not (plan != "pro" and args.tool_name.startswith("admin_"))


def secret_tools(config: RunnableConfig) -> list[BaseTool]:
    """Per-request tools: ``read_secret`` bound to the caller (``configurable["user"]``).

    Every caller gets a tool of the same name answering ``"secret of <user>"``.
    """
    user = (config.get("configurable") or {})["user"]

    def read_secret() -> str:
        return f"secret of {user}"

    return [
        StructuredTool.from_function(
            read_secret, name="read_secret", description="Read the caller's secret note"
        )
    ]
