-- wrk script: PUT a new device on each request (unique device id and token), so that every
-- request is a registration through the gateway and Registration's command server.
dofile("Benchmarks/gateway/common.lua")

function init(args)
    run = run_prefix()
    prefix = args[1]
    key = args[2]
end

function request()
    counter = counter + 1
    local device = string.format("d-%s-%d", run, counter)
    local body = string.format('{"platform":"fcm","token":"tok-%s","os":"android","userId":"u-%d","locale":"en"}', device, counter % 1000)
    return wrk.format("PUT", prefix .. device, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key}, body)
end

function done(summary, latency, requests)
    report(summary, latency, "okPerSecond")
end
