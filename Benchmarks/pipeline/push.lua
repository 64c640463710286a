-- wrk script for scripts/bench-pipeline: Smart ID push requests, each a new event for one of
-- N push ids (`<prefix><counter mod N>`), optionally paced to a rate.
--   wrk ... -s Benchmarks/pipeline/push.lua URL -- PATH API_KEY RUN PREFIX N RATE_PER_THREAD
-- The messageId is `<RUN>-<thread>-<sent at, Unix ms>-<counter>`: the benchmark reads the
-- send time back from the event id the sandbox received, for the gateway-to-provider latency.
-- RATE_PER_THREAD 0 sends as fast as the connections allow; otherwise each thread hands out
-- send slots 1000/RATE ms apart to its connections (wrk's delay hook), so the rate holds
-- whatever the latency (an open loop while the connections suffice).
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_usec; } herald_timeval;
int gettimeofday(herald_timeval *tv, void *tz);
]]
local tv = ffi.new("herald_timeval")
local function now_ms()
    ffi.C.gettimeofday(tv, nil)
    return tonumber(tv.tv_sec) * 1000 + tonumber(tv.tv_usec) / 1000
end

local thread_id = 0
function setup(thread)
    thread_id = thread_id + 1
    thread:set("id", thread_id)
end

local counter = 0
local next_slot = nil

function init(args)
    path, key, run, prefix = args[1], args[2], args[3], args[4]
    ids = tonumber(args[5])
    interval = tonumber(args[6]) > 0 and 1000 / tonumber(args[6]) or 0
    head = string.format("POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\n", path, key)
end

function delay()
    if interval == 0 then return 0 end
    local now = now_ms()
    if next_slot == nil then next_slot = now end
    next_slot = next_slot + interval
    local wait = next_slot - now
    if wait < 0 then return 0 end
    return math.floor(wait)
end

function request()
    counter = counter + 1
    local body = string.format('{"messageId":"%s-%d-%d-%d","pushId":"%s%d","requestor":"Bench","type":"AUTH","timeToLive":300}',
        run, id, math.floor(now_ms()), counter, prefix, counter % ids)
    return head .. "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

function done(summary, latency, requests)
    local failed = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
    io.write(string.format('{"requests":%d,"failed":%d,"non2xx":%d,"seconds":%.3f,"p50ms":%.2f,"p99ms":%.2f}\n',
        summary.requests, failed, summary.errors.status, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
