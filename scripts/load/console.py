#!/usr/bin/env python3
"""Console page server time on the seeded registry (scripts/load/seed.py: 100 tools,
20 agents): signs in with the token, requests each page sequentially (3 warm-ups, then
N), and prints each page's median and p95 server time from the `Server-Timing` header
the console sets (`app;dur=<ms>`), beside the client-side time on loopback. Goal: every
page's p95 <= 50 ms (release build).

Usage: console.py BASE_URL TOKEN [N (default 50)]
"""
import http.client
import statistics
import sys
import time
from urllib.parse import quote, urlparse

BASE = urlparse(sys.argv[1])
TOKEN = sys.argv[2]
N = int(sys.argv[3]) if len(sys.argv) > 3 else 50
GOAL_MS = 50.0

conn = http.client.HTTPConnection(BASE.hostname, BASE.port, timeout=30)
conn.request("POST", "/console/sign-in", f"token={quote(TOKEN)}",
             {"Content-Type": "application/x-www-form-urlencoded",
              # the console takes a form post only from its own origin
              "Origin": f"{BASE.scheme}://{BASE.netloc}"})
r = conn.getresponse()
r.read()
cookie = (r.getheader("Set-Cookie") or "").split(";")[0]
if r.status != 303 or not cookie.startswith("ar_console="):
    sys.exit(f"console: sign-in failed ({r.status})")

PAGES = [
    ("agents list", "/console/agents"),
    ("agents by tag", "/console/agents?tag=team%3Dteam-2"),
    ("tools list", "/console/tools"),
    ("tools by name", "/console/tools?name=load-tool-05"),
    ("agent page", "/console/agents/load-agent-07"),
    ("tool page", "/console/tools/load-tool-007%401.0.0"),
    ("agent history", "/console/agents/load-agent-07/history"),
    ("resolve as a user", "/console/agents/load-agent-07/resolve?run=1&userId=u-1&userType=internal-user"
                          "&roles=analyst&accountId=acct-1&region=us-east-1"
                          "&customData=%7B%22tier%22%3A%22premium%22%7D"),
    ("edit form", "/console/tools/load-tool-007%401.0.0/edit"),
]


def get(path):
    start = time.perf_counter()
    conn.request("GET", path, headers={"Cookie": cookie})
    r = conn.getresponse()
    body = r.read()
    client = (time.perf_counter() - start) * 1000
    if r.status != 200:
        sys.exit(f"console: GET {path} -> {r.status}")
    if b"role=\"alert\"" in body:
        sys.exit(f"console: GET {path} shows an error: the measure would not be of a real page")
    timing = r.getheader("Server-Timing") or ""
    server = float(timing.split("dur=")[1]) if "dur=" in timing else float("nan")
    return server, client


print(f"\nconsole pages: {N} sequential requests each after 3 warm-ups (goal: server p95 <= {GOAL_MS:.0f} ms)")
print("page\tserver median\tserver p95\tclient median\tgoal")
failed = False
for name, path in PAGES:
    for _ in range(3):
        get(path)
    samples = [get(path) for _ in range(N)]
    server = sorted(s for s, _ in samples)
    client = sorted(c for _, c in samples)
    p95 = server[min(len(server) - 1, int(len(server) * 0.95))]
    ok = p95 <= GOAL_MS
    failed |= not ok
    print(f"{name}\t{statistics.median(server):.2f} ms\t{p95:.2f} ms\t{statistics.median(client):.2f} ms\t"
          f"{'met' if ok else 'NOT met'}")
if failed:
    print("console: a page missed the 50 ms goal", file=sys.stderr)
