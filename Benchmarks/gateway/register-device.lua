-- wrk script: PUT a new device on each request (unique device id and token), so that every
-- request is a registration through the gateway and Registration's command server.
local counter = 0
local thread_id = 0

function setup(thread)
    thread_id = thread_id + 1
    thread:set("id", thread_id)
end

function init(args)
    -- a fresh run prefix: Lua's generator starts from the same seed in every process, and
    -- a repeated id inside the gateway's window would be answered without a publish
    run = string.format("%x%x", os.time(), math.floor(os.clock() * 1000000))
    prefix = args[1]
    key = args[2]
end

function request()
    counter = counter + 1
    local device = string.format("d-%s-%d-%d", run, id, counter)
    local body = string.format('{"platform":"fcm","token":"tok-%s","os":"android","userId":"u-%d","locale":"en"}', device, counter % 1000)
    return wrk.format("PUT", prefix .. device, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key}, body)
end

function done(summary, latency, requests)
    local ok = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
    io.write(string.format('{"requests":%d,"non2xx":%d,"okPerSecond":%.0f,"p50ms":%.2f,"p99ms":%.2f}\n',
        summary.requests, summary.errors.status, ok / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
