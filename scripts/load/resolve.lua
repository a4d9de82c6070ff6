-- wrk script: POST a resolution request for an internal user (the body is
-- scripts/load/resolve-body.json; wrk runs from the repository's root).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("LOAD_TOKEN")
local body = assert(io.open("scripts/load/resolve-body.json", "r"))
wrk.body = body:read("*a")
body:close()
