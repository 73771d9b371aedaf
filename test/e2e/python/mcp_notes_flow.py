"""The example's notes flow (./notes_flow.py), driven by the official Python SDK's client (`mcp` 2.3.0).

    python mcp_notes_flow.py <url> <mode>      # mode: 2026-07-28 (pinned), auto, or legacy (initialize)

Prints one JSON object on stdout: what each step saw, or the error it raised (a failed step does not stop the
others). It asserts nothing: test/e2e/python-clients.test.ts runs it against `wrangler dev` and checks the summary.
"""

import asyncio
import json
import sys
from importlib.metadata import version

import mcp_types as types
import notes_flow
from mcp import Client


class Session:
    """The flow's calls on the SDK's client."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def tool_names(self):
        return [tool.name for tool in (await self.client.list_tools()).tools]

    async def call_tool(self, name, arguments):
        return await self.client.call_tool(name, arguments)

    async def read(self, uri):
        return (await self.client.read_resource(uri)).contents

    async def get_prompt(self, name, arguments):
        return await self.client.get_prompt(name, arguments)

    async def complete(self, ref, argument, context):
        return (await self.client.complete(ref, argument, context)).completion.values


async def flow(url: str, mode: str) -> dict:
    user = notes_flow.User()
    summary: dict = {"client": "mcp", "version": version("mcp"), "mode": mode, "steps": {}}

    # The SDK's callbacks take the request's context first and answer with its result types.
    async def elicit(_context, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=user.form(params.message, params.requested_schema))

    async def sample(_context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        return user.sample(params.messages)

    async def roots(_context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=user.roots())

    client = Client(
        url,
        mode=mode,
        client_info=types.Implementation(name="e2e-python-mcp", version="1.0.0"),
        elicitation_callback=elicit,
        sampling_callback=sample,
        list_roots_callback=roots,
    )
    async with client:
        summary["protocol_version"] = client.protocol_version
        info = client.server_info
        summary["server_info"] = info and {"name": info.name, "version": info.version}
        await notes_flow.run(Session(client), summary["steps"])

    summary["asked"] = user.asked
    return summary


def main() -> None:
    url, mode = sys.argv[1], sys.argv[2]
    print(json.dumps(asyncio.run(flow(url, mode))))


if __name__ == "__main__":
    main()
