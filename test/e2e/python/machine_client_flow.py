"""A machine client (OAuth client credentials, no person) through the official Python SDK (`mcp` 2.3.0).

    python machine_client_flow.py <url> <issuer> secret <client_id> <secret>     # ClientCredentialsOAuthProvider
    python machine_client_flow.py <url> <issuer> jwt <client_id> <pem file>      # PrivateKeyJWTOAuthProvider, ES256

Calls `whoami` (a tool its scope allows) and `purge_reports` (one it does not), and prints one JSON object on
stdout: the principal `whoami` saw, what `purge_reports` did (its result, or the error it raised) and the token the
client got. It asserts nothing: test/e2e/oauth/machine-clients.ts runs it against `wrangler dev` and checks it.
"""

import asyncio
import json
import sys
from pathlib import Path

import mcp_types as types
from mcp import Client
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class MemoryStorage:
    """The client's tokens, in memory: a machine client asks for a new one at each start."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def provider_for(url: str, issuer: str, method: str, client_id: str, credential: str, storage: MemoryStorage):
    if method == "secret":
        return ClientCredentialsOAuthProvider(url, storage, client_id, credential, issuer=issuer)
    signing = SignedJWTParameters(
        issuer=client_id, subject=client_id, signing_key=Path(credential).read_text(), signing_algorithm="ES256"
    )
    return PrivateKeyJWTOAuthProvider(url, storage, client_id, signing.create_assertion_provider(), issuer=issuer)


async def flow(url: str, issuer: str, method: str, client_id: str, credential: str) -> dict:
    storage = MemoryStorage()
    auth = provider_for(url, issuer, method, client_id, credential, storage)
    summary: dict = {"method": method}
    async with create_mcp_http_client(auth=auth) as http:
        client = Client(
            streamable_http_client(url, http_client=http),
            mode="2026-07-28",
            client_info=types.Implementation(name="e2e-python-machine", version="1.0.0"),
        )
        async with client:
            who = await client.call_tool("whoami", {})
            summary["principal"] = json.loads(who.content[0].text)
            try:
                purged = await client.call_tool("purge_reports", {})
                summary["purge"] = {"result": purged.model_dump(mode="json")}
            except Exception as error:  # the refusal is what this step expects; its kind is reported
                summary["purge"] = {"error": f"{type(error).__name__}: {error}"}
    summary["token"] = storage.tokens and storage.tokens.model_dump(mode="json", exclude={"access_token"})
    return summary


def main() -> None:
    url, issuer, method, client_id, credential = sys.argv[1:6]
    print(json.dumps(asyncio.run(flow(url, issuer, method, client_id, credential))))


if __name__ == "__main__":
    main()
