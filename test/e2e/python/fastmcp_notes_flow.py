"""The example's notes flow (./notes_flow.py), driven by FastMCP's client (`fastmcp` 4.0.10).

    python fastmcp_notes_flow.py <url> <mode>      # mode: 2026-07-28 (pinned), auto, or legacy (initialize)

Prints one JSON object on stdout: what each step saw, or the error it raised (a failed step does not stop the
others). It asserts nothing: test/e2e/python-clients.test.ts runs it against `wrangler dev` and checks the summary.
FastMCP's handlers return plain values instead of the SDK's result types; FastMCP also asks for every log message
(`logLevel: debug` on 2026-07-28), which the summary records.
"""

import asyncio
import json
import sys
from importlib.metadata import version

import mcp_types as types
import notes_flow
from fastmcp import Client


class Session:
    """The flow's calls on FastMCP's client, which unwraps results the SDK's client returns whole."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def tool_names(self):
        return [tool.name for tool in await self.client.list_tools()]

    async def call_tool(self, name, arguments):
        # A tool error is a result to record, as with the SDK's client, not an exception.
        return await self.client.call_tool(name, arguments, raise_on_error=False)

    async def read(self, uri):
        return await self.client.read_resource(uri)

    async def get_prompt(self, name, arguments):
        return await self.client.get_prompt(name, arguments)

    async def complete(self, ref, argument, context):
        return (await self.client.complete(ref, argument, context)).values


async def flow(url: str, mode: str) -> dict:
    user = notes_flow.User()
    logs: list[dict] = []
    summary: dict = {"client": "fastmcp", "version": version("fastmcp"), "sdk": version("mcp"), "mode": mode, "steps": {}}

    async def elicit(message: str, _response_type, params: types.ElicitRequestParams, _context):
        return user.form(message, params.requested_schema)

    async def sample(messages: list[types.SamplingMessage], _params, _context) -> types.CreateMessageResult:
        return user.sample(messages)

    async def roots(_context) -> list[types.Root]:
        return user.roots()

    async def log(message: types.LoggingMessageNotificationParams) -> None:
        logs.append({"level": message.level, "logger": message.logger, "data": message.data})

    client = Client(
        url,
        mode=mode,
        client_info=types.Implementation(name="e2e-python-fastmcp", version="1.0.0"),
        elicitation_handler=elicit,
        sampling_handler=sample,
        roots=roots,
        log_handler=log,
        timeout=30,
    )
    async with client:
        summary["protocol_version"] = client.protocol_version
        info = client.server_info
        summary["server_info"] = info and {"name": info.name, "version": info.version}
        await notes_flow.run(Session(client), summary["steps"])

    summary["asked"] = user.asked
    summary["logs"] = logs
    return summary


def main() -> None:
    url, mode = sys.argv[1], sys.argv[2]
    print(json.dumps(asyncio.run(flow(url, mode))))


if __name__ == "__main__":
    main()
