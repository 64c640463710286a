-- wrk script: POST Smart ID push requests with a unique messageId each, so that every
-- request is a new event the gateway publishes with confirms. The request is assembled
-- from a prepared head and a fixed-width id, so wrk spends little CPU of the shared cores.
dofile("Benchmarks/gateway/common.lua")

function init(args)
    local run = run_prefix()
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
    report(summary, latency, "acceptedPerSecond")
end
