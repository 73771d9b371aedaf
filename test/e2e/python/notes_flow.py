"""The example's notes flow, shared by the scripts of both Python clients (mcp_notes_flow.py, fastmcp_notes_flow.py).

The flow is the TypeScript clients' (test/e2e/modern-client.test.ts, tasks-client.test.ts): every plain tool, the
note resource and the guide, the review prompt, completion of a note id, a summary through the client's model
(sampling), a draft in several rounds (a form with the workspace roots, sampling, a confirmation form), a deletion
the user confirms, the long-running retag with its question mid-way, and an unknown tool.

What differs between the clients is only how they are called, so each script gives `run` a `Session` of its own
client, and turns the user's answers below into its client's handler types.
"""

from typing import Any, Awaitable, Callable, Protocol

import mcp_types as types
from mcp import MCPError

MODEL = "python-model"
ROOT = types.Root(uri="file:///home/user/proj", name="proj")


class User:
    """The person (and the model) behind the client: answers every question the server asks, and records it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def form(self, message: str, requested_schema: dict) -> dict:
        """The content the user accepts a form with."""
        self.asked.append(f"elicit:{message.splitlines()[0]}")
        if message.startswith("Delete"):
            return {"delete": True}
        if "would get new tags" in message:
            return {"apply": True, "mode": "add"}
        if message.startswith("Save"):
            # Keeps the title the form suggests (the topic).
            return {"title": requested_schema["properties"]["title"]["default"], "save": True}
        return {"audience": "the team", "length": "short"}

    def sample(self, messages: list[types.SamplingMessage]) -> types.CreateMessageResult:
        """The model's answer to a sampling request."""
        self.asked.append("sample")
        prompt = messages[0].content
        mentions_roots = isinstance(prompt, types.TextContent) and "proj" in prompt.text
        answer = "Drafted with the workspace proj." if mentions_roots else "Written by the Python client's model."
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=answer), model=MODEL)

    def roots(self) -> list[types.Root]:
        self.asked.append("roots")
        return [ROOT]


class Session(Protocol):
    """One client's calls, each returning the SDK's own types whatever the client wraps them in."""

    async def tool_names(self) -> list[str]: ...
    async def call_tool(self, name: str, arguments: dict) -> types.CallToolResult: ...
    async def read(self, uri: str) -> list[Any]: ...
    async def get_prompt(self, name: str, arguments: dict) -> types.GetPromptResult: ...
    async def complete(self, ref: types.ResourceTemplateReference, argument: dict, context: dict) -> list[str]: ...


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def run(session: Session, steps: dict) -> None:
    """Runs every step in order, recording in `steps` what each returned or the error it raised."""

    async def step(name: str, run_step: Callable[[], Awaitable[Any]]):
        try:
            steps[name] = await run_step()
        except Exception as error:  # a step's failure is data for the test, not the end of the flow
            steps[name] = {"error": f"{type(error).__name__}: {error}"}
        return steps[name]

    async def call(name: str, arguments: dict):
        result = await session.call_tool(name, arguments)
        return {"is_error": bool(result.is_error), "structured": result.structured_content, "text": text_of(result)}

    async def read(uri: str):
        contents = await session.read(uri)
        return [{"uri": str(item.uri), "mime_type": item.mime_type, "text": getattr(item, "text", None)} for item in contents]

    await step("list_tools", session.tool_names)
    created = await step("create_notebook", lambda: call("create_notebook", {"title": "Python"}))
    notebook = (created.get("structured") or {}).get("notebook_id")
    added = await step(
        "add_note",
        lambda: call("add_note", {"notebook_id": notebook, "title": "Invoices", "body": "Pay March invoices.", "tags": ["work"]}),
    )
    note = (added.get("structured") or {}).get("id")
    await step("search_notes", lambda: call("search_notes", {"notebook_id": notebook, "query": "march"}))
    await step("get_note", lambda: call("get_note", {"notebook_id": notebook, "note_id": note}))
    await step("update_note", lambda: call("update_note", {"notebook_id": notebook, "note_id": note, "title": "Invoices (paid)"}))
    await step("summarize_notes", lambda: call("summarize_notes", {"notebook_id": notebook}))
    await step("read_note", lambda: read(f"note://{notebook}/{note}"))
    await step("read_guide", lambda: read("notes://guide"))

    async def get_prompt():
        prompt = await session.get_prompt("review_notes", {"notebook_id": notebook})
        return {"messages": len(prompt.messages), "roles": [message.role for message in prompt.messages]}

    await step("get_prompt", get_prompt)
    ref = types.ResourceTemplateReference(type="ref/resource", uri="note://{notebook_id}/{note_id}")
    await step("complete", lambda: session.complete(ref, {"name": "note_id", "value": "n_"}, {"notebook_id": notebook}))
    await step("draft_note", lambda: call("draft_note", {"notebook_id": notebook, "topic": "Release plan"}))

    async def drafted():
        found = (await call("search_notes", {"notebook_id": notebook, "query": "Release"}))["structured"]["notes"]
        body = (await call("get_note", {"notebook_id": notebook, "note_id": found[0]["id"]}))["structured"]
        return {"title": body["title"], "tags": body["tags"], "body": body["body"]}

    await step("drafted", drafted)
    await step("delete_note", lambda: call("delete_note", {"notebook_id": notebook, "note_id": note}))
    # The long-running tool (taskSupport "optional"): it runs synchronously unless the client declares the Tasks
    # extension, and asks its question mid-way (here on the one note left, the draft).
    await step("retag_notebook", lambda: call("retag_notebook", {"notebook_id": notebook}))

    async def unknown_tool():
        try:
            await session.call_tool("no_such_tool", {})
        except MCPError as error:
            return {"code": error.code, "message": error.message}
        return {"error": "no error raised"}

    await step("unknown_tool", unknown_tool)
