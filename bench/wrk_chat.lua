-- wrk_chat.lua: the load of bench items 1 and 2. One request body (a file) POSTed to
-- /p/m<i><ENDPOINT>, i going round the P providers of the bench fixture (the mock's scripted
-- turns answer once each, so its fixture spreads them over providers; nginx and mock-llm get the
-- very same requests). ENDPOINT is the wire's path under a provider: /v1/chat/completions (the
-- default), /v1/responses, /v1beta/models/M:generateContent. Each thread stops after LIMIT
-- requests, so a run is bounded in count as well as by wrk's -d. Prints one RESULT line for
-- bench.py.
--   wrk ... -s bench/wrk_chat.lua URL -- BODY_FILE PROVIDERS LIMIT_PER_THREAD [ENDPOINT]
local reqs, n, limit, sent = {}, 1, 0, 0

function init(args)
  local f = assert(io.open(args[1], "rb"))
  local body = f:read("*a")
  f:close()
  n = tonumber(args[2]) or 1
  limit = tonumber(args[3]) or 1e12
  local endpoint = args[4] or "/v1/chat/completions"
  for i = 0, n - 1 do
    reqs[i] = wrk.format("POST", "/p/m" .. i .. endpoint,
      {["Content-Type"] = "application/json"}, body)
  end
end

function request()
  sent = sent + 1
  if sent > limit then
    wrk.thread:stop()
  end
  return reqs[sent % n]
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d status_errors=%d socket_errors=%d " ..
    "p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, summary.bytes, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
