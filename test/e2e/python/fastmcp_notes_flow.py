"""The example's notes flow, driven by FastMCP's client (`fastmcp` 4.0.10) against a running server.

    python fastmcp_notes_flow.py <url> <mode>      # mode: 2026-07-28 (pinned), auto, or legacy (initialize)

Prints one JSON object on stdout: what each step saw, or the error it raised (a failed step does not stop the
others). It asserts nothing: test/e2e/python-clients.test.ts runs it against `wrangler dev` and checks the summary.
The same flow as ./mcp_notes_flow.py, through FastMCP's handlers (which return plain values) instead of the SDK's
callbacks; FastMCP also asks for every log message (`logLevel: debug` on 2026-07-28), which the summary records.
"""

import asyncio
import json
import sys
from importlib.metadata import version

import mcp_types as types
from fastmcp import Client
from mcp import MCPError

MODEL = "python-model"


class User:
    """The person (and the model) behind the client: answers every question the server asks, and records it."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.logs: list[dict] = []

    async def elicit(self, message: str, _response_type, params: types.ElicitRequestParams, _context):
        self.asked.append(f"elicit:{message.splitlines()[0]}")
        if message.startswith("Delete"):
            return {"delete": True}
        if "would get new tags" in message:
            return {"apply": True, "mode": "add"}
        if message.startswith("Save"):
            # Keeps the title the form suggests (the topic).
            title = params.requested_schema["properties"]["title"]["default"]
            return {"title": title, "save": True}
        return {"audience": "the team", "length": "short"}

    async def sample(self, messages: list[types.SamplingMessage], _params, _context) -> types.CreateMessageResult:
        self.asked.append("sample")
        prompt = messages[0].content
        mentions_roots = isinstance(prompt, types.TextContent) and "proj" in prompt.text
        answer = "Drafted with the workspace proj." if mentions_roots else "Written by the Python client's model."
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=answer), model=MODEL)

    async def roots(self, _context) -> list[types.Root]:
        self.asked.append("roots")
        return [types.Root(uri="file:///home/user/proj", name="proj")]

    async def log(self, message: types.LoggingMessageNotificationParams) -> None:
        self.logs.append({"level": message.level, "logger": message.logger, "data": message.data})


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def flow(url: str, mode: str) -> dict:
    user = User()
    summary: dict = {"client": "fastmcp", "version": version("fastmcp"), "sdk": version("mcp"), "mode": mode, "steps": {}}
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
        client_info=types.Implementation(name="e2e-python-fastmcp", version="1.0.0"),
        elicitation_handler=user.elicit,
        sampling_handler=user.sample,
        roots=user.roots,
        log_handler=user.log,
        timeout=30,
    )
    async with client:
        summary["protocol_version"] = client.protocol_version
        info = client.server_info
        summary["server_info"] = info and {"name": info.name, "version": info.version}

        async def list_tools():
            return [tool.name for tool in await client.list_tools()]

        await step("list_tools", list_tools)

        async def call(name: str, arguments: dict):
            result = await client.call_tool(name, arguments, raise_on_error=False)
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
            contents = await client.read_resource(uri)
            return [{"uri": str(item.uri), "mime_type": item.mime_type, "text": getattr(item, "text", None)} for item in contents]

        await step("read_note", lambda: read(f"note://{notebook}/{note}"))
        await step("read_guide", lambda: read("notes://guide"))

        async def get_prompt():
            prompt = await client.get_prompt("review_notes", {"notebook_id": notebook})
            return {"messages": len(prompt.messages), "roles": [message.role for message in prompt.messages]}

        await step("get_prompt", get_prompt)

        async def complete():
            ref = types.ResourceTemplateReference(type="ref/resource", uri="note://{notebook_id}/{note_id}")
            return (await client.complete(ref, {"name": "note_id", "value": "n_"}, {"notebook_id": notebook})).values

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
    summary["logs"] = user.logs
    return summary


def main() -> None:
    url, mode = sys.argv[1], sys.argv[2]
    print(json.dumps(asyncio.run(flow(url, mode))))


if __name__ == "__main__":
    main()
