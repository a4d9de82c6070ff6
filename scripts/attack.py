#!/usr/bin/env python3
"""Reruns the adversarial review's attacks against a running `agent-registry serve`.

Usage: attack.py BASE_URL ADMIN_TOKEN SERVER_PID  (scripts/attack.sh starts the server)

Loopback only, bounded in count and time. Each attack prints what the server answered,
the slowest request (client-side: an upper bound on server time), the server's resident
memory growth over its level before the attack, and the slowest `/healthz` seen while
the attack ran. Exit status 1 when any attack breaks a bound: a 5xx, a request slower
than 100 ms, more than 64 MiB of memory growth, `/healthz` slower than 100 ms, or a
contract answer other than the expected one.
"""

import http.client
import json
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

MAX_REQUEST_S = 0.100
MAX_GROWTH_MIB = 64
MAX_HEALTHZ_S = 0.100

BASE = urlparse(sys.argv[1])
ADMIN = sys.argv[2]
PID = int(sys.argv[3])
HOST, PORT = BASE.hostname, BASE.port
failures = []


def rss_mib():
    """The server's resident memory; 0 once it is gone."""
    try:
        with open(f"/proc/{PID}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def alive():
    try:
        with open(f"/proc/{PID}/status") as f:
            return not any(line.startswith("State:") and "Z" in line.split()[1] for line in f)
    except OSError:
        return False


def request(method, path, body=None, token=None, headers=None, timeout=30):
    """One request on a fresh connection: (status, parsed JSON or text, seconds, headers)."""
    conn = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    h = {"Authorization": f"Bearer {token or ADMIN}"}
    if body is not None:
        h["Content-Type"] = "application/json"
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
    h.update(headers or {})
    start = time.perf_counter()
    try:
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        data = r.read()
        elapsed = time.perf_counter() - start
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data.decode("utf-8", "replace")
        return r.status, parsed, elapsed, dict(r.getheaders())
    except OSError as e:
        return 0, str(e), time.perf_counter() - start, {}
    finally:
        conn.close()


class Watch:
    """Samples the server's memory and `/healthz` latency while an attack runs."""

    def __enter__(self):
        self.stop = threading.Event()
        self.base = rss_mib()
        self.peak = self.base
        self.healthz = 0.0
        self.threads = [threading.Thread(target=self._mem), threading.Thread(target=self._health)]
        for t in self.threads:
            t.start()
        return self

    def _mem(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, rss_mib())
            time.sleep(0.005)

    def _health(self):
        while not self.stop.is_set():
            status, _, elapsed, _ = request("GET", "/healthz", timeout=5)
            self.healthz = max(self.healthz, elapsed if status == 200 else 99.0)
            time.sleep(0.02)

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


def attack(name, run, expect=None, slow_ok=False):
    """Runs `run()` (a list of (status, body, seconds)) under a Watch and reports.
    `slow_ok`: requests may queue behind one another (64 writers on one record), so the
    per-request bound does not apply; /healthz and memory bounds still do."""
    with Watch() as w:
        results = run()
    statuses = sorted({r[0] for r in results})
    slowest = max((r[2] for r in results), default=0.0)
    growth = w.peak - w.base
    bad = []
    if any(s >= 500 or s == 0 for s in statuses):
        bad.append(f"statuses {statuses}")
    if slowest > MAX_REQUEST_S and not slow_ok:
        bad.append(f"slowest request {slowest * 1000:.0f} ms")
    if growth > MAX_GROWTH_MIB:
        bad.append(f"memory +{growth:.0f} MiB")
    if w.healthz > MAX_HEALTHZ_S:
        bad.append(f"/healthz {w.healthz * 1000:.0f} ms")
    if expect is not None:
        problem = expect(results)
        if problem:
            bad.append(problem)
    verdict = "FAIL " + "; ".join(bad) if bad else "ok"
    print(
        f"{name:<44} {len(results):>5} req  statuses {statuses}  slowest {slowest * 1000:6.1f} ms"
        f"  mem +{growth:5.1f} MiB  healthz max {w.healthz * 1000:5.1f} ms  {verdict}"
    )
    if bad:
        failures.append(name)
        for r in results[:2]:
            print("   e.g.", r[0], str(r[1])[:300])
    if not alive():
        print(f"\nthe server died during `{name}`: stopping")
        sys.exit(1)


def parallel(n, fn):
    with ThreadPoolExecutor(max_workers=min(n, 32)) as pool:
        return list(pool.map(fn, range(n)))


def statuses_are(*wanted):
    def check(results):
        got = sorted({r[0] for r in results})
        return None if set(got) <= set(wanted) else f"expected {list(wanted)}, got {got}"

    return check


def problem_json(results):
    for status, body, _, headers in results:
        if status >= 400 and not (isinstance(body, dict) and "code" in body and "errors" in body):
            return f"{status} without a problem body: {str(body)[:120]}"
        if status >= 400 and headers.get("content-type") != "application/problem+json":
            return f"{status} with content-type {headers.get('content-type')}"
    return None


def all_of(*checks):
    def check(results):
        for c in checks:
            problem = c(results)
            if problem:
                return problem
        return None

    return check


# ---- setup: a reader token, a tool, an agent -------------------------------------------------

def reader_token():
    """The reader token scripts/attack.sh minted (env READER_TOKEN) or the admin's."""
    import os

    return os.environ.get("READER_TOKEN", ADMIN)


READER = reader_token()
PROMPT = "You are a helpful assistant that answers questions about the weather."
MODEL = "anthropic.claude-3-haiku-20240307-v1:0"


def evaluate(condition, custom):
    body = {
        "rules": [{"effect": "allow", "condition": condition}],
        "context": {"user": {"userId": "u"}, "customData": custom},
    }
    return request("POST", "/access/evaluate", body, token=READER)


def main():
    big = "a" * 4096
    # 1. memory through CEL: doubling a caller-supplied 4 KiB string in chained maps
    doubling = "size([customData.s]" + ".map(x, x + x)" * 20 + ") > 0"
    attack("CEL string doubling via map (x20)", lambda: parallel(8, lambda _: evaluate(doubling, {"s": big})))
    lists = "size(customData.l" + ".map(x, customData.l)" + ".map(x, x + x)" * 6 + ") > 0"
    attack("CEL list growth via map", lambda: parallel(8, lambda _: evaluate(lists, {"l": [big] * 64})))
    concat = "(customData.s + customData.s + customData.s + customData.s).contains(customData.s + 'b')"
    attack("CEL concat + contains on 4 KiB strings", lambda: parallel(8, lambda _: evaluate(concat, {"s": big})))
    # 2. CPU through regex: a pattern from caller data, and an invalid literal one
    pattern = "(" + "a?" * 64 + ")" + "{100}"
    regex = "customData.items.exists(i, i.matches(customData.p))"
    attack(
        "regex from caller data in exists",
        lambda: parallel(4, lambda _: evaluate(regex, {"items": [big] * 64, "p": pattern})),
    )
    attack(
        "invalid literal regex is refused on write",
        lambda: [evaluate("user.userId.matches('(')", {})],
        statuses_are(400),
    )
    # 3. compile starvation: readers send many distinct conditions; an editor's PUT stays fast
    tool = {
        "toolId": "attack-tool@1",
        "executionType": "lambda",
        "name": "attack_tool",
        "displayName": "Attack tool",
        "description": "A tool for the attack script.",
        "supportedAgentFrameworks": ["bedrock"],
        "lambdaArn": "arn:aws:lambda:us-east-1:123456789012:function:attack",
        "functionSchema": [
            {"name": "go", "description": "Go.", "parameters": {"q": {"description": "Q", "type": "string", "required": True}}}
        ],
    }
    request("PUT", "/tools/attack-tool@1", tool)

    def compile_storm():
        stop = threading.Event()

        def reader_loop(k):
            n = 0
            while not stop.is_set() and n < 200:
                cond = " || ".join(f"user.userId == 'u{k}-{n}-{j}'" for j in range(40))
                evaluate(cond, {})
                n += 1

        readers = [threading.Thread(target=reader_loop, args=(k,)) for k in range(6)]
        for t in readers:
            t.start()
        results = []
        for i in range(20):
            tool["accessRules"] = [{"effect": "allow", "condition": f"user.userType == 'internal-{i}'"}]
            results.append(request("PUT", "/tools/attack-tool@1", tool))
        stop.set()
        for t in readers:
            t.join()
        return results

    attack("editor PUT during a compile storm", compile_storm, statuses_are(200))
    # 4. duplicate keys
    dup = '{"rules":[{"effect":"deny","condition":"true","effect":"allow"}],"context":{}}'
    attack(
        "duplicate JSON keys",
        lambda: [request("POST", "/access/evaluate", dup, token=READER)],
        all_of(statuses_are(400), problem_json),
    )
    # 5. secret redirection
    mcp = {
        "toolId": "attack-mcp@1",
        "executionType": "mcp",
        "name": "attack_mcp",
        "displayName": "Attack MCP",
        "description": "An MCP tool for the attack script.",
        "supportedAgentFrameworks": ["bedrock"],
        "url": "https://mcp.example.com/x",
        "auth": {"clientId": "c", "clientSecret": "s3cr3t", "tokenUrl": "https://auth.example.com/t"},
        "functionSchema": tool["functionSchema"],
    }
    request("PUT", "/tools/attack-mcp@1", mcp)
    redirect = dict(mcp, auth={"clientId": "c", "tokenUrl": "https://evil.example.com/t"})
    attack(
        "secret redirection without the secret",
        lambda: [request("PUT", "/tools/attack-mcp@1", redirect)],
        all_of(statuses_are(400), problem_json),
    )
    # 6. collaborator fan-out: a mesh of agents all collaborating with one another
    def agent(i, collaborators):
        return {
            "agentId": f"mesh-{i}",
            "basePrompt": PROMPT,
            "foundationModel": MODEL,
            "toolIds": ["attack-tool@1"],
            "collaborators": [
                {"agentId": f"mesh-{j}", "instruction": PROMPT, "historyRelay": "TO_COLLABORATOR"}
                for j in collaborators
            ],
        }

    for i in range(32):
        request("PUT", f"/agents/mesh-{i}", agent(i, []))
    attack(
        "32 collaborators on one agent is refused",
        lambda: [request("PUT", "/agents/mesh-0", agent(0, range(1, 32)))],
        all_of(statuses_are(400), problem_json),
    )
    for i in range(32):
        request("PUT", f"/agents/mesh-{i}", agent(i, [j for j in range(32) if j != i][:10]))
    ctx = {"user": {"userId": "u"}, "request": {"region": "us-east-1"}}
    attack(
        "resolving a mesh of 32 agents",
        lambda: parallel(16, lambda i: request("POST", f"/agents/mesh-{i % 32}/resolve", ctx, token=READER)),
    )
    # 7. idle and half-sent connections
    def idle_sockets():
        socks = []
        for i in range(1500):
            try:
                s = socket.create_connection((HOST, PORT), timeout=2)
                if i % 2:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # half-sent headers
                socks.append(s)
            except OSError:
                break
        results = [request("GET", "/agents/mesh-1", token=READER) for _ in range(5)]
        for s in socks:
            s.close()
        return results

    attack("1500 idle / half-sent connections", idle_sockets, statuses_are(200, 503))
    # 8. contract slips
    request("PUT", "/tools/attack-tool@1", dict(tool, accessRules=[]))

    def star_patches():
        return parallel(
            16,
            lambda i: request(
                "PATCH", "/tools/attack-tool@1", {"description": f"patched {i}."}, headers={"If-Match": "*"}
            ),
        )

    attack("16 concurrent PATCH with If-Match: *", star_patches, statuses_are(200))
    attack(
        "16 concurrent PUT of a new id, no If-Match",
        lambda: parallel(16, lambda i: request("PUT", "/tools/race@1", dict(tool, toolId="race@1"))),
        statuses_are(200, 201),
    )
    attack(
        "If-Match: 1 (unquoted)",
        lambda: [request("PATCH", "/tools/attack-tool@1", {"description": "x."}, headers={"If-Match": "1"})],
        all_of(statuses_are(400), problem_json),
    )
    attack("414 URI too long", lambda: [request("GET", "/agents/" + "a" * 100_000)], problem_json)
    attack(
        "431 header too large",
        lambda: [request("GET", "/agents/x", headers={"X-Big": "b" * 100_000})],
        problem_json,
    )
    attack("non-UTF-8 path", lambda: [request("GET", "/agents/%FF%FE")], problem_json)
    # what held before still holds: 64 concurrent read-modify-write editors lose nothing
    # (each adds one to a counter kept in the description, with If-Match)
    request("PUT", "/tools/attack-tool@1", dict(tool, description="count 0"))

    def editors():
        def one(i):
            for _ in range(500):
                status, body, elapsed, headers = request("GET", "/tools/attack-tool@1")
                count = int(body["description"].split()[1])
                r = request(
                    "PATCH",
                    "/tools/attack-tool@1",
                    {"description": f"count {count + 1}"},
                    headers={"If-Match": headers.get("etag", "")},
                )
                if r[0] != 412:
                    return r
            return (0, "gave up after 500 conflicts", 0.0, {})

        results = parallel(64, one)
        final = request("GET", "/tools/attack-tool@1")[1]
        won = sum(1 for r in results if r[0] == 200)
        if final["description"] != f"count {won}":
            results.append((0, f"lost updates: {won} acknowledged, {final['description']}", 0.0, {}))
        return results

    attack("64 concurrent editors, If-Match retries", editors, statuses_are(200), slow_ok=True)

    print()
    if failures:
        print(f"{len(failures)} attack(s) broke a bound: {', '.join(failures)}")
        return 1
    print("every attack was refused or bounded")
    return 0


def durability_write(acked_file):
    """Writes tools from 8 threads, SIGKILLs the server after 100 acknowledgements, and
    records every acknowledged id (scripts/attack.sh restarts the server and checks)."""
    import os
    import signal

    acked, lock = [], threading.Lock()

    def writer(k):
        for n in range(100):
            tool_id = f"durable-{k}-{n}@1"
            body = {
                "toolId": tool_id,
                "executionType": "inline",
                "name": "durable",
                "displayName": "Durable",
                "description": "Written before a kill -9.",
                "supportedAgentFrameworks": ["bedrock"],
                "code": "return 1",
                "functionSchema": [{"name": "go", "description": "Go.", "parameters": {}}],
            }
            status = request("PUT", f"/tools/{tool_id}", body, timeout=5)[0]
            if status == 0:
                return
            if status in (200, 201):
                with lock:
                    acked.append(tool_id)
                    if len(acked) == 100:
                        os.kill(PID, signal.SIGKILL)

    parallel(8, writer)
    with open(acked_file, "w") as f:
        f.write("\n".join(acked))
    print(f"kill -9 after {len(acked)} acknowledged writes")


def all_events():
    """Every audit event, paging `GET /events` with its cursor."""
    events, cursor = [], None
    while True:
        path = "/events?limit=1000" + (f"&after={cursor}" if cursor else "")
        status, page = request("GET", path)[:2]
        if status != 200:
            raise SystemExit(f"GET {path}: {status} {page}")
        events += page["items"]
        if not page["items"]:
            return events
        cursor = page["cursor"]


def durability_check(acked_file):
    with open(acked_file) as f:
        acked = [line for line in f.read().split("\n") if line]
    missing = [i for i in acked if request("GET", f"/tools/{i}")[0] != 200]
    print(f"after restart: {len(acked) - len(missing)} of {len(acked)} acknowledged writes present")
    # Audit events (written in the same transaction as each write): every acknowledged
    # write has exactly one; a write that did not commit has none; sequence numbers have
    # no gap.
    events = all_events()
    seqs = [e["seq"] for e in events]
    gapless = seqs == list(range(1, len(seqs) + 1))
    per_id = {}
    for e in events:
        if e["id"].startswith("durable-"):
            per_id[e["id"]] = per_id.get(e["id"], 0) + 1
    wrong = []
    for k in range(8):
        for n in range(100):
            tool_id = f"durable-{k}-{n}@1"
            live = request("GET", f"/tools/{tool_id}")[0] == 200
            count = per_id.get(f"durable-{k}-{n}@1.0.0", 0)
            if count != (1 if live else 0):
                wrong.append(f"{tool_id}: live={live}, events={count}")
    print(
        f"events: {len(events)}, gapless={gapless}; acknowledged writes with exactly one event: "
        f"{sum(1 for i in acked if per_id.get(i + '.0.0') == 1)} of {len(acked)}; "
        f"event/write mismatches: {len(wrong)}"
    )
    for line in wrong[:10]:
        print(f"  {line}")
    return 1 if missing or not acked or wrong or not gapless else 0


if __name__ == "__main__":
    if len(sys.argv) > 5 and sys.argv[4] == "--durability-write":
        durability_write(sys.argv[5])
        sys.exit(0)
    if len(sys.argv) > 5 and sys.argv[4] == "--durability-check":
        sys.exit(durability_check(sys.argv[5]))
    sys.exit(main())
