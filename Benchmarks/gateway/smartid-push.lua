-- wrk script: POST Smart ID push requests with a unique messageId each, so that every
-- request is a new event the gateway publishes with confirms.
local counter = 0
local thread_id = 0

function setup(thread)
    thread_id = thread_id + 1
    thread:set("id", thread_id)
end

function init(args)
    path = args[1]
    key = args[2]
end

function request()
    counter = counter + 1
    local body = string.format('{"messageId":"bench-%d-%d-%d","pushId":"push-1","requestor":"Bench","type":"AUTH","timeToLive":60}', id, counter, math.random(1, 1000000000))
    return wrk.format("POST", path, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key}, body)
end

function done(summary, latency, requests)
    local accepted = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
    io.write(string.format('{"requests":%d,"non2xx":%d,"acceptedPerSecond":%.0f,"p50ms":%.2f,"p99ms":%.2f}\n',
        summary.requests, summary.errors.status, accepted / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
