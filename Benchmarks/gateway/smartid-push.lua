-- wrk script: POST Smart ID push requests with a unique messageId each, so that every
-- request is a new event the gateway publishes with confirms. The request is assembled
-- from a prepared head and a fixed-width id, so wrk spends little CPU of the shared cores.
local counter = 0
local thread_id = 0

function setup(thread)
    thread_id = thread_id + 1
    thread:set("id", thread_id)
end

function init(args)
    -- a fresh run prefix: Lua's generator starts from the same seed in every process, and
    -- a repeated id inside the gateway's window would be answered without a publish
    local run = string.format("%08x%06x%02d", os.time(), math.floor(os.clock() * 1000000) % 0x1000000, id % 100)
    local sample = string.format('{"messageId":"bench-%s-%012d","pushId":"push-1","requestor":"Bench","type":"AUTH","timeToLive":60}', run, 0)
    head = string.format("POST %s HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n{\"messageId\":\"bench-%s-",
        args[1], args[2], #sample, run)
    tail = '","pushId":"push-1","requestor":"Bench","type":"AUTH","timeToLive":60}'
end

function request()
    counter = counter + 1
    return head .. string.format("%012d", counter) .. tail
end

function done(summary, latency, requests)
    local accepted = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
    io.write(string.format('{"requests":%d,"non2xx":%d,"acceptedPerSecond":%.0f,"p50ms":%.2f,"p99ms":%.2f}\n',
        summary.requests, summary.errors.status, accepted / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
