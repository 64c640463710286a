-- What both gateway wrk scripts share: a thread id per wrk thread, a run prefix that makes
-- ids unique across runs (Lua's generator starts from the same seed in every process, and a
-- repeated id inside the gateway's window would be answered without a publish), and the
-- JSON summary line scripts/bench-gateway prints. Loaded with dofile from the repository root.
counter = 0
local thread_id = 0

function setup(thread)
    thread_id = thread_id + 1
    thread:set("id", thread_id)
end

-- A fixed-width prefix unique to this run and thread.
function run_prefix()
    return string.format("%08x%06x%02d", os.time(), math.floor(os.clock() * 1000000) % 0x1000000, id % 100)
end

-- Prints {"requests","non2xx","<rate_name>","p50ms","p99ms"} for the answers that were 2xx.
function report(summary, latency, rate_name)
    local ok = summary.requests - summary.errors.status - summary.errors.connect - summary.errors.read - summary.errors.write - summary.errors.timeout
    io.write(string.format('{"requests":%d,"non2xx":%d,"%s":%.0f,"p50ms":%.2f,"p99ms":%.2f}\n',
        summary.requests, summary.errors.status, rate_name, ok / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
