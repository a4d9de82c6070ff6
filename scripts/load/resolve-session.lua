-- wrk script: a conversation's turns: each session is resolved ten times in a row (the
-- principal token is issued on its first turn and reused on the nine others, decision
-- 112). Sessions are numbered per wrk thread so no two threads share one.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("LOAD_TOKEN")
local body = assert(io.open("scripts/load/resolve-body.json", "r"))
wrk.body = body:read("*a")
body:close()
local turns = 0
function request()
  turns = turns + 1
  local session = string.format("conversation-%d-%d", tid or 0, math.floor(turns / 10))
  return wrk.format(nil, wrk.path .. "?sessionId=" .. session)
end
