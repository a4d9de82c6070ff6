#!/usr/bin/env python3
"""Seeds the discovery load: 350 tools granted to one agent through its collaborators
(the agent names 30, each of its 10 collaborators 32), for a principal's /tools/search
against a role's over the same tools (loopback only).

Usage: seed_search.py BASE_URL TOKEN
"""
import http.client
import json
import sys
from urllib.parse import urlparse

BASE = urlparse(sys.argv[1])
TOKEN = sys.argv[2]
MODEL = "anthropic.claude-3-haiku-20240307-v1:0"
PROMPT = "You help people with account lookups; answer briefly and name the tool you used."
WORDS = ["weather", "forecast", "invoice", "refund", "ticket", "inventory", "shipment", "calendar", "alert", "report"]
conn = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=30)


def put(path, body):
    conn.request("PUT", path, json.dumps(body), {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    r = conn.getresponse()
    text = r.read()
    if r.status not in (200, 201):
        sys.exit(f"seed_search: PUT {path} -> {r.status} {text[:500]!r}")


def tool(i):
    tool_id = f"search-tool-{i:03}@1.0.0"
    word = WORDS[i % len(WORDS)]
    put(f"/tools/{tool_id}", {
        "toolId": tool_id,
        "executionType": "lambda",
        "name": f"search_tool_{i:03}",
        "displayName": f"{word.title()} tool {i}",
        "description": f"Looks up the {word} of a customer account, tool {i}.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": f"arn:aws:lambda:us-east-1:123456789012:function:search-{i}",
        "functionSchema": [{"name": "run", "description": f"Runs the {word} lookup.",
                            "parameters": {"query": {"type": "string", "description": "What to look up", "required": True}}}],
    })
    return tool_id


ids = [tool(i) for i in range(350)]
for c in range(10):
    put(f"/agents/search-collab-{c}", {
        "agentId": f"search-collab-{c}", "basePrompt": PROMPT,
        "foundationModel": MODEL, "toolIds": ids[30 + c * 32: 30 + (c + 1) * 32],
    })
put("/agents/search-agent", {
    "agentId": "search-agent", "basePrompt": PROMPT,
    "foundationModel": MODEL, "toolIds": ids[:30],
    "collaborators": [{"agentId": f"search-collab-{c}", "instruction": "Ask it.", "historyRelay": "TO_AGENT"} for c in range(10)],
})
