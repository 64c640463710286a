-- wrk script: PUT a new device on each request, as register-device.lua, but with a device-side
-- client token instead of the API key: the tokens file's line i is user u-i's token, and
-- request n registers a device of user u-(n mod count) with that user's token.
dofile("Benchmarks/gateway/common.lua")

function init(args)
    run = run_prefix()
    prefix = args[1]
    tokens = {}
    for line in io.lines(args[2]) do tokens[#tokens + 1] = line end
end

function request()
    counter = counter + 1
    local user = counter % #tokens
    local device = string.format("d-%s-%d", run, counter)
    local body = string.format('{"platform":"fcm","token":"tok-%s","os":"android","locale":"en"}', device)
    return wrk.format("PUT", prefix .. device, {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tokens[user + 1]}, body)
end

function done(summary, latency, requests)
    report(summary, latency, "okPerSecond")
end
