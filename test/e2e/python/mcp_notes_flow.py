"""The example's notes flow, driven by the official Python SDK's client (`mcp` 2.3.0) against a running server.

    python mcp_notes_flow.py <url> <mode>      # mode: 2026-07-28 (pinned), auto, or legacy (initialize)

Prints one JSON object on stdout: what each step saw, or the error it raised (a failed step does not stop the
others). It asserts nothing: test/e2e/python-clients.test.ts runs it against `wrangler dev` and checks the summary.
The flow is the TypeScript clients' (test/e2e/modern-client.test.ts, tasks-client.test.ts): every plain tool, the
note resource and the guide, the review prompt, completion of a note id, a summary through the client's model
(sampling), a draft in several rounds (a form with the workspace roots, sampling, a confirmation form), a deletion
the user confirms, the long-running retag with its question mid-way, and an unknown tool.
"""

import asyncio
import json
import sys
from importlib.metadata import version

import mcp_types as types
from mcp import Client, MCPError

MODEL = "python-model"


class User:
    """The person (and the model) behind the client: answers every question the server asks, and records it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, _context, params: types.ElicitRequestParams) -> types.ElicitResult:
        message = params.message
        self.asked.append(f"elicit:{message.splitlines()[0]}")
        if message.startswith("Delete"):
            return types.ElicitResult(action="accept", content={"delete": True})
        if "would get new tags" in message:
            return types.ElicitResult(action="accept", content={"apply": True, "mode": "add"})
        if message.startswith("Save"):
            # Keeps the title the form suggests (the topic).
            title = params.requested_schema["properties"]["title"]["default"]
            return types.ElicitResult(action="accept", content={"title": title, "save": True})
        return types.ElicitResult(action="accept", content={"audience": "the team", "length": "short"})

    async def sample(self, _context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        self.asked.append("sample")
        prompt = params.messages[0].content
        mentions_roots = isinstance(prompt, types.TextContent) and "proj" in prompt.text
        answer = "Drafted with the workspace proj." if mentions_roots else "Written by the Python client's model."
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=answer), model=MODEL)

    async def roots(self, _context) -> types.ListRootsResult:
        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///home/user/proj", name="proj")])


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def flow(url: str, mode: str) -> dict:
    user = User()
    summary: dict = {"client": "mcp", "version": version("mcp"), "mode": mode, "steps": {}}
    steps = summary["steps"]

    async def step(name: str, run):
        """Runs one step; records what it returned, or the error it raised."""
        try:
            steps[name] = await run()
        except Exception as error:  # a step's failure is data for the test, not the end of the flow
            steps[name] = {"error": f"{type(error).__name__}: {error}"}
        return steps[name]

    client = Client(
        url,
        mode=mode,
        client_info=types.Implementation(name="e2e-python-mcp", version="1.0.0"),
        elicitation_callback=user.elicit,
        sampling_callback=user.sample,
        list_roots_callback=user.roots,
    )
    async with client:
        summary["protocol_version"] = client.protocol_version
        info = client.server_info
        summary["server_info"] = info and {"name": info.name, "version": info.version}

        async def list_tools():
            return [tool.name for tool in (await client.list_tools()).tools]

        await step("list_tools", list_tools)

        async def call(name: str, arguments: dict):
            result = await client.call_tool(name, arguments)
            return {"is_error": bool(result.is_error), "structured": result.structured_content, "text": text_of(result)}

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

        async def read(uri: str):
            contents = (await client.read_resource(uri)).contents
            return [{"uri": str(item.uri), "mime_type": item.mime_type, "text": getattr(item, "text", None)} for item in contents]

        await step("read_note", lambda: read(f"note://{notebook}/{note}"))
        await step("read_guide", lambda: read("notes://guide"))

        async def get_prompt():
            prompt = await client.get_prompt("review_notes", {"notebook_id": notebook})
            return {"messages": len(prompt.messages), "roles": [message.role for message in prompt.messages]}

        await step("get_prompt", get_prompt)

        async def complete():
            ref = types.ResourceTemplateReference(type="ref/resource", uri="note://{notebook_id}/{note_id}")
            result = await client.complete(ref, {"name": "note_id", "value": "n_"}, {"notebook_id": notebook})
            return result.completion.values

        await step("complete", complete)
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
                await client.call_tool("no_such_tool", {})
            except MCPError as error:
                return {"code": error.code, "message": error.message}
            return {"error": "no error raised"}

        await step("unknown_tool", unknown_tool)

    summary["asked"] = user.asked
    return summary


def main() -> None:
    url, mode = sys.argv[1], sys.argv[2]
    print(json.dumps(asyncio.run(flow(url, mode))))


if __name__ == "__main__":
    main()
