#!/usr/bin/env python3
"""Seeds a realistic registry for the load test: 100 tools and 20 agents, each agent
with 10 tools, 3 access rules on every agent and every tool (loopback only).

Usage: seed.py BASE_URL TOKEN
"""
import http.client
import json
import sys
from urllib.parse import urlparse

BASE = urlparse(sys.argv[1])
TOKEN = sys.argv[2]
TOOLS, AGENTS, TOOLS_PER_AGENT = 100, 20, 10
PROMPT = "You are a helpful assistant for the load test; answer briefly and use the tools you have."
MODEL = "anthropic.claude-3-haiku-20240307-v1:0"
RULES = [
    {"effect": "deny", "condition": "account.accountId in ['blocked-1', 'blocked-2']", "order": 1},
    {"effect": "allow", "condition": "user.userType == 'internal-user' && customData.tier == 'premium'", "order": 2},
    {"effect": "allow", "condition": "'analyst' in user.roles", "order": 3},
]

conn = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=30)


def put(path, body):
    conn.request("PUT", path, json.dumps(body), {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    r = conn.getresponse()
    text = r.read()
    if r.status not in (200, 201):
        sys.exit(f"seed: PUT {path} -> {r.status} {text[:500]!r}")


for i in range(TOOLS):
    tool_id = f"load-tool-{i:03}@1.0.0"
    put(f"/tools/{tool_id}", {
        "toolId": tool_id,
        "executionType": "lambda",
        "name": f"load_tool_{i:03}",
        "displayName": f"Load tool {i}",
        "description": "A tool of the load-test registry.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": f"arn:aws:lambda:us-east-1:123456789012:function:load-{i}",
        "accessRules": RULES,
        # the agentgateway backend (ExtMCP) that serves this tool
        "tags": {"team": f"team-{i % 5}", "gateway-target": f"load-tool-{i:03}"},
        "functionSchema": [{
            "name": "run",
            "description": "Runs the tool.",
            "parameters": {
                "query": {"type": "string", "description": "What to look up", "required": True},
                "limit": {"type": "integer", "description": "How many results", "required": False},
            },
        }],
    })
for a in range(AGENTS):
    put(f"/agents/load-agent-{a:02}", {
        "agentId": f"load-agent-{a:02}",
        "basePrompt": PROMPT,
        "foundationModel": MODEL,
        "toolIds": [f"load-tool-{(a * 5 + k) % TOOLS:03}@1.0.0" for k in range(TOOLS_PER_AGENT)],
        "accessRules": RULES,
        "tags": {"team": f"team-{a % 5}"},
    })
print(f"seeded {TOOLS} tools and {AGENTS} agents ({TOOLS_PER_AGENT} tools each, {len(RULES)} rules on each)")
